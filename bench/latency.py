"""Roll reply latency of rolbot against a bare matrix-nio bot, same Synapse, same room, same run.

Both bots sit in one room of a local Synapse; a player sends N ``!tiro`` rolls, one at a time,
and waits for both replies before the next, so every roll hits both bots under the same load.
The latency of a reply is its server timestamp minus the roll's server timestamp (both set by
Synapse: the roll's delivery to the bot by sync, the bot's work and its send, with no client
sync delay in the figure). Both bots run as separate processes (rolbot as ``rolbot run``).

    python bench/latency.py [--rolls 200] [--warmup 10]
    python bench/latency.py --encrypted [--rolls 200] [--warmup 10]

``--encrypted`` (issue 11): rolbot in an end-to-end encrypted room (made as Element makes a
private room; the player's client encrypts and decrypts) against the bare nio bot in a room in
the clear, the two rooms' rolls alternated in the same run. The first roll in the encrypted room
(the bot claims the player's one-time keys, makes and shares its room key) is reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synapse import PYTHON, ROOT, RolbotProcess, SynapseServer, percentile, version

from tests.matrix.conftest import Chat, membership, reply_to


def reply_ts(chat: Chat, room: str, event_id: str, sender: str) -> int | None:
    pred = reply_to(event_id, sender)
    for ev in chat.room_events(room):
        if pred(ev):
            return ev["origin_server_ts"]
    return None


def start_bare_bot(hs: SynapseServer, user: Any) -> subprocess.Popen[str]:
    """``bench/bare_bot.py`` logged in as ``user``, once it says it is ready."""
    bare = subprocess.Popen([PYTHON, str(ROOT / "bench" / "bare_bot.py"), "--homeserver", hs.url,
                             "--user", user.user_id, "--password", user.password],
                            stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    assert bare.stdout is not None and bare.stdout.readline().strip() == "ready"
    return bare


def stop_bare_bot(bare: subprocess.Popen[str]) -> None:
    bare.terminate()
    bare.wait(30)


async def measure(hs: SynapseServer, rolls: int, warmup: int, workdir: Path) -> dict[str, list[float]]:
    syn = hs.synapse
    gm = Chat(syn, syn.register("master"))
    player = Chat(syn, syn.register("ana"))
    rol_user, bare_user = syn.register("rolbot"), syn.register("bare")
    bare_chat = Chat(syn, bare_user)
    rolbot = RolbotProcess(hs, rol_user, workdir / "rolbot")
    bare = None
    try:
        rolbot.start()
        room = await gm.create_room(invite=[rol_user.user_id, bare_user.user_id, player.user_id])
        await player.join(room)
        await bare_chat.join(room)
        await gm.wait_for(room, membership(rol_user.user_id, "join"), timeout=30, what="rolbot join")
        bare = start_bare_bot(hs, bare_user)
        await player.sync_once(0)
        lat: dict[str, list[float]] = {"rolbot": [], "bare": []}
        for i in range(warmup + rolls):
            event_id = await player.say(room, f"!tiro d20 prueba {i}")

            def both() -> bool:
                return all(reply_ts(player, room, event_id, u.user_id) is not None for u in (rol_user, bare_user))

            await player.wait_until(both, timeout=30, what=f"both replies to roll {i}")
            sent = next(ev["origin_server_ts"] for ev in player.room_events(room) if ev.get("event_id") == event_id)
            if i >= warmup:
                lat["rolbot"].append(reply_ts(player, room, event_id, rol_user.user_id) - sent)
                lat["bare"].append(reply_ts(player, room, event_id, bare_user.user_id) - sent)
            player.events[room] = [ev for ev in player.events[room] if ev.get("origin_server_ts", 0) >= sent - 1]
        return lat
    finally:
        rolbot.stop()
        if bare is not None:
            stop_bare_bot(bare)
        for chat in (gm, player, bare_chat):
            await chat.close()


async def measure_encrypted(hs: SynapseServer, rolls: int, warmup: int, workdir: Path
                            ) -> tuple[dict[str, list[float]], float]:
    """rolbot in an encrypted room, the bare bot in a clear room, rolls alternated; and the
    latency of rolbot's first reply in the encrypted room (key sharing included)."""
    syn = hs.synapse
    gm = Chat(syn, syn.register("master"), store=workdir / "keys-gm")
    player = Chat(syn, syn.register("ana"), store=workdir / "keys-ana")
    rol_user, bare_user = syn.register("rolbot"), syn.register("bare")
    bare_chat = Chat(syn, bare_user)
    rolbot = RolbotProcess(hs, rol_user, workdir / "rolbot")
    bare = None
    try:
        rolbot.start()
        for chat in (gm, player):
            await chat.sync_once(0)
        secret = await gm.create_room(invite=[rol_user.user_id, player.user_id], encrypted=True)
        clear = await gm.create_room(invite=[bare_user.user_id, player.user_id])
        await player.join(secret)
        await player.join(clear)
        await bare_chat.join(clear)
        await gm.wait_for(secret, membership(rol_user.user_id, "join"), timeout=30, what="rolbot join")
        bare = start_bare_bot(hs, bare_user)
        await player.sync_once(0)
        lat: dict[str, list[float]] = {"rolbot": [], "bare": []}
        first = 0.0

        async def one(room: str, bot, text: str) -> float:
            event_id = await player.say(room, text)
            await player.wait_until(lambda: reply_ts(player, room, event_id, bot.user_id) is not None,
                                    timeout=30, what=f"reply to {text}")
            sent = next(ev["origin_server_ts"] for ev in player.room_events(room) if ev.get("event_id") == event_id)
            value = reply_ts(player, room, event_id, bot.user_id) - sent
            player.events[room] = [ev for ev in player.events[room] if ev.get("origin_server_ts", 0) >= sent - 1]
            return value

        for i in range(warmup + rolls):
            rol = await one(secret, rol_user, f"!tiro d20 cifrada {i}")
            bare_lat = await one(clear, bare_user, f"!tiro d20 en claro {i}")
            if i == 0:
                first = rol
            if i >= warmup:
                lat["rolbot"].append(rol)
                lat["bare"].append(bare_lat)
        return lat, first
    finally:
        rolbot.stop()
        if bare is not None:
            stop_bare_bot(bare)
        for chat in (gm, player, bare_chat):
            await chat.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--encrypted", action="store_true",
                        help="rolbot en una sala cifrada frente al bot mínimo en una sala en claro")
    args = parser.parse_args()
    start = time.monotonic()
    first = None
    with tempfile.TemporaryDirectory() as tmp, SynapseServer() as hs:
        if args.encrypted:
            lat, first = asyncio.run(measure_encrypted(hs, args.rolls, args.warmup, Path(tmp)))
        else:
            lat = asyncio.run(measure(hs, args.rolls, args.warmup, Path(tmp)))
    where = ("rolbot en una sala cifrada, el bot mínimo en una sala en claro, tiradas alternas" if args.encrypted
             else "los dos bots en la misma sala")
    print(f"Synapse {version()} local; {args.rolls} tiradas (+{args.warmup} de calentamiento), "
          f"una a una, {where} ({time.monotonic() - start:.0f} s en total)")
    if first is not None:
        print(f"primera respuesta de rolbot en la sala cifrada (reparto de claves incluido): {first:.0f} ms")
    print(f"{'bot':10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'media ms':>9}")
    for name in ("bare", "rolbot"):
        v = lat[name]
        print(f"{name:10} {percentile(v, 50):8.0f} {percentile(v, 95):8.0f} {percentile(v, 99):8.0f} "
              f"{statistics.fmean(v):9.1f}")
    ratios = {q: percentile(lat["rolbot"], q) / percentile(lat["bare"], q) for q in (50, 95, 99)}
    print("ratio rolbot/bare: " + ", ".join(f"p{q} {r:.2f}" for q, r in ratios.items())
          + f"  (objetivo p50 <= {1.15 if args.encrypted else 1.10:.2f})")
    wins = sum(r <= b for r, b in zip(lat["rolbot"], lat["bare"]))
    print(f"tiradas en que rolbot respondió antes o a la vez que el bot mínimo: {wins}/{len(lat['bare'])}")


if __name__ == "__main__":
    main()
