"""The floor for bench/latency.py: the least a matrix-nio bot can do to answer a roll.

It logs in, syncs (long polling, like rolbot), and answers every ``!tiro`` it sees with a
one-line ``m.notice`` reply. No parsing, no state, no database, nothing else. History from
before its first sync is ignored, as rolbot does.

    python bench/bare_bot.py --homeserver URL --user @bare:localhost --password PASS
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal

from nio import AsyncClient, AsyncClientConfig, LoginResponse


async def run(homeserver: str, user: str, password: str, sync_timeout_ms: int) -> None:
    client = AsyncClient(homeserver, user, config=AsyncClientConfig(encryption_enabled=False,
                                                                     store_sync_tokens=False))
    resp = await client.login(password, device_name="bare-bot")
    assert isinstance(resp, LoginResponse), resp
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    first = await client.sync(timeout=0, sync_filter={"room": {"timeline": {"limit": 1}}})
    token = first.next_batch
    print("ready", flush=True)
    try:
        while not stop.is_set():
            sync = asyncio.ensure_future(client.sync(timeout=sync_timeout_ms, since=token))
            stopper = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({sync, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if sync not in done:
                sync.cancel()
                break
            stopper.cancel()
            resp = sync.result()
            if not hasattr(resp, "next_batch"):
                continue
            token = resp.next_batch
            for room_id, info in resp.rooms.join.items():
                for ev in info.timeline.events:
                    src = getattr(ev, "source", None) or {}
                    content = src.get("content") or {}
                    if (src.get("type") == "m.room.message" and src.get("sender") != user
                            and str(content.get("body", "")).startswith("!tiro")):
                        await client.room_send(room_id, "m.room.message", {
                            "msgtype": "m.notice",
                            "body": f"🎲 {random.randint(1, 20)}",
                            "m.relates_to": {"m.in_reply_to": {"event_id": src["event_id"]}},
                        })
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--homeserver", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--sync-timeout-ms", type=int, default=30000)
    args = parser.parse_args()
    asyncio.run(run(args.homeserver, args.user, args.password, args.sync_timeout_ms))


if __name__ == "__main__":
    main()
