"""The Matrix transport (matrix-nio): sync, turn room events into ``Event``s, carry out actions.

Design notes (DESIGN.md 4):
- We drive ``client.sync(since=token)`` ourselves. The sync token lives in the bot's SQLite
  (meta ``matrix_sync_token``) and is saved only once every event of that batch (and of all
  earlier batches) has been committed by the table. The table's outbox covers the actions.
- One worker task per room with its own queue: events of one room are handled in order, a slow
  room never stalls syncing or the other rooms.
- Every action has a stable ``action_id``; its hash is the Matrix transaction id, so a resend
  after a crash is deduplicated by the homeserver (same device: the session is kept on disk).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import logging
import os
import random
import signal
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from nio import AsyncClient, AsyncClientConfig, ErrorResponse, LoginResponse, MessageDirection, RoomPreset

from bot.config import Config
from bot.core.errors import StartupError
from bot.core.events import Action, Event, EventKind, PowerLevels, Redact, Send
from bot.core.store import Store
from bot.core.table import Table
from bot.net import describe_network_error
from bot.web import Metrics, start_web

log = logging.getLogger("rolbot.matrix")

SYNC_TOKEN_KEY = "matrix_sync_token"
SESSION_KEYS = ("homeserver", "user_id", "device_id", "access_token")
ADMIN_LEVEL = 50
INFINITE = 10**12
# Room versions in which the creators outrank every power level (and are not in ``users``).
PRE_CREATOR_VERSIONS = {str(v) for v in range(1, 12)}
NETWORK_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError, OSError)


class PermanentError(Exception):
    """A request the homeserver refused for good (403, 404, bad JSON...)."""


def txn_id(action_id: str) -> str:
    return "rolbot-" + hashlib.sha256(action_id.encode()).hexdigest()[:32]


# --------------------------------------------------------------------------- room state

@dataclass
class RoomAuth:
    """What the bot needs to know of a room's power: creators and ``m.room.power_levels``."""

    creators: set[str] = field(default_factory=set)
    version: str = "1"
    power: dict[str, Any] = field(default_factory=dict)
    _can_mute: tuple[dict, str, bool] | None = field(default=None, repr=False, compare=False)

    @property
    def creators_privileged(self) -> bool:
        return self.version not in PRE_CREATOR_VERSIONS

    def apply(self, ev: dict) -> None:
        if ev.get("state_key") != "":
            return
        self._can_mute = None
        content = ev.get("content") or {}
        if ev.get("type") == "m.room.power_levels":
            self.power = content
        elif ev.get("type") == "m.room.create":
            self.version = str(content.get("room_version", "1"))
            self.creators = {ev.get("sender", "")} | set(content.get("additional_creators") or [])
            if content.get("creator"):
                self.creators.add(content["creator"])

    def level(self, user: str) -> int:
        if user in self.creators and self.creators_privileged:
            return INFINITE
        users = self.power.get("users") or {}
        if not self.power and user in self.creators:
            return 100  # no power levels event yet: the creator has 100
        return int(users.get(user, self.power.get("users_default", 0)))

    def is_admin(self, user: str) -> bool:
        return user in self.creators or self.level(user) >= ADMIN_LEVEL

    def can_redact(self, user: str) -> bool:
        return self.level(user) >= int(self.power.get("redact", 50))

    def can_mute(self, user: str) -> bool:
        """Allowed to edit power levels and above every player it would have to silence.

        Asked on every event: the answer is kept until ``power`` is replaced."""
        cached = self._can_mute
        if cached is not None and cached[0] is self.power and cached[1] == user:
            return cached[2]
        answer = self._compute_can_mute(user)
        self._can_mute = (self.power, user, answer)
        return answer

    def _compute_can_mute(self, user: str) -> bool:
        events = self.power.get("events") or {}
        needed = int(events.get("m.room.power_levels", self.power.get("state_default", 50)))
        if self.level(user) < needed:
            return False
        try:
            locked_power_levels(self.power, self, user, ())
        except PermanentError:
            return False
        return True


def locked_power_levels(base: dict, auth: RoomAuth, bot: str, speakers: tuple[str, ...]) -> dict:
    """``base`` with ``events_default`` above every player and the speakers able to post."""
    new = copy.deepcopy(base)
    users = new.setdefault("users", {})
    users_default = int(base.get("users_default", 0))
    bot_level = auth.level(bot)
    speakers_set = set(speakers) | {bot}
    player_levels = [users_default] + [
        int(lvl) for u, lvl in users.items()
        if u not in speakers_set and int(lvl) < min(bot_level, ADMIN_LEVEL)  # level >= 50 counts as a GM
    ]
    needed = max(player_levels) + 1
    if needed >= bot_level:
        raise PermanentError("the bot's power level is too low to mute the room")
    new["events_default"] = max(int(base.get("events_default", 0)), needed)
    events = new.setdefault("events", {})
    for etype in ("m.room.message", "m.room.encrypted", "m.sticker", "m.reaction"):
        if etype in events and int(events[etype]) < needed:
            events[etype] = needed
    for speaker in speakers:
        if speaker in auth.creators and auth.creators_privileged:
            continue
        if int(users.get(speaker, users_default)) < needed:
            users[speaker] = needed
    return new


# --------------------------------------------------------------------------- batches / workers

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


class MatrixBot:
    def __init__(self, config: Config, table: Table | None = None, store: Store | None = None,
                 rng: random.Random | None = None) -> None:
        self.config = config
        self.user_id = config.matrix.user_id
        os.makedirs(config.storage_path, mode=0o700, exist_ok=True)
        self.store = store or Store(config.db_path)
        self.table = table or Table(self.store, config.table, rng=rng)
        self.metrics = Metrics()
        self.ready = asyncio.Event()
        self.client: AsyncClient | None = None
        self._stopping = False
        self._stop_event = asyncio.Event()
        self._queues: dict[str, asyncio.Queue[Job | None]] = {}
        self._workers: dict[str, asyncio.Task] = {}
        self._busy: set[str] = set()
        self._batches: deque[Batch] = deque()
        self._auth: dict[str, RoomAuth] = {}
        self._pl_locks: dict[str, asyncio.Lock] = {}
        self._dm_lock = asyncio.Lock()
        self._web = None
        self._ensure_tables()

    # ------------------------------------------------------------------ lifecycle

    def _ensure_tables(self) -> None:
        db = self.store.db
        db["matrix_saved_power"].create({"room_id": str, "content": str}, pk="room_id", if_not_exists=True)
        db["matrix_dm"].create({"user_id": str, "room_id": str}, pk="user_id", if_not_exists=True)

    def stop(self) -> None:
        """Ask the bot to stop: the event in hand is finished, nothing new is started."""
        self._stopping = True
        self._stop_event.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    async def run(self) -> None:
        hp = self.config.web_host_port()
        if hp:
            self._web = await start_web(self.metrics, *hp)
        try:
            await self._login()
            if not self._stopping:
                self._resume_pending()
                await self._sync_loop()
        finally:
            await self._shutdown()
        log.info("rolbot stopped")

    async def _shutdown(self) -> None:
        self._stopping = True
        for queue in self._queues.values():
            queue.put_nowait(None)
        if self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)
        self._advance_token()
        if self.client:
            await self.client.close()
        if self._web:
            await self._web.cleanup()

    # ------------------------------------------------------------------ requests with retries

    async def _request(self, what: str, call: Callable[[], Awaitable[Any]], *,
                       attempts: int | None = None, cap: float = 30.0) -> Any:
        """Run ``call`` until it succeeds: 429 waits ``retry_after_ms``; 5xx and network errors back
        off exponentially (capped). A 4xx other than 429 raises ``PermanentError``."""
        failures = 0
        while True:
            try:
                resp = await call()
            except NETWORK_ERRORS as err:
                problem = describe_network_error(err, self.config.matrix.homeserver)
            else:
                if not isinstance(resp, ErrorResponse):
                    return resp
                status = getattr(getattr(resp, "transport_response", None), "status", None)
                if resp.status_code == "M_LIMIT_EXCEEDED" or status == 429:
                    wait = (resp.retry_after_ms or 1000) / 1000
                    if self._stopping and wait > 1:
                        raise PermanentError(f"{what}: rate limited while stopping")
                    self.metrics.retries += 1
                    log.info("%s: rate limited, retrying in %.1f s", what, wait)
                    await asyncio.sleep(wait)
                    continue
                if status is None or status < 500:
                    self.metrics.errors += 1
                    raise PermanentError(f"{what}: {resp.status_code} {resp.message}")
                problem = f"HTTP {status} {resp.status_code}"
            failures += 1
            self.metrics.retries += 1
            if (attempts and failures >= attempts) or (self._stopping and failures >= 2):
                self.metrics.errors += 1
                raise PermanentError(f"{what}: {problem} (after {failures} attempts)")
            wait = min(cap, 0.25 * 2 ** failures) * random.uniform(0.75, 1.0)
            log.warning("%s: %s; retrying in %.1f s", what, problem, wait)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop_event.wait(), wait)

    # ------------------------------------------------------------------ login

    def _client(self, device_id: str | None = None) -> AsyncClient:
        cfg = AsyncClientConfig(encryption_enabled=False, store_sync_tokens=False,
                                max_limit_exceeded=0, max_timeouts=0, request_timeout=60)
        return AsyncClient(self.config.matrix.homeserver, self.user_id, device_id=device_id,
                           store_path=self.config.storage_path, config=cfg)

    def _load_session(self) -> dict | None:
        try:
            with open(self.config.session_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return None
        except ValueError:
            raise StartupError("session_corrupt", path=self.config.session_path) from None
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in SESSION_KEYS):
            raise StartupError("session_corrupt", path=self.config.session_path)
        if data.get("user_id") != self.user_id or data.get("homeserver") != self.config.matrix.homeserver:
            return None
        return data

    def _save_session(self, access_token: str, device_id: str) -> None:
        path = self.config.session_path
        tmp = path + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"homeserver": self.config.matrix.homeserver, "user_id": self.user_id,
                       "device_id": device_id, "access_token": access_token}, fh)
        os.replace(tmp, path)

    async def _login(self) -> None:
        mcfg = self.config.matrix
        session = self._load_session()
        if mcfg.access_token:
            device = session.get("device_id") if session and session.get("access_token") == mcfg.access_token.value else None
            self.client = self._client(device)
            self.client.restore_login(self.user_id, device or "", mcfg.access_token.value)
            who = await self._request("whoami", self.client.whoami)
            if getattr(who, "user_id", self.user_id) != self.user_id:
                raise PermanentError(f"the access token belongs to {who.user_id}, not to {self.user_id}")
            device = getattr(who, "device_id", None) or device or ""
            self.client.device_id = device
            self._save_session(mcfg.access_token.value, device)
            log.info("token session: %s, device %s", self.user_id, device)
            return
        if session:
            self.client = self._client(session["device_id"])
            self.client.restore_login(self.user_id, session["device_id"], session["access_token"])
            try:
                await self._request("whoami", self.client.whoami)
                log.info("session restored: %s, device %s", self.user_id, session["device_id"])
                return
            except PermanentError as err:
                log.warning("the saved session is no longer valid (%s): logging in with the password", err)
                await self.client.close()
        device = session["device_id"] if session else None
        self.client = self._client(device)
        try:
            resp = await self._request("login", lambda: self.client.login(mcfg.password.value,
                                                                          device_name=mcfg.device_name))
        except PermanentError:
            if self._stopping:
                raise
            raise StartupError("login_refused", user=self.user_id, homeserver=mcfg.homeserver) from None
        if not isinstance(resp, LoginResponse):
            raise PermanentError("login failed")
        self._save_session(resp.access_token, resp.device_id)
        log.info("logged in: %s, device %s", self.user_id, resp.device_id)

    # ------------------------------------------------------------------ sync

    def _filter(self, first: bool) -> dict:
        limit = 1 if first else self.config.matrix.timeline_limit
        return {
            "presence": {"types": []},
            "account_data": {"types": []},
            "room": {
                "timeline": {"limit": limit},
                "state": {"lazy_load_members": True},
                "ephemeral": {"types": []},
                "account_data": {"types": []},
            },
        }

    async def _sync_loop(self) -> None:
        token = self.store.get_meta(SYNC_TOKEN_KEY)
        first = token is None
        failures = 0
        while not self._stopping:
            timeout = 1 if first or not self.ready.is_set() else self.config.matrix.sync_timeout_ms
            sync = asyncio.ensure_future(self.client.sync(timeout=timeout, since=token,
                                                          sync_filter=self._filter(first)))
            stop = asyncio.ensure_future(self._stop_event.wait())
            done, _ = await asyncio.wait({sync, stop}, return_when=asyncio.FIRST_COMPLETED)
            if sync not in done:
                sync.cancel()
                await asyncio.gather(sync, return_exceptions=True)
                break
            stop.cancel()
            try:
                resp = sync.result()
            except NETWORK_ERRORS as err:
                resp, problem = None, describe_network_error(err, self.config.matrix.homeserver)
            else:
                problem = None if not isinstance(resp, ErrorResponse) else f"{resp.status_code} {resp.message}"
            if problem is not None:
                failures += 1
                self.metrics.errors += 1
                if isinstance(resp, ErrorResponse) and resp.status_code == "M_LIMIT_EXCEEDED":
                    wait = (resp.retry_after_ms or 1000) / 1000
                elif isinstance(resp, ErrorResponse) and resp.status_code == "M_UNKNOWN_TOKEN":
                    log.warning("token rejected: logging in again")
                    await self._relogin()
                    continue
                else:
                    wait = min(30.0, 0.25 * 2 ** failures) * random.uniform(0.75, 1.0)
                log.warning("sync failed (%s); retrying in %.1f s", problem, wait)
                try:
                    await asyncio.wait_for(self._stop_event.wait(), wait)
                except TimeoutError:
                    pass
                continue
            failures = 0
            await self._process_sync(resp, since=token, first=first)
            token, first = resp.next_batch, False
            self.metrics.syncs += 1
            self.metrics.last_sync_ts = time.time()
            if not self.ready.is_set():
                self.ready.set()
                self.metrics.first_sync_done = True
                log.info("first sync done")

    async def _relogin(self) -> None:
        try:
            os.unlink(self.config.session_path)
        except FileNotFoundError:
            pass
        if self.config.matrix.password:
            await self.client.close()
            await self._login()
        else:
            raise PermanentError("the configured access_token is no longer valid")

    async def _process_sync(self, resp, since: str | None, first: bool) -> None:
        batch = Batch(resp.next_batch)
        self._batches.append(batch)
        rooms = resp.rooms
        for room_id, info in rooms.invite.items():
            await self._on_invite(room_id, info)
        for room_id in rooms.leave:
            await self._on_leave(room_id)
        for room_id, info in rooms.join.items():
            if self._stopping:
                break
            try:
                await self._on_joined_room(room_id, info, since, first, batch)
            except PermanentError as err:
                log.error("room %s: %s", room_id, err)
        batch.dispatched = True
        self._advance_token()

    def _advance_token(self) -> None:
        token = None
        while self._batches and self._batches[0].dispatched and self._batches[0].pending == 0:
            token = self._batches.popleft().token
        if token is not None:
            self.store.set_meta(SYNC_TOKEN_KEY, token)

    # ------------------------------------------------------------------ membership

    async def _on_invite(self, room_id: str, info) -> None:
        inviter = None
        for ev in info.invite_state:
            src = getattr(ev, "source", None) or {}
            if src.get("type") == "m.room.member" and src.get("state_key") == self.user_id:
                inviter = src.get("sender")
        allowed = self.config.allowed_inviters
        try:
            if allowed and inviter not in allowed:
                log.info("invite to %s from %s rejected (not in allowed_inviters)", room_id, inviter)
                await self._request("reject invite", lambda: self.client.room_leave(room_id), attempts=4)
                return
            log.info("invited to %s by %s: joining", room_id, inviter)
            await self._request("join room", lambda: self.client.join(room_id), attempts=6)
        except PermanentError as err:
            log.error("invite to %s: %s", room_id, err)

    async def _on_leave(self, room_id: str) -> None:
        log.info("left room %s (kicked or left)", room_id)
        self._auth.pop(room_id, None)
        queue = self._queues.pop(room_id, None)
        if queue is not None:
            queue.put_nowait(None)
            self._workers.pop(room_id, None)
        try:
            await self._request("forget room", lambda: self.client.room_forget(room_id), attempts=3)
        except PermanentError as err:
            log.info("room %s: %s", room_id, err)

    # ------------------------------------------------------------------ timeline

    async def _auth_for(self, room_id: str) -> RoomAuth:
        auth = self._auth.get(room_id)
        if auth is None:
            resp = await self._request("room state", lambda: self.client.room_get_state(room_id), attempts=6)
            auth = RoomAuth()
            for ev in resp.events:
                auth.apply(ev)
            self._auth[room_id] = auth
        return auth

    def _is_own_join(self, src: dict) -> bool:
        return (src.get("type") == "m.room.member" and src.get("state_key") == self.user_id
                and (src.get("content") or {}).get("membership") == "join")

    async def _on_joined_room(self, room_id: str, info, since: str | None, first: bool, batch: Batch) -> None:
        known = room_id in self._auth
        auth = await self._auth_for(room_id)
        events = [getattr(ev, "source", None) or {} for ev in info.timeline.events]
        if known:
            for src in info.state:
                auth.apply(getattr(src, "source", None) or {})
        if first:
            # Very first start: history from before the bot ran is ignored; only note the state.
            for src in events:
                auth.apply(src)
            return
        joined_here = any(self._is_own_join(src) for src in events)
        if info.timeline.limited and since and not joined_here and info.timeline.prev_batch:
            events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
        if any(self._is_own_join(src) for src in events):
            last = max(i for i, src in enumerate(events) if self._is_own_join(src))
            for src in events[:last]:
                auth.apply(src)
            events = events[last + 1:]
        for src in events:
            if "state_key" in src:
                auth.apply(src)
                continue
            event = self._to_event(room_id, src, auth)
            if event is not None:
                batch.pending += 1
                self._enqueue(room_id, Job(event=event, batch=batch))

    async def _backfill(self, room_id: str, start: str, since: str) -> list[dict]:
        """The events a limited timeline left out, between ``since`` and ``start`` (oldest first)."""
        out: list[dict] = []
        token = start
        for _ in range(50):
            resp = await self._request(
                "missed messages",
                lambda: self.client.room_messages(room_id, start=token, end=since,
                                                  direction=MessageDirection.back, limit=100),
                attempts=6)
            chunk = [getattr(ev, "source", None) or {} for ev in resp.chunk]
            for src in chunk:
                out.append(src)
                if self._is_own_join(src):
                    return list(reversed(out))
            if not chunk or not resp.end or resp.end == token:
                break
            token = resp.end
        log.info("room %s: %d events recovered from a sync gap", room_id, len(out))
        return list(reversed(out))

    def _to_event(self, room_id: str, src: dict, auth: RoomAuth) -> Event | None:
        """Text and emotes are read; edits, media and stickers only count as writing (for locks)."""
        if src.get("type") not in ("m.room.message", "m.sticker") or src.get("sender") == self.user_id:
            return None
        content = src.get("content") or {}
        msgtype = content.get("msgtype")
        if msgtype == "m.notice":
            return None
        relates = content.get("m.relates_to") or {}
        if relates.get("rel_type") == "m.replace":
            return self._event(room_id, src, auth, "", "text", edit=True)
        if msgtype not in ("m.text", "m.emote") or not isinstance(content.get("body"), str):
            return self._event(room_id, src, auth, "", "media")
        text = content["body"]
        if "m.in_reply_to" in relates and text.startswith("> "):
            lines = text.split("\n")
            while lines and lines[0].startswith(">"):
                lines.pop(0)
            text = "\n".join(lines).lstrip("\n")
        return self._event(room_id, src, auth, text, "emote" if msgtype == "m.emote" else "text")

    def _event(self, room_id: str, src: dict, auth: RoomAuth, text: str, kind: EventKind,
               edit: bool = False) -> Event:
        sender = src.get("sender", "")
        return Event(
            room_id=room_id,
            sender=sender,
            text=text,
            event_id=src.get("event_id", ""),
            kind=kind,
            edit=edit,
            ts=int(src.get("origin_server_ts") or 0),
            sender_is_admin=auth.is_admin(sender),
            bot_can_redact=auth.can_redact(self.user_id),
            bot_can_mute=auth.can_mute(self.user_id),
        )

    def _enqueue(self, room_id: str, job: Job) -> None:
        queue = self._queues.get(room_id)
        if queue is None:
            queue = self._queues[room_id] = asyncio.Queue()
            self._workers[room_id] = asyncio.ensure_future(self._worker(room_id, queue))
        queue.put_nowait(job)

    def _resume_pending(self) -> None:
        """Actions committed before a crash and not yet sent; saved power levels with no open lock."""
        pending = self.table.pending_actions()
        for action in pending:
            self._enqueue(action.room_id, Job(action=action))
        unlocking = {a.room_id for a in pending if isinstance(a, PowerLevels)}
        for (room_id,) in self.store.db.execute("SELECT room_id FROM matrix_saved_power").fetchall():
            lock = self.table.room(room_id).lock
            if room_id not in unlocking and not (lock and lock.muted):
                log.info("room %s: saved power levels with no open lock: restoring them", room_id)
                self._enqueue(room_id, Job(action=PowerLevels(room_id, lock=False)))
        if pending:
            log.info("%d actions pending from before the stop", len(pending))

    async def _worker(self, room_id: str, queue: asyncio.Queue) -> None:
        while not self._stopping:
            job = await queue.get()
            if job is None or (self._stopping and job.event is not None):
                break
            try:
                if job.event is not None:
                    await self._handle_event(job)
                elif job.action is not None:
                    await self._execute(job.action)
            except Exception:  # one bad event must not kill the room
                self.metrics.errors += 1
                log.exception("room %s: error", room_id)

    async def _handle_event(self, job: Job) -> None:
        """Handle one event; the sync token never moves past an event the table did not commit."""
        event = job.event
        delay = 0.5
        while True:
            try:
                actions = self.table.handle(event)
                break
            except Exception:
                self.metrics.errors += 1
                log.exception("room %s: event %s not handled, retrying", event.room_id, event.event_id)
                if self._stopping:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
        job.batch.pending -= 1
        self._advance_token()
        self.metrics.events_handled += 1
        if event.ts:
            self.metrics.sync_lag_seconds = max(0.0, time.time() - event.ts / 1000)
        for action in actions:
            await self._execute(action)

    # ------------------------------------------------------------------ actions

    async def _execute(self, action: Action) -> None:
        try:
            if isinstance(action, Send):
                await self._send(action)
                self.metrics.replies += 1
            elif isinstance(action, Redact):
                await self._request("redact", lambda: self.client.room_redact(
                    action.room_id, action.event_id, reason=action.reason,
                    tx_id=txn_id(action.action_id or f"redact/{action.event_id}")))
                self.metrics.redactions += 1
            elif isinstance(action, PowerLevels):
                await self._power_levels(action)
                self.metrics.power_level_changes += 1
        except PermanentError as err:
            log.error("action %s in %s failed: %s", action.kind, action.room_id, err)
            if self._stopping:
                return  # left in the outbox: retried at the next start
        if action.action_id:
            self.table.action_done(action.action_id)

    async def _send(self, action: Send) -> None:
        content: dict[str, Any] = {
            "msgtype": "m.notice",
            "body": action.message.body,
            "format": "org.matrix.custom.html",
            "formatted_body": action.message.html,
            "m.mentions": {"user_ids": list(action.mentions)},
        }
        room_id = action.room_id
        if action.private_to:
            room_id = await self._dm_room(action.private_to)
        elif action.reply_to:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": action.reply_to}}
        tx = txn_id(action.action_id) if action.action_id else None
        await self._request("send", lambda: self.client.room_send(room_id, "m.room.message", content, tx_id=tx))

    async def _dm_room(self, user_id: str) -> str:
        async with self._dm_lock:
            row = self.store.db.execute("SELECT room_id FROM matrix_dm WHERE user_id = ?", [user_id]).fetchone()
            if row:
                return row[0]
            resp = await self._request("create private room", lambda: self.client.room_create(
                is_direct=True, invite=[user_id], preset=RoomPreset.trusted_private_chat,
                name=self.table.renderer.text("dm_room_name")))
            self.store.db.execute("INSERT OR REPLACE INTO matrix_dm (user_id, room_id) VALUES (?, ?)",
                                  [user_id, resp.room_id])
            return resp.room_id

    async def _power_levels(self, action: PowerLevels) -> None:
        room_id = action.room_id
        lock = self._pl_locks.setdefault(room_id, asyncio.Lock())
        async with lock:
            db = self.store.db
            row = db.execute("SELECT content FROM matrix_saved_power WHERE room_id = ?", [room_id]).fetchone()
            saved = json.loads(row[0]) if row else None
            if action.lock:
                resp = await self._request("read power levels", lambda: self.client.room_get_state_event(
                    room_id, "m.room.power_levels"))
                current = resp.content
                if saved is None:
                    saved = current
                    db.execute("INSERT OR REPLACE INTO matrix_saved_power (room_id, content) VALUES (?, ?)",
                               [room_id, json.dumps(current)])
                auth = await self._auth_for(room_id)
                auth.power = current
                new = locked_power_levels(saved, auth, self.user_id, action.speakers)
                await self._request("mute room", lambda: self.client.room_put_state(
                    room_id, "m.room.power_levels", new))
                auth.power = new
            elif saved is not None:
                await self._request("restore power levels", lambda: self.client.room_put_state(
                    room_id, "m.room.power_levels", saved))
                db.execute("DELETE FROM matrix_saved_power WHERE room_id = ?", [room_id])
                if room_id in self._auth:
                    self._auth[room_id].power = saved


# --------------------------------------------------------------------------- entry point

async def _main(config: Config) -> int:
    bot = MatrixBot(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, bot.stop)
    try:
        await bot.run()
    except PermanentError as err:
        if bot.stopping:
            return 0
        log.error("%s", err)
        return 1
    return 0


def run_bot(config: Config) -> int:
    logging.basicConfig(level=getattr(logging, config.log_level, logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("nio").setLevel(logging.ERROR)  # its schema warnings on every error response are noise
    return asyncio.run(_main(config))
