"""A real ngircd on loopback for the IRC transport tests (docs/development.md#4), raw-socket players, and the bot.

Each test gets its own server (it starts in milliseconds), so a test may restart it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.config import parse_config
from bot.irc.bot import IrcBot
from bot.metrics import Metrics
from bot.runner import build_table, run_transports

ROOT = Path(__file__).resolve().parents[2]
NGIRCD = shutil.which("ngircd") or "/usr/sbin/ngircd"
WAIT = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Ngircd:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.conf = directory / "ngircd.conf"
        self.conf.write_text(
            "[Global]\nName = irc.test\nInfo = rolbot tests\nListen = 127.0.0.1\n"
            f"Ports = {self.port}\nPidFile = {directory}/ngircd.pid\nMotdPhrase = hola\n"
            "[Limits]\nMaxNickLength = 30\nPingTimeout = 120\nMaxConnectionsIP = 0\n"
            "[Options]\nPAM = no\nIdent = no\nDNS = no\n")

    def start(self) -> None:
        log = (self.directory / "ngircd.log").open("ab")
        self.proc = subprocess.Popen([NGIRCD, "-n", "-f", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.05)
        raise AssertionError("ngircd did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def log(self) -> str:
        return (self.directory / "ngircd.log").read_text(errors="replace")


@pytest.fixture
def ngircd(tmp_path: Path):
    server = Ngircd(tmp_path)
    server.start()
    yield server
    server.stop()


_LINE = re.compile(r"^(?:@(?P<tags>\S+) )?(?::(?P<source>\S+) )?(?P<command>\S+)(?P<rest>.*)$")


@dataclass
class Msg:
    source: str
    command: str
    params: list[str]
    raw: bytes

    @property
    def nick(self) -> str:
        return self.source.split("!", 1)[0]

    @property
    def text(self) -> str:
        """The last parameter, IRC bold and italics removed."""
        return self.formatted.translate(_FORMATTING)

    @property
    def formatted(self) -> str:
        return self.params[-1] if self.params else ""


_FORMATTING = str.maketrans("", "", "\x02\x1d\x1e")


def parse(raw: bytes) -> Msg:
    line = raw.decode("utf-8", errors="replace")
    match = _LINE.match(line)
    assert match, line
    rest = match["rest"].strip()
    params: list[str] = []
    while rest:
        if rest.startswith(":"):
            params.append(rest[1:])
            break
        word, _, rest = rest.partition(" ")
        params.append(word)
        rest = rest.lstrip(" ")
    return Msg(match["source"] or "", match["command"], params, raw)


@dataclass
class Player:
    """A raw-socket IRC client: everything it receives is kept in ``lines``."""

    nick: str
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    lines: list[Msg] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def _read(self) -> None:
        while True:
            raw = await self.reader.readline()
            if not raw:
                break
            msg = parse(raw.rstrip(b"\r\n"))
            if msg.command == "PING":
                self.send_raw(f"PONG :{msg.text}")
            self.lines.append(msg)
            self.changed.set()

    def send_raw(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode()
        self.writer.write(data + b"\r\n")

    async def wait_for(self, predicate: Callable[[Msg], bool], what: str = "a line", start: int = 0,
                       timeout: float = WAIT) -> Msg:
        deadline = time.monotonic() + timeout
        while True:
            for msg in self.lines[start:]:
                if predicate(msg):
                    return msg
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                tail = "\n".join(m.raw.decode(errors="replace") for m in self.lines[-40:])
                raise AssertionError(f"{self.nick}: timed out waiting for {what} (from line {start} of "
                                     f"{len(self.lines)}, reader done: {self.task and self.task.done()}); "
                                     f"last lines:\n{tail}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def join(self, channel: str) -> None:
        mark = len(self.lines)
        self.send_raw(f"JOIN {channel}")
        await self.wait_for(lambda m: m.command == "366", f"joining {channel}", mark)

    def say(self, channel: str, text: str | bytes) -> int:
        """Send; returns the index of the next line received (wait from there)."""
        mark = len(self.lines)
        if isinstance(text, bytes):
            self.send_raw(b"PRIVMSG " + channel.encode() + b" :" + text)
        else:
            self.send_raw(f"PRIVMSG {channel} :{text}")
        return mark

    def act(self, channel: str, text: str) -> int:
        return self.say(channel, f"\x01ACTION {text}\x01")

    async def notice_from(self, bot_nick: str, start: int, contains: str = "", target: str | None = None) -> Msg:
        return await self.wait_for(
            lambda m: m.command == "NOTICE" and m.nick == bot_nick and contains in m.text
            and (target is None or m.params[0] == target), f"a notice from {bot_nick} with {contains!r}", start)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send_raw("QUIT :adios")
            await self.writer.drain()
        self.writer.close()
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


async def connect_player(port: int, nick: str, user: str | None = None) -> Player:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    player = Player(nick, reader, writer)
    player.task = asyncio.ensure_future(player._read())
    player.send_raw("CAP REQ :multi-prefix")  # NAMES then shows every prefix (@+)
    player.send_raw("CAP END")
    player.send_raw(f"NICK {nick}")
    player.send_raw(f"USER {user or nick} 0 * :{nick}")
    await player.wait_for(lambda m: m.command in ("376", "422"), "registration")
    return player


CHANNEL = "#mesa"


def irc_config(port: int, storage: Path, web_port: int | None = None, **irc: Any) -> Any:
    data: dict[str, Any] = {
        "irc": {"server": "127.0.0.1", "port": port, "nick": "rolbot", "channels": [CHANNEL],
                "flood_burst": 4, "flood_interval_s": 0.5, **irc},
        "storage": {"path": str(storage)},
        "web": {"bind": f"127.0.0.1:{web_port}" if web_port else ""},
    }
    return parse_config(data, env={})


class RunningIrcBot:
    def __init__(self, config: Any, seed: int | None = 7) -> None:
        import random

        self.config = config
        self.table = build_table(config, rng=random.Random(seed) if seed is not None else None)
        self.store = self.table.store
        self.metrics = Metrics()
        self.bot = IrcBot(config, self.table, self.metrics)
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> RunningIrcBot:
        self.task = asyncio.ensure_future(self.bot.run())
        await wait_until(lambda: self.metrics.healthy, "the bot to join its channels")
        return self

    async def stop(self) -> None:
        self.bot.stop()
        if self.task is not None:
            await asyncio.wait_for(self.task, WAIT)
        self.store.close()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def http_status(url: str) -> int:
    """The HTTP status of a GET, 0 while nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


@contextlib.asynccontextmanager
async def rolbot_with_screen(ngircd: Ngircd, tmp_path: Path) -> AsyncIterator[str]:
    """``rolbot run``'s composition root with IRC and the web screen; yields the web base URL once healthy."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    config = parse_config({
        "irc": {"server": "127.0.0.1", "port": ngircd.port, "nick": "rolbot", "channels": [CHANNEL],
                "flood_burst": 4, "flood_interval_s": 0.5},
        "storage": {"path": str(tmp_path / "st")},
        "web": {"bind": f"127.0.0.1:{port}", "public_url": base},
    }, env={})
    stop = asyncio.Event()
    running = asyncio.ensure_future(run_transports(config, stop))
    try:
        while await asyncio.to_thread(http_status, f"{base}/healthz") != 200:
            assert not running.done(), running.result()
            await asyncio.sleep(0.05)  # polling /healthz as a supervisor would
        yield base
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 30) == 0


async def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
async def table_cast(ngircd: Ngircd, tmp_path: Path) -> AsyncIterator[dict[str, Player]]:
    """The GM (first in the channel: operator), two players."""
    nicks = ("dj", "ana", "bob")
    players = dict(zip(nicks, await asyncio.gather(*(connect_player(ngircd.port, n) for n in nicks)), strict=True))
    for player in players.values():  # in this order: dj first, so dj is the operator
        await player.join(CHANNEL)
    yield players
    for player in players.values():
        await player.close()
