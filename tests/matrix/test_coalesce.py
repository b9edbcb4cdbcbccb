"""Coalescing under a rate limit, without a homeserver: priorities and crash safety."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.events import Action, PowerLevels, Redact, Send
from bot.core.render import MAX_BODY, Message, Renderer
from bot.core.store import Store
from bot.matrix.coalesce import Limiter, RoomDelivery, inflight_records
from bot.matrix.errors import RateLimited
from bot.matrix.store import MatrixStore
from bot.metrics import Metrics

ROOM = "!sala:localhost"


class Crash(BaseException):
    """kill -9 between the send and marking it done."""


class FakeOutbox:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.matrix_store = MatrixStore(store)
        self.renderer = Renderer()
        self.metrics = Metrics()
        self.sent: list[tuple[str, Any]] = []
        self.limit_next = 0
        self.crash_after_send = False

    def stopping(self) -> bool:
        return False

    async def execute(self, action: Action) -> None:
        if self.limit_next:
            self.limit_next -= 1
            raise RateLimited("send", 5.0)
        self.sent.append((action.kind, action))
        self.store.outbox.done([action.action_id])

    async def room_send(self, room_id: str, event_type: str, content: dict, tx: str | None) -> None:
        self.sent.append((tx or "", content))
        if self.crash_after_send:
            raise Crash


def roll(i: int) -> Send:
    return Send(ROOM, Message(f"Kurtz · 🎲 d6: [{i}] = {i}", f"Kurtz · 🎲 d6: <b>{i}</b>"),
                reply_to=f"$tirada{i}", action_id=f"$tirada{i}/0", template="roll_by", actor="Kurtz")


def delivery(outbox: FakeOutbox, limiter: Limiter) -> RoomDelivery:
    return RoomDelivery(ROOM, outbox, limiter, "@rolbot:localhost", lambda _room: ["@master:localhost"])  # type: ignore[arg-type]


def queued(store: Store, actions: list[Action]) -> None:
    with store.transaction():
        store.outbox.queue("$x", actions)


async def test_priorities_and_one_coalesced_message_under_the_limit() -> None:
    store = Store()
    outbox = FakeOutbox(store)
    limiter = Limiter()
    room = delivery(outbox, limiter)
    actions: list[Action] = [roll(1), roll(2), Redact(ROOM, "$charla", "narración", action_id="$charla/0"),
                             PowerLevels(ROOM, lock=True, action_id="$raya/0"), roll(3)]
    queued(store, actions)
    outbox.limit_next = 1
    room.add(actions)
    await room.flush()
    assert room.limited and room.wait() > 0 and not outbox.sent
    limiter.until = 0  # the window opens
    await room.flush()
    kinds = [k for k, _ in outbox.sent]
    assert kinds[:2] == ["power_levels", "redact"]
    assert len(outbox.sent) == 3 and not room.pending and not room.limited
    content = outbox.sent[2][1]
    assert content["m.relates_to"] == {"m.in_reply_to": {"event_id": "$tirada3"}}
    assert "%24tirada1" in content["body"] and "%24tirada2" in content["body"]
    assert "override_ratelimit" in content["body"] and content["m.mentions"]["user_ids"] == ["@master:localhost"]
    assert store.outbox.pending() == [] and inflight_records(MatrixStore(store)) == []


async def test_a_crash_after_the_coalesced_send_resends_the_same_message() -> None:
    store = Store()
    outbox = FakeOutbox(store)
    limiter = Limiter()
    room = delivery(outbox, limiter)
    actions: list[Action] = [roll(1), roll(2)]
    queued(store, actions)
    room.limited = True
    room.add(actions)
    outbox.crash_after_send = True
    with pytest.raises(Crash):
        await room.flush()
    first_tx, first_content = outbox.sent[0]
    # After the restart: the record is there and the actions still pending, as one message.
    [record] = inflight_records(MatrixStore(store))
    assert {a.action_id for a in store.outbox.pending()} == set(record.action_ids)
    outbox.crash_after_send = False
    again = delivery(outbox, Limiter())
    again.inflight = record
    await again.flush()
    assert outbox.sent[1] == (first_tx, first_content)  # same txn id: the homeserver deduplicates it
    assert store.outbox.pending() == [] and inflight_records(MatrixStore(store)) == []
    assert outbox.matrix_store.rate_limit_noticed(ROOM) and store.meta.with_prefix("rate_limit") == []


async def test_replies_too_long_for_one_message_go_in_as_few_as_fit() -> None:
    store = Store()
    outbox = FakeOutbox(store)
    room = delivery(outbox, Limiter())
    actions: list[Action] = [Send(ROOM, Message(f"{i}: " + "x" * 900, f"{i}: " + "x" * 900), reply_to=f"$t{i}",
                                  action_id=f"$t{i}/0", template="roll_by", actor="Kurtz") for i in range(9)]
    queued(store, actions)
    room.limited = True
    room.add(actions)
    await room.flush()
    bodies = [content["body"] for _, content in outbox.sent]
    assert len(bodies) == 3 and all(len(body) <= MAX_BODY for body in bodies)
    assert [body.count("x" * 900) for body in bodies] == [3, 4, 2]  # each as full as it may be (the first tells the GM)
    assert store.outbox.pending() == []
