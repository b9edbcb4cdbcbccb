"""Delivering a room's actions under the homeserver's message rate limit (issue 12).

A homeserver limits how fast any user, the bot included, may send (Synapse's ``rc_message``:
0.2 messages/s after a burst of 10). While it is not limiting the bot, a room's actions go out one
by one, in order, right after the event that made them. Once a send meets a 429, the room's
worker keeps handling its events but does not wait on each send: their actions gather in
``RoomDelivery.pending``, and when the server allows the next message they go out by priority
(what keeps the protocol first: a mute's power levels, redactions, lock confirmations) and every
notice for the room is coalesced into one message (lock notices first, then the rest; it replies
to the last roll and links the others, each link named by what it answers, docs/contracts.md#3.4).
The GMs are told once per room, privately and after the room's replies, that the server is slowing
the bot down (and the log says so, with what a server admin can do): the players are not.

Crash safety: the coalesced message is written to ``matrix_coalesced`` (``MatrixStore``) with its
transaction id before it is sent, and its actions are marked done in one transaction with that
record's removal after the send succeeds. A restart in between resends the same content with the
same transaction id (the homeserver deduplicates it) instead of the actions one by one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from bot.core.events import Action, Send
from bot.core.render import MAX_BODY, Message
from bot.matrix.errors import PermanentError, RateLimited
from bot.matrix.outbox import ACTIONS, Outbox, relates_to
from bot.matrix.store import MatrixStore
from bot.transport import fitting

log = logging.getLogger("rolbot.matrix")

MAX_ENTRIES = 25
MAX_SENDERS = 256
MIN_WAIT_S = 0.05


def priority(action: Action) -> int:
    """Lower goes first under the limit (``Carry.priority``)."""
    return ACTIONS[action].priority(action)


def matrix_to(room_id: str, event_id: str) -> str:
    return f"https://matrix.to/#/{quote(room_id, safe='')}/{quote(event_id, safe='')}"


@dataclass
class Coalesced:
    """One coalesced message: what it carries and its content, as sent (and resent after a crash)."""

    room_id: str
    action_ids: list[str]
    content: dict[str, Any]
    txn: str
    notice: bool
    """It told the room the bot is rate-limited: only a message an earlier rolbot kept before a crash (the GMs
    are told privately now)."""

    def to_json(self) -> str:
        return json.dumps({"room_id": self.room_id, "action_ids": self.action_ids, "content": self.content,
                           "txn": self.txn, "notice": self.notice}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Coalesced:
        data = json.loads(text)
        return cls(data["room_id"], list(data["action_ids"]), data["content"], data["txn"], bool(data["notice"]))


class Limiter:
    """The bot's one rate limit: Synapse counts messages per user, whatever the room."""

    def __init__(self) -> None:
        self.until = 0.0

    def hit(self, wait: float) -> None:
        self.until = max(self.until, time.monotonic() + max(wait, MIN_WAIT_S))

    def wait(self) -> float:
        return max(0.0, self.until - time.monotonic())


class RoomDelivery:
    """The actions of one room not carried out yet; only its room's worker touches it."""

    def __init__(self, room_id: str, outbox: Outbox, limiter: Limiter, bot_user: str,
                 gms_of: Callable[[str], list[str]]) -> None:
        self.room_id = room_id
        self.outbox = outbox
        self.limiter = limiter
        self.bot_user = bot_user
        self.gms_of = gms_of
        self.pending: list[Action] = []
        self.inflight: Coalesced | None = None
        self.limited = False
        self.senders: dict[str, str] = {}
        """Who sent the events the room's worker handled lately (event id -> user id): a coalesced message
        mentions them, as each of its replies would have."""

    def answering(self, event_id: str, sender: str) -> None:
        """The room's worker is about to hand the table an event: whose it is (the last ``MAX_SENDERS``)."""
        if len(self.senders) >= MAX_SENDERS:
            del self.senders[next(iter(self.senders))]
        self.senders[event_id] = sender

    @property
    def busy(self) -> bool:
        return bool(self.pending) or self.inflight is not None

    def add(self, actions: list[Action]) -> None:
        self.pending.extend(actions)

    def wait(self) -> float:
        """Seconds until this room may try to send again (0: now)."""
        return self.limiter.wait() if self.limited else 0.0

    async def flush(self) -> None:
        """Carry out what is pending, as far as the server allows. Returns early (still pending)
        when it meets the rate limit; the caller comes back after ``wait()``."""
        try:
            if self.inflight is not None:
                await self._send_coalesced(self.inflight)
                self.inflight = None
            if not self.limited:
                while self.pending:
                    await self.outbox.execute(self.pending[0])
                    self.pending.pop(0)
                return
            if self.limiter.wait() > 0:
                return
            await self._flush_limited()
        except RateLimited as err:
            self.limiter.hit(err.wait)
            self.limited = True
            self._notice_gms()

    def _notice_gms(self) -> None:
        """The first time the room meets the limit: the log says so, and the GMs will be told privately once
        the room's own replies are out (a private message goes last under the limit). With no GM known,
        the message goes to the room's admins the homeserver knows (the bot itself is never sent one)."""
        if self.outbox.matrix_store.rate_limit_noticed(self.room_id, note=True):
            return
        log.warning("room %s: the homeserver is rate-limiting the bot, its replies are coalesced (the GMs are told "
                    "privately); a server admin can exempt it (Synapse: POST "
                    "/_synapse/admin/v1/users/%s/override_ratelimit)", self.room_id, self.bot_user)
        gms = self.gms_of(self.room_id) or [self.bot_user]
        message: Message = self.outbox.renderer.render("matrix/rate_limit_notice", bot=self.bot_user,
                                                                     room=self.room_id)
        self.pending.append(Send(self.room_id, message, private_to=gms[0], private_also=tuple(gms[1:]),
                                 to_room_gms=True, template="matrix/rate_limit_notice"))

    async def _flush_limited(self) -> None:
        while self.pending:
            order = sorted(self.pending, key=priority)
            first = order[0]
            if priority(first) < 3 or priority(first) == 5:
                await self.outbox.execute(first)
                self.pending.remove(first)
                continue
            thread = first.thread if isinstance(first, Send) else ""  # one message goes to one thread
            group = [a for a in order if isinstance(a, Send) and priority(a) in (3, 4)
                     and a.thread == thread][:MAX_ENTRIES]
            if len(group) == 1:
                await self.outbox.execute(group[0])
                self.pending.remove(group[0])
                continue
            coalesced = self._build(group)
            self.outbox.matrix_store.keep_coalesced(self.room_id, coalesced.to_json())
            self.inflight = coalesced
            for action in coalesced_actions(group, coalesced):
                self.pending.remove(action)
            await self._send_coalesced(coalesced)
            self.inflight = None
        if not self.pending:
            self.limited = False

    def _build(self, group: list[Send]) -> Coalesced:
        """The one message for ``group`` (as much of it from its start as fits a message)."""
        renderer = self.outbox.renderer

        def fits(part: list[Send]) -> bool:
            context = self._context(part)
            return (len(renderer.env.get_template("matrix/coalesced.txt").render(context).strip()) <= MAX_BODY
                    and len(renderer.env.get_template("matrix/coalesced.html").render(context).strip()) <= MAX_BODY)

        group = fitting(group, fits)
        target = reply_target(group)
        message = renderer.render("matrix/coalesced", **self._context(group))
        mentions = list(dict.fromkeys(m for a in group for m in (*a.mentions, self.senders.get(a.reply_to or ""))
                                      if m and m != self.bot_user))
        content: dict[str, Any] = {
            "msgtype": "m.notice", "body": message.body,
            "format": "org.matrix.custom.html", "formatted_body": message.html,
            "m.mentions": {"user_ids": mentions},
        }
        relation = relates_to(replace(group[0], reply_to=target))
        if relation:
            content["m.relates_to"] = relation
        ids = [a.action_id for a in group]
        txn = "rolbot-c-" + hashlib.sha256("\n".join([self.room_id, *ids]).encode()).hexdigest()[:32]
        return Coalesced(self.room_id, ids, content, txn, False)

    def _context(self, group: list[Send]) -> dict[str, Any]:
        """What the ``coalesced`` template shows: the message replies to the last roll and links the others,
        each link named by what it answers (a roll, or any other message)."""
        target = reply_target(group)
        entries = [{"actor": a.actor, "body": a.message.body, "html": Markup(a.message.html), "roll": a.roll is not None,
                    "link": matrix_to(self.room_id, a.reply_to) if a.reply_to and a.reply_to != target else ""}
                   for a in group]
        return {"entries": entries}

    async def _send_coalesced(self, coalesced: Coalesced) -> None:
        try:
            await self.outbox.room_send(coalesced.room_id, "m.room.message", coalesced.content, coalesced.txn)
        except PermanentError as err:  # as Outbox.execute: refused for good, it is not retried
            log.error("coalesced message in %s failed: %s", coalesced.room_id, err)
            if self.outbox.stopping():
                raise
        self.outbox.matrix_store.coalesced_sent(coalesced.room_id, [a for a in coalesced.action_ids if a],
                                                coalesced.notice)
        metrics = self.outbox.metrics
        metrics.replies += 1
        metrics.coalesced_messages += 1
        metrics.coalesced_replies += len(coalesced.action_ids)
        log.info("room %s: %d replies sent in one message (rate limited)", coalesced.room_id,
                 len(coalesced.action_ids))


def reply_target(group: list[Send]) -> str | None:
    """The event a coalesced message replies to: the last one its replies answer."""
    return next((a.reply_to for a in reversed(group) if a.reply_to), None)


def coalesced_actions(group: list[Send], coalesced: Coalesced) -> list[Send]:
    ids = set(coalesced.action_ids)
    return [a for a in group if a.action_id in ids]


def inflight_records(matrix_store: MatrixStore) -> list[Coalesced]:
    """Coalesced messages written before a stop and not known to be sent."""
    return [Coalesced.from_json(data) for data in matrix_store.coalesced_in_flight()]


async def wait_for_job(queue: asyncio.Queue[Any], getter: asyncio.Future[Any] | None,
                       timeout: float | None) -> tuple[bool, Any, asyncio.Future[Any] | None]:
    """The next job of ``queue`` within ``timeout`` (None: forever), without losing one to a
    timeout: the pending ``get`` is kept for the next call. Returns (got, job, getter)."""
    if getter is None:
        if not queue.empty():
            return True, queue.get_nowait(), None
        getter = asyncio.ensure_future(queue.get())
    done, _ = await asyncio.wait({getter}, timeout=timeout)
    if getter in done:
        return True, getter.result(), None
    return False, None, getter
