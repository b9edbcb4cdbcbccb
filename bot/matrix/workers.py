"""Per-room workers and the sync token (docs/development.md#4).

- One worker task per room with its own queue: events of one room are handled in order, a slow
  room never stalls syncing or the other rooms; an idle room holds no task.
- The sync token lives in the bot's SQLite (``matrix_sync``, ``bot.matrix.store``) and is saved only
  once every event of that batch (and of all earlier batches) has been committed by the table.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.core.events import Action, Event
from bot.core.table import Table
from bot.matrix.coalesce import Coalesced, Limiter, RoomDelivery, wait_for_job
from bot.matrix.metrics import MatrixMetrics
from bot.matrix.outbox import Outbox
from bot.matrix.session import YIELD_ON_LIMIT
from bot.matrix.store import MatrixStore
from bot.metrics import Metrics
from bot.transport import handle_until_committed, pause

log = logging.getLogger("rolbot.matrix")


@dataclass
class Batch:
    token: str
    pending: int = 0
    dispatched: bool = False


@dataclass
class Job:
    event: Event | None = None
    action: Action | None = None
    batch: Batch | None = None
    raw: dict[str, Any] | None = None
    """The event as it came, for one the bot could not decrypt (``event.kind == "encrypted"``)."""
    parked: bool = False
    """``event`` is a kept encrypted message, decrypted once its key came: forget it once handled."""
    coalesced: Coalesced | None = None
    """A coalesced message written before a stop and perhaps not sent: send it again (same txn id)."""


class SyncBatches:
    """The sync batches not fully handled yet, oldest first: the stored token passes a batch once it
    is dispatched and every event of it and of the batches before it is committed."""

    def __init__(self, matrix_store: MatrixStore) -> None:
        self.matrix_store = matrix_store
        self._open: deque[Batch] = deque()

    def open(self, token: str) -> Batch:
        batch = Batch(token)
        self._open.append(batch)
        return batch

    def handled(self, batch: Batch | None) -> None:
        """One event (of ``batch``, if it came with one) is committed."""
        if batch is not None:
            batch.pending -= 1
        self.advance()

    def advance(self) -> None:
        token = None
        while self._open and self._open[0].dispatched and self._open[0].pending == 0:
            token = self._open.popleft().token
        if token is not None:
            self.matrix_store.save_sync_token(token)


class TableAnswers:
    """The table's answer to an event, retried until its transaction commits, and what follows it:
    the batch's count and the sync token, the metrics, the room's delivery."""

    def __init__(self, owner: str, table: Table, metrics: Metrics, batches: SyncBatches,
                 deliver: Callable[[str, list[Action]], None], stopping: Callable[[], bool]) -> None:
        """``owner``: the transport's name, which the outbox records with each action."""
        self.owner = owner
        self.table = table
        self.metrics = metrics
        self.batches = batches
        self.deliver = deliver
        self.stopping = stopping

    async def answer(self, event: Event, undecryptable: bool = False) -> list[Action] | None:
        handle = self.table.handle_undecryptable if undecryptable else self.table.handle
        return await handle_until_committed(functools.partial(handle, owner=self.owner), event, self.metrics,
                                            self.stopping)

    async def handle(self, event: Event, batch: Batch | None) -> None:
        """Handle one event; the sync token never moves past an event the table did not commit."""
        self.settle(event, batch, await self.answer(event) or [])

    def settle(self, event: Event, batch: Batch | None, actions: list[Action]) -> None:
        """``event`` is handled (committed): the token may move, its actions go to the room's delivery."""
        self.batches.handled(batch)
        self.metrics.events_handled += 1
        if event.ts:
            self.metrics.part(MatrixMetrics).sync_lag_seconds = max(0.0, time.time() - event.ts / 1000)
        self.deliver(event.room_id, actions)


class RoomWorkers:
    """One worker per room with work to do, handling its jobs in order: events (``handle``), actions
    to deliver, a coalesced message to send again."""

    def __init__(self, outbox: Outbox, bot_user: str, metrics: Metrics, gms_of: Callable[[str], list[str]],
                 handle: Callable[[Event, Job], Awaitable[None]], stopping: Callable[[], bool],
                 stop_event: asyncio.Event) -> None:
        self.outbox = outbox
        self.bot_user = bot_user
        self.metrics = metrics
        self.gms_of = gms_of
        self.handle = handle
        self.stopping = stopping
        self.stop_event = stop_event
        self.limiter = Limiter()
        self.queues: dict[str, asyncio.Queue[Job | None]] = {}
        self.tasks: dict[str, asyncio.Future[None]] = {}
        self.deliveries: dict[str, RoomDelivery] = {}

    def enqueue(self, room_id: str, job: Job) -> None:
        queue = self.queues.get(room_id)
        if queue is None:
            queue = self.queues[room_id] = asyncio.Queue()
            self.tasks[room_id] = asyncio.ensure_future(self._worker(room_id, queue))
        queue.put_nowait(job)

    def deliver(self, room_id: str, actions: list[Action]) -> None:
        """Actions for the room's delivery (from the room's own worker)."""
        self.delivery(room_id).add(actions)

    def drop(self, room_id: str) -> None:
        """The bot left the room: its worker ends after the job in hand."""
        queue = self.queues.pop(room_id, None)
        if queue is not None:
            queue.put_nowait(None)
            self.tasks.pop(room_id, None)

    async def shutdown(self) -> None:
        """Every worker finishes the job in hand and ends."""
        for queue in self.queues.values():
            queue.put_nowait(None)
        if self.tasks:
            await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    def delivery(self, room_id: str) -> RoomDelivery:
        delivery = self.deliveries.get(room_id)
        if delivery is None:
            delivery = self.deliveries[room_id] = RoomDelivery(room_id, self.outbox, self.limiter, self.bot_user,
                                                               self.gms_of)
        return delivery

    async def _worker(self, room_id: str, queue: asyncio.Queue[Job | None]) -> None:
        """Handle the room's jobs in order. Their actions go out right away, unless the server is
        rate-limiting the bot: then they gather while the room keeps handling its events, and go
        out when the server allows (``bot.matrix.coalesce``)."""
        YIELD_ON_LIMIT.set(True)  # this task's context only
        delivery = self.delivery(room_id)
        getter: asyncio.Future[Job | None] | None = None
        try:
            while not self.stopping():
                if getter is None and queue.empty() and not delivery.busy:
                    # Idle: the worker ends (the next event starts another), so a thousand quiet
                    # rooms hold no task, queue or delivery (bench/scale.py, RSS).
                    self._retire(room_id, queue, delivery)
                    return
                timeout = delivery.wait() if delivery.busy else None
                if timeout == 0:
                    got, job = False, None
                    if getter is None and not queue.empty():
                        got, job = True, queue.get_nowait()
                else:
                    got, job, getter = await wait_for_job(queue, getter, timeout)
                if not got:
                    await self._flush(delivery)
                    continue
                if job is None or (self.stopping() and job.event is not None):
                    break
                await self._run(room_id, job, delivery)
                if not (delivery.limited and not queue.empty()):
                    await self._flush(delivery)
        finally:
            if getter is not None:
                getter.cancel()

    async def _run(self, room_id: str, job: Job, delivery: RoomDelivery) -> None:
        try:
            if job.event is not None:
                await self.handle(job.event, job)
            elif job.action is not None:
                delivery.add([job.action])
            elif job.coalesced is not None:
                delivery.inflight = job.coalesced
        except Exception:  # one bad event must not kill the room
            self.metrics.errors += 1
            log.exception("room %s: error", room_id)

    def _retire(self, room_id: str, queue: asyncio.Queue[Job | None], delivery: RoomDelivery) -> None:
        if self.queues.get(room_id) is queue:
            del self.queues[room_id]
            self.tasks.pop(room_id, None)
        if not delivery.limited and self.deliveries.get(room_id) is delivery:
            del self.deliveries[room_id]

    async def _flush(self, delivery: RoomDelivery) -> None:
        try:
            await delivery.flush()
        except Exception:  # not lost (still pending or in the outbox): tried again after a pause
            self.metrics.errors += 1
            log.exception("room %s: error sending", delivery.room_id)
            await pause(self.stop_event, 1.0)
