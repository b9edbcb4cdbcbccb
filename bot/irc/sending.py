"""Every line the bot writes, in order of priority through one token bucket: mode changes that open the
floor first (out at once, one line ahead of the bucket at most), then protocol lines, then the table's
replies, then CTCP replies; replies to one target that wait there are joined into fewer lines."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.irc.flood import TokenBucket
from bot.irc.text import LINE_LIMIT, split_line
from bot.transport import fitting

if TYPE_CHECKING:
    from bot.irc.bot import Metrics
    from bot.irc.client import Connection

log = logging.getLogger("rolbot.irc")

JOIN_WITH = "  |  "
"""Between replies joined into one line while the bucket is empty."""
FLOOR, PROTOCOL, REPLY, CTCP = -1, 0, 1, 2
"""Line priorities: mode changes that open the floor first, then protocol lines, then the table's replies,
then CTCP replies."""
FLOOR_DEBT = 1
"""How many lines that open the floor may go ahead of an empty bucket: the players wait for the GM's
closing line to be carried out, not for the replies before it (the lines after pay it back)."""


@dataclass(order=True)
class Line:
    priority: int
    seq: int
    command: str = field(compare=False)
    params: list[str] = field(compare=False)
    done: list[str] = field(compare=False, default_factory=list)
    """Action ids finished once this line is written."""
    joinable: bool = field(compare=False, default=False)


class LineQueue:
    """The lines waiting for the bucket, and the one task (``run``) that writes them."""

    def __init__(self, bucket: TokenBucket, connection: Connection, metrics: Metrics,
                 sent: Callable[[list[str]], None]) -> None:
        self.bucket = bucket
        self.connection = connection
        self.metrics = metrics
        self.sent = sent
        """Told the action ids a written line finished."""
        self.waiting: list[Line] = []
        self.ready = asyncio.Event()
        self.connected = asyncio.Event()
        """Registered on the server: lines may go out."""
        self._seq = itertools.count()

    def push(self, priority: int, command: str, params: list[str], done: list[str] | None = None,
             joinable: bool = False) -> None:
        heapq.heappush(self.waiting, Line(priority, next(self._seq), command, params, done or [], joinable))
        self.ready.set()

    def push_raw(self, command: str, *params: str) -> None:
        """A protocol line (JOIN, WHO, MODE...): ahead of the replies, through the same bucket."""
        self.push(PROTOCOL, command, list(params))

    def push_floor(self, command: str, *params: str) -> None:
        """A mode change that opens the floor (``-m``, ``+v``): ahead of every other line, and out at once
        even when the bucket is empty. The mode lines for the same channel that wait go with it, in their
        order (a ``+m`` still waiting must not reach the server after the ``-m`` that undoes it)."""
        for line in self.waiting:
            if line.command == command and line.params[:1] == list(params[:1]):
                line.priority = FLOOR
        heapq.heapify(self.waiting)
        self.push(FLOOR, command, list(params))

    def queue_text(self, command: str, target: str, lines: list[str], done: list[str], joinable: bool = False) -> None:
        """A reply as lines under the byte budget; its actions are done once its last line is written."""
        budget = self.budget(command, target)
        pieces = [piece for line in lines for piece in split_line(line, budget)] or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            self.push(REPLY, command, [target, piece], done if last else [], joinable)

    def count(self, priority: int) -> int:
        return sum(1 for line in self.waiting if line.priority == priority)

    def keep_replies(self) -> None:
        """A new connection: protocol lines of the last one (JOIN, WHO, MODE) mean nothing on it; replies stay."""
        self.waiting = [line for line in self.waiting if line.command in ("NOTICE", "PRIVMSG")]
        heapq.heapify(self.waiting)

    def budget(self, command: str, target: str) -> int:
        """Bytes left for the text of ``:NICK!USER@HOST COMMAND TARGET :TEXT\\r\\n`` as the server relays it."""
        nick = self.connection.nick
        mask = self.connection.own_mask or f"{nick}!~{nick[:10]}@{'x' * 63}"
        return LINE_LIMIT - len(f":{mask} {command} {target} :\r\n".encode())

    async def run(self) -> None:
        """Lines go out through the token bucket; notices to one target that wait there are joined."""
        while True:
            while not self.waiting:
                self.ready.clear()
                await self.ready.wait()
            await self.connected.wait()
            wait = self.bucket.wait(FLOOR_DEBT if self.waiting[0].priority == FLOOR else 0)
            if wait > 0:
                # A line pushed meanwhile may go sooner (one that opens the floor): look again then.
                self.ready.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.ready.wait(), wait)
                continue
            line = heapq.heappop(self.waiting)
            if line.joinable:
                line = self._join_waiting(line)
            client = self.connection.client
            if client is None or not client.connected:
                heapq.heappush(self.waiting, line)
                self.connected.clear()
                continue
            self.bucket.take()
            try:
                await client.rawmsg(line.command, *line.params)
            except Exception:
                log.exception("IRC send failed")
                heapq.heappush(self.waiting, line)
                continue
            if line.command in ("NOTICE", "PRIVMSG"):
                self.metrics.replies += 1
            if line.done:
                self.sent(line.done)

    def _join_waiting(self, line: Line) -> Line:
        """Under a backlog (more lines waiting than the bucket lets out now) join the following
        joinable notices to the same target into this line, as far as the byte budget allows."""
        if len(self.waiting) < 2 or self.bucket.tokens >= 2:
            return line
        target = line.params[0]
        budget = self.budget(line.command, target)
        most = 1 + budget // len(JOIN_WITH)  # more cannot fit: each adds the separator at least
        run = [line]
        while self.waiting and len(run) < most and _joins(self.waiting[0], line):
            run.append(heapq.heappop(self.waiting))
        joined = fitting(run, lambda part: len(JOIN_WITH.join(p.params[1] for p in part).encode()) <= budget)
        for rest in run[len(joined):]:
            heapq.heappush(self.waiting, rest)
        if len(joined) > 1:
            self.metrics.coalesced_messages += 1
            self.metrics.coalesced_replies += len(joined)
        text = JOIN_WITH.join(p.params[1] for p in joined)
        done = [action_id for p in joined for action_id in p.done]
        return Line(line.priority, line.seq, line.command, [target, text], done, True)


def _joins(nxt: Line, line: Line) -> bool:
    return nxt.joinable and nxt.command == line.command and nxt.params[0] == line.params[0]
