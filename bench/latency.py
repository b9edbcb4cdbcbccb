"""Roll reply latency of rolbot against a bare matrix-nio bot, same Synapse, same room, same run.

Both bots sit in one room of a local Synapse; a player sends N ``!tiro`` rolls, one at a time,
and waits for both replies before the next, so every roll hits both bots under the same load.
The latency of a reply is its server timestamp minus the roll's server timestamp (both set by
Synapse: the roll's delivery to the bot by sync, the bot's work and its send, with no client
sync delay in the figure). Both bots run as separate processes (rolbot as ``rolbot run``).

    python bench/latency.py [--rolls 200] [--warmup 10]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synapse import PYTHON, ROOT, RolbotProcess, SynapseServer, percentile, version

from tests.matrix.conftest import Chat, membership, reply_to


def reply_ts(chat: Chat, room: str, event_id: str, sender: str) -> int | None:
    pred = reply_to(event_id, sender)
    for ev in chat.room_events(room):
        if pred(ev):
            return ev["origin_server_ts"]
    return None


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
        bare = subprocess.Popen([PYTHON, str(ROOT / "bench" / "bare_bot.py"), "--homeserver", hs.url,
                                 "--user", bare_user.user_id, "--password", bare_user.password],
                                stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        assert bare.stdout.readline().strip() == "ready"
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
            bare.terminate()
            bare.wait(30)
        for chat in (gm, player, bare_chat):
            await chat.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, SynapseServer() as hs:
        lat = asyncio.run(measure(hs, args.rolls, args.warmup, Path(tmp)))
    print(f"Synapse {version()} local; {args.rolls} tiradas (+{args.warmup} de calentamiento), "
          f"una a una, los dos bots en la misma sala ({time.monotonic() - start:.0f} s en total)")
    print(f"{'bot':10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'media ms':>9}")
    for name in ("bare", "rolbot"):
        v = lat[name]
        print(f"{name:10} {percentile(v, 50):8.0f} {percentile(v, 95):8.0f} {percentile(v, 99):8.0f} "
              f"{statistics.fmean(v):9.1f}")
    ratios = {q: percentile(lat["rolbot"], q) / percentile(lat["bare"], q) for q in (50, 95, 99)}
    print("ratio rolbot/bare: " + ", ".join(f"p{q} {r:.2f}" for q, r in ratios.items())
          + "  (objetivo p50 <= 1.10)")
    wins = sum(r <= b for r, b in zip(lat["rolbot"], lat["bare"]))
    print(f"tiradas en que rolbot respondió antes o a la vez que el bot mínimo: {wins}/{len(lat['bare'])}")


if __name__ == "__main__":
    main()
