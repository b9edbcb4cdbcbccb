"""The Matrix bot: the sync loop, batches and the sync token, per-room workers, membership.

Design notes (docs/development.md#4):
- We drive ``client.sync(since=token)`` ourselves. The sync token lives in the bot's SQLite
  (its table ``matrix_sync``, ``bot.matrix.store``) and is saved only once every event of that batch (and of all
  earlier batches) has been committed by the table. The table's outbox covers the actions.
- One worker task per room with its own queue: events of one room are handled in order, a slow
  room never stalls syncing or the other rooms.
- No event content, however malformed, stops the loop: an unreadable event is logged, counted,
  recorded as handled and skipped (``translate``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from nio import AsyncClient, EncryptionError, ErrorResponse, LocalProtocolError, MegolmEvent, MessageDirection

from bot.config import Config
from bot.core.events import Action, Event, PowerLevels, Send
from bot.core.table import Table
from bot.matrix.coalesce import Coalesced, Limiter, RoomDelivery, inflight_records, wait_for_job
from bot.matrix.crosssign import ensure_cross_signing
from bot.matrix.errors import PermanentError
from bot.matrix.invites import inviter_allowed, inviters, server_of
from bot.matrix.outbox import Outbox
from bot.matrix.power import RoomAuth
from bot.matrix.session import NETWORK_ERRORS, YIELD_ON_LIMIT, Session
from bot.matrix.store import MatrixStore
from bot.matrix.translate import CAPABILITIES, ENCRYPTED, Malformed, is_own_join, is_state, translate
from bot.memory import release_freed_memory
from bot.net import describe_network_error
from bot.transport import Backoff, handle_until_committed, pause, pending_of
from bot.web import Metrics

log = logging.getLogger("rolbot.matrix")

STATE_FETCHES = 8
"""How many rooms' full state are read from the homeserver at once (rooms with no stored copy)."""
KEEP_UNDECRYPTED_S = 7 * 86400
"""A message whose key never came is kept (and retried after every sync) this long, then dropped."""
MAX_KEPT_PER_SENDER = 20
"""Unreadable events kept per sender and room; past it they are judged at once, as mere writing."""


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
        self._queues: dict[str, asyncio.Queue[Job | None]] = {}
        self._workers: dict[str, asyncio.Future[None]] = {}
        self._batches: deque[Batch] = deque()
        self._auth: dict[str, RoomAuth] = {}
        self._fetching: dict[str, asyncio.Future[RoomAuth]] = {}
        self.undecryptable_wait = config.matrix.undecryptable_wait_s
        self.setup_only = setup_only
        self.setup_ok = False
        self.reset_cross_signing = reset_cross_signing
        self._decrypting: set[str] = set()  # kept events already queued for the table, decrypted
        self.session = Session(config, self.metrics, lambda: self._stopping, self._stop_event)
        self.outbox = Outbox(self.session, self.store, self.matrix_store, self.table.renderer, self.metrics,
                             self._auth, self._auth_for, lambda: self._stopping)
        self.limiter = Limiter()
        self.deliveries: dict[str, RoomDelivery] = {}
        self._load_auth()  # the rooms it owns, from the start (``owns``)

    @property
    def client(self) -> AsyncClient:
        """The logged-in nio client (tests use it to ask the homeserver as the bot)."""
        return self.session.client

    # ------------------------------------------------------------------ lifecycle

    def owns(self, room_id: str) -> bool:
        """The rooms the bot is in (their state is stored from the first sync that shows them)."""
        return room_id in self._auth

    def deliver(self, actions: list[Action]) -> None:
        """Committed actions of its rooms (from an event another source handed the table): each room's
        worker carries them out after what it has in hand."""
        for action in actions:
            self._enqueue(action.room_id, Job(action=action))

    def stop(self) -> None:
        """Ask the bot to stop: the event in hand is finished, nothing new is started."""
        self._stopping = True
        self._stop_event.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    async def run(self) -> None:
        watch: asyncio.Future[None] | None = None
        try:
            await self.session.login()
            if not self._stopping:
                self._resume_pending()
                watch = asyncio.ensure_future(self._watch_undecrypted())
                await self._sync_loop()
        except PermanentError:
            if not self._stopping:
                raise  # a request given up because the bot is stopping is no failure
        finally:
            if watch is not None:
                watch.cancel()
                await asyncio.gather(watch, return_exceptions=True)
            await self._shutdown()
        log.info("rolbot stopped")

    async def _shutdown(self) -> None:
        self._stopping = True
        for queue in self._queues.values():
            queue.put_nowait(None)
        if self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)
        self._advance_token()
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
            await self._retry_undecrypted()
            token, first = resp.next_batch, False
            self.metrics.encrypted_rooms = sum(1 for r in self.session.client.rooms.values() if r.encrypted)
            self.metrics.syncs += 1
            self.metrics.last_sync_ts = time.time()
            if not self.ready.is_set():
                await self._setup_cross_signing()
                self.ready.set()
                self.metrics.first_sync_done = True
                self.metrics.transports["matrix"] = True
                log.info("first sync done")
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
        batch = Batch(resp.next_batch)
        self._batches.append(batch)
        rooms = resp.rooms
        for room_id, info in rooms.invite.items():
            await self._on_invite(room_id, info)
        for room_id in rooms.leave:
            await self._on_leave(room_id)
        fresh = await self._fetch_missing(list(rooms.join))
        for room_id, info in rooms.join.items():
            if self._stopping:
                break
            try:
                await self._on_joined_room(room_id, info, since, first, batch, room_id in fresh)
            except PermanentError as err:
                log.error("room %s: %s", room_id, err)
        # The rooms' state as of this batch is stored before the sync token can pass the batch:
        # a crash in between replays the batch over it, which changes nothing.
        self._save_auth()
        batch.dispatched = True
        self._advance_token()

    def _advance_token(self) -> None:
        token = None
        while self._batches and self._batches[0].dispatched and self._batches[0].pending == 0:
            token = self._batches.popleft().token
        if token is not None:
            self.matrix_store.save_sync_token(token)

    # ------------------------------------------------------------------ membership

    async def _on_invite(self, room_id: str, info: Any) -> None:
        inviter = None
        for ev in info.invite_state:
            src = getattr(ev, "source", None)
            if (isinstance(src, dict) and src.get("type") == "m.room.member"
                    and src.get("state_key") == self.user_id and isinstance(src.get("sender"), str)):
                inviter = src["sender"]
        client = self.session.client
        try:
            allowed, own = self.config.matrix.allowed_inviters, self.config.matrix.invites_from_own_server
            if not inviter_allowed(inviter, self.user_id, allowed, own):
                log.warning("invite to %s from %s refused: who may invite the bot is %s; to allow them, add \"%s\" "
                            "(or \"*:%s\", their whole server) to allowed_inviters in [matrix]", room_id, inviter,
                            ", ".join(inviters(self.user_id, allowed, own)) or "nobody", inviter,
                            server_of(inviter or "") or "SERVER")
                await self.session.request("reject invite", lambda: client.room_leave(room_id), attempts=4)
                return
            log.info("invited to %s by %s: joining", room_id, inviter)
            await self.session.request("join room", lambda: client.join(room_id), attempts=6)
        except PermanentError as err:
            log.error("invite to %s: %s", room_id, err)

    async def _private_room_left(self, room_id: str, sources: list[Any]) -> None:
        """A player who left (or rejected) their private room gets a new one with the next private
        message: the bot forgets this one and leaves it."""
        client = self.session.client
        for src in sources:
            if not isinstance(src, dict) or src.get("type") != "m.room.member":
                continue
            user, content = src.get("state_key"), src.get("content")
            if (not isinstance(user, str) or user == self.user_id or not isinstance(content, dict)
                    or content.get("membership") not in ("leave", "ban") or self.matrix_store.private_room(user) != room_id):
                continue
            log.info("%s left their private room %s: the next private message goes to a new one", user, room_id)
            self.matrix_store.forget_private_room(user)
            try:
                await self.session.request("leave private room", lambda: client.room_leave(room_id), attempts=3)
            except PermanentError as err:
                log.info("room %s: %s", room_id, err)

    async def _on_leave(self, room_id: str) -> None:
        log.info("left room %s (kicked or left)", room_id)
        self._auth.pop(room_id, None)
        self.matrix_store.forget_room_auth(room_id)
        queue = self._queues.pop(room_id, None)
        if queue is not None:
            queue.put_nowait(None)
            self._workers.pop(room_id, None)
        client = self.session.client
        try:
            await self.session.request("forget room", lambda: client.room_forget(room_id), attempts=3)
        except PermanentError as err:
            log.info("room %s: %s", room_id, err)

    # ------------------------------------------------------------------ timeline

    def _load_auth(self) -> None:
        """The rooms' auth state as stored at the last run: a room found here is not read again."""
        for room_id, data in self.matrix_store.room_auths().items():
            self._auth[room_id] = RoomAuth.from_dict(data)
        if self._auth:
            log.info("auth state of %d rooms loaded", len(self._auth))

    def _save_auth(self) -> None:
        changed = {room_id: auth for room_id, auth in self._auth.items() if auth.dirty}
        if changed:
            self.matrix_store.save_room_auths({room_id: auth.to_dict() for room_id, auth in changed.items()})
            for auth in changed.values():
                auth.dirty = False

    async def _auth_for(self, room_id: str) -> RoomAuth:
        """The room's auth state: the stored copy, or (missing) its full state read once from the
        homeserver and stored at once (concurrent callers share the one request)."""
        auth = self._auth.get(room_id)
        if auth is not None:
            return auth
        pending = self._fetching.get(room_id)
        if pending is None:
            pending = self._fetching[room_id] = asyncio.ensure_future(self._fetch_auth(room_id))
            pending.add_done_callback(lambda _: self._fetching.pop(room_id, None))
        return await asyncio.shield(pending)

    async def _fetch_auth(self, room_id: str) -> RoomAuth:
        client = self.session.client
        resp = await self.session.request("room state", lambda: client.room_get_state(room_id), attempts=6)
        auth = RoomAuth()
        for ev in resp.events:
            auth.apply(ev)
        self._auth[room_id] = auth
        self._save_auth()
        return auth

    async def _fetch_missing(self, room_ids: list[str]) -> set[str]:
        """Read the full state of the rooms with no stored copy, ``STATE_FETCHES`` at a time;
        the rooms read (their state is newer than the sync's)."""
        missing = [r for r in room_ids if r not in self._auth]
        if not missing:
            return set()
        log.info("reading the state of %d rooms", len(missing))
        limit = asyncio.Semaphore(STATE_FETCHES)

        async def one(room_id: str) -> None:
            async with limit:
                try:
                    await self._auth_for(room_id)
                except PermanentError as err:
                    log.error("room %s: %s", room_id, err)

        await asyncio.gather(*(one(r) for r in missing))
        return {r for r in missing if r in self._auth}

    async def _on_joined_room(self, room_id: str, info: Any, since: str | None, first: bool, batch: Batch,
                              fresh: bool = False) -> None:
        """``fresh``: the room's full state was just read (newer than this sync's ``state``)."""
        known = room_id in self._auth and not fresh
        auth = await self._auth_for(room_id)
        events: list[Any] = [getattr(ev, "source", None) for ev in info.timeline.events]
        await self._private_room_left(room_id, [getattr(ev, "source", None) for ev in info.state] + events)
        if known:
            for src in info.state:
                auth.apply(getattr(src, "source", None))
        if first:
            # Very first start: history from before the bot ran is ignored; only note the state.
            for src in events:
                auth.apply(src)
            return
        joined_here = any(is_own_join(src, self.user_id) for src in events)
        if info.timeline.limited and since and not joined_here and info.timeline.prev_batch:
            events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
        if any(is_own_join(src, self.user_id) for src in events):
            last = max(i for i, src in enumerate(events) if is_own_join(src, self.user_id))
            for src in events[:last]:
                auth.apply(src)
            events = events[last + 1:]
        for src in events:
            if is_state(src):
                auth.apply(src)
                continue
            event = translate(room_id, src, auth, self.user_id)
            if isinstance(event, Malformed):
                event = self._malformed(room_id, event)
            if event is not None:
                batch.pending += 1
                raw = src if event.kind == "encrypted" and isinstance(src, dict) else None
                self._enqueue(room_id, Job(event=event, batch=batch, raw=raw))

    def _malformed(self, room_id: str, bad: Malformed) -> Event | None:
        """Log and count an unreadable event; what the table still judges (it counts as writing),
        or ``None`` once it is recorded as handled."""
        self.metrics.errors += 1
        log.warning("room %s: malformed event %s skipped: %s", room_id, bad.event_id, bad.reason)
        if bad.event is None and bad.event_id is not None:
            self.store.mark_skipped(bad.event_id, room_id, 0)
        return bad.event

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

    def _enqueue(self, room_id: str, job: Job) -> None:
        queue = self._queues.get(room_id)
        if queue is None:
            queue = self._queues[room_id] = asyncio.Queue()
            self._workers[room_id] = asyncio.ensure_future(self._worker(room_id, queue))
        queue.put_nowait(job)

    def _resume_pending(self) -> None:
        """Actions committed before a crash and not yet sent (a coalesced message as it was written);
        saved power levels with no open lock."""
        inflight = inflight_records(self.matrix_store)
        coalesced = {a for record in inflight for a in record.action_ids}
        for record in inflight:
            self._enqueue(record.room_id, Job(coalesced=record))
        pending = [a for a in pending_of(self, self.store) if a.action_id not in coalesced]
        for action in pending:
            self._enqueue(action.room_id, Job(action=action))
        unlocking = {a.room_id for a in pending if isinstance(a, PowerLevels)}
        for room_id in self.matrix_store.rooms_with_saved_power_levels():
            lock = self.table.room(room_id).lock
            if room_id not in unlocking and not (lock and lock.muted):
                log.info("room %s: saved power levels with no open lock: restoring them", room_id)
                self._enqueue(room_id, Job(action=PowerLevels(room_id, lock=False)))
        if pending:
            log.info("%d actions pending from before the stop", len(pending))

    def _delivery(self, room_id: str) -> RoomDelivery:
        delivery = self.deliveries.get(room_id)
        if delivery is None:
            delivery = self.deliveries[room_id] = RoomDelivery(room_id, self.outbox, self.limiter, self.user_id,
                                                               self._gms_of)
        return delivery

    def _gms_of(self, room_id: str) -> list[str]:
        """Who the rate-limit notice is for: the room's GMs, else its creators."""
        gms = self.table.gms_of(room_id)
        auth = self._auth.get(room_id)
        return gms if gms or auth is None else sorted(auth.creators)

    async def _worker(self, room_id: str, queue: asyncio.Queue[Job | None]) -> None:
        """Handle the room's jobs in order. Their actions go out right away, unless the server is
        rate-limiting the bot: then they gather while the room keeps handling its events, and go
        out when the server allows (``bot.matrix.coalesce``)."""
        YIELD_ON_LIMIT.set(True)  # this task's context only
        delivery = self._delivery(room_id)
        getter: asyncio.Future[Job | None] | None = None
        try:
            while not self._stopping:
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
                if job is None or (self._stopping and job.event is not None):
                    break
                try:
                    if job.event is not None and job.raw is not None:
                        await self._handle_undecryptable(job.event, job.raw, job.batch)
                    elif job.event is not None:
                        await self._handle_event(job.event, job.batch, parked=job.parked)
                    elif job.action is not None:
                        delivery.add([job.action])
                    elif job.coalesced is not None:
                        delivery.inflight = job.coalesced
                except Exception:  # one bad event must not kill the room
                    self.metrics.errors += 1
                    log.exception("room %s: error", room_id)
                if not (delivery.limited and not queue.empty()):
                    await self._flush(delivery)
        finally:
            if getter is not None:
                getter.cancel()

    def _retire(self, room_id: str, queue: asyncio.Queue[Job | None], delivery: RoomDelivery) -> None:
        if self._queues.get(room_id) is queue:
            del self._queues[room_id]
            self._workers.pop(room_id, None)
        if not delivery.limited and self.deliveries.get(room_id) is delivery:
            del self.deliveries[room_id]

    async def _flush(self, delivery: RoomDelivery) -> None:
        try:
            await delivery.flush()
        except Exception:  # not lost (still pending or in the outbox): tried again after a pause
            self.metrics.errors += 1
            log.exception("room %s: error sending", delivery.room_id)
            await pause(self._stop_event, 1.0)

    async def _table(self, event: Event, undecryptable: bool = False) -> list[Action] | None:
        """The table's answer to ``event``, retried until its transaction commits."""
        handle = self.table.handle_undecryptable if undecryptable else self.table.handle
        return await handle_until_committed(functools.partial(handle, owner=self.name), event, self.metrics,
                                            lambda: self._stopping)

    async def _handle_event(self, event: Event, batch: Batch | None, parked: bool = False) -> None:
        """Handle one event; the sync token never moves past an event the table did not commit.

        A kept event whose key came late is judged only if the room's floor (lock, turn, grants) is
        as it was when it was sent; otherwise it is recorded as handled and dropped, so no stale dash
        line toggles a lock and no roll lands in another turn."""
        kept = self.matrix_store.undecrypted_event(event.event_id) if parked else None
        if kept is not None and kept[1] and kept[1] != self.table.floor_epoch(event.room_id):
            log.info("room %s: the key of %s came after the floor changed: not judged", event.room_id,
                     event.event_id)
            self.store.mark_skipped(event.event_id, event.room_id, event.ts)
            actions: list[Action] = []
        else:
            actions = await self._table(event) or []
        if parked:
            # Handled (committed) first, forgotten after: a crash between the two finds it handled.
            self.matrix_store.unpark_undecrypted(event.event_id)
            self._decrypting.discard(event.event_id)
        if batch is not None:
            batch.pending -= 1
        self._advance_token()
        self.metrics.events_handled += 1
        if event.ts:
            self.metrics.sync_lag_seconds = max(0.0, time.time() - event.ts / 1000)
        self._delivery(event.room_id).add(actions)


    # ------------------------------------------------------------------ undecryptable messages

    async def _handle_undecryptable(self, event: Event, raw: dict[str, Any], batch: Batch | None) -> None:
        """A message nio could not decrypt. It is kept (SQLite) before the sync token may pass it,
        its key is asked for, and the table judges it now only if a lock keeps its sender off the
        floor; otherwise it waits for its key (``_retry_undecrypted``)."""
        if self.matrix_store.kept_undecrypted(event.room_id, event.sender) >= MAX_KEPT_PER_SENDER:
            log.warning("room %s: %s has %d unreadable messages waiting: %s is judged as it is",
                        event.room_id, event.sender, MAX_KEPT_PER_SENDER, event.event_id)
            await self._handle_event(event, batch)
            return
        first = self.matrix_store.park_undecrypted(event.event_id, event.room_id, event.sender,
                                            json.dumps(raw, ensure_ascii=False), time.time(),
                                            _megolm_session(raw), self.table.floor_epoch(event.room_id))
        if first:
            self.metrics.undecryptable += 1
            log.info("room %s: cannot decrypt %s from %s yet: asking for its key",
                     event.room_id, event.event_id, event.sender)
            await self._request_key(event.room_id, raw)
        actions = await self._table(event, undecryptable=True)
        if actions is not None:  # judged by the lock: its words no longer matter
            self.matrix_store.unpark_undecrypted(event.event_id)
        if batch is not None:
            batch.pending -= 1
        self._advance_token()
        if actions is not None:
            self.metrics.events_handled += 1
        self._delivery(event.room_id).add(actions or [])
        if actions is None:
            await self._retry_undecrypted(only=event.event_id)  # its key may have come while it was queued

    def _megolm(self, room_id: str, raw: dict[str, Any]) -> MegolmEvent | None:
        event = MegolmEvent.from_dict(raw)
        if not isinstance(event, MegolmEvent):
            return None
        event.room_id = room_id
        return event

    async def _request_key(self, room_id: str, raw: dict[str, Any]) -> None:
        """Ask for the room key: nio's request (to our own devices, and the one nio accepts a
        forwarded key for) and the same request to the sender's devices."""
        event = self._megolm(room_id, raw)
        client = self.session.client
        if event is None or client.olm is None:
            return
        with contextlib.suppress(LocalProtocolError):  # already asked for this session
            await self.session.request("request room key", lambda: client.request_room_key(event), attempts=3)
        message = event.as_key_request(event.sender, client.device_id or "")
        with contextlib.suppress(PermanentError):
            await self.session.request("request room key from sender", lambda: client.to_device(message), attempts=3)

    async def _retry_undecrypted(self, only: str | None = None) -> None:
        """Decrypt the kept messages whose room key has come (a lookup, no decryption attempt for the
        others); each goes to its room's worker, in turn."""
        client = self.session.client
        if client.olm is None:
            return
        for event_id, room_id, sender_key, session_id in self.matrix_store.undecrypted_sessions():
            if event_id in self._decrypting or (only is not None and event_id != only):
                continue
            if client.olm.inbound_group_store.get(room_id, sender_key, session_id) is None:
                continue
            kept = self.matrix_store.undecrypted_event(event_id)
            if kept is None:
                continue
            megolm = self._megolm(room_id, json.loads(kept[0]))
            if megolm is None:
                continue
            try:
                clear = client.decrypt_event(megolm)
            except EncryptionError:
                continue
            src = getattr(clear, "source", None)
            if isinstance(src, dict) and src.get("type") == ENCRYPTED:
                continue
            try:
                auth = await self._auth_for(room_id)
            except PermanentError as err:
                log.warning("room %s: %s", room_id, err)
                continue
            event = translate(room_id, src, auth, self.user_id)
            if isinstance(event, Malformed):
                event = self._malformed(room_id, event)
            if event is None:
                self.matrix_store.unpark_undecrypted(event_id)
                continue
            log.info("room %s: the key of %s came: handling it", room_id, event_id)
            self._decrypting.add(event_id)
            self._enqueue(room_id, Job(event=event, parked=True))

    async def _watch_undecrypted(self) -> None:
        """Tell a player, once per room, that a message of theirs could not be read in time.

        It starts after the first sync (keys sent while the bot was down come with it) and counts the
        wait from this start at the earliest: downtime is not time the bot had to get a key."""
        await self.ready.wait()
        started = time.time()
        while not self._stopping:
            await asyncio.sleep(min(1.0, self.undecryptable_wait / 4))
            try:
                await self._notice_undecrypted(started)
            except Exception:  # a bad pass must not end the watch
                self.metrics.errors += 1
                log.exception("undecryptable messages: watch pass failed")

    async def _notice_undecrypted(self, started: float) -> None:
        """One pass of the watch: forget what waited too long, tell whoever waited past the limit."""
        now = time.time()
        for event_id, room_id, sender, seen, noticed in self.matrix_store.undecrypted():
            if now - seen > KEEP_UNDECRYPTED_S and event_id not in self._decrypting:
                log.info("room %s: no key for %s in %d days: forgotten", room_id, event_id,
                         KEEP_UNDECRYPTED_S // 86400)
                self.matrix_store.unpark_undecrypted(event_id)
                continue
            if noticed or event_id in self._decrypting or now - max(seen, started) < self.undecryptable_wait:
                continue
            if self.matrix_store.undecrypted_noticed(room_id, sender):
                self.matrix_store.set_undecrypted_noticed(room_id, sender)
                continue
            log.info("room %s: no key for %s from %s in time: telling them", room_id, event_id, sender)
            message = self.table.renderer.render("matrix/undecryptable", who=sender)
            await self.outbox.execute(Send(room_id, message, reply_to=event_id, mentions=(sender,),
                                           action_id=f"undecryptable/{room_id}/{sender}"))
            self.matrix_store.set_undecrypted_noticed(room_id, sender)


def _megolm_session(raw: dict[str, Any]) -> tuple[str, str]:
    """(sender key, session id) of an ``m.room.encrypted`` event; empty strings when missing."""
    content = raw.get("content")
    if not isinstance(content, dict):
        return "", ""
    sender_key, session_id = content.get("sender_key"), content.get("session_id")
    return (sender_key if isinstance(sender_key, str) else "", session_id if isinstance(session_id, str) else "")
