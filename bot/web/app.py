"""Health and metrics over HTTP: ``GET /healthz`` and ``GET /metrics`` (Prometheus text format); with a
table, also its live table pages and acta links (``bot/web/table_page.py``).

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
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from aiohttp import web

from bot.core.errors import StartupError

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


@dataclass
class Metrics:
    events_handled: int = 0
    replies: int = 0
    redactions: int = 0
    power_level_changes: int = 0
    errors: int = 0
    retries: int = 0
    rate_limited: int = 0
    coalesced_messages: int = 0
    coalesced_replies: int = 0
    syncs: int = 0
    sync_lag_seconds: float = 0.0
    """Time between an event's server timestamp and the moment the table handled it (last event)."""
    last_sync_ts: float = 0.0
    first_sync_done: bool = False
    undecryptable: int = 0
    encrypted_rooms: int = 0
    started: float = field(default_factory=time.time)
    transports: dict[str, bool] = field(default_factory=dict)
    """Each configured transport (``matrix``, ``irc``) and whether it is connected now."""
    cross_signing_conflict: bool = False
    """The account's master key on the homeserver is not one the bot holds: it runs without cross-signing."""
    irc_reconnects: int = 0
    irc_missed_messages: int = 0
    web_streams: int = 0
    web_streams_refused: int = 0
    acta_renders: int = 0
    acta_renders_in_progress: int = 0

    @property
    def healthy(self) -> bool:
        """Every configured transport connected (Matrix: first sync done; IRC: channels joined)."""
        if not self.transports:
            return self.first_sync_done
        return all(self.transports.values())

    def render(self) -> str:
        rows = [
            ("rolbot_events_handled_total", "counter", "Chat events handled by the table.", self.events_handled),
            ("rolbot_replies_total", "counter", "Messages sent by the bot.", self.replies),
            ("rolbot_redactions_total", "counter", "Events redacted by the bot.", self.redactions),
            ("rolbot_power_level_changes_total", "counter", "Power level changes (mute locks).",
             self.power_level_changes),
            ("rolbot_errors_total", "counter", "Failed requests and handler errors.", self.errors),
            ("rolbot_retries_total", "counter", "Requests retried (rate limit, network, 5xx).", self.retries),
            ("rolbot_rate_limited_total", "counter", "Requests the homeserver refused with 429.", self.rate_limited),
            ("rolbot_coalesced_messages_total", "counter", "Messages that grouped several replies under a rate limit.",
             self.coalesced_messages),
            ("rolbot_coalesced_replies_total", "counter", "Replies sent inside a coalesced message.",
             self.coalesced_replies),
            ("rolbot_syncs_total", "counter", "Sync responses processed.", self.syncs),
            ("rolbot_sync_lag_seconds", "gauge", "Delay from an event's server timestamp to its handling.",
             round(self.sync_lag_seconds, 3)),
            ("rolbot_last_sync_timestamp_seconds", "gauge", "Unix time of the last sync response.",
             round(self.last_sync_ts, 3)),
            ("rolbot_undecryptable_total", "counter", "Encrypted messages the bot could not decrypt on arrival.",
             self.undecryptable),
            ("rolbot_encrypted_rooms", "gauge", "Joined rooms with end-to-end encryption.", self.encrypted_rooms),
            ("rolbot_cross_signing_conflict", "gauge",
             "1 when the account's cross-signing identity is not the bot's: it runs without cross-signing "
             "(rolbot run --reset-cross-signing replaces it).", int(self.cross_signing_conflict)),
            ("rolbot_irc_reconnects_total", "counter", "Connections to the IRC server lost and made again.",
             self.irc_reconnects),
            ("rolbot_irc_missed_messages_total", "counter",
             "Channel messages sent while the bot was away, where the server's chathistory tells.",
             self.irc_missed_messages),
            ("rolbot_web_streams", "gauge", "Live table streams open now.", self.web_streams),
            ("rolbot_web_streams_refused_total", "counter",
             "Live table streams refused: the server's, the address's or the room's limit reached.",
             self.web_streams_refused),
            ("rolbot_acta_renders_total", "counter", "Actas rendered for the web (a fetch of an unchanged one is not).",
             self.acta_renders),
            ("rolbot_acta_renders_in_progress", "gauge", "Actas being rendered now, in the worker process.",
             self.acta_renders_in_progress),
            ("rolbot_up", "gauge", "1 once every configured transport is connected.", int(self.healthy)),
        ]
        out = []
        for name, kind, help_text, value in rows:
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", f"{name} {value}"]
        return "\n".join(out) + "\n"


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
