"""The Matrix bot: the sync loop and what a sync brings (invites, leaves, joined rooms' timelines).

Design notes (docs/development.md#4):
- We drive ``client.sync(since=token)`` ourselves. The sync token is saved only once every event of
  that batch (and of all earlier batches) has been committed by the table (``workers.SyncBatches``).
  The table's outbox covers the actions.
- One worker task per room with its own queue (``workers.RoomWorkers``): events of one room are
  handled in order, a slow room never stalls syncing or the other rooms.
- No event content, however malformed, stops the loop: an unreadable event is logged, counted,
  recorded as handled and skipped (``translate``).
- Composition: the rooms' auth state (``rooms``), membership (``invites``), messages it could not
  decrypt (``undecryptable``), delivery (``outbox``, ``coalesce``) are their own classes.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any

from nio import AsyncClient, ErrorResponse, MessageDirection

from bot.config import Config
from bot.core.events import Action, Event, PowerLevels
from bot.core.table import Table
from bot.matrix.coalesce import inflight_records
from bot.matrix.crosssign import ensure_cross_signing
from bot.matrix.errors import PermanentError
from bot.matrix.invites import Membership
from bot.matrix.metrics import MatrixMetrics
from bot.matrix.outbox import Outbox
from bot.matrix.power import RoomAuth
from bot.matrix.rooms import JoinedRooms
from bot.matrix.session import NETWORK_ERRORS, CryptoStore, Session
from bot.matrix.store import MatrixStore
from bot.matrix.translate import CAPABILITIES, Malformed, admins_event, is_own_join, is_state, translate
from bot.matrix.undecryptable import Undecryptable
from bot.matrix.workers import Batch, Job, RoomWorkers, SyncBatches, TableAnswers
from bot.memory import release_freed_memory
from bot.metrics import Metrics
from bot.net import describe_network_error
from bot.transport import Backoff, pause, pending_of

log = logging.getLogger("rolbot.matrix")


def sync_filter(timeline_limit: int) -> dict[str, Any]:
    """The sync filter. The timeline has no ``types``/``not_types``: every event a member posts
    (messages, stickers, reactions, polls, anything else) must reach the table."""
    return {
        "presence": {"types": []},
        "account_data": {"types": []},
        "room": {
            "timeline": {"limit": timeline_limit},
            "state": {"lazy_load_members": True},
            "ephemeral": {"types": []},
            "account_data": {"types": []},
        },
    }


class MatrixBot:
    """The Matrix transport (``bot.transport.Transport``): it owns the rooms it is in."""

    name = "matrix"
    capabilities = CAPABILITIES

    def __init__(self, config: Config, table: Table, metrics: Metrics, setup_only: bool = False,
                 reset_cross_signing: bool = False) -> None:
        """``setup_only``: log in, publish the device keys, set up cross-signing and stop
        (``rolbot run --setup-crypto``); ``setup_ok`` then says whether the device is signed.
        ``reset_cross_signing``: replace the account's cross-signing identity with new keys
        (``rolbot run --reset-cross-signing``). The table, its store and the web server are the
        runner's (``bot.runner``)."""
        self.config = config
        self.user_id = config.matrix.user_id
        self.store = table.store
        self.matrix_store = MatrixStore(self.store)
        self.table = table
        self.metrics = metrics
        self.metrics.transports["matrix"] = False
        self.ready = asyncio.Event()
        self._stopping = False
        self._stop_event = asyncio.Event()
        self.setup_only = setup_only
        self.setup_ok = False
        self.reset_cross_signing = reset_cross_signing
        self.session = Session(config, self.metrics, lambda: self._stopping, self._stop_event)
        self.rooms = JoinedRooms(self.session, self.matrix_store)
        self.membership = Membership(self.session, self.matrix_store, config.matrix.allowed_inviters,
                                     config.matrix.invites_from_own_server)
        self.outbox = Outbox(self.session, self.store, self.matrix_store, self.table.renderer, self.metrics,
                             self.rooms.auths, self.rooms.auth_for, lambda: self._stopping)
        self.batches = SyncBatches(self.matrix_store)
        self._admins_told: dict[str, tuple[tuple[str, str], ...]] = {}
        """Each room's admins as last told to the table in this run (``_tell_admins``)."""
        self.workers = RoomWorkers(self.outbox, self.user_id, self.metrics, self._gms_of, self._handle,
                                   lambda: self._stopping, self._stop_event)
        self.answers = TableAnswers(self.name, table, self.metrics, self.batches, self.workers.deliver,
                                    lambda: self._stopping)
        self.undecryptable = Undecryptable(self.session, self.matrix_store, table, self.metrics, self.outbox,
                                           self.rooms, self.answers, self.workers.enqueue, self._read,
                                           config.matrix.undecryptable_wait_s)
        self.rooms.load()  # the rooms it owns, from the start (``owns``)

    @property
    def client(self) -> AsyncClient:
        """The logged-in nio client (tests use it to ask the homeserver as the bot)."""
        return self.session.client

    # ------------------------------------------------------------------ lifecycle

    def owns(self, room_id: str) -> bool:
        """The rooms the bot is in (their state is stored from the first sync that shows them)."""
        return room_id in self.rooms

    def deliver(self, actions: list[Action]) -> None:
        """Committed actions of its rooms (from an event another source handed the table): each room's
        worker carries them out after what it has in hand."""
        for action in actions:
            self.workers.enqueue(action.room_id, Job(action=action))

    def stop(self) -> None:
        """Ask the bot to stop: the event in hand is finished, nothing new is started."""
        self._stopping = True
        self._stop_event.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    async def run(self) -> None:
        background: list[asyncio.Future[None]] = []
        try:
            await self.session.login()
            if not self._stopping:
                self._resume_pending()
                background += [asyncio.ensure_future(self.undecryptable.watch(self.ready, lambda: self._stopping)),
                               asyncio.ensure_future(self.outbox.rename_private_rooms())]
                await self._sync_loop()
        except PermanentError:
            if not self._stopping:
                raise  # a request given up because the bot is stopping is no failure
        finally:
            for task in background:
                task.cancel()
            await asyncio.gather(*background, return_exceptions=True)
            await self._shutdown()
        log.info("rolbot stopped")

    async def _shutdown(self) -> None:
        self._stopping = True
        await self.workers.shutdown()
        self.batches.advance()
        await self.session.close()

    # ------------------------------------------------------------------ sync

    async def _sync_loop(self) -> None:
        token = self.matrix_store.sync_token()
        first = token is None
        backoff = Backoff(0.5, 30.0)
        while not self._stopping:
            timeout = 1 if first or not self.ready.is_set() else self.config.matrix.sync_timeout_ms
            limit = 1 if first else self.config.matrix.timeline_limit
            sync = asyncio.ensure_future(self.session.client.sync(timeout=timeout, since=token,
                                                                  sync_filter=sync_filter(limit)))
            stop = asyncio.ensure_future(self._stop_event.wait())
            done, _ = await asyncio.wait({sync, stop}, return_when=asyncio.FIRST_COMPLETED)
            if sync not in done:
                sync.cancel()
                await asyncio.gather(sync, return_exceptions=True)
                break
            stop.cancel()
            problem: str | None
            try:
                resp = sync.result()
            except NETWORK_ERRORS as err:
                resp, problem = None, describe_network_error(err, self.session.homeserver)
            else:
                problem = None if not isinstance(resp, ErrorResponse) else f"{resp.status_code} {resp.message}"
            if problem is not None:
                self.metrics.errors += 1
                wait = backoff.next()
                if isinstance(resp, ErrorResponse) and resp.status_code == "M_LIMIT_EXCEEDED":
                    wait = (resp.retry_after_ms or 1000) / 1000
                elif isinstance(resp, ErrorResponse) and resp.status_code == "M_UNKNOWN_TOKEN":
                    log.warning("token rejected: logging in again")
                    await self.session.relogin()
                    continue
                log.warning("sync failed (%s); retrying in %.1f s", problem, wait)
                await pause(self._stop_event, wait)
                continue
            backoff.reset()
            # Events first, keys after: a send to an encrypted room queries new devices itself
            # (outbox) and nio claims the one-time keys it lacks before it shares a room key.
            await self._process_sync(resp, since=token, first=first)
            await self._crypto_upkeep()
            await self.undecryptable.retry()
            token, first = resp.next_batch, False
            counters = self.metrics.part(MatrixMetrics)
            counters.encrypted_rooms = sum(1 for r in self.session.client.rooms.values() if r.encrypted)
            counters.syncs += 1
            counters.last_sync_ts = time.time()
            if not self.ready.is_set():
                await self._setup_cross_signing()
                self.ready.set()
                self.metrics.transports["matrix"] = True
                log.info("first sync done")
                self._release_memory()

    def _release_memory(self) -> None:
        """What the start-up read and parsed goes back: both SQLite page caches, then Python's freed blocks."""
        self.store.release_memory()
        if isinstance(self.session.client.store, CryptoStore):
            self.session.client.store.release_memory()
        release_freed_memory()

    async def _crypto_upkeep(self) -> None:
        try:
            await self.session.crypto_upkeep()
        except PermanentError as err:
            log.warning("end-to-end keys: %s", err)

    async def _setup_cross_signing(self) -> None:
        """Once our device keys are on the server: make sure the device is cross-signed."""
        try:
            self.setup_ok = await self.session.unless_stopped(
                "cross-signing", lambda: ensure_cross_signing(self.session, self.config, self.reset_cross_signing))
        except PermanentError as err:
            log.warning("cross-signing: %s", err)
        if self.setup_only:
            self.stop()

    async def _process_sync(self, resp: Any, since: str | None, first: bool) -> None:
        batch = self.batches.open(resp.next_batch)
        rooms = resp.rooms
        for room_id, info in rooms.invite.items():
            await self.membership.invited(room_id, info)
        for room_id in rooms.leave:
            await self._on_leave(room_id)
        fresh = await self.rooms.fetch_missing(list(rooms.join))
        for room_id, info in rooms.join.items():
            if self._stopping:
                break
            try:
                await self._on_joined_room(room_id, info, since, first, batch, room_id in fresh)
            except PermanentError as err:
                log.error("room %s: %s", room_id, err)
        # The rooms' state as of this batch is stored before the sync token can pass the batch:
        # a crash in between replays the batch over it, which changes nothing.
        self.rooms.save()
        batch.dispatched = True
        self.batches.advance()

    async def _on_leave(self, room_id: str) -> None:
        log.info("left room %s (kicked or left)", room_id)
        self.rooms.forget(room_id)
        self._admins_told.pop(room_id, None)
        self.workers.drop(room_id)
        await self.membership.forget(room_id)

    # ------------------------------------------------------------------ timeline

    async def _on_joined_room(self, room_id: str, info: Any, since: str | None, first: bool, batch: Batch,
                              fresh: bool = False) -> None:
        """``fresh``: the room's full state was just read (newer than this sync's ``state``)."""
        known = room_id in self.rooms and not fresh
        auth = await self.rooms.auth_for(room_id)
        events: list[Any] = [getattr(ev, "source", None) for ev in info.timeline.events]
        await self.membership.private_room_left(room_id, [getattr(ev, "source", None) for ev in info.state] + events)
        if known:
            for src in info.state:
                auth.apply(getattr(src, "source", None))
        if first:
            # Very first start: history from before the bot ran is ignored; only note the state.
            for src in events:
                auth.apply(src)
            self._tell_admins(room_id, auth, batch)
            return
        joined_here = any(is_own_join(src, self.user_id) for src in events)
        if info.timeline.limited and since and not joined_here and info.timeline.prev_batch:
            events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
        if any(is_own_join(src, self.user_id) for src in events):
            last = max(i for i, src in enumerate(events) if is_own_join(src, self.user_id))
            for src in events[:last]:
                auth.apply(src)
            events = events[last + 1:]
        self._tell_admins(room_id, auth, batch)
        for src in events:
            if is_state(src):
                auth.apply(src)
                self._tell_admins(room_id, auth, batch)
                continue
            event = self._read(room_id, src, auth)
            if event is not None:
                self._enqueue(room_id, event, batch, src)

    def _enqueue(self, room_id: str, event: Event, batch: Batch, src: object = None) -> None:
        """``event`` to the room's worker, in the order of the timeline; the sync token waits for it."""
        batch.pending += 1
        raw = src if event.kind == "encrypted" and isinstance(src, dict) else None
        self.workers.enqueue(room_id, Job(event=event, batch=batch, raw=raw))

    def _tell_admins(self, room_id: str, auth: RoomAuth, batch: Batch) -> None:
        """When the room's admins (creators, power level 50+, joined) changed since the table was last told
        (or not yet told in this run), an ``admins`` event goes in line with the timeline: a co-GM whose
        level is lowered stops being a GM at once, without a message of theirs."""
        admins = auth.admins(self.user_id)
        if self._admins_told.get(room_id) == admins:
            return
        self._admins_told[room_id] = admins
        self._enqueue(room_id, admins_event(room_id, admins), batch)

    def _read(self, room_id: str, src: object, auth: RoomAuth) -> Event | None:
        """The ``Event`` a timeline source is; an unreadable one is logged and counted, and either
        still judged (it counts as writing) or, ``None``, recorded as handled."""
        event = translate(room_id, src, auth, self.user_id)
        if not isinstance(event, Malformed):
            return event
        self.metrics.errors += 1
        log.warning("room %s: malformed event %s skipped: %s", room_id, event.event_id, event.reason)
        if event.event is None and event.event_id is not None:
            self.store.handled.skip(event.event_id, room_id, 0)
        return event.event

    async def _backfill(self, room_id: str, start: str, since: str) -> list[Any]:
        """The events a limited timeline left out, between ``since`` and ``start`` (oldest first)."""
        out: list[Any] = []
        token = start
        client = self.session.client
        for _ in range(50):
            resp = await self.session.request(
                "missed messages",
                functools.partial(client.room_messages, room_id, start=token, end=since,
                                  direction=MessageDirection.back, limit=100),
                attempts=6)
            chunk = [getattr(ev, "source", None) for ev in resp.chunk]
            for src in chunk:
                out.append(src)
                if is_own_join(src, self.user_id):
                    return list(reversed(out))
            if not chunk or not resp.end or resp.end == token:
                break
            token = resp.end
        log.info("room %s: %d events recovered from a sync gap", room_id, len(out))
        return list(reversed(out))

    def _resume_pending(self) -> None:
        """Actions committed before a crash and not yet sent (a coalesced message as it was written);
        saved power levels with no open lock."""
        inflight = inflight_records(self.matrix_store)
        coalesced = {a for record in inflight for a in record.action_ids}
        for record in inflight:
            self.workers.enqueue(record.room_id, Job(coalesced=record))
        pending = [a for a in pending_of(self, self.store) if a.action_id not in coalesced]
        for action in pending:
            self.workers.enqueue(action.room_id, Job(action=action))
        unlocking = {a.room_id for a in pending if isinstance(a, PowerLevels)}
        for room_id in self.matrix_store.rooms_with_saved_power_levels():
            lock = self.table.room(room_id).lock
            if room_id not in unlocking and not (lock and lock.muted):
                log.info("room %s: saved power levels with no open lock: restoring them", room_id)
                self.workers.enqueue(room_id, Job(action=PowerLevels(room_id, lock=False)))
        if pending:
            log.info("%d actions pending from before the stop", len(pending))

    def _gms_of(self, room_id: str) -> list[str]:
        """Who the rate-limit notice is for: the room's GMs, else its creators."""
        gms = self.table.gms_of(room_id)
        auth = self.rooms.get(room_id)
        return gms if gms or auth is None else sorted(auth.creators)

    async def _handle(self, event: Event, job: Job) -> None:
        """A room worker's event: one the bot could not decrypt, a kept one decrypted since, or any other."""
        if job.raw is not None:
            await self.undecryptable.handle(event, job.raw, job.batch)
        elif job.parked:
            await self.undecryptable.handle_decrypted(event, job.batch)
        else:
            await self.answers.handle(event, job.batch)
