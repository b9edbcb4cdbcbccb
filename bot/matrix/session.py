"""The bot's Matrix session: login (password or token), the saved device and token, relogin,
and requests with retries."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
from nio import AsyncClient, AsyncClientConfig, ErrorResponse, LoginResponse
from nio.crypto import OlmAccount
from nio.store import DefaultStore

from bot.config import Config
from bot.matrix.discovery import discover
from bot.matrix.errors import MatrixStartupError, PermanentError, RateLimited
from bot.metrics import Metrics
from bot.net import describe_network_error
from bot.transport import Backoff, pause

log = logging.getLogger("rolbot.matrix")

NETWORK_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError, OSError)
STOP_GRACE_S = 3.0
"""Once the bot is asked to stop, how long a request in flight (the reply in hand) may still take
before it is given up (an unsent action stays in the outbox for the next start)."""
SESSION_KEYS = ("homeserver", "user_id", "device_id", "access_token")
T = TypeVar("T")
UNRESOLVED_TRIES = 3
UNRESOLVED_WINDOW_S = 30.0
"""At the first start, a homeserver whose name does not resolve is tried this many times over this
window, then the run stops (``homeserver_unresolved``); once found, a lost network is retried as any
request."""

YIELD_ON_LIMIT: contextvars.ContextVar[bool] = contextvars.ContextVar("yield_on_limit", default=False)
"""Set in a room's delivery: a 429 raises ``RateLimited`` instead of waiting, so the room can
gather its replies meanwhile and send them coalesced (``bot.matrix.coalesce``)."""


PICKLE_KEY_FILE = "crypto_pickle.key"
"""Beside the crypto store in ``[storage] path``: the passphrase its private keys are encrypted with."""
NIO_DEFAULT_KEY = "DEFAULT_KEY"
"""The passphrase nio encrypts a store with unless given one (what rolbot used before it had its own)."""


def write_owner_only(path: str, text: str) -> None:
    """``text`` into ``path``, mode 0600: written to a temporary file, synced, then renamed over it."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_pickle_key(storage_path: str) -> str:
    """The crypto store's pickle key: 32 random bytes, made once and kept 0600 (never logged)."""
    path = os.path.join(storage_path, PICKLE_KEY_FILE)
    try:
        with open(path, encoding="ascii") as fh:
            key = fh.read().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    key = secrets.token_urlsafe(32)
    write_owner_only(path, key + "\n")
    return key


class CryptoStore(DefaultStore):
    """nio's SQLite crypto store under rolbot's own pickle key (``load_pickle_key``), without a
    write on every sync: nio saves the rooms that turned encryption on in each sync response even
    when there are none, which costs a few milliseconds (peewee binds every model) in the path of
    every reply (bench/latency.py --encrypted).

    A store written under nio's default key (rolbot before it had its own) is re-encrypted under
    the new key when it opens, in one transaction: a crash leaves it under one key or the other,
    and the next start finishes the job."""

    pickle_key: str  # nio's dataclass field, typed for mypy

    def __post_init__(self) -> None:
        super().__post_init__()
        row = self._get_account()
        if row is None:
            return
        try:
            OlmAccount.from_pickle(row.account, self.pickle_key, row.shared)
        except ValueError:
            self._migrate_from(NIO_DEFAULT_KEY)

    def _migrate_from(self, old_key: str) -> None:
        own_key, self.pickle_key = self.pickle_key, old_key
        try:
            account = self.load_account()
            sessions = self.load_sessions()
            groups = self.load_inbound_group_sessions()
        except ValueError:
            self.database.close()
            raise MatrixStartupError("crypto_store_key", path=self.database_path,
                               key=os.path.join(self.store_path, PICKLE_KEY_FILE)) from None
        finally:
            self.pickle_key = own_key
        with self.database.atomic():
            self.save_account(account)
            for sender_key, olm_sessions in sessions.items():
                for session in olm_sessions:
                    self.save_session(sender_key, session)
            for group in groups:
                self.save_inbound_group_session(group)
        log.info("crypto store %s re-encrypted under its own key (%s)", self.database_path, PICKLE_KEY_FILE)

    def release_memory(self) -> None:
        """Empty SQLite's page cache of the crypto store's connection (``Store.release_memory``)."""
        self.database.execute_sql("PRAGMA shrink_memory")

    def save_encrypted_rooms(self, rooms: Any) -> None:
        if rooms:
            super().save_encrypted_rooms(rooms)


class Session:
    """One logged-in ``AsyncClient``, kept on the same device across restarts."""

    def __init__(self, config: Config, metrics: Metrics, stopping: Callable[[], bool],
                 stop_event: asyncio.Event | None = None) -> None:
        """``stop_event``, once set, cuts short any wait between retries."""
        self.config = config
        self.user_id = config.matrix.user_id
        self.homeserver = config.matrix.homeserver
        """The client-API base URL: ``[matrix] homeserver``, or the one its ``.well-known`` names."""
        self.metrics = metrics
        self._stopping = stopping
        self._stop_event = stop_event or asyncio.Event()
        self._client: AsyncClient | None = None
        self._limit_hint_logged = False
        self._keys_lock = asyncio.Lock()
        self._found = False
        """The homeserver was found once: from then on a name that does not resolve is a lost network."""

    @property
    def client(self) -> AsyncClient:
        if self._client is None:
            raise RuntimeError("not logged in")
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    # ------------------------------------------------------------------ requests with retries

    async def request(self, what: str, call: Callable[[], Awaitable[T]], *,
                      attempts: int | None = None, cap: float = 30.0) -> T:
        """Run ``call`` until it succeeds: 429 waits ``retry_after_ms``; 5xx and network errors back
        off exponentially (capped). A 4xx other than 429 raises ``PermanentError``."""
        backoff = Backoff(0.5, cap)
        while True:
            try:
                resp = await self.unless_stopped(what, call)
            except NETWORK_ERRORS as err:
                problem = describe_network_error(err, self.homeserver)
            else:
                if not isinstance(resp, ErrorResponse):
                    return resp
                status = getattr(getattr(resp, "transport_response", None), "status", None)
                if resp.status_code == "M_LIMIT_EXCEEDED" or status == 429:
                    wait = (resp.retry_after_ms or 1000) / 1000
                    self.rate_limited(wait)
                    self.metrics.retries += 1
                    if YIELD_ON_LIMIT.get():
                        raise RateLimited(what, wait)
                    if self._stopping() and wait > 1:
                        raise PermanentError(f"{what}: rate limited while stopping")
                    log.info("%s: rate limited, retrying in %.1f s", what, wait)
                    await asyncio.sleep(wait)
                    continue
                if status is None or status < 500:
                    self.metrics.errors += 1
                    raise PermanentError(f"{what}: {resp.status_code} {resp.message}")
                problem = f"HTTP {status} {resp.status_code}"
            wait = backoff.next()
            self.metrics.retries += 1
            if (attempts and backoff.failures >= attempts) or (self._stopping() and backoff.failures >= 2):
                self.metrics.errors += 1
                raise PermanentError(f"{what}: {problem} (after {backoff.failures} attempts)")
            log.warning("%s: %s; retrying in %.1f s", what, problem, wait)
            await pause(self._stop_event, wait)

    async def unless_stopped(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, given up ``STOP_GRACE_S`` after the bot is asked to stop: SIGTERM is honoured
        at every stage, a hung TLS handshake or login included."""
        task = asyncio.ensure_future(call())
        if not task.done():
            stop = asyncio.ensure_future(self._stop_event.wait())
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not task.done():
                await asyncio.wait({task}, timeout=STOP_GRACE_S)
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                raise PermanentError(f"{what}: given up, the bot is stopping")
        return task.result()

    def rate_limited(self, wait: float) -> None:
        """Count a 429; the first one of the run logs how a homeserver admin exempts the bot."""
        self.metrics.rate_limited += 1
        if not self._limit_hint_logged:
            self._limit_hint_logged = True
            log.warning("the homeserver is rate-limiting %s (retry in %.1f s): replies are grouped while it lasts. "
                        "A Synapse admin can exempt the bot: POST /_synapse/admin/v1/users/%s/override_ratelimit "
                        "with {\"messages_per_second\": 0, \"burst_count\": 0}", self.user_id, wait, self.user_id)

    # ------------------------------------------------------------------ login

    def _new_client(self, device_id: str | None = None) -> AsyncClient:
        """A client with end-to-end encryption: nio's crypto store (the Olm account, the Megolm
        sessions, the devices it knows) lives in ``[storage] path`` beside the SQLite database, in
        ``<user>_<device>.db``; the same device is kept across restarts, so it is the same store."""
        cfg = AsyncClientConfig(encryption_enabled=True, store_sync_tokens=False, store=CryptoStore,
                                pickle_key=load_pickle_key(self.config.storage_path),
                                max_limit_exceeded=0, max_timeouts=0, request_timeout=60)
        self._client = AsyncClient(self.homeserver, self.user_id, device_id=device_id,
                                   store_path=self.config.storage_path, config=cfg)
        return self._client

    def _store_loaded(self) -> None:
        """The crypto store holds private keys, and every other state file something of the table's:
        all owner-only, also those an older rolbot (or nio: its trusted-devices lists) left readable."""
        for entry in os.scandir(self.config.storage_path):
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mode & 0o077:
                    os.chmod(entry.path, 0o600)

    # ------------------------------------------------------------------ end-to-end encryption

    async def crypto_upkeep(self) -> None:
        """After each sync (docs/development.md#4): publish our one-time keys when the server runs low,
        learn the devices of the members of our rooms, claim one-time keys for Olm sessions,
        and send the to-device messages nio queued (key shares, key requests)."""
        client = self.client
        if client.olm is None:
            return
        if client.should_upload_keys:
            await self.request("upload keys", lambda: while_needed(lambda: client.should_upload_keys, client.keys_upload),
                               attempts=4)
        await self.query_keys()
        if client.should_claim_keys:
            await self.request("claim keys", lambda: while_needed(
                lambda: client.should_claim_keys, lambda: client.keys_claim(client.get_users_for_key_claiming())),
                attempts=4)
        if client.outgoing_to_device_messages:
            await self.request("to-device", client.send_to_device_messages, attempts=4)

    async def query_keys(self) -> None:
        """Learn the devices of the users nio tracks and does not know yet (new members, new devices), one
        query at a time: the sync loop's upkeep and a send to an encrypted room may both want one."""
        client = self.client
        async with self._keys_lock:
            if client.should_query_keys:
                await self.request("query keys", lambda: while_needed(lambda: client.should_query_keys,
                                                                      client.keys_query), attempts=4)

    def _load(self) -> dict[str, Any] | None:
        try:
            with open(self.config.session_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return None
        except ValueError:
            raise MatrixStartupError("session_corrupt", path=self.config.session_path) from None
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in SESSION_KEYS):
            raise MatrixStartupError("session_corrupt", path=self.config.session_path)
        if data.get("user_id") != self.user_id or data.get("homeserver") != self.config.matrix.homeserver:
            return None
        return data

    def _save(self, access_token: str, device_id: str) -> None:
        write_owner_only(self.config.session_path, json.dumps({
            "homeserver": self.config.matrix.homeserver, "user_id": self.user_id,
            "device_id": device_id, "access_token": access_token}))

    async def login(self) -> None:
        mcfg = self.config.matrix
        session = self._load()
        self.homeserver = await self._find_homeserver()
        if mcfg.access_token:
            token = mcfg.access_token.value
            device = session["device_id"] if session and session["access_token"] == token else None
            probe = self._new_client(device)
            probe.access_token = token
            who = await self.request("whoami", probe.whoami)
            await probe.close()
            if getattr(who, "user_id", self.user_id) != self.user_id:
                owner = getattr(who, "user_id", "?")
                raise PermanentError(f"the access token belongs to {owner}, not to {self.user_id}")
            device = getattr(who, "device_id", None) or device or ""
            if not device:
                raise PermanentError("the homeserver did not say which device the access token belongs to")
            client = self._new_client(device)
            client.restore_login(self.user_id, device, token)  # loads the crypto store of this device
            self._store_loaded()
            self._save(token, device)
            log.info("token session: %s, device %s", self.user_id, device)
            return
        if session:
            client = self._new_client(session["device_id"])
            client.restore_login(self.user_id, session["device_id"], session["access_token"])
            self._store_loaded()
            try:
                await self.request("whoami", client.whoami)
                log.info("session restored: %s, device %s", self.user_id, session["device_id"])
                return
            except PermanentError as err:
                log.warning("the saved session is no longer valid (%s): logging in with the password", err)
                await client.close()
        device = session["device_id"] if session else None
        client = self._new_client(device)
        try:
            resp = await self.request("login", lambda: client.login(mcfg.password.value,
                                                                    device_name=mcfg.device_name))
        except PermanentError:
            if self._stopping():
                raise
            raise MatrixStartupError("login_refused", user=self.user_id, homeserver=mcfg.homeserver) from None
        if not isinstance(resp, LoginResponse):
            raise PermanentError("login failed")
        self._store_loaded()
        self._save(resp.access_token, resp.device_id)
        log.info("logged in: %s, device %s", self.user_id, resp.device_id)

    async def _find_homeserver(self) -> str:
        """The client-API base URL (``discover``). At the first start a name that does not resolve is
        tried ``UNRESOLVED_TRIES`` times, ``UNRESOLVED_WINDOW_S / UNRESOLVED_TRIES`` apart, then stops the
        run; any other failure (a refused connection, a 5xx) is retried as every request."""
        url = self.config.matrix.homeserver
        tries = 0
        while not self._found:
            try:
                found = await self.unless_stopped("homeserver", lambda: discover(url))
            except aiohttp.ClientConnectorDNSError as err:
                tries += 1
                if tries >= UNRESOLVED_TRIES:
                    raise MatrixStartupError("homeserver_unresolved", url=url, host=err.host, tries=tries,
                                             seconds=f"{UNRESOLVED_WINDOW_S:g}") from None
                log.debug("homeserver: %s (try %d of %d)", describe_network_error(err, url), tries, UNRESOLVED_TRIES)
                await pause(self._stop_event, UNRESOLVED_WINDOW_S / UNRESOLVED_TRIES)
                if self._stopping():
                    raise PermanentError("homeserver: given up, the bot is stopping") from None
            except NETWORK_ERRORS:
                break
            else:
                self._found = True
                return found
        found = await self.request("homeserver", lambda: discover(url))
        self._found = True
        return found

    async def relogin(self) -> None:
        """The homeserver rejected the token: forget the saved session and log in with the password."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.config.session_path)
        if not self.config.matrix.password:
            raise PermanentError("the configured access_token is no longer valid")
        await self.client.close()
        await self.login()


async def while_needed(needed: Callable[[], bool], call: Callable[[], Awaitable[T]]) -> T | None:
    """``call()`` if ``needed()`` still holds when the request starts (it is checked again at each retry):
    nio raises ``LocalProtocolError`` for a key upload, query or claim with nothing left to do, which another
    task's request (nio's own key claim before sharing a room key) may have done in between."""
    return await call() if needed() else None
