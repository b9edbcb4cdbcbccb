"""The acta: what a room records (opt-in), sessions, edits and redactions, and the exported document."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.acta import SESSION_GAP
from bot.core.acta_document import NoSuchActa, export
from bot.core.events import Event, Send
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import GM

ROOM = "!console:local"
ANA, BEA = "@ana:local", "@bea:local"
HOUR = 3600 * 1000


class Room:
    """A table fed one event at a time, with event ids ``$1``, ``$2``... and chosen timestamps."""

    def __init__(self, system: str = "generic", db: str | None = None, public_url: str | None = None) -> None:
        settings = TableSettings(RoomSettings(system=system, gms=(GM,), public_url=public_url))
        self.table = Table(Store(db), settings, random.Random(7), games=GAMES)
        self.count = 0
        self.ts = 1_700_000_000_000

    def say(self, sender: str, text: str, *, after: int = 1000, kind: str = "text", edit_of: str = "",
            redacts: str = "", room: str = ROOM, sender_is_admin: bool = False) -> list[str]:
        """Send one event ``after`` ms after the last; returns the bot's plain answers (each merged send's
        parts: one send per readers and event, issue 30)."""
        self.count += 1
        self.ts += after
        if redacts:
            kind, target, edit = "redaction", redacts, False
        else:
            target, edit = edit_of, bool(edit_of)
        event = Event(room, sender, text, f"${self.count}", kind=kind, ts=self.ts, edit=edit, target=target,  # type: ignore[arg-type]
                      sender_is_admin=sender_is_admin)
        return [part for a in self.table.handle(event) if isinstance(a, Send) for part in a.parts or (a.message.body,)]

    def play(self, script: str) -> None:
        for line in script.strip().splitlines():
            sender, _, text = line.strip().partition(": ")
            self.say(sender, text)

    def document(self, fmt: str = "md", **options: object) -> str:
        return export(self.table.store, self.table.renderer, ROOM, fmt, **options)  # type: ignore[arg-type]

    def kinds(self) -> list[tuple[str, str]]:
        entries = self.table.store.acta.entries(ROOM, self.table.store.acta.sessions(ROOM))
        return [(e.kind, e.text) for e in entries]


SESSION = """
@gm:local: !acta activar
@ana:local: !pj Ana
@bea:local: !pj Bea
@gm:local: La posada huele a humo. Un forastero entra empapado.
@ana:local: ¿Quién eres, extraño?
@bea:local: ((perdón, voy a por café))
@bea:local: off: vuelvo en 5
@bea:local: /me desenvaina la espada
@gm:local: !combate
@gm:local: !turnos Ana Bea Orco
@ana:local: !tiro 1d20+2 ataque
@bea:local: !tiro 2d6
@ana:local: !siguiente
@bea:local: !tiro 2d6 golpe
@bea:local: !siguiente
@gm:local: !tiro 1d8 oculta
@gm:local: /me ruge y levanta el hacha
@gm:local: !siguiente
@gm:local: -----
@ana:local: ¡Cuidado!
@gm:local: El orco cae de rodillas.
@gm:local: -----
@ana:local: Remato al orco.
@gm:local: !combate fin
"""

EXPECTED = """# Acta de la mesa

## Sesión 1 · 14/11/2023

La posada huele a humo. Un forastero entra empapado.

**Ana:** ¿Quién eres, extraño?

*Bea desenvaina la espada*

### ⚔️ Combate

#### Ronda 1

- Ana · 🎲 1d20+2 (ataque): \\[7\\] = 9

- Bea · 🎲 2d6 (golpe): \\[1, 4\\] = 5

*Orco ruge y levanta el hacha*

#### Ronda 2

El orco cae de rodillas.

**Ana:** Remato al orco.

*Fin del combate.*
"""


def test_a_scripted_session_gives_exactly_its_story_in_order() -> None:
    """Narration, dialogue and actions, a combat of two rounds with its rolls; not the OOC chatter,
    the roll refused out of turn, the hidden roll, the post refused by the lock, the commands or
    the locks; then a redacted message leaves the document."""
    room = Room()
    room.play(SESSION)
    assert room.say(ANA, "Mensaje que luego borraré.") == []
    assert "Mensaje que luego borraré" in room.document()
    room.say(ANA, "", redacts=f"${room.count}")
    assert room.document() == EXPECTED


def test_the_hidden_roll_and_the_refused_roll_were_made_but_not_recorded() -> None:
    room = Room()
    room.play(SESSION)
    texts = [text for kind, text in room.kinds() if kind == "roll"]
    assert len(texts) == 2
    assert not any("1d8" in t for t in texts)  # the GM's hidden roll
    assert room.table.room(ROOM).last_rolls == [{"who": "Ana", "text": texts[0]}, {"who": "Bea", "text": texts[1]}]


def test_a_players_secret_roll_stays_out_of_the_acta_and_the_page_until_revealed() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@ana:local: !tiro 1d12 oculta")
    assert [kind for kind, _ in room.kinds() if kind == "roll"] == []
    assert room.table.room(ROOM).last_rolls == []
    room.say(GM, "!revelar")
    rolls = [text for kind, text in room.kinds() if kind == "roll"]
    assert len(rolls) == 1 and "1d12" in rolls[0]
    assert [r["who"] for r in room.table.room(ROOM).last_rolls] == ["Ana"]


def test_locks_and_turns_are_recorded_but_left_out_of_the_document() -> None:
    room = Room()
    room.play(SESSION)
    kinds = [kind for kind, _ in room.kinds()]
    assert kinds.count("lock") == 2
    assert kinds.count("turn") == 4  # Ana, Bea, Orco, then Ana again in round 2
    assert kinds.count("round") == 2


def test_a_change_of_state_is_recorded_and_a_new_round_is_not_one() -> None:
    room = Room(system="savage")
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@gm:local: !pnj Orco comodín\n@gm:local: !ficha Orco dureza 5\n"
              "@gm:local: !combate\n@gm:local: !iniciativa")
    assert [k for k, _ in room.kinds()].count("state") == 0
    room.say(GM, "!daño Orco 9")
    states = [(e.actor, e.data) for e in room.table.store.acta.entries(ROOM, [1]) if e.kind == "state"]
    assert len(states) == 1
    name, data = states[0]
    assert name == "Orco" and "aturdido" in data["after"] and "aturdido" not in data["before"]
    assert f"- *Orco: {', '.join(data['after'])}*" in room.document()
    for _ in range(2):  # to the next round: new cards for everyone, no state entries
        room.say(GM, "!siguiente")
    assert room.table.room(ROOM).combat.round == 2  # type: ignore[union-attr]
    assert [k for k, _ in room.kinds()].count("state") == 1


def test_nothing_is_recorded_until_the_gm_turns_it_on_and_after_they_turn_it_off() -> None:
    room = Room()
    room.say(GM, "Antes del acta.")
    assert room.say(ANA, "!acta") == [
        "📜 El acta de esta sala no está activada: el máster la activa con !acta activar."]
    assert room.say(ANA, "!acta activar")[0].startswith("⛔ Solo el máster")
    assert room.table.room(ROOM).acta.on is False
    answer = room.say(GM, "!acta activar")
    assert answer[0].startswith("📜 El acta de esta sala está activada") and "en claro" in answer[0]
    room.say(GM, "Durante el acta.")
    answer = room.say(GM, "!acta desactivar")
    assert answer[0].startswith("📜 El acta de esta sala está desactivada")
    room.say(GM, "Después del acta.")
    assert room.kinds() == [("narration", "Durante el acta.")]


def test_an_edit_updates_the_entry_and_an_edit_out_of_character_removes_it() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(ANA, "Hola a todos")
    first = f"${room.count}"
    room.say(ANA, "/me saluda")
    second = f"${room.count}"
    room.say(ANA, "Hola a todos, soy Ana", edit_of=first)
    room.say(ANA, "((me equivoqué))", edit_of=second)
    assert room.kinds() == [("dialogue", "Hola a todos, soy Ana")]
    room.say(ANA, "/me hace una reverencia", edit_of=first)
    assert room.kinds() == [("action", "hace una reverencia")]


def test_an_edit_refused_by_the_lock_changes_nothing() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(ANA, "Hola")
    first = f"${room.count}"
    room.say(GM, "-----")
    room.say(ANA, "Adiós", edit_of=first)
    assert ("dialogue", "Hola") in room.kinds()


def test_a_roll_whose_request_is_deleted_keeps_its_result() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@ana:local: !tiro 2d6 fuerza")
    request = f"${room.count}"
    room.say(ANA, "", redacts=request)
    assert [kind for kind, _ in room.kinds()] == ["roll"]


def test_a_gap_of_more_than_six_hours_opens_a_new_session_and_six_hours_does_not() -> None:
    room = Room()
    room.say(GM, "!acta activar")
    room.say(GM, "Primera escena.")
    room.say(GM, "Seis horas justas después.", after=SESSION_GAP)
    room.say(GM, "Un milisegundo más de seis horas después.", after=SESSION_GAP + 1)
    store = room.table.store
    assert store.acta.sessions(ROOM) == [1, 2]
    assert [e.text for e in store.acta.entries(ROOM, [2])] == ["Un milisegundo más de seis horas después."]
    assert "## Sesión 2" in room.document() and "Primera escena" not in room.document()
    assert "Primera escena" in room.document(session=1)
    everything = room.document(every=True)
    assert everything.index("## Sesión 1") < everything.index("Primera escena") < everything.index("## Sesión 2")


def test_the_console_timestamps_are_line_numbers_and_never_cut_a_session() -> None:
    from tests.transcript import make_table, play

    table = make_table()
    play("@gm:local: !acta activar\n@gm:local: Uno.\n" + "@gm:local: Otra línea.\n" * 50, table=table)
    assert table.store.acta.sessions(ROOM) == [1]


def test_sesion_starts_and_ends_sessions() -> None:
    room = Room()
    assert room.say(GM, "!sesion") == ["📜 El acta de esta sala no está activada: el máster la activa con !acta activar."]
    room.say(GM, "!acta activar")
    assert room.say(GM, "!sesion") == ["📜 Empieza la sesión 1 del acta."]
    room.say(GM, "Escena uno.")
    assert room.say(GM, "!sesion") == ["📜 Empieza la sesión 2 del acta."]
    room.say(GM, "Escena dos.")
    assert room.say(GM, "!sesion fin") == ["📜 Termina la sesión 2 del acta."]
    assert room.say(GM, "!sesion fin") == ["📜 No hay ninguna sesión abierta: !sesion empieza una."]
    room.say(GM, "Escena tres, sin sesión abierta: abre la 3.")
    store = room.table.store
    assert store.acta.sessions(ROOM) == [1, 2, 3]
    assert [e.text for e in store.acta.entries(ROOM, [3])] == ["Escena tres, sin sesión abierta: abre la 3."]
    assert room.say(ANA, "!sesion")[0].startswith("⛔ Solo el máster")


def test_acta_borrar_deletes_sessions_and_only_the_gm_may() -> None:
    room = Room()
    room.say(GM, "!acta activar")
    for n in (1, 2, 3):
        room.say(GM, "!sesion")
        room.say(GM, f"Escena {n}.")
    assert room.say(ANA, "!acta borrar 2")[0].startswith("⛔ Solo el máster")
    assert room.say(GM, "!acta borrar 2") == ["🗑️ Borrada del acta la sesión 2."]
    assert room.table.store.acta.sessions(ROOM) == [1, 3]
    assert room.say(GM, "!acta borrar dos")[0].startswith("ℹ️ Uso: !acta")
    assert room.say(GM, "!acta borrar 3") == ["🗑️ Borrada del acta la sesión 3."]
    room.say(GM, "Tras borrar la sesión abierta, una nueva.")
    assert room.table.store.acta.sessions(ROOM) == [1, 4]
    assert room.say(GM, "!acta borrar todo") == ["🗑️ Borrada toda el acta de esta sala."]
    assert room.table.store.acta.sessions(ROOM) == []
    with pytest.raises(NoSuchActa):
        room.document()


def test_a_refused_command_records_nothing() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    before = room.table.room(ROOM).to_dict()
    answer = room.say(ANA, "!tiro 2d")
    assert answer and answer[0].startswith("⚠️ «2d» no es una tirada")
    assert room.kinds() == []
    assert room.table.room(ROOM).to_dict() == before


def test_user_text_never_becomes_markup_in_either_format() -> None:
    room = Room()
    room.play("@gm:local: !acta activar")
    room.say(ANA, "!pj <img src=x onerror=alert(1)>*Ana*")
    hostile = "# Título falso\n- lista\n1. uno\n> cita\n<script>alert(1)</script> **negrita** [enlace](http://x) `code` &amp;"
    room.say(GM, hostile)
    room.say(ANA, "/me <b>grita</b> _fuerte_")
    md = room.document()
    assert "\\# Título falso  \n\\- lista  \n1\\. uno  \n\\> cita  \n\\<script\\>alert(1)\\</script\\> \\*\\*negrita\\*\\*" in md
    assert "\\[enlace\\](http\\://x) \\`code\\` \\&amp;" in md
    assert "<script>" not in md and "<b>" not in md
    html = room.document("html")
    assert "<script>" not in html and "<b>grita" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;grita&lt;/b&gt;" in html


def test_odd_session_numbers_are_refused_with_the_usage() -> None:
    room = Room(public_url="https://rol.example.org")
    room.play("@gm:local: !acta activar\n@gm:local: Escena.")
    for text in ("!acta ²", "!acta 1234567", "!acta -1", "!acta 1 2", "!acta borrar ²", "!acta borrar 1234567",
                 "!acta borrar " + " ".join(["1"] * 21)):
        before = room.table.room(ROOM).to_dict()
        assert room.say(GM, text)[0].startswith("ℹ️ Uso: !acta"), text
        assert room.table.room(ROOM).to_dict() == before
    assert room.table.store.acta.sessions(ROOM) == [1]


def test_mesa_needs_a_public_url_and_gives_a_long_random_token() -> None:
    room = Room()
    assert room.say(GM, "!mesa")[0].startswith("🌐 El bot no tiene dirección web pública")
    assert room.table.room(ROOM).page_token is None
    room = Room(public_url="https://rol.example.org")
    assert room.say(ANA, "!mesa")[0].startswith("⛔ Solo el máster")
    answer = room.say(GM, "!mesa")[0]
    token = room.table.room(ROOM).page_token
    assert token is not None and len(token) >= 32  # 24 random bytes in base64url: 192 bits
    assert f"https://rol.example.org/mesa/{token} " in answer
    assert room.say(GM, "!mesa")[0] == answer
    renewed = room.say(GM, "!mesa nueva")[0]
    new_token = room.table.room(ROOM).page_token
    assert new_token != token and f"/mesa/{new_token} " in renewed and renewed.startswith("🗺️ Enlace anterior anulado")
    assert room.say(GM, "!mesa vieja")[0].startswith("ℹ️ Uso: !mesa")


def test_acta_links_name_the_session_and_the_page_token() -> None:
    room = Room(public_url="https://rol.example.org/")
    room.play("@gm:local: !acta activar\n@gm:local: Escena.\n@gm:local: !mesa")
    answer = room.say(ANA, "!acta")[0]
    token = room.table.room(ROOM).page_token
    base = f"https://rol.example.org/mesa/{token}"
    assert answer == f"📜 Acta, última sesión: {base}/acta/ultima.html (Markdown: {base}/acta/ultima.md)"
    assert room.say(ANA, "!acta 1")[0] == f"📜 Acta, sesión 1: {base}/acta/1.html (Markdown: {base}/acta/1.md)"
    assert room.say(ANA, "!acta 2") == ["📜 No hay sesión 2 en el acta (hay: 1)."]


def test_the_record_survives_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "rolbot.sqlite3")
    room = Room(db=db)
    room.play("@gm:local: !acta activar\n@gm:local: Antes del reinicio.")
    again = Room(db=db)
    again.count, again.ts = room.count, room.ts
    again.say(GM, "Después del reinicio.")
    assert again.kinds() == [("narration", "Antes del reinicio."), ("narration", "Después del reinicio.")]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "acta", *args], capture_output=True, text=True, timeout=60)


def test_rolbot_acta_prints_the_last_session_or_the_ones_asked_for(tmp_path: Path) -> None:
    db = str(tmp_path / "rolbot.sqlite3")
    room = Room(db=db)
    room.play("@gm:local: !acta activar\n@gm:local: !sesion\n@gm:local: Escena uno.\n"
              "@gm:local: !sesion\n@gm:local: Escena <dos>.")
    room.table.store.close()
    last = _cli("--db", db, "--room", ROOM)
    assert last.returncode == 0 and "## Sesión 2" in last.stdout and "Escena \\<dos\\>." in last.stdout
    assert "Escena uno" not in last.stdout
    first = _cli("--db", db, "--room", ROOM, "--sesion", "1")
    assert "Escena uno." in first.stdout and "Sesión 2" not in first.stdout
    both = _cli("--db", db, "--room", ROOM, "--todas", "--format", "html")
    assert both.returncode == 0 and both.stdout.startswith("<!DOCTYPE html>")
    assert both.stdout.index("Escena uno.") < both.stdout.index("Escena &lt;dos&gt;.")


def test_rolbot_acta_errors_are_one_spanish_line_and_exit_2(tmp_path: Path) -> None:
    db = str(tmp_path / "rolbot.sqlite3")
    Room(db=db).play("@gm:local: !acta activar\n@gm:local: Escena.")
    cases = [
        (("--db", str(tmp_path / "no.sqlite3"), "--room", ROOM), "no existe la base de datos"),
        (("--db", db, "--room", "!otra:local"), "no tiene nada en el acta"),
        (("--db", db, "--room", ROOM, "--sesion", "9"), "no tiene sesión 9 en el acta (hay: 1)"),
    ]
    for args, expected in cases:
        result = _cli(*args)
        assert result.returncode == 2 and result.stdout == ""
        assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "no.sqlite3").exists()


MARKUP = set("\\`*_[]<>|~&@")
FRAGMENTS = st.sampled_from(["a", "b", " ", "#", ">", "+", "=", "-", "1", ".", ")", "\\", "`", "*", "_", "[", "]", "<",
                             ">", "|", "~", "&", "!", "(", "\n", "\r", "\t", "    ", "\n\n", "\n \n", "https://", "http://",
                             "HTTPS://", "www.", "WWW.", "ftp://", "mailto:", ":", "/", "@", "ana@example.org", "x.com"])


@given(st.lists(FRAGMENTS, max_size=30).map("".join))
def test_markdown_escaping_leaves_no_live_markup(text: str) -> None:
    """Every markup character comes escaped; no line starts a heading, quote, list, rule or code
    block; no blank line splits a message (it would end its paragraph or its italics); nothing
    makes an autolink (``https://``, ``www.``, an e-mail address)."""
    from bot.core.render import markdown_text

    escaped = markdown_text(text)
    plain, i = [], 0
    while i < len(escaped):
        if escaped[i] == "\\" and i + 1 < len(escaped):
            plain.append("x")  # an escaped character: literal
            i += 2
            continue
        assert escaped[i] not in MARKUP, (text, escaped)
        plain.append(escaped[i])
        i += 1
    literal = "".join(plain)
    assert "://" not in literal and "www." not in literal.lower() and "mailto:" not in literal.lower(), (text, escaped)
    lines = literal.split("\n")
    for line in lines:
        assert line.strip() or len(lines) == 1, (text, escaped)
        assert line[:1] not in (" ", "\t"), (text, escaped)
        stripped = line.lstrip(" \t")
        assert stripped[:1] not in ("#", ">", "+", "=", "-"), (text, escaped)
        digits = len(stripped) - len(stripped.lstrip("0123456789"))
        assert not (digits and stripped[digits:digits + 1] in (".", ")")), (text, escaped)


def test_only_the_sender_may_edit_their_entry_and_only_they_or_the_gm_may_delete_it() -> None:
    """Matrix lets anyone send an edit or a redaction naming any event: the record checks who sent it."""
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@bea:local: !pj Bea")
    room.say(ANA, "Lo que dice Ana.")
    anas = f"${room.count}"
    room.say(BEA, "Bea reescribe lo de Ana.", edit_of=anas)
    room.say(BEA, "((fuera de personaje))", edit_of=anas)
    room.say(BEA, "", redacts=anas)
    assert room.kinds() == [("dialogue", "Lo que dice Ana.")]
    room.say(ANA, "Lo que dice Ana, corregido.", edit_of=anas)
    assert room.kinds() == [("dialogue", "Lo que dice Ana, corregido.")]
    room.say(GM, "", redacts=anas)
    assert room.kinds() == []
    room.say(BEA, "Lo que dice Bea.")
    beas = f"${room.count}"
    room.say("@mod:local", "", redacts=beas, sender_is_admin=True)
    assert room.kinds() == []
    room.say(BEA, "Otra de Bea.")
    room.say(BEA, "", redacts=f"${room.count}")
    assert room.kinds() == []
    rows = room.table.store.db.execute("SELECT sender FROM acta").fetchall()
    assert rows == []
    room.say(ANA, "Ana otra vez.")
    assert room.table.store.db.execute("SELECT sender FROM acta").fetchall() == [(ANA,)]


def test_entries_recorded_before_the_sender_column_keep_their_text_and_only_the_gm_may_delete_them(
        tmp_path: Path) -> None:
    import sqlite_utils

    from bot.core.store import MIGRATIONS

    db = str(tmp_path / "rolbot.sqlite3")
    old = sqlite_utils.Database(db)
    for migration in MIGRATIONS[:5]:
        migration(old)
    old.execute("PRAGMA user_version = 5")
    old.execute("INSERT INTO acta (room_id, session, event_id, ts, kind, actor, text, data)"
                " VALUES (?, 1, '$old', 1, 'dialogue', 'Ana', 'De antes.', '{}')", [ROOM])
    old.conn.commit()
    old.conn.close()
    room = Room(db=db)
    room.say(ANA, "Editado por cualquiera.", edit_of="$old")
    room.say(ANA, "", redacts="$old")
    assert room.kinds() == [("dialogue", "De antes.")]
    room.say(GM, "", redacts="$old")
    assert room.kinds() == []


@pytest.mark.parametrize("ts", [2**53 - 1, 2**62, 253402300800000])
def test_a_timestamp_no_calendar_can_write_gives_a_session_without_a_date(ts: int) -> None:
    """Transports bound the time (``bot/matrix/translate.py``); the exporter still never fails on one."""
    room = Room()
    room.say(GM, "!acta activar")
    room.ts = ts - 1
    room.say(GM, "Desde muy lejos.")
    assert room.document() == "# Acta de la mesa\n\n## Sesión 1\n\nDesde muy lejos.\n"
    assert "<h2>Sesión 1</h2>" in room.document("html")


def test_acta_links_and_erasing_name_only_sessions_the_record_has() -> None:
    """``!sesion`` gives a number even if nothing is written in it, and erased sessions are gone: no
    link may point at a document that is not there, and no deletion is claimed that did not happen."""
    room = Room(public_url="https://rol.example.org")
    room.say(GM, "!mesa")
    room.play("@gm:local: !acta activar\n@gm:local: Escena uno.\n@gm:local: !sesion\n@gm:local: !sesion\n"
              "@gm:local: Escena tres.")
    assert room.table.store.acta.sessions(ROOM) == [1, 3]
    assert room.say(ANA, "!acta 2") == ["📜 No hay sesión 2 en el acta (hay: 1, 3)."]
    assert room.say(ANA, "!acta 3")[0].startswith("📜 Acta, sesión 3: ")
    for numbers, missing in (("99", "99"), ("0 1", "0"), ("1 2 3", "2"), (" ".join(map(str, range(1, 21))), "2, 4, 5")):
        answer = room.say(GM, f"!acta borrar {numbers}")
        word = "sesiones" if "," in missing else "sesión"
        assert len(answer) == 1 and answer[0].startswith(f"📜 No hay {word} {missing}"), answer
        assert room.table.store.acta.sessions(ROOM) == [1, 3]
    assert room.say(GM, "!acta borrar todo") == ["🗑️ Borrada toda el acta de esta sala."]
    for text in ("!acta", "!acta 1", "!acta borrar 1", "!acta borrar todo"):
        assert room.say(GM, text) == ["📜 Todavía no hay nada en el acta de esta sala."], text


def test_the_gms_action_during_a_players_turn_is_nobodys_and_during_an_npcs_turn_is_the_npcs() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@gm:local: !pnj Orco\n@gm:local: !combate\n"
              "@gm:local: !turnos Ana Orco")
    room.say(GM, "/me hace temblar el suelo")
    room.say(GM, "El techo cruje.")
    room.say(ANA, "!siguiente")
    room.say(GM, "/me ruge")
    actions = [(e.kind, e.actor, e.text) for e in room.table.store.acta.entries(ROOM, [1])
               if e.kind in ("action", "narration")]
    assert actions == [("action", "", "hace temblar el suelo"), ("narration", "", "El techo cruje."),
                       ("action", "Orco", "ruge")]
    assert "*hace temblar el suelo*" in room.document() and "*Orco ruge*" in room.document()


def test_only_the_gm_makes_the_table_pages_token() -> None:
    """``!mesa`` is the GM's: a player's ``!acta`` gives no link until the GM made one."""
    room = Room(public_url="https://rol.example.org")
    room.play("@gm:local: !acta activar\n@gm:local: Escena.")
    assert room.say(ANA, "!acta") == ["📜 Esta sala aún no tiene página de la mesa: pide al máster que la cree con !mesa."]
    assert room.say(ANA, "!acta 1") == room.say(ANA, "!acta")
    assert room.table.room(ROOM).page_token is None
    room.say(GM, "!mesa")
    token = room.table.room(ROOM).page_token
    assert token is not None and f"/mesa/{token}/acta/ultima.html" in room.say(ANA, "!acta")[0]
    other = Room(public_url="https://rol.example.org")
    other.play("@gm:local: !acta activar\n@gm:local: Escena.")
    assert "/acta/ultima.html" in other.say(GM, "!acta")[0] and other.table.room(ROOM).page_token is not None


def test_a_roll_is_one_compact_line_of_its_stored_result_not_the_whole_chat_message() -> None:
    room = Room(system="savage")
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana\n@gm:local: !pnj Orco\n@gm:local: !ficha Orco dureza 5\n"
              "@gm:local: !combate\n@gm:local: !iniciativa")
    message = room.say(GM, "!daño Orco 2d6+3")[0]
    assert message.count("\n") == 0  # the target, its new state and the damage in one line (issue 30)
    roll = next(e for e in room.table.store.acta.entries(ROOM, [1]) if e.kind == "roll")
    result = roll.data["result"]
    dice = ", ".join(map(str, result["dice"]))
    assert roll.actor == "Orco"  # issue 20: the NPC whose turn it is, never the GM's user id
    # Issue 29: the NPC's damage keeps its dice and outcome; its expression and total are the GMs'.
    assert "expr" not in result and "total" not in result
    line = f"- Orco · 🎲 daño: \\[{dice}\\] → heridas"
    document = room.document()
    assert line in document.splitlines()
    assert "vs Dureza" not in document and "(total 1)" not in document and "+ 3" not in document
    assert f"🎲 daño: [{dice}]" in room.document("html")


def test_a_message_with_blank_lines_and_links_stays_one_plain_paragraph() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(ANA, "/me lee el cartel:\n\n    https://ejemplo.org y www.ejemplo.org\n \nana@ejemplo.org")
    assert room.document().endswith(
        "*Ana lee el cartel:  \nhttps\\://ejemplo.org y www\\.ejemplo.org  \nana\u2060\\@ejemplo.org*\n")


def test_a_message_adds_at_most_max_text_characters_to_the_record() -> None:
    from bot.core.acta import MAX_TEXT

    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(ANA, "palabra " * 2000)
    first = f"${room.count}"
    room.say(ANA, "/me " + "x" * 9000)
    room.say(ANA, "otra " * 3000, edit_of=first)
    assert [len(text) for _, text in room.kinds()] == [MAX_TEXT, MAX_TEXT]
