"""Restarting with ``--db`` resumes exactly: locks, combat, grants, characters, handled events."""

from __future__ import annotations

import json
import random
import subprocess
import sys

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
    """The whole script replayed after part 1: handled lines are skipped, so only part 2 runs."""
    single = make_table(seed=1)
    play(PART_1, single)
    single.rng = random.Random(seed_part_2)
    expected = play(PART_1 + PART_2, single)

    db = str(tmp_path / "room.db")
    play(PART_1, make_table(seed=1, db=db))
    restarted = make_table(seed=seed_part_2, db=db)
    got = play(PART_1 + PART_2, restarted)
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


def test_restart_replays_nothing_already_handled(tmp_path) -> None:
    db = str(tmp_path / "room.db")
    first = play(PART_1, make_table(db=db))
    again = play(PART_1, make_table(db=db))
    assert first.actions and again.actions == []


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
