"""Health and metrics over HTTP: ``GET /healthz`` and ``GET /metrics`` (Prometheus text format, the counters
of ``bot/metrics.py``); with a table, also its live table pages and acta links (``bot/web/table_page.py``).

The server cuts what would hold a connection for nothing: the first request's headers must arrive
within ``HEADER_TIMEOUT_S`` of the connection (``_FirstHeaders``: aiohttp has no such timeout of its
own), and a kept-alive connection must complete its next request's headers within ``IDLE_TIMEOUT_S``
of its last answer (aiohttp's ``keepalive_timeout``, which closes a connection waiting for a request,
idle or half-sent, and never one whose handler runs: the live streams stay, kept alive by their
comments). A client that goes away cancels its handler, so a closed stream frees its place at once."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from aiohttp import web

from bot.core.errors import StartupError
from bot.metrics import Metrics

if TYPE_CHECKING:
    from bot.core.table import Table
    from bot.web.table_page import TablePages

_BIND_ERRORS = {errno.EADDRINUSE: "web_port_in_use", errno.EADDRNOTAVAIL: "web_not_local",
                errno.EACCES: "web_forbidden"}
HEADER_TIMEOUT_S = 10.0
"""From a connection's opening to the end of its first request's headers."""
IDLE_TIMEOUT_S = 10.0
"""From an answer to the end of the next request's headers on the same connection."""


class RouteGroup(Protocol):
    """More pages of the app over the table's (the GM's screen, ``bot/web/screen_page.py``)."""

    def add_routes(self, app: web.Application, pages: TablePages) -> None: ...


def make_app(metrics: Metrics, table: Table | None = None, trusted_proxy: str | None = None,
             groups: Sequence[RouteGroup] = ()) -> web.Application:
    """``trusted_proxy``: the address of the reverse proxy whose ``X-Forwarded-For`` names the client;
    ``groups``: more pages, served with a table only."""
    async def healthz(_: web.Request) -> web.Response:
        if metrics.healthy:
            return web.Response(text="ok\n")
        return web.Response(status=503, text="waiting for the transports to connect\n")

    async def metrics_view(_: web.Request) -> web.Response:
        return web.Response(text=metrics.render(), content_type="text/plain", charset="utf-8",
                            headers={"X-Content-Type-Options": "nosniff"})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    if table is not None:
        from bot.web.table_page import TablePages
        from bot.web.view import TableView

        pages = TablePages(TableView(table), metrics, trusted_proxy)
        pages.add_routes(app)
        for group in groups:
            group.add_routes(app, pages)
    return app


class _FirstHeaders(asyncio.Protocol):
    """aiohttp's protocol for one connection, closed unless its first request's headers (up to the
    blank line that ends them) arrive within ``timeout``. Later requests are aiohttp's
    ``keepalive_timeout``'s."""

    def __init__(self, inner: asyncio.Protocol, timeout: float) -> None:
        self._inner = inner
        self._timeout = timeout
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._timer = asyncio.get_running_loop().call_later(self._timeout, transport.close)
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if b"\n\n" in seen or b"\n\r\n" in seen:
                self._timer.cancel()
                self._timer = None
            self._tail = seen[-2:]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


class _Site(web.BaseSite):
    """A TCP site whose connections are ``_FirstHeaders``."""

    __slots__ = ("_host", "_port")

    def __init__(self, runner: web.AppRunner, host: str, port: int) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        timeout = HEADER_TIMEOUT_S
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _FirstHeaders(server(), timeout), self._host, self._port, reuse_address=True)


async def start_web(metrics: Metrics, host: str, port: int, table: Table | None = None,
                    trusted_proxy: str | None = None, groups: Sequence[RouteGroup] = ()) -> web.AppRunner:
    runner = web.AppRunner(make_app(metrics, table, trusted_proxy, groups), access_log=None,
                           keepalive_timeout=IDLE_TIMEOUT_S,
                           handler_cancellation=True)
    await runner.setup()
    site = _Site(runner, host, port)
    try:
        await site.start()
    except OSError as err:
        await runner.cleanup()
        bind = f"{host}:{port}"
        if isinstance(err, socket.gaierror):
            raise StartupError("web_bad_host", bind=bind) from None
        reason = os.strerror(err.errno) if err.errno else str(err)
        raise StartupError(_BIND_ERRORS.get(err.errno or 0, "web_bind"), bind=bind, port=port, reason=reason) from None
    return runner
