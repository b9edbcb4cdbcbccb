"""Issue 20, item 2: ``!deshacer`` / ``!undo`` takes back the last commands that changed the room's play
(anyone's, one per call, the last 20), restoring the stored state exactly; dice rolled stay rolled."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from bot.console import ROOM_ID
from bot.core.table import Table
from tests.transcript import Transcript, assert_gm_only, make_table, play

UNDO_DEPTH = 20
GM = "@gm:local"

# Per game: commands that each change the room's play (sheets, combat, turns), more than 20 of them.
SCRIPTS = {
    "savage": """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Kira @bob:local
@gm:local: !ficha McAvoy dureza 6 parada 5 bennies 2 vigor d8 espiritu d6
@gm:local: !ficha Kira dureza 5 parada 6 bennies 3 vigor d8 espiritu d8
@gm:local: !pnj Orco x2 grupo orcos
@gm:local: !ficha Orco 1 dureza 7
@gm:local: !combate
@gm:local: !iniciativa McAvoy, Kira, Orco 1, Orco 2
@gm:local: !daño Kira 6
@gm:local: !siguiente
@gm:local: !beni Kira -1
@gm:local: !daño Orco 1 12
@gm:local: !siguiente
@gm:local: !entra Rurik
@gm:local: !sale Orco 2
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !beni McAvoy +1
@gm:local: !ficha Kira heridas 2
@gm:local: !siguiente
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !iniciativa
""",
    "stormbringer": """
@gm:local: !pj Elric @ana:local
@gm:local: !pj Moonglum @bob:local
@gm:local: !ficha Elric des 17 pv 14 ataque 85 parada 70
@gm:local: !ficha Moonglum des 15 pv 11 ataque 80 parada 50
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 24
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !daño Orco 1d6+4
@gm:local: !siguiente
@gm:local: !daño Elric 1d4
@gm:local: !siguiente
@gm:local: !entra Rurik
@gm:local: !ficha Rurik des 9
@gm:local: !siguiente
@gm:local: !sale Moonglum
@gm:local: !siguiente
@gm:local: !ficha Elric pv 10
@gm:local: !siguiente
@gm:local: !daño Orco 1d3
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !iniciativa
""",
    "reino": """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha Ana defensa 15 pr 20 pr_max 20 umbral 8 fortaleza 1 pa 2 iniciativa 2
@gm:local: !ficha Bruno defensa 14 pr 15 pr_max 15 umbral 9 fortaleza 2 pa 2 iniciativa 1
@gm:local: !pnj Orco
@gm:local: !ficha Orco defensa 12 pr 10 umbral 6
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !daño Bruno 5
@gm:local: !siguiente
@gm:local: !herida Ana aturdido
@gm:local: !daño Ana 4
@gm:local: !pa mitad
@gm:local: !siguiente
@gm:local: !sana Ana aturdido
@gm:local: !entra Rurik
@gm:local: !siguiente
@gm:local: !sale Orco
@gm:local: !siguiente
@gm:local: !daño Ana 3
@gm:local: !siguiente
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !iniciativa
""",
    "sombra": """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 disparo 16
@gm:local: !ficha Bruno vel 6 agi 8 res 6 disparo 15
@gm:local: !pnj Hans
@gm:local: !ficha Hans vel 6 agi 8 res 4
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !daño Hans 8 pecho
@gm:local: !siguiente
@gm:local: !daño Bruno 9 brazo
@gm:local: !siguiente
@gm:local: !curar Hans
@gm:local: !entra Rurik
@gm:local: !siguiente
@gm:local: !sale Bruno
@gm:local: !siguiente
@gm:local: !daño McAvoy 9 pierna
@gm:local: !siguiente
@gm:local: !ficha McAvoy vel 8
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !iniciativa
""",
}


def _named(command: str) -> str:
    """How an undo names ``command``: an edit of an NPC's sheet by the NPC alone (no sheet numbers)."""
    for npc in ("Orco 1", "Orco", "Hans", "Rurik"):
        if command.startswith(f"!ficha {npc} "):
            return f"!ficha {npc}."
    return command


def _lines(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines() if line.strip()]


def _stored(table: Table) -> dict:
    data = copy.deepcopy(table.store.rooms.load(ROOM_ID) or {})
    data.pop("last_rolls", None)  # the table page's last rolls: dice rolled stay rolled
    data.pop("gm_copies", None)  # the GMs' private copies (issue 30): messages sent stay sent, not the play
    return data


def _handled(table: Table) -> int:
    return int(table.store.db.execute("SELECT count(*) FROM handled").fetchone()[0])


def _say(table: Table, line: str) -> Transcript:
    """One more event after those the table has handled (the console numbers them by line)."""
    return play("# -\n" * _handled(table) + line, table=table)


def _answer(t: Transcript) -> str:
    return "\n".join(a["text"] for a in t.actions if a["action"] == "send")


@pytest.mark.parametrize("system", sorted(SCRIPTS))
def test_twenty_undos_in_a_row_restore_the_stored_state_exactly(system: str) -> None:
    table = make_table(system=system, seed=5)
    steps: list[tuple[str, dict]] = []
    for line in _lines(SCRIPTS[system]):
        before = _stored(table)
        t = _say(table, line)
        assert _stored(table) != before, f"{line} changed nothing: {_answer(t)}"
        steps.append((line.split(": ", 1)[1], before))
    assert len(steps) > UNDO_DEPTH
    for command, before in reversed(steps[-UNDO_DEPTH:]):
        answer = _answer(_say(table, f"{GM}: !deshacer"))
        assert "\n" not in answer and "Deshecho" in answer and _named(command) in answer, (command, answer)
        assert _stored(table) == before, command
    refused = _answer(_say(table, f"{GM}: !undo"))
    assert "20" in refused and "Deshecho" not in refused
    assert _stored(table) == steps[-UNDO_DEPTH][1]


def test_undo_after_a_refusal_names_the_command_before_it_and_undoes_it_on_the_second() -> None:
    """Issue 30: right after the GM's refused command, the first ``!deshacer`` only names the step."""
    table = make_table(system="savage", seed=3)
    play("""
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 bennies 3
""", table=table)
    before = _stored(table)
    _say(table, "@gm:local: !daño Kira 6")
    damaged = _stored(table)
    refused = _answer(_say(table, "@gm:local: !daño Nadie 3"))
    assert "Nadie" in refused and _stored(table) == damaged
    asked = _answer(_say(table, "@gm:local: !deshacer"))
    assert "!daño Kira 6" in asked and "Deshecho" not in asked and _stored(table) == damaged
    answer = _answer(_say(table, "@gm:local: !deshacer"))
    assert "!daño Kira 6" in answer and _stored(table) == before


def test_undo_survives_a_restart_with_db(tmp_path) -> None:
    db = str(tmp_path / "room.db")
    table = make_table(system="sombra", seed=2, db=db)
    play("""
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha Bruno vel 6 agi 8 res 6
""", table=table)
    states = [_stored(table)]
    for line in ("@gm:local: !daño Bruno 8 pecho", "@gm:local: !daño Bruno 10 cabeza", "@gm:local: !curar Bruno"):
        _say(table, line)
        states.append(_stored(table))
    table.store.close()
    restarted = make_table(system="sombra", seed=2, db=db)
    assert _stored(restarted) == states[-1]
    assert "!curar Bruno" in _answer(_say(restarted, "@gm:local: !deshacer"))
    assert _stored(restarted) == states[2] and restarted.room(ROOM_ID).find_character("Bruno").sheet["heridas"]
    assert "!daño Bruno 10 cabeza" in _answer(_say(restarted, "@gm:local: !deshacer"))
    assert _stored(restarted) == states[1]


def test_undo_of_a_combat_start_and_of_its_end() -> None:
    table = make_table(system="savage", seed=3)
    play("""
@gm:local: !pj Kira @bob:local
@gm:local: !pj McAvoy @ana:local
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !siguiente
""", table=table)
    running = _stored(table)
    _say(table, "@gm:local: !combate fin")
    assert table.room(ROOM_ID).combat is None
    assert "!combate fin" in _answer(_say(table, "@gm:local: !deshacer"))
    assert _stored(table) == running and table.room(ROOM_ID).combat.round == 1
    _say(table, "@gm:local: !deshacer")
    _say(table, "@gm:local: !deshacer")
    assert "!combate" in _answer(_say(table, "@gm:local: !deshacer"))
    assert table.room(ROOM_ID).combat is None


def test_undone_command_leaves_the_acta_but_its_dice_stay_in_the_history_and_are_not_rolled_again() -> None:
    script = """
@gm:local: !acta activar
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 bennies 3
@gm:local: !combate
@gm:local: !turnos Kira, Orco
@gm:local: !daño Kira 2d6+4
"""
    undone = make_table(system="savage", seed=8)
    play(script, table=undone)
    entries = undone.store.db.execute("SELECT count(*) FROM acta WHERE event_id = '$6'").fetchone()[0]
    assert entries >= 1
    answer = _answer(_say(undone, "@gm:local: !deshacer"))
    assert "!daño Kira 2d6+4" in answer
    assert undone.store.db.execute("SELECT count(*) FROM acta WHERE event_id = '$6'").fetchone()[0] == 0
    assert undone.store.db.execute("SELECT count(*) FROM acta WHERE event_id = '$7'").fetchone()[0] == 0
    history = _answer(_say(undone, "@bob:local: !historial"))
    assert "2d6+4" in history or "Kira" in history
    assert len(undone.store.rolls.history(ROOM_ID)) == 1
    _say(undone, "@gm:local: !daño Kira 2d6+4")

    kept = make_table(system="savage", seed=8)
    play(script + "@bob:local: !absorber no\n@gm:local: !daño Kira 2d6+4", table=kept)  # issue 30: soak answered first
    first, second = (json.loads(r["dice"]) for r in reversed(undone.store.rolls.history(ROOM_ID)))
    kept_first, kept_second = (json.loads(r["dice"]) for r in reversed(kept.store.rolls.history(ROOM_ID)))
    assert first == kept_first and second == kept_second  # the RNG went on: the undone dice are not dealt again


def test_undo_is_for_the_gm_and_says_so_when_there_is_nothing() -> None:
    assert_gm_only("@gm:local: !pj Kira @bob:local", "@bob:local", "!deshacer", "!undo", system="savage")
    table = make_table(system="savage")
    answer = _answer(_say(table, "@gm:local: !deshacer"))
    assert answer.startswith("ℹ️") and "20" in answer
    assert "!deshacer" in _answer(_say(table, "@gm:local: !deshacer ya"))


def test_commands_that_change_no_play_are_not_undone() -> None:
    """Rolls, rule look-ups and the status board change no play: the undo skips past them."""
    table = make_table(system="savage", seed=3)
    play("""
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 agilidad d8
@bob:local: !tiro d8
@bob:local: !estado
@gm:local: !regla aturdido
""", table=table)
    answer = _answer(_say(table, "@gm:local: !deshacer"))
    assert "!ficha Kira" in answer
    assert table.room(ROOM_ID).find_character("Kira").sheet == {"bennies": 3}  # a new Wild Card's (issue 30)


def test_the_undo_line_shows_no_number_of_an_npc_sheet() -> None:
    table = make_table(system="savage", seed=3)
    play("""
@gm:local: !pnj Orco
@gm:local: !ficha Orco dureza 9 parada 7
""", table=table)
    answer = _answer(_say(table, "@gm:local: !deshacer"))
    assert "!ficha Orco" in answer and "9" not in answer and "7" not in answer
    assert table.room(ROOM_ID).find_character("Orco").sheet == {}


def test_rolbot_console_with_db_undoes_a_command_of_the_run_before(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    script = "@gm:local: !pj Kira @bob:local\n@gm:local: !ficha Kira dureza 5 bennies 3\n@gm:local: !beni Kira -1\n"

    def console(lines: str) -> str:
        cmd = [sys.executable, "-m", "bot.cli", "console", "--system", "savage", "--gm", GM, "--db", db]
        return subprocess.run(cmd, input=lines, text=True, check=True, capture_output=True, timeout=60).stdout

    console(script)
    out = console("@gm:local: !deshacer\n@gm:local: !ficha Kira\n")  # a new run: only the new lines
    assert "↩️ Deshecho: !beni Kira -1." in out
    assert out.rstrip().endswith("Dureza 5, Bennies 3")


def test_the_undo_line_shows_no_macro_of_an_npc_sheet() -> None:
    table = make_table(system="savage", seed=3)
    play("@gm:local: !pnj Orco\n@gm:local: !macro Orco garra = d8+2", table=table)
    answer = _answer(_say(table, "@gm:local: !deshacer"))
    assert answer == "↩️ Deshecho: !macro Orco."


def test_undo_takes_back_only_what_the_command_changed() -> None:
    """What happened since, and is no command to undo (an exploration action, a roll one may still
    reroll), stays. (Issue 21: the roll is Kira's one exploration action, its reroll is not another.)"""
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj Kira @bob:local
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha Kira agilidad d8 bennies 2
@gm:local: !exploracion
@gm:local: !ficha McAvoy dureza 5
@bob:local: ((un momento))
@bob:local: !tiro agilidad
@gm:local: !deshacer
@bob:local: !repetir
@bob:local: /me abre otra puerta
""", table=table)
    assert "!ficha McAvoy dureza 5" in t.text(8)
    room = table.room(ROOM_ID)
    assert room.find_character("McAvoy").sheet == {"bennies": 3}  # a new Wild Card's (issue 30)
    assert "🎲" in "\n".join(t.texts(9)) and room.find_character("Kira").sheet["bennies"] == 1
    assert room.exploration is not None and room.exploration.acted == ["@bob:local"]
    assert t.redacted(10)


def test_an_undo_takes_out_exactly_the_entries_derived_from_its_step() -> None:
    """``!siguiente`` derived a round heading and a turn; undoing it takes out those and nothing the
    earlier steps derived (the combat, the first round and turn), and the undo itself records nothing."""
    script = """
@gm:local: !acta activar
@gm:local: !pnj Orco
@gm:local: !pnj Trasgo
@gm:local: !combate
@gm:local: !turnos Orco, Trasgo
@gm:local: !siguiente
@gm:local: !siguiente
"""
    table = make_table(system="savage", seed=3)
    play(script, table=table)

    def kinds() -> list[tuple[str, str, str]]:
        rows = table.store.db.execute("SELECT event_id, kind, actor FROM acta ORDER BY id").fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    before = kinds()
    last = [row for row in before if row[0] == "$7"]
    assert [kind for _, kind, _ in last] == ["round", "turn"]
    assert "!siguiente" in _answer(_say(table, "@gm:local: !deshacer"))
    assert kinds() == [row for row in before if row[0] != "$7"]
