"""Run chat transcripts through ``rolbot console --jsonl`` in-process and index the answers."""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass, field

from bot.console import run_console
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table

GM = "@gm:local"


@dataclass
class Transcript:
    actions: list[dict] = field(default_factory=list)

    def for_line(self, number: int) -> list[dict]:
        """Actions answering (or redacting) the event on input line ``number``."""
        return [a for a in self.actions if a["event"] == f"${number}" or a["id"].startswith(f"${number}/")]

    def texts(self, number: int) -> list[str]:
        return [a["text"] for a in self.for_line(number) if a["action"] == "send"]

    def text(self, number: int) -> str:
        texts = self.texts(number)
        assert len(texts) == 1, f"line {number}: expected one message, got {texts}"
        return texts[0]

    def redacted(self, number: int) -> bool:
        return any(a["action"] == "redact" for a in self.for_line(number))

    def kinds(self, number: int) -> list[str]:
        return [a["action"] for a in self.for_line(number)]


def make_table(system: str = "generic", enforce: str = "redact", seed: int = 1, db: str | None = None,
               gms: tuple[str, ...] = (GM,), ooc_in_locks: bool = False) -> Table:
    settings = TableSettings(RoomSettings(system=system, gms=gms, enforcement=enforce, ooc_in_locks=ooc_in_locks))
    return Table(Store(db), settings, random.Random(seed))


def play(script: str, table: Table | None = None, **options: object) -> Transcript:
    """Feed ``script`` (one ``SENDER: TEXT`` per line) to a table.

    Blank lines are dropped first, so line N is the N-th event written in the script."""
    table = table or make_table(**options)  # type: ignore[arg-type]
    lines = [line.strip() for line in script.splitlines() if line.strip()]
    out = io.StringIO()
    run_console(table, io.StringIO("\n".join(lines) + "\n"), out, jsonl=True)
    return Transcript([json.loads(line) for line in out.getvalue().splitlines()])
