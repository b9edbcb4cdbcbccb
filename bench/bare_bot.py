"""The floor for the benchmarks: the least a matrix-nio bot can do to answer a roll.

It logs in, syncs (long polling, like rolbot), and answers every ``!tiro`` it sees with a
one-line ``m.notice`` reply. No parsing, no state, no database, nothing else. History from
before its first sync is ignored, as rolbot does. A send the homeserver refuses (a 429
included) is given up, not retried.

    python bench/bare_bot.py --homeserver URL --user @bare:localhost --password PASS
        [--token-file PATH] [--join]

``--token-file``: the sync token is kept there after every sync, so a restart answers what was
sent while the bot was down (as rolbot does). ``--join``: accept every invite. On exit it prints
``sent N refused M rate_limited K``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
from pathlib import Path

from nio import AsyncClient, AsyncClientConfig, LoginResponse, RoomSendError

CATCH_UP_FILTER = {"room": {"timeline": {"limit": 50}}}


async def run(homeserver: str, user: str, password: str, sync_timeout_ms: int, token_file: Path | None,
              join: bool) -> None:
    client = AsyncClient(homeserver, user, config=AsyncClientConfig(encryption_enabled=False,
                                                                     store_sync_tokens=False,
                                                                     max_limit_exceeded=0))
    resp = await client.login(password, device_name="bare-bot")
    assert isinstance(resp, LoginResponse), resp
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    counts = {"sent": 0, "refused": 0, "rate_limited": 0}

    async def answer(resp) -> None:
        for room_id in resp.rooms.invite if join else ():
            await client.join(room_id)
        for room_id, info in resp.rooms.join.items():
            for ev in info.timeline.events:
                src = getattr(ev, "source", None) or {}
                content = src.get("content") or {}
                if (src.get("type") == "m.room.message" and src.get("sender") != user
                        and str(content.get("body", "")).startswith("!tiro")):
                    sent = await client.room_send(room_id, "m.room.message", {
                        "msgtype": "m.notice",
                        "body": f"🎲 {random.randint(1, 20)}",
                        "m.relates_to": {"m.in_reply_to": {"event_id": src["event_id"]}},
                    })
                    if isinstance(sent, RoomSendError):
                        counts["rate_limited" if sent.status_code == "M_LIMIT_EXCEEDED" else "refused"] += 1
                    else:
                        counts["sent"] += 1
        if token_file is not None:
            token_file.write_text(resp.next_batch)

    token = token_file.read_text().strip() if token_file is not None and token_file.exists() else None
    catch_up = None
    if token is None:
        first = await client.sync(timeout=0, sync_filter={"room": {"timeline": {"limit": 1}}})
        token = first.next_batch
        if join:
            for room_id in first.rooms.invite:
                await client.join(room_id)
        if token_file is not None:
            token_file.write_text(token)
    else:
        catch_up = await client.sync(timeout=0, since=token, sync_filter=CATCH_UP_FILTER)
        token = catch_up.next_batch
    print("ready", flush=True)
    try:
        if catch_up is not None:
            await answer(catch_up)
        while not stop.is_set():
            sync = asyncio.ensure_future(client.sync(timeout=sync_timeout_ms, since=token,
                                                     sync_filter=CATCH_UP_FILTER))
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
            await answer(resp)
    finally:
        print(" ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--homeserver", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--sync-timeout-ms", type=int, default=30000)
    parser.add_argument("--token-file", type=Path)
    parser.add_argument("--join", action="store_true")
    args = parser.parse_args()
    asyncio.run(run(args.homeserver, args.user, args.password, args.sync_timeout_ms, args.token_file, args.join))


if __name__ == "__main__":
    main()
