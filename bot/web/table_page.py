"""The live table page (``!mesa``) and the acta links (``!acta``), served by the ``[web]`` aiohttp app.

``GET /mesa/{token}`` is the page: the room's system, round, turn order, whose turn it is, the floor,
each combatant's state (the labels ``!estado`` shows: of a character whose sheet is the GM's, no
number of that sheet, ``Context.sheet_is_gms``) and
the last public rolls. ``GET /mesa/{token}/eventos`` streams the same board as Server-Sent Events
each time an event of the room commits (``Table.watchers``): rendered once per change and shared by
all the room's streams; ``static/mesa.js`` swaps it in, and without JavaScript the page is a snapshot.
Streams are limited three ways, each one more refused with a Spanish page while the page itself
still loads: ``MAX_STREAMS_TOTAL`` for the whole server (503: what keeps any number of rooms from
using up the process's file descriptors), ``MAX_STREAMS_PER_ADDRESS`` per client (429; the client is
the connection's peer, or the last ``X-Forwarded-For`` address when the peer is ``[web]
trusted_proxy``; an IPv6 client is its /64), and ``MAX_STREAMS`` per room (503). The GM's screens
(``screen_page``) follow the same feeds on a budget of their own, ``MAX_SCREEN_STREAMS`` for the whole
server and ``MAX_SCREEN_STREAMS_PER_ADDRESS`` per client (``screen_stream_opened``): the public
page's streams never count against it, nor the screens' against the public page's.
``GET /mesa/{token}/acta/{N|ultima}.{md|html}`` is the
exported acta. A token that is not the room's current one gives 404, like any unknown address.

The acta is read here (a few milliseconds for thousands of posts) and rendered in a worker process:
its Markdown escaping is pure-Python work that held the event loop for seconds, and a thread would
still hold the loop through the GIL. A rendered document is kept until its room changes
(``ACTA_CACHED`` of them), so many players fetching one acta cost one render; at most
``ACTA_WAITING`` renders wait at a time, one more gets a Spanish 503.

The page loads nothing from elsewhere and sends a strict Content-Security-Policy: no inline script
or style, only this server's own stylesheet, script and event stream."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import signal
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from typing import TYPE_CHECKING, Protocol

from aiohttp import web
from aiohttp.typedefs import Handler

from bot.web.view import ACTA_FORMATS, Format, Session, TableView, render_acta

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{22,64}")
KEEPALIVE_S = 15.0
MAX_STREAMS = 50
"""Open event streams per room; one more is refused (503) until one closes."""
MAX_STREAMS_TOTAL = 1000
"""Open event streams in the whole server (503 beyond): two file descriptors each at most (the
stream, and a proxy's side when it runs on the same host); the unit's ``LimitNOFILE`` has room for
them and the rest."""
MAX_STREAMS_PER_ADDRESS = 20
"""Open event streams of one client address (429 beyond)."""
MAX_SCREEN_STREAMS = 200
"""Open event streams of the GMs' screens in the whole server, apart from the public pages' (a
screen's refusal beyond): each screen link keeps a few (``screen_page.MAX_STREAMS_PER_TOKEN``). The
unit's ``LimitNOFILE`` has room for these and ``MAX_STREAMS_TOTAL``'s."""
MAX_SCREEN_STREAMS_PER_ADDRESS = 16
"""Open event streams of the GMs' screens from one client address (a screen's refusal beyond)."""
ACTA_WAITING = 8
"""Acta renders queued or running at once; one more request that needs a render gets a 503."""
ACTA_CACHED = 4
"""Rendered actas kept, the most recently asked for (each until its room changes)."""
RETRY_AFTER_S = "60"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
ACTA_ROUTE = r"/mesa/{token}/acta/{which:(\d{1,9}|ultima)}.{fmt:(" + "|".join(ACTA_FORMATS) + ")}"
ASSETS = {"mesa.css": "text/css", "mesa.js": "text/javascript", "icono.svg": "image/svg+xml",
          "pantalla.css": "text/css", "pantalla.js": "text/javascript", "vivo.js": "text/javascript"}


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address as text, an IPv4 one mapped into IPv6 read as IPv4; None if it is none."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _drop(counter: Counter[str], key: str) -> None:
    """One less of ``key``, forgotten at zero (so the counter holds only the clients with a stream)."""
    counter[key] -= 1
    if not counter[key]:
        del counter[key]


def sse_message(event: str, data: str) -> bytes:
    """One Server-Sent Event; every line of ``data`` (CR, LF or CRLF ends one) gets its ``data:``."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return (f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n").encode()


async def follow(response: web.StreamResponse, feed: Feed, current: Callable[[], bool],
                 message: Callable[[], bytes]) -> None:
    """A live stream's loop: ``message()`` written each time it changes while ``current()`` holds, and a
    comment every ``KEEPALIVE_S`` so proxies keep the connection."""
    sent = b""
    while current():
        wake = feed.wake
        text = message()
        if text != sent:
            await response.write(text)
            sent = text
        try:
            await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
        except TimeoutError:
            await response.write(b": sigo aqui\n\n")


@dataclass
class Feed:
    """One room's live board while someone follows it: the event the streams wait on (set and
    replaced on each change), and the board's event rendered once for ``version``."""

    streams: int = 0
    """The public page's streams."""
    screens: int = 0
    """The GMs' screens' streams."""
    version: int = 0
    rendered: int = -1
    message: bytes = b""
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def changed(self) -> None:
        self.version += 1
        wake, self.wake = self.wake, asyncio.Event()
        wake.set()


class StreamCounters(Protocol):
    """The counters the pages keep in the app's metrics (``Metrics`` in ``bot/metrics.py``)."""

    web_streams: int
    web_streams_refused: int
    acta_renders: int
    acta_renders_in_progress: int


class TablePages:
    """The pages of every room that has a token, read from the table's committed state."""

    def __init__(self, view: TableView, metrics: StreamCounters, trusted_proxy: str | None = None) -> None:
        self.view = view
        self.renderer = view.renderer
        self.metrics = metrics
        self.trusted_proxy = _address(trusted_proxy) if trusted_proxy else None
        self._feeds: dict[str, Feed] = {}
        self._by_address: Counter[str] = Counter()
        self._public = 0
        self._screens: Counter[str] = Counter()
        """The screens' open streams by client address."""
        self._screen_streams = 0
        self._closing = False
        self._versions: Counter[str] = Counter()
        """Each room's count of committed events since the server started: a rendered acta is kept for one."""
        self._actas: OrderedDict[tuple[str, tuple[int, ...], str, int], asyncio.Future[str]] = OrderedDict()
        self._pool: ProcessPoolExecutor | None = None
        view.on_change(self._changed)

    @property
    def closing(self) -> bool:
        """The server is stopping: every live stream ends."""
        return self._closing

    def _changed(self, room_id: str) -> None:
        self._versions[room_id] += 1
        feed = self._feeds.get(room_id)
        if feed is not None:
            feed.changed()

    def client(self, request: web.Request) -> str:
        """Whom a request's streams count against: its peer's address, or, when the peer is the
        trusted proxy, the address that proxy added last to ``X-Forwarded-For``; an IPv6 address
        stands for its /64 (one host's share)."""
        peer = _address(request.remote or "")
        if peer is not None and peer == self.trusted_proxy:
            forwarded = ",".join(request.headers.getall("X-Forwarded-For", []))
            peer = _address(forwarded.rpartition(",")[2].strip()) or peer
        if peer is None:
            return "?"
        if peer.version == 6:
            return str(ipaddress.ip_network(f"{peer}/64", strict=False))
        return str(peer)

    def room_for(self, token: str) -> str | None:
        """The room whose current token is ``token``, else None. The lookup is an index search, not a
        constant-time comparison: a token is 192 random bits, and a revoked one stays in no index."""
        if not TOKEN_SHAPE.fullmatch(token):
            return None
        return self.view.room_of_page(token)

    def _message(self, room_id: str, feed: Feed) -> bytes:
        """The board as an event, rendered once per change however many streams send it."""
        if feed.rendered != feed.version:
            feed.message, feed.rendered = sse_message("mesa", self.board(room_id)), feed.version
        return feed.message

    def board(self, room_id: str) -> str:
        return self.renderer.document("table_board", "html", **self.view.table_board(room_id))

    def page(self, room_id: str, token: str) -> str:
        shown = self.view.table_board(room_id)
        board = self.renderer.document("table_board", "html", **shown)
        return self.renderer.document("table_page", "html", board=board, token=token, **shown)

    def close(self) -> None:
        """The server is stopping: end every event stream, and the acta's worker once idle."""
        self._closing = True
        for feed in self._feeds.values():
            feed.changed()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # -- handlers

    def not_found(self) -> web.HTTPNotFound:
        """The one answer to any address that shows nothing: it says nothing about any room."""
        return web.HTTPNotFound(text=self.renderer.document("table_page_missing", "html"), content_type="text/html",
                                headers={**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP})

    def _room_or_404(self, request: web.Request) -> str:
        room_id = self.room_for(request.match_info["token"])
        if room_id is None:
            raise self.not_found()
        return room_id

    async def page_view(self, request: web.Request) -> web.Response:
        room_id = self._room_or_404(request)
        return web.Response(text=self.page(room_id, request.match_info["token"]), content_type="text/html", charset="utf-8",
                            headers={**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP})

    def _refused(self, error: type[web.HTTPException], kind: str, limit: int) -> web.HTTPException:
        self.metrics.web_streams_refused += 1
        return error(text=self.renderer.document(kind, "html", limit=limit), content_type="text/html",
                     headers={**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP, "Retry-After": RETRY_AFTER_S})

    def _check_room_for_a_stream(self, room_id: str, client: str) -> None:
        if self._public >= MAX_STREAMS_TOTAL:
            raise self._refused(web.HTTPServiceUnavailable, "table_page_full", MAX_STREAMS_TOTAL)
        if self._by_address[client] >= MAX_STREAMS_PER_ADDRESS:
            raise self._refused(web.HTTPTooManyRequests, "table_page_too_many", MAX_STREAMS_PER_ADDRESS)
        feed = self._feeds.get(room_id)
        if feed is not None and feed.streams >= MAX_STREAMS:
            raise self._refused(web.HTTPServiceUnavailable, "table_page_busy", MAX_STREAMS)

    async def events_view(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        room_id = self._room_or_404(request)
        client = self.client(request)
        feed = self.stream_opened(room_id, client)
        try:
            response = web.StreamResponse(headers={**COMMON_HEADERS, "X-Accel-Buffering": "no",
                                                   "Content-Type": "text/event-stream; charset=utf-8"})
            await response.prepare(request)
            await follow(response, feed, lambda: not self._closing and self.view.page_is_current(room_id, token),
                         lambda: self._message(room_id, feed))
        except ConnectionResetError:
            pass
        finally:
            self.stream_closed(room_id, client, feed)
        return response

    def stream_opened(self, room_id: str, client: str) -> Feed:
        """A live stream of the room's public page opens (a refusal when a limit is reached): its room's feed."""
        self._check_room_for_a_stream(room_id, client)
        feed = self._feeds.setdefault(room_id, Feed())
        feed.streams += 1
        self._public += 1
        self._by_address[client] += 1
        self.metrics.web_streams += 1
        return feed

    def stream_closed(self, room_id: str, client: str, feed: Feed, screen: bool = False) -> None:
        """A live stream of the room closed (``screen``: a GM's screen's); the feed is dropped when
        nobody follows the room any more."""
        if screen:
            self._screen_streams -= 1
            _drop(self._screens, client)
            feed.screens -= 1
        else:
            self._public -= 1
            _drop(self._by_address, client)
            feed.streams -= 1
        self.metrics.web_streams -= 1
        if not feed.streams and not feed.screens:
            self._feeds.pop(room_id, None)

    def screen_stream_opened(self, room_id: str, client: str) -> Feed | None:
        """A live stream of a GM's screen opens on the screens' own budget: its room's feed, or None
        when that budget is spent (the whole server's or the client's)."""
        if self._screen_streams >= MAX_SCREEN_STREAMS or self._screens[client] >= MAX_SCREEN_STREAMS_PER_ADDRESS:
            self.metrics.web_streams_refused += 1
            return None
        feed = self._feeds.setdefault(room_id, Feed())
        feed.screens += 1
        self._screen_streams += 1
        self._screens[client] += 1
        self.metrics.web_streams += 1
        return feed

    async def acta_view(self, request: web.Request) -> web.Response:
        room_id = self._room_or_404(request)
        which, fmt = request.match_info["which"], request.match_info["fmt"]
        numbers = self.view.acta_numbers(room_id, None if which == "ultima" else int(which))
        if numbers is None:
            raise self.not_found()
        text = await asyncio.shield(self._acta(room_id, numbers, "html" if fmt == "html" else "md"))
        if fmt == "html":
            csp = f"default-src 'none'; style-src {self.view.acta_style_hash()}; base-uri 'none'; form-action 'none'; " \
                  "frame-ancestors 'none'"
            return web.Response(text=text, content_type="text/html", charset="utf-8",
                                headers={**COMMON_HEADERS, "Content-Security-Policy": csp})
        return web.Response(text=text, content_type="text/markdown", charset="utf-8",
                            headers={**COMMON_HEADERS, "Content-Security-Policy": "default-src 'none'"})

    def _acta(self, room_id: str, numbers: list[int], fmt: Format) -> asyncio.Future[str]:
        """The document, rendered once per change of its room (a failed render is not kept)."""
        key = (room_id, tuple(numbers), fmt, self._versions[room_id])
        kept = self._actas.get(key)
        if kept is not None and not (kept.done() and (kept.cancelled() or kept.exception() is not None)):
            self._actas.move_to_end(key)
            return kept
        if self.metrics.acta_renders_in_progress >= ACTA_WAITING:
            raise web.HTTPServiceUnavailable(
                text=self.renderer.document("acta_busy", "html"), content_type="text/html",
                headers={**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP, "Retry-After": "5"})
        sessions = self.view.acta_sessions(room_id, numbers)
        self.metrics.acta_renders += 1
        self.metrics.acta_renders_in_progress += 1
        rendering = asyncio.ensure_future(self._render(room_id, sessions, fmt))
        rendering.add_done_callback(self._rendered)
        self._actas[key] = rendering
        while len(self._actas) > ACTA_CACHED:
            self._actas.popitem(last=False)
        return rendering

    def _rendered(self, _: asyncio.Future[str]) -> None:
        self.metrics.acta_renders_in_progress -= 1

    async def _render(self, room_id: str, sessions: list[Session], fmt: Format) -> str:
        # multiprocessing is imported with the first acta rendered: a run that renders none never loads it.
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        if self._pool is None:
            # Ctrl+C reaches the worker too (one process group): the bot stops it, without its traceback.
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
        pool = self._pool
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, render_acta, self.renderer, room_id, sessions, fmt)
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None  # the next render starts a new worker
            raise

    async def asset_view(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in ASSETS:
            raise self.not_found()
        body = (files("templates") / "web" / name).read_bytes()
        return web.Response(body=body, content_type=ASSETS[name],
                            headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=3600"})

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/mesa/{token}", self.page_view)
        app.router.add_get("/mesa/{token}/eventos", self.events_view)
        app.router.add_get(ACTA_ROUTE, self.acta_view)
        app.router.add_get("/estatico/{name}", self.asset_view)

        async def on_shutdown(_: web.Application) -> None:
            self.close()

        @web.middleware
        async def spanish_404(request: web.Request, handler: Handler) -> web.StreamResponse:
            try:
                return await handler(request)
            except web.HTTPNotFound as missing:
                if missing.content_type == "text/html":
                    raise
                raise self.not_found() from None

        app.on_shutdown.append(on_shutdown)
        app.middlewares.append(spanish_404)
