"""The web app holds under load (issue 19, item 5): live streams are capped for the whole server and
per client address, half-sent headers and idle connections are cut, a large acta is rendered off
the event loop, and ``/healthz`` answers throughout. Every test runs the real server
(``bot.web.start_web``) on loopback."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

import bot.web.app
import bot.web.table_page
from bot.config import ConfigError, parse_config
from bot.core.events import Event
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.web import start_web

GM = "@gm:local"
UNIT = Path(__file__).resolve().parent.parent.parent / "systemd" / "rolbot.service"
ANSWERS_AT_ALL_S = 20.0
"""How long anything may take to answer at all: a generous bound, never a timing assertion."""


class Tables:
    def __init__(self, templates_dir: str | None = None) -> None:
        settings = TableSettings(RoomSettings(system="savage", gms=(GM,), public_url="https://rol.example.org"))
        self.table = Table(Store(), settings, random.Random(3), templates_dir=templates_dir, games=GAMES)
        self.count = 0

    def say(self, room: str, sender: str, text: str) -> None:
        self.count += 1
        self.table.handle(Event(room, sender, text, f"$h{self.count}", ts=1_700_000_000_000 + self.count))

    def open_room(self, room: str) -> str:
        self.say(room, GM, "!acta activar")
        self.say(room, GM, "!mesa")
        token = self.table.room(room).page_token
        assert token is not None
        return token


class Server:
    def __init__(self, runner: web.AppRunner) -> None:
        self.runner = runner
        self.port = runner.addresses[0][1]
        self.base = f"http://127.0.0.1:{self.port}"

    async def healthz(self, http: aiohttp.ClientSession) -> int:
        async with http.get(f"{self.base}/healthz", timeout=aiohttp.ClientTimeout(total=ANSWERS_AT_ALL_S)) as response:
            await response.read()
            return response.status

    async def metric(self, http: aiohttp.ClientSession, name: str) -> float:
        async with http.get(f"{self.base}/metrics", timeout=aiohttp.ClientTimeout(total=ANSWERS_AT_ALL_S)) as response:
            found = re.search(rf"^{name} (\S+)$", await response.text(), re.MULTILINE)
            assert found is not None, f"{name} missing from /metrics"
            return float(found[1])


@pytest.fixture
async def serve() -> AsyncIterator[Any]:
    runners: list[web.AppRunner] = []

    async def start(tables: Tables, trusted_proxy: str | None = None) -> Server:
        metrics = Metrics(transports={"matrix": True})
        runner = await start_web(metrics, "127.0.0.1", 0, tables.table, trusted_proxy=trusted_proxy)
        runners.append(runner)
        return Server(runner)

    yield start
    for runner in runners:
        await runner.cleanup()


async def open_stream(http: aiohttp.ClientSession, url: str, address: str | None = None) -> aiohttp.ClientResponse:
    """A live stream, read up to its first board when accepted (the refused ones are read whole)."""
    headers = {"X-Forwarded-For": f"198.51.100.9, {address}"} if address else {}
    response = await http.get(url, headers=headers, timeout=aiohttp.ClientTimeout(total=None, sock_connect=10))
    if response.status == 200:
        line = await asyncio.wait_for(response.content.readline(), ANSWERS_AT_ALL_S)
        assert line == b"event: mesa\n"
    else:
        await response.read()
    return response


def unlimited() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))


async def test_a_stream_flood_across_rooms_stops_at_the_global_cap_and_healthz_answers(
        serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """22 rooms x 50 streams used to exhaust the file descriptors: the whole server takes at most
    ``MAX_STREAMS_TOTAL`` (scaled down here), each one more gets a Spanish 503, and a freed place is
    taken again."""
    monkeypatch.setattr(bot.web.table_page, "MAX_STREAMS_TOTAL", 60)
    tables = Tables()
    tokens = [tables.open_room(f"!sala{i}:local") for i in range(6)]
    server = await serve(tables, trusted_proxy="127.0.0.1")
    accepted: list[aiohttp.ClientResponse] = []
    refused: list[aiohttp.ClientResponse] = []
    async with unlimited() as http:
        for n, token in enumerate(tokens):
            batch = await asyncio.gather(*(open_stream(http, f"{server.base}/mesa/{token}/eventos", f"10.0.{n}.{k}")
                                           for k in range(12)))
            accepted += [r for r in batch if r.status == 200]
            refused += [r for r in batch if r.status != 200]
            assert await server.healthz(http) == 200
        assert len(accepted) == 60 and len(refused) == 12
        assert {r.status for r in refused} == {503}
        assert await server.metric(http, "rolbot_web_streams") == 60
        assert await server.metric(http, "rolbot_web_streams_refused_total") == 12
        page = await http.get(f"{server.base}/mesa/{tokens[0]}/eventos")
        assert page.status == 503 and "El servidor no admite más mesas en directo" in await page.text()
        assert page.headers["Content-Security-Policy"] == bot.web.table_page.PAGE_CSP
        accepted.pop().close()
        again = await asyncio.wait_for(_retry_until_accepted(http, f"{server.base}/mesa/{tokens[0]}/eventos"),
                                       ANSWERS_AT_ALL_S)
        assert again.status == 200
        accepted.append(again)
        assert await server.healthz(http) == 200
        for response in accepted:
            response.close()


async def _retry_until_accepted(http: aiohttp.ClientSession, url: str) -> aiohttp.ClientResponse:
    """The server frees a closed stream's place once it notices the close: ask until it has."""
    while True:
        response = await open_stream(http, url, "10.9.9.9")
        if response.status == 200:
            return response
        await asyncio.sleep(0.05)


async def test_one_client_address_gets_at_most_20_streams_then_a_spanish_429(serve: Any) -> None:
    """Behind the trusted proxy the client is the address the proxy added last; the others still get in."""
    tables = Tables()
    tokens = [tables.open_room("!a:local"), tables.open_room("!b:local")]
    server = await serve(tables, trusted_proxy="127.0.0.1")
    async with unlimited() as http:
        mine = await asyncio.gather(*(open_stream(http, f"{server.base}/mesa/{tokens[k % 2]}/eventos", "203.0.113.7")
                                      for k in range(20)))
        assert [r.status for r in mine] == [200] * 20
        extra = await http.get(f"{server.base}/mesa/{tokens[0]}/eventos", headers={"X-Forwarded-For": "203.0.113.7"})
        assert extra.status == 429 and "Demasiadas mesas en directo desde tu conexión" in await extra.text()
        assert extra.headers["Retry-After"] == "60"
        other = await open_stream(http, f"{server.base}/mesa/{tokens[0]}/eventos", "203.0.113.8")
        assert other.status == 200
        assert await server.healthz(http) == 200
        for response in [*mine, other]:
            response.close()


async def test_x_forwarded_for_counts_only_from_the_trusted_proxy(serve: Any) -> None:
    """Without ``trusted_proxy``, or from another peer than the proxy, the header is the client's word
    and is ignored: varying it does not buy more streams."""
    tables = Tables()
    token = tables.open_room("!a:local")
    for proxy in (None, "127.0.0.2"):
        server = await serve(tables, trusted_proxy=proxy)
        async with unlimited() as http:
            streams = await asyncio.gather(*(open_stream(http, f"{server.base}/mesa/{token}/eventos", f"10.1.1.{k}")
                                             for k in range(21)))
            assert sorted(r.status for r in streams) == [200] * 20 + [429]
            for response in streams:
                response.close()
    server = await serve(tables, trusted_proxy="127.0.0.2")
    connector = aiohttp.TCPConnector(limit=0, force_close=True, local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        streams = await asyncio.gather(*(open_stream(http, f"{server.base}/mesa/{token}/eventos", f"10.1.1.{k}")
                                         for k in range(21)))
        assert [r.status for r in streams] == [200] * 21
        for response in streams:
            response.close()


async def _slow_client(port: int, first: bytes, trickle: bytes, stop: asyncio.Event) -> bool:
    """Sends ``first``, then ``trickle`` every 0.1 s until the server closes (True) or ``stop``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(first)
        await writer.drain()
        if b"\r\n\r\n" in first:
            await reader.readuntil(b"ok\n")  # the answer to the whole request; the slow one follows
        while not stop.is_set():
            if reader.at_eof():
                return True
            try:
                writer.write(trickle)
                await writer.drain()
                if await asyncio.wait_for(reader.read(1), 0.1) == b"":
                    return True
            except TimeoutError:
                continue
            except ConnectionError:
                return True
        return False
    finally:
        writer.close()


async def test_half_sent_headers_are_cut_after_the_header_timeout_while_healthz_answers(
        serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow-headers flood (slowloris): silent connections, a header trickled a byte at a time, and the
    same on a kept-alive connection after a first answer; every one is closed by the server, and
    ``/healthz`` answers all along."""
    monkeypatch.setattr(bot.web.app, "HEADER_TIMEOUT_S", 1.0)
    monkeypatch.setattr(bot.web.app, "IDLE_TIMEOUT_S", 1.0)
    server = await serve(Tables())
    stop = asyncio.Event()
    start = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Lento: "
    kinds = [(b"", b""), (start, b"a"), (start + b"a\r\n\r\n" + start, b"a")]
    clients = [asyncio.ensure_future(_slow_client(server.port, *kinds[k % 3], stop)) for k in range(150)]
    loop = asyncio.get_running_loop()
    give_up = loop.time() + ANSWERS_AT_ALL_S
    try:
        async with aiohttp.ClientSession() as http:
            while not all(c.done() for c in clients) and loop.time() < give_up:
                assert await server.healthz(http) == 200
                await asyncio.sleep(0.1)
        closed = [c.result() for c in clients if c.done()]
        assert len(closed) == 150 and all(closed)
    finally:
        stop.set()
        await asyncio.gather(*clients, return_exceptions=True)


async def test_idle_connections_are_closed_but_live_streams_stay_and_get_comments(
        serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.web.app, "HEADER_TIMEOUT_S", 1.0)
    monkeypatch.setattr(bot.web.app, "IDLE_TIMEOUT_S", 1.0)
    monkeypatch.setattr(bot.web.table_page, "KEEPALIVE_S", 0.2)
    tables = Tables()
    token = tables.open_room("!a:local")
    server = await serve(tables)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    await reader.readuntil(b"ok\n")
    assert await asyncio.wait_for(reader.read(), ANSWERS_AT_ALL_S) == b""  # idle after its answer: closed
    writer.close()
    async with aiohttp.ClientSession() as http:
        stream = await open_stream(http, f"{server.base}/mesa/{token}/eventos")
        comments = 0
        while comments < 15:  # three seconds of comments, well past the idle timeout
            line = await asyncio.wait_for(stream.content.readline(), ANSWERS_AT_ALL_S)
            assert line != b""
            comments += line.startswith(b":")
        stream.close()


HEAVY_ACTA = "{% for i in range(50000000) %}{% endfor %}acta de {{ room_id }}\n"
"""An acta template slow enough to see its render in progress (a few seconds of CPU)."""


async def test_the_acta_is_rendered_off_the_event_loop(serve: Any, tmp_path: Path) -> None:
    """While an acta renders, the server answers ``/healthz`` and ``/metrics`` (which counts the render
    in progress); the document then arrives whole, and a second fetch of the unchanged acta is not
    rendered again."""
    (tmp_path / "acta_document.txt").write_text(HEAVY_ACTA)
    tables = Tables(templates_dir=str(tmp_path))
    token = tables.open_room("!a:local")
    tables.say("!a:local", GM, "La niebla cubre el campo.")
    server = await serve(tables)
    async with aiohttp.ClientSession() as http:
        acta = asyncio.ensure_future(_text(http, f"{server.base}/mesa/{token}/acta/ultima.md"))
        await asyncio.wait_for(_rendering(server, http, acta), ANSWERS_AT_ALL_S)
        assert await server.healthz(http) == 200
        assert await asyncio.wait_for(acta, ANSWERS_AT_ALL_S * 3) == "acta de !a:local\n"
        assert await server.metric(http, "rolbot_acta_renders_in_progress") == 0
        assert await server.metric(http, "rolbot_acta_renders_total") == 1
        assert await _text(http, f"{server.base}/mesa/{token}/acta/ultima.md") == "acta de !a:local\n"
        assert await server.metric(http, "rolbot_acta_renders_total") == 1


async def test_an_acta_beyond_the_renders_waiting_gets_a_spanish_503(
        serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Renders are bounded: with ``ACTA_WAITING`` of them running, an acta that needs one more is
    refused at once; the one being rendered, asked again, waits for that render instead."""
    monkeypatch.setattr(bot.web.table_page, "ACTA_WAITING", 1)
    (tmp_path / "acta_document.txt").write_text(HEAVY_ACTA)
    tables = Tables(templates_dir=str(tmp_path))
    token = tables.open_room("!a:local")
    tables.say("!a:local", GM, "La niebla cubre el campo.")
    server = await serve(tables)
    async with aiohttp.ClientSession() as http:
        url = f"{server.base}/mesa/{token}/acta/ultima"
        first = asyncio.ensure_future(_text(http, f"{url}.md"))
        await asyncio.wait_for(_rendering(server, http, first), ANSWERS_AT_ALL_S)
        same = asyncio.ensure_future(_text(http, f"{url}.md"))
        refused = await http.get(f"{url}.html", timeout=aiohttp.ClientTimeout(total=ANSWERS_AT_ALL_S))
        assert refused.status == 503 and "Estamos preparando otras actas" in await refused.text()
        assert refused.headers["Retry-After"] == "5"
        assert await asyncio.wait_for(asyncio.gather(first, same), ANSWERS_AT_ALL_S * 3) == ["acta de !a:local\n"] * 2
        assert await server.metric(http, "rolbot_acta_renders_total") == 1


async def _rendering(server: Server, http: aiohttp.ClientSession, fetch: asyncio.Future[str]) -> None:
    """Until the server says an acta render is in progress (while ``fetch`` still waits for it)."""
    while await server.metric(http, "rolbot_acta_renders_in_progress") < 1:
        assert not fetch.done()
        await asyncio.sleep(0.02)


async def _text(http: aiohttp.ClientSession, url: str) -> str:
    async with http.get(url, timeout=aiohttp.ClientTimeout(total=ANSWERS_AT_ALL_S * 3)) as response:
        assert response.status == 200
        return await response.text()


async def test_a_changed_acta_is_rendered_again(serve: Any) -> None:
    tables = Tables()
    token = tables.open_room("!a:local")
    tables.say("!a:local", GM, "La niebla cubre el campo.")
    server = await serve(tables)
    async with aiohttp.ClientSession() as http:
        url = f"{server.base}/mesa/{token}/acta/ultima.md"
        first = await _text(http, url)
        assert "La niebla cubre el campo." in first and first == await _text(http, url)
        tables.say("!a:local", GM, "Llega el alba.")
        second = await _text(http, url)
        assert "Llega el alba." in second
        assert await server.metric(http, "rolbot_acta_renders_total") == 2


def test_the_unit_gives_file_descriptors_for_every_stream_and_more() -> None:
    found = re.search(r"^LimitNOFILE=(\d+)$", UNIT.read_text(), re.MULTILINE)
    assert found is not None
    assert int(found[1]) >= 2 * bot.web.table_page.MAX_STREAMS_TOTAL + 1024


def test_trusted_proxy_is_an_address() -> None:
    base = {"irc": {"server": "127.0.0.1", "channels": ["#mesa"]}, "storage": {"path": "/tmp/x"}}
    assert parse_config(base).web_trusted_proxy is None
    assert parse_config({**base, "web": {"trusted_proxy": "::1"}}).web_trusted_proxy == "::1"
    for bad in ("localhost", "10.0.0.0/8", 7):
        with pytest.raises(ConfigError) as err:
            parse_config({**base, "web": {"trusted_proxy": bad}})
        assert "trusted_proxy" in str(err.value) and "[web]" in str(err.value)


@pytest.mark.parametrize(("peer", "forwarded", "client"), [
    ("::1", "2001:db8:1:2::7", "2001:db8:1:2::/64"),  # one IPv6 host's /64 is one client
    ("::1", "2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
    ("::1", "198.51.100.1, ::ffff:10.0.0.1", "10.0.0.1"),  # the last address, an IPv4 one mapped
    ("::1", "203.0.113.9, no es una dirección", "::/64"),  # unreadable: the proxy itself
    ("::ffff:127.0.0.1", "10.0.0.1", "127.0.0.1"),  # not the proxy: the header is not read
])
def test_the_client_of_a_request(peer: str, forwarded: str, client: str) -> None:
    from unittest import mock

    from aiohttp.test_utils import make_mocked_request

    from bot.web.table_page import TablePages
    from bot.web.view import TableView

    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (peer, 1234) if name == "peername" else default
    request = make_mocked_request("GET", "/", headers={"X-Forwarded-For": forwarded}, transport=transport)
    assert TablePages(TableView(Tables().table), Metrics(), trusted_proxy="::1").client(request) == client
