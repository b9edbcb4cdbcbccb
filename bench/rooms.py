"""1,000 rooms, each in a live combat: resident memory and cold start of the table core.

A file database is filled through the core itself (``Table.handle``): each room gets a system
(the five in turn), six characters, a combat with initiative dealt or rolled by the room
system's rules, a roll and a turn passed. Then, in a fresh process each time:

- rolbot: import the bot, open ``Store(path)`` and ``Table``, load the state of every room
  (``Table.room``) so the next event of any room finds it in memory: "ready";
  then handle one event (``!estado``) in every room.
- the floor, same run, alternating with rolbot: a bare Python process that opens the same
  SQLite file with ``sqlite3`` and ``json.loads`` every room's row, nothing else.

Times are wall clock from ``Popen`` to the child's "ready" line (interpreter start and imports
included); memory is the child's VmRSS (and its peak, VmHWM) from /proc/self/status.

    python bench/rooms.py [--rooms 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GM = "@gm:bench"
SYSTEMS = ("generic", "savage", "stormbringer", "reino", "sombra")
PLAYERS = ("Ana", "Bruno", "Carla", "Dario", "Elena")


def session(system: str) -> list[tuple[str, str]]:
    lines = [(GM, f"!sistema {system}")]
    lines += [(GM, f"!pj {name} @{name.lower()}:bench") for name in PLAYERS]
    lines += [(GM, "!pj Orco"), (GM, "!combate"), (GM, "!iniciativa"),
              (GM, "!siguiente"), ("@ana:bench", "!tiro 2d6+1 ataque"), (GM, "!siguiente")]
    return lines


def build(path: str, rooms: int) -> tuple[int, float]:
    from bot.core.events import Event
    from bot.core.settings import RoomSettings, TableSettings
    from bot.core.store import Store
    from bot.core.table import Table
    from bot.games import GAMES

    table = Table(Store(path), TableSettings(RoomSettings(gms=(GM,))), random.Random(1), games=GAMES)
    start, events = time.perf_counter(), 0
    for r in range(rooms):
        room = f"!sala{r}:bench"
        for i, (sender, text) in enumerate(session(SYSTEMS[r % len(SYSTEMS)])):
            actions = table.handle(Event(room, sender, text, f"$r{r}e{i}"))
            table.actions_done([a.action_id for a in actions])
            events += 1
        assert table.room(room).combat and table.room(room).combat.started, room
    table.store.close()
    return events, time.perf_counter() - start


ROLBOT_CHILD = r"""
import os, sys, time
sys.path.insert(0, ROOT)
from bot.core.events import Event, Send
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES

def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

table = Table(Store(PATH), TableSettings(RoomSettings(gms=("@gm:bench",))), games=GAMES)
rooms = table.store.rooms.ids()
for room_id in rooms:
    table.room(room_id)
assert all(table.room(r).combat.started for r in rooms)
rss, hwm = status()
print("ready", len(rooms), rss, hwm, flush=True)
start = time.perf_counter()
for i, room_id in enumerate(rooms):
    actions = table.handle(Event(room_id, "@gm:bench", "!estado", f"$cold{os.getpid()}.{i}"))
    assert actions and "Algo ha fallado" not in actions[0].message.body
    table.actions_done([a.action_id for a in actions])
rss2, hwm2 = status()
print("handled", time.perf_counter() - start, rss2, hwm2, flush=True)
"""

BARE_CHILD = r"""
import json, sqlite3
def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
conn = sqlite3.connect(PATH)
rooms = {room_id: json.loads(data) for room_id, data in conn.execute("SELECT room_id, data FROM rooms")}
rss, hwm = status()
print("ready", len(rooms), rss, hwm, flush=True)
"""


def child(code: str, path: str) -> dict:
    program = f"ROOT = {str(ROOT)!r}\nPATH = {path!r}\n" + code
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    first = proc.stdout.readline().split()
    ready = time.perf_counter() - start
    rest = proc.stdout.read().split()
    assert proc.wait() == 0 and first[0] == "ready", (first, rest)
    out = {"ready_s": ready, "rooms": int(first[1]), "rss_mb": float(first[2]), "hwm_mb": float(first[3])}
    if rest:
        out.update(handle_s=float(rest[1]), rss2_mb=float(rest[2]), hwm2_mb=float(rest[3]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "rooms.sqlite3")
        events, secs = build(path, args.rooms)
        size = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 2**20
        ours, bare = [], []
        for _ in range(args.rounds):  # alternating, so machine load hits both alike
            ours.append(child(ROLBOT_CHILD, path))
            bare.append(child(BARE_CHILD, path))
    med = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    print(f"{args.rooms} salas en combate (5 sistemas por turnos), {events} eventos para crearlas "
          f"({events / secs:,.0f} eventos/s); base de datos {size:.1f} MB")
    print(f"medianas de {args.rounds} procesos nuevos de cada tipo, alternados:")
    print(f"  rolbot: listo (todas las salas en memoria) en {med(ours, 'ready_s'):.2f} s, "
          f"RSS {med(ours, 'rss_mb'):.0f} MB  (objetivos <= 3 s, <= 300 MB)")
    print(f"          un evento (!estado) en cada sala después: {med(ours, 'handle_s'):.2f} s, "
          f"RSS {med(ours, 'rss2_mb'):.0f} MB, pico {med(ours, 'hwm2_mb'):.0f} MB")
    print(f"  mínimo (python + sqlite3 + json.loads de cada sala): listo en {med(bare, 'ready_s'):.2f} s, "
          f"RSS {med(bare, 'rss_mb'):.0f} MB")
    print(f"  ratio rolbot/mínimo: arranque {med(ours, 'ready_s') / med(bare, 'ready_s'):.1f}x, "
          f"RSS {med(ours, 'rss_mb') / med(bare, 'rss_mb'):.1f}x")
    print(json.dumps({"rolbot": ours[-1], "bare": bare[-1]}))


if __name__ == "__main__":
    main()
