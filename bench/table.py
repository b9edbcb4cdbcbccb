"""Events per second through the table core with a SQLite commit per event,
against a bare sqlite-utils insert loop with the same durability settings.

    python bench/table.py [--events 5000]

The two loops run by turns (``SLICES``), so a shared machine's load weighs on both alike.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import sqlite_utils

from bot.core.events import Event
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES

GM = "@gm:bench"
SESSION = [
    (GM, "!pj Ana @ana:bench"),
    (GM, "!pj Bruno @bruno:bench"),
    ("@ana:bench", "!tiro 3d10 (chequeo)"),
    ("@bruno:bench", "/me mira alrededor"),
    (GM, "-----------"),
    ("@ana:bench", "¿puedo?"),
    (GM, "El viento sopla."),
    (GM, "-----------"),
    (GM, "!combate"),
    (GM, "!turnos Ana, Bruno, Orco"),
    ("@ana:bench", "!tiro 1d20+5 ataque"),
    ("@bruno:bench", "!tiro 2d6"),
    ("@ana:bench", "!siguiente"),
    ("@bruno:bench", "!tiro 4d6kh3"),
    (GM, "!estado"),
    (GM, "!combate fin"),
]


SLICES = 10
"""The two loops take turns, a tenth of the events at a time, so both meet the same load on a shared
machine (run one after the other, the ratio moved by a third between runs)."""


def core_loop(path: str, events: int) -> Iterator[float]:
    """The table core: each turn handles the next slice of the events and yields the seconds it took."""
    table = Table(Store(path), TableSettings(RoomSettings(gms=(GM,))), random.Random(1), games=GAMES)
    done = 0
    for share in _slices(events):
        start = time.perf_counter()
        for i in range(done, done + share):
            sender, text = SESSION[i % len(SESSION)]
            room = f"!room{i // len(SESSION) % 50}:bench"
            actions = table.handle(Event(room, sender, text, f"$e{i}"))
            table.actions_done([a.action_id for a in actions])
        done += share
        yield time.perf_counter() - start


def bare_loop(path: str, events: int) -> Iterator[float]:
    """The floor: one insert and one commit per event, same journal and sync settings."""
    db = sqlite_utils.Database(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db["handled"].create({"event_id": str, "room_id": str, "ts": int}, pk="event_id")
    done = 0
    for share in _slices(events):
        start = time.perf_counter()
        for i in range(done, done + share):
            with db.conn:
                db["handled"].insert({"event_id": f"$e{i}", "room_id": "!r", "ts": i})
        done += share
        yield time.perf_counter() - start


def _slices(events: int) -> list[int]:
    return [events // SLICES + (1 if k < events % SLICES else 0) for k in range(SLICES)]


def rates(tmp: str, events: int) -> tuple[float, float]:
    """(core, bare) events per second, the loops' slices alternating, each going first every other turn."""
    core, bare = core_loop(str(Path(tmp) / "core.db"), events), bare_loop(str(Path(tmp) / "bare.db"), events)
    spent = {"core": 0.0, "bare": 0.0}
    for k in range(SLICES):
        order = [("bare", bare), ("core", core)]
        for name, loop in order if k % 2 == 0 else order[::-1]:
            spent[name] += next(loop)
    return events / spent["core"], events / spent["bare"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        core, bare = rates(tmp, args.events)
    print(f"eventos: {args.events} (sesión de {len(SESSION)} líneas repetida en 50 salas; "
          f"los dos bucles por turnos, {SLICES} tramos)")
    print(f"núcleo de mesa + SQLite (WAL, synchronous=NORMAL): {core:10,.0f} eventos/s")
    print(f"bucle sqlite-utils mínimo (misma durabilidad):     {bare:10,.0f} eventos/s")
    print(f"ratio núcleo/mínimo: {core / bare:.2f}")


if __name__ == "__main__":
    main()
