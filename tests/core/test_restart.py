"""Restarting with ``--db`` resumes exactly: locks, combat, grants, characters, handled events."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from bot.core.events import Event, Send
from tests.transcript import make_table, play

PART_1 = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Sör Brönn @bob:local
@gm:local: !combate
@gm:local: !turnos McAvoy, Sör Brönn, Orco
@ana:local: !tiro 1d20 (ataque)
@ana:local: !siguiente
@gm:local: !permite McAvoy
@gm:local: ---------- (Sör Brönn)
"""
PART_2 = """
@ana:local: /me se cuela
@bob:local: !tiro 1d20 (golpe)
@ana:local: !tiro 1d20 (esquivar)
@gm:local: ----------
@bob:local: !siguiente
@gm:local: !siguiente
@gm:local: !estado
"""


def _both_ways(tmp_path, seed_part_2: int):
    """The whole script replayed after part 1 with ``--reanudar``: handled lines are skipped, so only
    part 2 runs."""
    single = make_table(seed=1)
    play(PART_1, single)
    single.rng = random.Random(seed_part_2)
    expected = play(PART_1 + PART_2, single, resume=True)

    db = str(tmp_path / "room.db")
    play(PART_1, make_table(seed=1, db=db))
    restarted = make_table(seed=seed_part_2, db=db)
    got = play(PART_1 + PART_2, restarted, resume=True)
    return single, expected, restarted, got


def test_restart_mid_combat_and_mid_lock_resumes_exactly(tmp_path) -> None:
    single, expected, restarted, got = _both_ways(tmp_path, seed_part_2=9)
    assert got.actions and got.actions == expected.actions
    assert all(int(a["id"][1:].split("/")[0]) >= 9 for a in got.actions)
    assert restarted.room("!console:local").to_dict() == single.room("!console:local").to_dict()
    # and the state really was the restored one:
    assert got.redacted(9)                        # the named lock survived
    assert not got.redacted(11)                   # so did the grant to McAvoy
    assert "Ronda 2" in " ".join(got.texts(14))   # and the turn order
    assert "▶ McAvoy" in got.text(15)


def test_a_resumed_run_replays_nothing_already_handled(tmp_path) -> None:
    db = str(tmp_path / "room.db")
    first = play(PART_1, make_table(db=db))
    again = play(PART_1, make_table(db=db))
    new = play(PART_1, make_table(db=db), resume=False)
    assert first.actions and again.actions == []
    assert new.for_line(1) and new.for_line(8)  # a new run answers its lines again


def test_crash_before_send_leaves_actions_pending(tmp_path) -> None:
    db = str(tmp_path / "room.db")
    table = make_table(db=db)
    actions = table.handle(Event("!r", "@ana:local", "!tiro 2d6", "$1"))
    assert len(actions) == 1
    reopened = make_table(db=db)
    pending = reopened.pending_actions()
    assert [a.action_id for a in pending] == ["$1/0"]
    assert isinstance(pending[0], Send) and pending[0].message == actions[0].message
    reopened.action_done("$1/0")
    assert make_table(db=db).pending_actions() == []


def test_console_db_flag_persists_across_processes(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    cmd = [sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--jsonl", "--db", db]
    subprocess.run(cmd, input="@gm:local: -----\n", text=True, check=True, capture_output=True)
    out = subprocess.run(cmd, input="# line 1 was handled before\n@ana:local: hola\n",
                         text=True, check=True, capture_output=True).stdout
    actions = [json.loads(line) for line in out.splitlines()]
    assert [a["action"] for a in actions] == ["redact", "send"] and actions[0]["event"] == "$2"


def _console(db: str, lines: str, *options: str) -> str:
    cmd = [sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--db", db, *options]
    return subprocess.run(cmd, input=lines, text=True, check=True, capture_output=True, timeout=60).stdout


def test_console_prints_a_reply_committed_before_a_crash_first(tmp_path) -> None:
    """A kill -9 between the commit and the print: the event is handled in-process (committed,
    never printed), then ``rolbot console --db`` prints that reply before anything else, once."""
    db = str(tmp_path / "c.db")
    committed = make_table(db=db).handle(Event("!console:local", "@ana:local", "!tiro 2d6 (pendiente)", "$1"))
    out = _console(db, "@ana:local: !tiro 2d6 (pendiente)\n@ana:local: !tiro 1d4 (nueva)\n", "--jsonl", "--reanudar")
    actions = [json.loads(line) for line in out.splitlines()]
    assert [(a["id"], a["text"]) for a in actions[:1]] == [("$1/0", committed[0].message.body)]
    assert [a["id"] for a in actions] == ["$1/0", "$2/0"] and "nueva" in actions[1]["text"]
    assert _console(db, "@ana:local: !tiro 2d6 (pendiente)\n", "--jsonl", "--reanudar") == ""


def test_console_chat_view_prints_a_pending_reply_first(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    committed = make_table(db=db).handle(Event("!console:local", "@ana:local", "!tiro 2d6 (pendiente)", "$1"))
    out = _console(db, "@ana:local: !tiro 2d6 (pendiente)\n@ana:local: hola\n", "--reanudar").splitlines()
    assert "$1" in out[0] and committed[0].message.body.splitlines()[0] in out[1]
    assert out[2:] == ["@ana:local: hola"]


ROLLS = "".join(f"@ana:local: !tiro 3d6+{n} (tirada {n})\n" for n in range(1, 9))


@pytest.mark.parametrize("mode", [("--jsonl",), ()])
def test_a_seeded_run_split_in_two_continues_the_sequence(tmp_path, mode: tuple[str, ...]) -> None:
    """Two runs over one --db (the second replays the whole script with --reanudar) print exactly what
    one run over all the lines prints: the second run continues the seed's sequence. A third run with
    another seed starts that seed's own sequence."""
    whole = _console(str(tmp_path / "one.db"), ROLLS, "--seed", "5", *mode)
    split_db = str(tmp_path / "two.db")
    first_half = "".join(ROLLS.splitlines(keepends=True)[:4])
    split = (_console(split_db, first_half, "--seed", "5", *mode)
             + _console(split_db, ROLLS, "--seed", "5", "--reanudar", *mode))
    assert len(whole.splitlines()) >= len(ROLLS.splitlines())
    assert split == whole
    more = "".join(f"@bea:local: !tiro 3d6 (otra {n})\n" for n in range(3))
    other_seed = _console(split_db, more, "--seed", "6", *mode)
    assert other_seed == _console(str(tmp_path / "fresh.db"), more, "--seed", "6", *mode)


def test_rooms_past_the_memory_bound_are_read_back_from_the_store(tmp_path, monkeypatch) -> None:
    """Only the most recently used rooms stay loaded; a room read back has all its state."""
    import bot.core.table as table_module

    monkeypatch.setattr(table_module, "ROOMS_IN_MEMORY", 2)
    table = make_table(db=str(tmp_path / "rooms.db"))
    rooms = ["!a:local", "!b:local", "!c:local"]
    for n, room in enumerate(rooms):
        table.handle(Event(room, "@gm:local", f"!pj Héroe{n} @ana:local", f"$pj{n}"))
        table.handle(Event(room, "@gm:local", "----------", f"$lock{n}"))
    assert list(table._rooms) == rooms[1:]
    first = table.room(rooms[0])  # read back from the store
    assert [c.name for c in first.characters.values()] == ["Héroe0"] and first.lock is not None
    assert list(table._rooms) == [rooms[2], rooms[0]]
    talk = table.handle(Event(rooms[0], "@ana:local", "¿puedo hablar?", "$talk"))
    assert any(isinstance(a, Send) for a in talk)  # the lock read back still holds the floor


def test_console_reanudar_says_at_the_start_and_at_the_end_how_many_lines_it_skipped(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    cmd = [sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--db", db]
    first = subprocess.run(cmd, input="@gm:local: -----\n@ana:local: !tiro 1d6\n", text=True, check=True,
                           capture_output=True, timeout=60)
    assert first.stderr == ""
    again = subprocess.run([*cmd, "--reanudar"], input="@gm:local: -----\n@ana:local: !tiro 1d6\n# nota\n@gm:local: -----\n",
                           text=True, check=True, capture_output=True, timeout=60)
    assert again.stderr.splitlines() == [
        "rolbot: se reanuda la última ejecución con esta base de datos: las líneas que ya atendió se saltan, sin "
        "responder otra vez",
        "rolbot: 2 líneas ya atendidas en la ejecución reanudada (se saltan, sin responder otra vez)"]
    assert again.stdout and "$4" not in again.stderr
    once = subprocess.run([*cmd, "--reanudar"], input="@gm:local: -----\n", text=True, check=True,
                          capture_output=True, timeout=60)
    assert once.stderr.splitlines()[1:] == ["rolbot: 1 línea ya atendida en la ejecución reanudada (se salta, sin "
                                            "responder otra vez)"]
    new = subprocess.run(cmd, input="@gm:local: -----\n", text=True, check=True, capture_output=True, timeout=60)
    assert new.stderr == "" and new.stdout
