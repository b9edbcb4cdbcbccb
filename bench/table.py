"""Events per second through the table core with a SQLite commit per event,
against a bare sqlite-utils insert loop with the same durability settings.

    python bench/table.py [--events 5000]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
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


def core_rate(path: str, events: int) -> float:
    table = Table(Store(path), TableSettings(RoomSettings(gms=(GM,))), random.Random(1), games=GAMES)
    start = time.perf_counter()
    for i in range(events):
        sender, text = SESSION[i % len(SESSION)]
        room = f"!room{i // len(SESSION) % 50}:bench"
        actions = table.handle(Event(room, sender, text, f"$e{i}"))
        table.actions_done([a.action_id for a in actions])
    return events / (time.perf_counter() - start)


def bare_rate(path: str, events: int) -> float:
    """The floor: one insert and one commit per event, same journal and sync settings."""
    db = sqlite_utils.Database(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db["handled"].create({"event_id": str, "room_id": str, "ts": int}, pk="event_id")
    start = time.perf_counter()
    for i in range(events):
        with db.conn:
            db["handled"].insert({"event_id": f"$e{i}", "room_id": "!r", "ts": i})
    return events / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bare = bare_rate(str(Path(tmp) / "bare.db"), args.events)
        core = core_rate(str(Path(tmp) / "core.db"), args.events)
    print(f"eventos: {args.events} (sesión de {len(SESSION)} líneas repetida en 50 salas)")
    print(f"núcleo de mesa + SQLite (WAL, synchronous=NORMAL): {core:10,.0f} eventos/s")
    print(f"bucle sqlite-utils mínimo (misma durabilidad):     {bare:10,.0f} eventos/s")
    print(f"ratio núcleo/mínimo: {core / bare:.2f}")


if __name__ == "__main__":
    main()
