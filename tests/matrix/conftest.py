"""A real Synapse on loopback for the Matrix transport tests (docs/development.md#4), and helpers.

The homeserver is started once per session. Users are registered per test through the
shared-secret admin API (fast, no subprocess); every user but the ones asked for with
``ratelimited=True`` is exempted from the message rate limit, which stays at Synapse's default.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from nio import AsyncClient, AsyncClientConfig, RoomCreateResponse, RoomPreset

from bot.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
PASSWORD = "contraseña-de-prueba"
_counter = itertools.count(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class User:
    user_id: str
    password: str
    access_token: str
    device_id: str


@dataclass
class Synapse:
    url: str
    secret: str
    directory: Path
    admin: User | None = None

    def _http(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read() or b"{}")

    def register(self, name: str, admin: bool = False, ratelimited: bool = False) -> User:
        """A fresh user ``@NAME-N:localhost`` (N unique in the session)."""
        localpart = f"{name}{next(_counter)}" if not admin else name
        nonce = self._http("GET", "/_synapse/admin/v1/register")["nonce"]
        mac = hmac.new(self.secret.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), localpart.encode(), PASSWORD.encode(),
                                 b"admin" if admin else b"notadmin"]))
        data = self._http("POST", "/_synapse/admin/v1/register", {
            "nonce": nonce, "username": localpart, "password": PASSWORD, "admin": admin, "mac": mac.hexdigest()})
        user = User(data["user_id"], PASSWORD, data["access_token"], data["device_id"])
        if not ratelimited and self.admin is not None:
            self._http("POST", f"/_synapse/admin/v1/users/{user.user_id}/override_ratelimit",
                       {"messages_per_second": 0, "burst_count": 0}, token=self.admin.access_token)
        return user


def _write_config(directory: Path, port: int) -> tuple[Path, str]:
    subprocess.run([PYTHON, "-m", "synapse.app.homeserver", "--server-name", "localhost",
                    "--config-path", str(directory / "hs.yaml"), "--generate-config", "--report-stats=no"],
                   cwd=directory, check=True, capture_output=True)
    config = yaml.safe_load((directory / "hs.yaml").read_text())
    fast = {"per_second": 1000, "burst_count": 1000}
    config.update({
        "listeners": [{"port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": False,
                       "x_forwarded": False, "resources": [{"names": ["client"], "compress": False}]}],
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "bcrypt_rounds": 4,
        "presence": {"enabled": False},
        "url_preview_enabled": False,
        "enable_metrics": False,
        "log_config": str(directory / "log.yaml"),
        # rc_message stays at Synapse's default (0.2/s, burst 10): users are exempted one by one.
        "rc_registration": fast,
        "rc_login": {"address": fast, "account": fast, "failed_attempts": fast},
        "rc_joins": {"local": fast, "remote": fast},
        "rc_joins_per_room": fast,
        "rc_invites": {"per_room": fast, "per_user": fast, "per_issuer": fast},
        "rc_admin_redaction": fast,
        "rc_room_creation": fast,
    })
    (directory / "hs.yaml").write_text(yaml.safe_dump(config))
    (directory / "log.yaml").write_text(yaml.safe_dump({
        "version": 1,
        "formatters": {"p": {"format": "%(asctime)s %(name)s %(levelname)s %(message)s"}},
        "handlers": {"f": {"class": "logging.FileHandler", "filename": str(directory / "homeserver.log"),
                           "formatter": "p"}},
        "root": {"level": "WARNING", "handlers": ["f"]},
        "disable_existing_loggers": False,
    }))
    return directory / "hs.yaml", config["registration_shared_secret"]


@pytest.fixture(scope="session")
def synapse() -> Synapse:
    directory = Path(tempfile.mkdtemp(prefix="rolbot-synapse-"))
    port = free_port()
    config_path, secret = _write_config(directory, port)
    with open(directory / "stdout.log", "wb") as out:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([PYTHON, "-m", "synapse.app.homeserver", "--config-path", str(config_path)],
                                cwd=directory, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"Synapse exited: {(directory / 'stdout.log').read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("Synapse did not become healthy in 90 s")
        time.sleep(0.2)
    hs = Synapse(url, secret, directory)
    hs.admin = hs.register("admin", admin=True)
    try:
        yield hs
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(directory, ignore_errors=True)


# --------------------------------------------------------------------------- clients


ENCRYPTION = {"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}
"""What Element puts in the initial state of every private room it creates."""


class Chat:
    """A real nio client for a test user, with a sync-until-predicate helper (never sleeps).

    With ``store`` (a directory) it has end-to-end encryption on, as Element does: it uploads its
    keys, learns the devices of its rooms' members, decrypts what it receives (``decrypted``
    holds the ids of the events it could decrypt) and encrypts what it sends to encrypted rooms."""

    def __init__(self, synapse: Synapse, user: User, store: Path | None = None) -> None:
        self.user = user
        self.synapse = synapse
        self.e2e = store is not None
        if store is not None:
            store.mkdir(parents=True, exist_ok=True)
        self.client = AsyncClient(synapse.url, user.user_id, device_id=user.device_id,
                                  store_path=str(store) if store else "",
                                  config=AsyncClientConfig(encryption_enabled=self.e2e, store_sync_tokens=False))
        self.client.restore_login(user.user_id, user.device_id, user.access_token)
        self.events: dict[str, list[dict]] = {}
        self.invites: set[str] = set()
        self.token: str | None = None
        self.decrypted: set[str] = set()
        self.undecrypted: set[str] = set()

    @property
    def user_id(self) -> str:
        return self.user.user_id

    async def sync_once(self, timeout_ms: int = 1000) -> None:
        resp = await self.client.sync(timeout=timeout_ms, since=self.token,
                                      sync_filter={"room": {"timeline": {"limit": 200}}})
        assert hasattr(resp, "next_batch"), resp
        self.token = resp.next_batch
        for room_id, info in resp.rooms.join.items():
            bucket = self.events.setdefault(room_id, [])
            bucket.extend(getattr(e, "source", {}) for e in info.timeline.events)
            for e in info.timeline.events:
                if getattr(e, "decrypted", False):
                    self.decrypted.add(e.event_id)
                elif (getattr(e, "source", None) or {}).get("type") == "m.room.encrypted":
                    self.undecrypted.add(e.event_id)
        for room_id, info in resp.rooms.leave.items():
            self.events.setdefault(room_id, []).extend(getattr(e, "source", {}) for e in info.timeline.events)
        self.invites.update(resp.rooms.invite)
        if self.e2e:
            await self.keys_upkeep()

    async def keys_upkeep(self) -> None:
        client = self.client
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await client.keys_query()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()

    async def wait_for(self, room_id: str, predicate: Callable[[dict], bool], timeout: float = 15,
                       what: str = "event") -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events.get(room_id, []):
                if predicate(ev):
                    return ev
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.user_id}: timed out waiting for {what} in {room_id}")
            await self.sync_once(int(min(left, 2) * 1000))

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 15, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.user_id}: timed out waiting for {what}")
            await self.sync_once(int(min(left, 2) * 1000))

    def room_events(self, room_id: str) -> list[dict]:
        return self.events.get(room_id, [])

    async def create_room(self, invite: list[str] = (), power_users: dict[str, int] | None = None,
                          encrypted: bool = False) -> str:
        initial = [ENCRYPTION] if encrypted else []
        resp = await self.client.room_create(name="mesa", preset=RoomPreset.private_chat, invite=list(invite),
                                             initial_state=initial,
                                             power_level_override={"users": power_users} if power_users else None)
        assert isinstance(resp, RoomCreateResponse), resp
        return resp.room_id

    async def join(self, room_id: str) -> None:
        resp = await self.client.join(room_id)
        assert hasattr(resp, "room_id"), resp

    async def say(self, room_id: str, text: str, msgtype: str = "m.text") -> str:
        return await self.send(room_id, "m.room.message", {"msgtype": msgtype, "body": text})

    async def send(self, room_id: str, event_type: str, content: dict) -> str:
        if self.e2e:
            if room_id not in self.client.rooms:
                await self.sync_once(0)
            await self.keys_upkeep()
        resp = await self.client.room_send(room_id, event_type, content, ignore_unverified_devices=True)
        assert hasattr(resp, "event_id"), resp
        return resp.event_id

    async def say_undecryptable(self, room_id: str) -> str:
        """An ``m.room.encrypted`` message whose room key nobody will ever get (sent raw)."""
        content = {"algorithm": "m.megolm.v1.aes-sha2", "sender_key": "c2VuZGVyX2tleV9mb3JfYV90ZXN0X29ubHlfMDAwMDA",
                   "ciphertext": "AwgAEjB" + "A" * 80, "session_id": f"sin-clave-{next(_counter)}",
                   "device_id": self.user.device_id}
        data = self.synapse._http("PUT", f"/_matrix/client/v3/rooms/{room_id}/send/m.room.encrypted/"
                                  f"t{next(_counter)}-{time.monotonic_ns()}", content, token=self.user.access_token)
        return data["event_id"]

    async def try_say(self, room_id: str, text: str) -> Any:
        return await self.client.room_send(room_id, "m.room.message", {"msgtype": "m.text", "body": text})

    async def close(self) -> None:
        await self.client.close()


def reply_to(event_id: str, sender: str | None = None) -> Callable[[dict], bool]:
    def pred(ev: dict) -> bool:
        relates = (ev.get("content") or {}).get("m.relates_to")  # members may post any JSON here
        rel = relates.get("m.in_reply_to") if isinstance(relates, dict) else None
        return (ev.get("type") == "m.room.message" and isinstance(rel, dict) and rel.get("event_id") == event_id
                and (sender is None or ev.get("sender") == sender))
    return pred


def reacted_to(event_id: str, sender: str, key: str = "✅") -> Callable[[dict], bool]:
    """``sender``'s reaction ``key`` on ``event_id`` (a bookkeeping command's ✅, issue 30)."""
    def pred(ev: dict) -> bool:
        relates = (ev.get("content") or {}).get("m.relates_to")
        return (ev.get("type") == "m.reaction" and ev.get("sender") == sender and isinstance(relates, dict)
                and relates.get("event_id") == event_id and relates.get("key") == key)
    return pred


def reply_counts(events: list[dict], sender: str) -> Counter[str]:
    """How many messages from ``sender`` reply to each event (reactions and other events aside)."""
    return Counter(rel["event_id"] for ev in events
                   if ev.get("sender") == sender and ev.get("type") == "m.room.message"
                   and isinstance(rel := ((ev.get("content") or {}).get("m.relates_to") or {}), dict)
                   and isinstance(rel := rel.get("m.in_reply_to"), dict) and isinstance(rel.get("event_id"), str))


def replaces(event_id: str, sender: str) -> Callable[[dict], bool]:
    """An edit (``m.replace``) of ``event_id`` by ``sender``."""
    def pred(ev: dict) -> bool:
        relation = (ev.get("content") or {}).get("m.relates_to") or {}
        return (ev.get("sender") == sender and relation.get("rel_type") == "m.replace"
                and relation.get("event_id") == event_id)
    return pred


def redaction_of(event_id: str) -> Callable[[dict], bool]:
    def pred(ev: dict) -> bool:
        return ev.get("type") == "m.room.redaction" and (
            ev.get("redacts") == event_id or (ev.get("content") or {}).get("redacts") == event_id)
    return pred


def membership(user_id: str, value: str) -> Callable[[dict], bool]:
    def pred(ev: dict) -> bool:
        return (ev.get("type") == "m.room.member" and ev.get("state_key") == user_id
                and (ev.get("content") or {}).get("membership") == value)
    return pred


@dataclass
class Table:
    """One test's cast: a bot account and its config, a GM and players."""

    synapse: Synapse
    bot_user: User
    storage: Path
    gm: Chat
    players: list[Chat]
    extra: dict[str, Any] = field(default_factory=dict)
    web_port: int = 0

    def config_dict(self, **bot: Any) -> dict:
        rooms = bot.pop("rooms", {})
        matrix = {"homeserver": self.synapse.url, "user_id": self.bot_user.user_id,
                  "password": self.bot_user.password, "sync_timeout_ms": 5000}
        matrix.update(bot.pop("matrix", {}))
        matrix = {k: v for k, v in matrix.items() if v is not None}
        return {"matrix": matrix,
                "storage": {"path": str(self.storage)},
                "web": {"bind": f"127.0.0.1:{self.web_port}"},
                "bot": bot, "rooms": rooms}

    def config(self, **bot: Any):
        return parse_config(self.config_dict(**bot), env={})

    def write_config(self, path: Path, **bot: Any) -> Path:
        def toml_value(v: Any) -> str:
            return json.dumps(v, ensure_ascii=False) if not isinstance(v, bool) else str(v).lower()
        data = self.config_dict(**bot)
        lines = []
        for section in ("matrix", "storage", "web", "bot"):
            lines.append(f"[{section}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in data[section].items()]
        for room_id, values in data["rooms"].items():
            lines.append(f'[rooms."{room_id}"]')
            lines += [f"{k} = {toml_value(v)}" for k, v in values.items()]
        path.write_text("\n".join(lines) + "\n")
        return path


@pytest.fixture
async def cast(synapse: Synapse, tmp_path: Path):
    """A fresh bot account, a GM and three players, all exempt from rate limits."""
    bot_user = synapse.register("rolbot")
    gm = Chat(synapse, synapse.register("master"))
    players = [Chat(synapse, synapse.register(name)) for name in ("ana", "bruno", "carla")]
    table = Table(synapse, bot_user, tmp_path / "state", gm, players, web_port=free_port())
    try:
        yield table
    finally:
        for chat in [gm, *players]:
            await chat.close()


class RunningBot:
    """The bot in-process, as an asyncio task."""

    def __init__(self, config) -> None:
        from bot.matrix.bot import MatrixBot
        from bot.metrics import Metrics
        from bot.runner import build_table

        self.config = config
        self.bot = MatrixBot(config, build_table(config), Metrics())
        self.task: asyncio.Task | None = None
        self.web: Any = None

    async def __aenter__(self) -> RunningBot:
        from bot.runner import serve_web

        self.web = await serve_web(self.config, self.bot.table, self.bot.metrics)
        self.task = asyncio.ensure_future(self.bot.run())
        ready = asyncio.ensure_future(self.bot.ready.wait())
        done, _ = await asyncio.wait({self.task, ready}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            try:
                if self.task.done():
                    self.task.result()
                raise AssertionError("the bot did not finish its first sync")
            finally:
                await self.stop()
        return self

    async def stop(self) -> None:
        if self.task and not self.task.done():
            self.bot.stop()
            await asyncio.wait_for(self.task, 30)
        if self.web is not None:
            await self.web.cleanup()
            self.web = None
        self.bot.store.close()

    async def __aexit__(self, *exc) -> None:
        await self.stop()


@pytest.fixture
async def e2e_cast(synapse: Synapse, tmp_path: Path):
    """``cast`` with end-to-end encryption on in every test client (each with its own store)."""
    bot_user = synapse.register("rolbot")
    gm = Chat(synapse, synapse.register("master"), store=tmp_path / "keys-gm")
    players = [Chat(synapse, synapse.register(name), store=tmp_path / f"keys-{name}")
               for name in ("ana", "bruno", "carla")]
    table = Table(synapse, bot_user, tmp_path / "state", gm, players, web_port=free_port())
    for chat in [gm, *players]:
        await chat.sync_once(0)  # uploads its device keys
    try:
        yield table
    finally:
        for chat in [gm, *players]:
            await chat.close()


@pytest.fixture
def run_bot():
    return RunningBot


def pytest_collection_modifyitems(items):
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


def pytest_configure(config):
    config.addinivalue_line("markers", "integration: real Synapse on loopback (tests/integration)")


def is_state_read(method: str, path: str) -> bool:
    return (method == "GET" and "/rooms/" in path
            and any(part in path for part in ("/state", "/joined_members", "/members")))


class CountingProxy:
    """A plain HTTP relay between the bot and Synapse that records every request (method, path):
    what the bot asks the homeserver, counted without touching either side."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.requests: list[tuple[str, str]] = []
        self.state_in_flight = 0
        self.most_state_in_flight = 0
        """The most room-state reads the bot had waiting on the homeserver at once."""
        self.url = ""
        self._runner: Any = None
        self._session: Any = None

    async def start(self) -> None:
        import aiohttp
        from aiohttp import web

        self._session = aiohttp.ClientSession(auto_decompress=False)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._relay)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        port = free_port()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}"

    async def _relay(self, request: Any) -> Any:
        from aiohttp import web

        self.requests.append((request.method, request.path))
        reading_state = is_state_read(request.method, request.path)
        if reading_state:
            self.state_in_flight += 1
            self.most_state_in_flight = max(self.most_state_in_flight, self.state_in_flight)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        try:
            async with self._session.request(request.method, self.upstream + request.path_qs, headers=headers,
                                             data=await request.read(), allow_redirects=False) as resp:
                body = await resp.read()
                out = {k: v for k, v in resp.headers.items()
                       if k.lower() not in ("content-length", "transfer-encoding", "connection")}
                return web.Response(status=resp.status, headers=out, body=body)
        finally:
            if reading_state:
                self.state_in_flight -= 1

    def state_requests(self) -> list[str]:
        """Paths of the room-state reads (``/rooms/{id}/state``, one state event, the member lists)."""
        return [path for method, path in self.requests if is_state_read(method, path)]

    def reset(self) -> None:
        self.requests.clear()
        self.most_state_in_flight = 0

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()


@pytest.fixture
async def counting_proxy(synapse: Synapse):
    proxy = CountingProxy(synapse.url)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()
