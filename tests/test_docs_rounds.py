"""The GM's manual's rounds (issue 20, "Done when"): ``docs/ronda-*.txt`` run through ``rolbot console`` as
their header says; the bot answers as their ``# =>`` comments say (seeded), and after the set-up the GM
types no bookkeeping command: only narration, NPC actions on an NPC's turn and ``!siguiente`` to end one.
Each ``# == ronda N (órdenes del máster: X; de contabilidad: Y) ==`` heading holds the round's counts, and
the GM's manual's table of rounds (``docs/gm.md``) says the same."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.console import ROOM_ID, run_console
from bot.core.state import name_key
from tests.transcript import make_table

DOCS = Path(__file__).resolve().parent.parent / "docs"
GM_MANUAL = DOCS / "gm.md"
SCRIPTS = sorted(DOCS.glob("ronda-*.txt"))
COMMAND_LINE = re.compile(r"^#\s+rolbot console (.+?) < (docs/\S+)$")
ROUND = re.compile(r"^# == ronda (\d+) \(órdenes del máster: (\d+); de contabilidad: (\d+)\) ==$")
EXPECT = "# => "
EVENT = re.compile(r"^(@\S+?:\S+?): (.*)$")
NPC_ACTIONS = ("tiro", "roll", "ataque", "attack")
END_TURN = ("siguiente", "next")


@dataclass
class Round:
    number: int
    commands: int
    bookkeeping: int
    counted: list[str] = field(default_factory=list)
    """The GM's commands of the round, and (after a ``|``) bookkeeping ones."""


def _options(path: Path) -> list[str]:
    """The ``rolbot console`` options the script's header gives."""
    for line in path.read_text(encoding="utf-8").splitlines():
        match = COMMAND_LINE.match(line.strip())
        if match:
            assert match[2] == f"docs/{path.name}"
            return shlex.split(match[1])
    raise AssertionError(f"{path.name}: no «rolbot console ... < docs/{path.name}» line")


def _option(options: list[str], name: str) -> str:
    return options[options.index(name) + 1]


def _jsonl(path: Path) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "bot.cli", "console", *_options(path), "--jsonl"],
                         input=path.read_text(encoding="utf-8"), capture_output=True, text=True, timeout=120,
                         check=True)
    return [json.loads(line) for line in run.stdout.splitlines()]


def _command(text: str) -> str | None:
    """The command a line is (``!ataque`` -> ``ataque``), or None for narration and ``/me``."""
    words = text.split()
    if not words or not words[0].startswith(("!", "/")) or words[0] == "/me":
        return None
    return name_key(words[0].lstrip("!/"))


def test_the_rounds_are_there() -> None:
    assert {p.name for p in SCRIPTS} >= {"ronda-savage.txt", "ronda-sombra.txt"}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_round_of_the_readme_runs_as_its_comments_say_with_no_gm_bookkeeping(path: Path) -> None:
    options = _options(path)
    gm = _option(options, "--gm")
    answers = _jsonl(path)
    table = make_table(system=_option(options, "--system"), seed=int(_option(options, "--seed")), gms=(gm,))
    lines = path.read_text(encoding="utf-8").splitlines()
    rounds: list[Round] = []
    last_event, seen = 0, []
    for number, line in enumerate(lines, start=1):
        heading = ROUND.match(line)
        if heading:
            rounds.append(Round(int(heading[1]), int(heading[2]), int(heading[3])))
        if line.startswith(EXPECT):
            said = [a["text"] or a.get("key") for a in answers  # a ✅ reaction says its key
                    if a["id"].startswith(f"${last_event}/") and (a["text"] or a.get("key"))]
            assert any(line[len(EXPECT):] in text for text in said), (number, line, said)
        event = EVENT.match(line)
        if event is None:
            continue
        sender, text = event[1], event[2]
        command = _command(text)
        if rounds and sender == gm and command is not None:
            rounds[-1].counted.append(command if _npc_turn(table, command) else f"|{command}")
        out = io.StringIO()
        run_console(table, io.StringIO("#\n" * (number - 1) + line + "\n"), out, jsonl=True)
        seen += [json.loads(a) for a in out.getvalue().splitlines()]
        last_event = number
    assert [a["text"] for a in seen] == [a["text"] for a in answers]  # the console in-process, as run
    assert rounds, f"{path.name}: no «# == ronda N (...) ==» heading"
    manual = GM_MANUAL.read_text(encoding="utf-8")
    game = _option(options, "--system").capitalize()
    for r in rounds:
        bookkeeping = [c[1:] for c in r.counted if c.startswith("|")]
        assert bookkeeping == [] and r.bookkeeping == 0, (r.number, bookkeeping)
        assert len(r.counted) == r.commands, (r.number, r.counted)
        row = re.search(rf"^\| {game}, ronda {r.number} \| [^|]+ \| (\d+): [^|]+ \| (\d+) \|", manual, re.MULTILINE)
        assert row is not None and (int(row[1]), int(row[2])) == (r.commands, r.bookkeeping), (game, r.number)


def _npc_turn(table, command: str) -> bool:
    """An NPC action or ``!siguiente`` on a turn that is NPCs' (the GM's): not bookkeeping."""
    room = table.room(ROOM_ID)
    combat = room.combat
    if command not in NPC_ACTIONS + END_TURN or combat is None or combat.current is None:
        return False
    actor = room.find_character(combat.current)
    return actor is not None and actor.npc and actor.owner is None
