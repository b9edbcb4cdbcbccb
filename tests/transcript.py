"""Run chat transcripts through ``rolbot console --jsonl`` in-process and index the answers."""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass, field

from bot.console import ROOM_ID, run_console
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES

GM = "@gm:local"


@dataclass
class Transcript:
    actions: list[dict] = field(default_factory=list)

    def for_line(self, number: int) -> list[dict]:
        """Actions answering (or redacting) the event on input line ``number``."""
        return [a for a in self.actions if a["event"] == f"${number}" or a["id"].startswith(f"${number}/")]

    def texts(self, number: int, gm_copies: bool = False) -> list[str]:
        """The messages answering line ``number``, each merged send (one per readers and event, issue 30)
        as the messages it joins (its ``parts``); the GMs' private copies of them (``gm_copy``: with an
        NPC's numbers) only if asked."""
        return [part for a in self.messages(number, gm_copies) for part in a.get("parts") or [a["text"]]]

    def messages(self, number: int, gm_copies: bool = False) -> list[dict]:
        """The sends answering line ``number`` (one to the room, one per private readers)."""
        return [a for a in self.for_line(number) if a["action"] == "send" and (gm_copies or not a.get("gm_copy"))]

    def rolls(self, number: int, gm_copies: bool = False) -> list[dict]:
        """Every roll object the sends answering line ``number`` show, in order (``rolls``, else ``roll``)."""
        return [r for a in self.messages(number, gm_copies) for r in a.get("rolls") or ([a["roll"]] if "roll" in a else [])]

    def full_rolls(self, number: int) -> list[dict]:
        """The rolls answering line ``number`` as the GMs see them: each as the GMs' copy of it shows it (in
        combat it comes in a later digest, found by its roll id), else as the room's does."""
        gm = {rid: r for a in self.actions if a.get("gm_copy")
              for rid, r in zip(a.get("roll_ids") or [a.get("roll_id")], a.get("rolls") or [a.get("roll")]) if rid and r}
        return [gm.get(rid, r) if rid else r for a in self.messages(number)
                for rid, r in zip(a.get("roll_ids") or [a.get("roll_id")], a.get("rolls") or [a.get("roll")]) if r]

    def roll_ids(self, number: int) -> set[str]:
        """The rolls line ``number``'s messages show; when it got none (an NPC's miss held for the room's next
        message, issue 30), the rolls it made, wherever they are shown."""
        shown = {i for a in self.messages(number) for i in a.get("roll_ids") or [a.get("roll_id")] if i}
        return shown or {i for a in self.actions for i in a.get("roll_ids") or [a.get("roll_id")]
                         if i and i.startswith(f"${number}/")}

    def showing(self, ids: set[str], gm_copies: bool = False) -> list[str]:
        """The texts of the sends that show any of the rolls ``ids`` (the GMs' copies only if asked)."""
        return [a["text"] for a in self.actions if a["action"] == "send" and bool(a.get("gm_copy")) == gm_copies
                and ids & set(a.get("roll_ids") or [a.get("roll_id")])]

    def text(self, number: int) -> str:
        texts = self.texts(number)
        assert len(texts) == 1, f"line {number}: expected one message, got {texts}"
        return texts[0]

    def gm_text(self, number: int) -> str:
        """The GMs' private copy of the one message answering line ``number`` (issue 19: what the room's
        copy leaves out of an NPC's sheet)."""
        copies = [a["text"] for a in self.for_line(number) if a.get("gm_copy")]
        if not copies:  # in combat the GMs' copies come later, in a digest: the one with this line's rolls
            copies = self.showing(self.roll_ids(number), gm_copies=True)[:1]
        assert len(copies) == 1, f"line {number}: expected one copy for the GMs, got {copies}"
        return copies[0]

    def acked(self, number: int) -> bool:
        """Line ``number`` was answered with a ✅ reaction on it and no message (issue 30: bookkeeping)."""
        actions = self.for_line(number)
        return [(a["action"], a.get("key"), a["event"]) for a in actions] == [("react", "✅", f"${number}")]

    def redacted(self, number: int) -> bool:
        return any(a["action"] == "redact" for a in self.for_line(number))

    def kinds(self, number: int) -> list[str]:
        return [a["action"] for a in self.for_line(number)]


def make_table(system: str = "generic", enforce: str = "redact", seed: int = 1, db: str | None = None,
               gms: tuple[str, ...] = (GM,), ooc_in_locks: bool = False) -> Table:
    settings = TableSettings(RoomSettings(system=system, gms=gms, enforcement=enforce, ooc_in_locks=ooc_in_locks))
    return Table(Store(db), settings, random.Random(seed), games=GAMES)


def play(script: str, table: Table | None = None, resume: bool = True, **options: object) -> Transcript:
    """Feed ``script`` (one ``SENDER: TEXT`` per line) to a table, as ``rolbot console --reanudar``
    does: a script played again on the same table skips the lines it handled, so a test extends its
    script (``resume=False``: a new console run, which answers every line).

    Blank lines are dropped first, so line N is the N-th event written in the script."""
    table = table or make_table(**options)  # type: ignore[arg-type]
    lines = [line.strip() for line in script.splitlines() if line.strip()]
    out = io.StringIO()
    run_console(table, io.StringIO("\n".join(lines) + "\n"), out, jsonl=True, resume=resume)
    return Transcript([json.loads(line) for line in out.getvalue().splitlines()])


def script_lines(script: str) -> int:
    """How many events ``script`` holds (what ``play`` numbers them by)."""
    return sum(1 for line in script.splitlines() if line.strip())


def assert_gm_only(setup: str, player: str, *commands: str, **options: object) -> None:
    """After ``setup``, each of ``commands`` from ``player`` gets the GM-only refusal and changes
    nothing; the first, from the GM, is not refused."""
    baseline = make_table(**options)  # type: ignore[arg-type]
    play(setup, table=baseline)
    table = make_table(**options)  # type: ignore[arg-type]
    first = script_lines(setup) + 1
    t = play(setup + "".join(f"\n{player}: {command}" for command in commands), table=table)
    for number in range(first, first + len(commands)):
        assert t.text(number).startswith("⛔ Solo el máster"), t.text(number)
    assert table.room(ROOM_ID).to_dict() == baseline.room(ROOM_ID).to_dict()
    gm = play(setup + f"\n{GM}: {commands[0]}", **options)
    assert not any(text.startswith("⛔ Solo el máster") for text in gm.texts(first))


def assert_refused(setup: str, line: str, expected: str, **options: object) -> None:
    """After ``setup``, ``line`` (``SENDER: TEXT``) gets one message containing ``expected`` and
    changes nothing."""
    baseline = make_table(**options)  # type: ignore[arg-type]
    play(setup, table=baseline)
    table = make_table(**options)  # type: ignore[arg-type]
    t = play(setup + "\n" + line, table=table)
    answer = t.text(script_lines(setup) + 1)
    assert expected in answer and len(answer) < 300, answer
    assert table.room(ROOM_ID).to_dict() == baseline.room(ROOM_ID).to_dict()
