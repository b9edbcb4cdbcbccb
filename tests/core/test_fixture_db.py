"""A database made by an earlier rolbot opens with today's code, migrates, and keeps its state.

``tests/fixtures/main-7f6c244.sqlite3`` was made by ``main`` at commit 7f6c244 (schema 7), from a
clean export of that commit, with the console and the lines of ``SCRIPT``::

    git archive 7f6c244 | tar -x -C /tmp/main-7f6c244 && cd /tmp/main-7f6c244
    python -m bot.cli console --gm @gm:local --seed 7 --db tests/fixtures/main-7f6c244.sqlite3 < script.txt

A room playing Savage with the acta on: a character with a sheet and a macro, an NPC, a narration,
an action, a public and a secret roll, a combat in round 1 with its deck dealt, a grant spent on a
roll against the NPC, and a named lock still open. When a change needs a new migration, this file
stays as it is: it is what the self-hosters' databases look like.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.console import ROOM_ID
from bot.core.events import Event
from bot.core.store import SCHEMA_VERSION
from tests.transcript import make_table, play

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "main-7f6c244.sqlite3"
FIXTURE_SCHEMA = 7
SCRIPT = """
@gm:local: !sistema savage
@gm:local: !acta activar
@gm:local: !pj Kira @ana:local
@gm:local: !ficha Kira Agilidad d8, Disparar d8, Pelear d6, Notar d6, Parada 5, Dureza 6, Bennies 3, Arma Rifle, Daño 2d8
@gm:local: !pnj Orco
@gm:local: !ficha Orco Parada 7, Dureza 7, Pelear d8
@ana:local: !macro rafaga = rof 3 d8
@gm:local: La taberna huele a humo y a cerveza agria.
@ana:local: /me desenfunda el rifle
@ana:local: !tiro Disparar vs 6
@ana:local: !tiro Notar oculta
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !permite Kira
@ana:local: !tiro Pelear contra Orco
@gm:local: ---------- (Kira)
"""
AFTER = """
@bob:local: ¿puedo hablar?
@gm:local: ----------
@gm:local: !estado
@gm:local: !ficha Kira
@gm:local: !historial
@gm:local: !revelar Kira
@gm:local: !siguiente
@ana:local: !tiro rafaga
@gm:local: !acta
"""
EVENTS = sum(1 for line in SCRIPT.splitlines() if line.strip())


def _copied_before(action: dict) -> bool:
    """A digest of the GMs' copies of the script's rolls, which the never-stopped table kept in combat
    (issue 30): ``main`` at 7f6c244 sent each copy with its roll, so the reopened table has none kept."""
    return bool(action.get("gm_copy")) and int(action["roll_id"][1:].split("/")[0]) <= EVENTS


def _copy(tmp_path: Path) -> Path:
    db = tmp_path / "rolbot.sqlite3"
    shutil.copyfile(FIXTURE, db)
    return db


def test_the_fixture_is_what_main_wrote() -> None:
    with sqlite3.connect(f"file:{FIXTURE}?immutable=1", uri=True) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == FIXTURE_SCHEMA <= SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM handled").fetchone()[0] == EVENTS
    assert FIXTURE.stat().st_size < 256 * 1024 and not FIXTURE.with_name(FIXTURE.name + "-wal").exists()


def test_a_database_made_by_main_opens_migrates_and_plays_on_as_if_never_stopped(tmp_path: Path) -> None:
    """The fixture reopened by today's code and the same table never stopped answer the lines after
    the script alike: the lock, the combat and its deck, the sheet and macro, the rolls and their
    secrecy, the handled events and the seed's sequence all came through."""
    table = make_table(db=str(_copy(tmp_path)))
    table.resume_seed(7)
    assert table.store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    room = table.room(ROOM_ID)
    assert room.system == "savage" and room.lock is not None and room.lock.character is not None
    assert room.combat is not None and room.combat.round == 1 and room.acta.on
    kira = room.characters["kira"]
    assert kira.owner == "@ana:local" and kira.sheet["disparar"] == "d8" and "rafaga" in kira.sheet["macros"]
    assert table.pending_actions() == []
    assert play(SCRIPT, table).actions == [], "every line of the script was handled before"
    stored_rolls = room.to_dict()["last_rolls"]

    never_stopped = make_table(seed=7)
    never_stopped.resume_seed(7)
    whole = play(SCRIPT + AFTER, never_stopped)
    after = play(SCRIPT + AFTER, table)
    expected = [a for a in whole.actions if int(a["id"][1:].split("/")[0]) > EVENTS and not _copied_before(a)]
    assert after.actions and after.actions == expected
    reopened, whole_run = table.room(ROOM_ID).to_dict(), never_stopped.room(ROOM_ID).to_dict()
    stored_texts = {r["text"] for r in stored_rolls}
    assert [r["who"] for r in reopened.pop("last_rolls")] == [r["who"] for r in whole_run.pop("last_rolls")]
    digests = 1 if any(_copied_before(a) for a in whole.actions) else 0
    copies, whole_copies = reopened.pop("gm_copies"), whole_run.pop("gm_copies")
    assert {**copies, "sent": copies["sent"] + digests} == whole_copies  # the one digest main had no need of
    assert reopened == whole_run
    new_rolls = [r for r in table.room(ROOM_ID).to_dict()["last_rolls"] if r["text"] not in stored_texts]
    assert new_rolls and new_rolls == never_stopped.room(ROOM_ID).to_dict()["last_rolls"][-len(new_rolls):], \
        "rolls recorded before the restart keep the words main wrote; those after are today's"
    assert after.redacted(EVENTS + 1), "the named lock held against another player"
    assert "Disparar d8" in after.text(EVENTS + 4) and "Macro rafaga = rof 3 d8" in after.text(EVENTS + 4)
    assert table.store.rolls.hidden(ROOM_ID) == [], "the secret roll was there to reveal"


def test_rolbot_acta_exports_what_main_recorded(tmp_path: Path) -> None:
    db = _copy(tmp_path)
    out = subprocess.run([sys.executable, "-m", "bot.cli", "acta", "--db", str(db), "--room", ROOM_ID],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "La taberna huele a humo y a cerveza agria." in out.stdout and "desenfunda el rifle" in out.stdout
    assert out.stdout.count("- Kira · 🎲") == 2, "the two public rolls; the secret one stays out"


def test_version_13_keeps_every_handled_record_and_acta_entry_in_order(tmp_path: Path) -> None:
    """The tables version 13 rebuilds (fewer pages per event) hold the same rows, the acta in the same
    order; new undo steps and acta entries are numbered after them without ``sqlite_sequence``."""
    db = _copy(tmp_path)
    with sqlite3.connect(db) as conn:
        handled = conn.execute("SELECT * FROM handled ORDER BY event_id").fetchall()
        acta = conn.execute("SELECT * FROM acta ORDER BY id").fetchall()
    table = make_table(db=str(db))
    store = table.store.db
    assert store.execute("SELECT * FROM handled ORDER BY event_id").fetchall() == handled
    assert store.execute("SELECT * FROM acta ORDER BY id").fetchall() == acta and acta
    assert store.execute("SELECT sql FROM sqlite_master WHERE name = 'handled'").fetchone()[0].endswith("WITHOUT ROWID")
    table.handle(Event("!otra:local", "@gm:local", "!pnj Trasgo", "$v13-undo"))
    table.handle(Event(ROOM_ID, "@gm:local", "El trasgo gruñe.", "$v13-acta"))
    assert store.execute("SELECT count(*) FROM undo").fetchone()[0] == 1
    assert store.execute("SELECT max(id) FROM acta").fetchone()[0] > acta[-1][0]
    assert store.execute("SELECT count(*) FROM sqlite_sequence WHERE name IN ('undo', 'acta')").fetchone()[0] == 0
