"""The floor for ``bench/irc_latency.py``: a bare IRC dice bot on the same library (pydle) with the
same flood control (``bot.irc.flood.TokenBucket``) as rolbot, and nothing else: it answers
``!tiro`` in its channel with a NOTICE holding a d20. Prints ``ready`` once in the channel.

    python bench/irc_bare_bot.py --port PORT --channel '#bare' [--burst 4] [--interval 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
from pathlib import Path

import pydle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.irc.flood import TokenBucket


class BareBot(pydle.Client):
    def __init__(self, channel: str, bucket: TokenBucket) -> None:
        super().__init__("barebot", realname="bare")
        self.channel = channel
        self.bucket = bucket
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.rng = random.SystemRandom()

    async def on_connect(self) -> None:
        await super().on_connect()
        self.sending = asyncio.ensure_future(self.sender())
        await self.join(self.channel)

    async def on_join(self, channel: str, user: str) -> None:
        if user == self.nickname:
            print("ready", flush=True)

    async def on_message(self, target: str, source: str, message: str) -> None:
        if target == self.channel and message.startswith("!tiro"):
            self.queue.put_nowait((target, f"{source} · 🎲 1d20: [{self.rng.randint(1, 20)}]"))

    async def sender(self) -> None:
        while True:
            target, text = await self.queue.get()
            wait = self.bucket.wait()
            if wait:
                await asyncio.sleep(wait)
            self.bucket.take()
            await self.notice(target, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--channel", required=True)
    parser.add_argument("--burst", type=int, default=4)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    bot = BareBot(args.channel, TokenBucket(args.burst, args.interval))
    bot.run("127.0.0.1", args.port, tls=False)


if __name__ == "__main__":
    main()
