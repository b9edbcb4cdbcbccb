"""A character's sheet is kept per game: after ``!sistema`` it works in the new game, and the old
game's state waits apart until the room plays that game again (a database from before reads the same)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from bot.core.events import Event, Send
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import make_table, play

FIXTURE = Path(__file__).parent / "fixtures" / "main_7f6c244.sql"
WOUNDED = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Vigor d8, Pelear d8, Parada 5, Dureza 6
@gm:local: !ficha Kira heridas 2
@bob:local: !macro tiro = Pelear vs 4
@gm:local: !sistema sombra
"""
FAILED = "Algo ha fallado"


def answers(t, first: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [a["text"] for a in t.actions if a["action"] == "send" and int(a["id"][1:].split("/")[0]) >= first]


def test_a_wounded_savage_character_plays_on_in_sombra_and_gets_its_wounds_back() -> None:
    table = make_table(system="savage")
    t = play(WOUNDED + """
@bob:local: !ficha Kira
@bob:local: !tiro Pistola
@gm:local: !ficha Kira RES 5, Pistola 20
@bob:local: !tiro Pistola
@gm:local: !daño Kira 6 brazo
@bob:local: !tiro Pistola sin estado
@gm:local: !sistema savage
@bob:local: !ficha Kira
@bob:local: !tiro tiro
@gm:local: !sistema sombra
@bob:local: !ficha Kira
""", table)
    assert not any(FAILED in text for text in answers(t, 1))
    assert "heridas" not in t.text(6) and "parada" not in t.text(6).lower()
    assert "pistola" in t.text(7).lower()  # asks for the skill: Sombra's own sheet is empty
    assert "Pistola 20" in t.text(9)
    back = t.text(13)
    assert "Parada 5" in back and "Heridas 2" in back and "Pistola" not in back and "RES" not in back
    assert "heridas -2" in t.text(14)  # the Savage wound penalty is back on the macro's roll
    again = t.text(16)
    assert "Pistola 20" in again and "Parada" not in again
    kira = table.room("!console:local").characters["kira"]
    assert kira.game == "sombra" and kira.other_sheets["savage"]["heridas"] == 2
    assert isinstance(kira.sheet["heridas"], dict)


def test_a_combat_across_a_switch_keeps_each_games_data_apart() -> None:
    """The combat's order and round are the table's; what a game keeps in it (Savage's deck and
    cards) is that game's, and comes back with it."""
    table = make_table(system="savage")
    t = play("""
@gm:local: !pj Kira @bob:local
@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !iniciativa Kira Orco
@gm:local: !sistema reino
@gm:local: !estado
@gm:local: !siguiente
@gm:local: !sistema savage
@gm:local: !estado
""", table)
    assert not any(FAILED in text for text in answers(t, 1))
    assert "🂠" not in t.text(6)
    assert "🂠" in t.text(9)
    combat = table.room("!console:local").combat
    assert combat is not None and combat.game == "savage" and "deck" in combat.data


def test_the_configured_game_changing_between_runs_switches_the_sheets_too(tmp_path) -> None:
    """A room that never ran ``!sistema`` plays the configured game: when the config names another
    one, the sheets follow it as they would a ``!sistema``."""
    db = str(tmp_path / "rolbot.db")
    play("@gm:local: !pj Kira @bob:local\n@gm:local: !ficha Kira Parada 5, heridas 2", make_table(system="savage", db=db))
    handled = "# lines handled before\n" * 2  # event ids are line numbers: later runs start after them
    t = play(handled + "@bob:local: !ficha Kira\n@bob:local: !tiro Pistola", make_table(system="sombra", db=db))
    assert "parada" not in t.text(3).lower() and FAILED not in t.text(4)
    t = play(handled * 2 + "@bob:local: !ficha Kira", make_table(system="savage", db=db))
    assert "Parada 5, Bennies 3, Heridas 2" in t.text(5)  # a new Wild Card's 3 bennies (issue 30)


def _fixture_table(tmp_path: Path) -> Table:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(FIXTURE.read_text(encoding="utf-8"))
    settings = TableSettings(RoomSettings(system="savage", gms=("@gm:local",)))
    return Table(Store(str(db)), settings, random.Random(3), games=GAMES)


def _say(table: Table, room: str, sender: str, text: str, n: int) -> str:
    sends = [a for a in table.handle(Event(room, sender, text, f"$new{n}", ts=1000 + n)) if isinstance(a, Send)]
    return "\n".join(s.message.body for s in sends)


def test_a_database_made_by_main_before_sheets_were_per_game_opens_and_keeps_its_state(tmp_path) -> None:
    table = _fixture_table(tmp_path)
    sheet = _say(table, "!savage:local", "@bob:local", "!ficha Kira", 1)
    assert "Parada 5, Dureza 6, Bennies 3, Heridas 2" in sheet and "Macro tiro = Disparar vs 4" in sheet
    assert "heridas -2" in _say(table, "!savage:local", "@bob:local", "!tiro tiro", 2)
    assert "Grupo orcos" in _say(table, "!savage:local", "@gm:local", "!ficha Orco 2", 3)
    _say(table, "!savage:local", "@gm:local", "!sistema sombra", 4)
    assert FAILED not in _say(table, "!savage:local", "@bob:local", "!tiro Pistola", 5)
    _say(table, "!savage:local", "@gm:local", "!sistema savage", 6)
    assert "Heridas 2" in _say(table, "!savage:local", "@bob:local", "!ficha Kira", 7)


def test_a_sheet_main_had_already_mixed_across_a_switch_is_split_by_game(tmp_path) -> None:
    """On main, ``!sistema sombra`` left Hans's Savage keys in his sheet: reading it now, each key
    goes to the game whose field it is (``heridas 1`` to Savage), so Sombra plays it."""
    table = _fixture_table(tmp_path)
    sheet = _say(table, "!switched:local", "@ana:local", "!ficha Hans", 1)
    assert "RES 5, Pistola 20" in sheet and "heridas" not in sheet and "parada" not in sheet.lower()
    assert FAILED not in _say(table, "!switched:local", "@gm:local", "!daño Hans 6 brazo", 2)
    assert FAILED not in _say(table, "!switched:local", "@ana:local", "!tiro Pistola", 3)
    _say(table, "!switched:local", "@gm:local", "!sistema savage", 4)
    assert "Vigor d6, Parada 4, Dureza 5, Heridas 1" in _say(table, "!switched:local", "@ana:local", "!ficha Hans", 5)
