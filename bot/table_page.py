"""The live table page (``!mesa``) and the acta links (``!acta``), served by the ``[web]`` aiohttp app.

``GET /mesa/{token}`` is the page: the room's system, round, turn order, whose turn it is, the floor,
each combatant's state (the labels ``!estado`` shows: of a character whose sheet is the GM's, no
number of that sheet, ``Context.sheet_is_gms``) and
the last public rolls. ``GET /mesa/{token}/eventos`` streams the same board as Server-Sent Events
each time an event of the room commits (``Table.watchers``): rendered once per change and shared by
all the room's streams, at most ``MAX_STREAMS`` of them (one more gets a 503 page); ``static/mesa.js``
swaps it in, and without JavaScript the page is a snapshot. ``GET /mesa/{token}/acta/{N|ultima}.{md|html}`` is the
exported acta. A token that is not the room's current one gives 404, like any unknown address.

The page loads nothing from elsewhere and sends a strict Content-Security-Policy: no inline script
or style, only this server's own stylesheet, script and event stream."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from bot.core import combat as rounds
from bot.core.acta import FORMATS
from bot.core.acta_document import NoSuchActa, pick_sessions, render, sessions_of, style, style_hash
from bot.core.events import Event
from bot.core.state import RoomState
from bot.core.table import Table

TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{22,64}")
KEEPALIVE_S = 15.0
MAX_STREAMS = 50
"""Open event streams per room; one more is refused (503) until one closes."""
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
ACTA_ROUTE = r"/mesa/{token}/acta/{which:(\d{1,9}|ultima)}.{fmt:(" + "|".join(FORMATS) + ")}"
ASSETS = {"mesa.css": "text/css", "mesa.js": "text/javascript", "icono.svg": "image/svg+xml"}


def sse_message(event: str, data: str) -> bytes:
    """One Server-Sent Event; every line of ``data`` (CR, LF or CRLF ends one) gets its ``data:``."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return (f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n").encode()


@dataclass
class Feed:
    """One room's live board while someone follows it: the event the streams wait on (set and
    replaced on each change), and the board's event rendered once for ``version``."""

    streams: int = 0
    version: int = 0
    rendered: int = -1
    message: bytes = b""
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def changed(self) -> None:
        self.version += 1
        wake, self.wake = self.wake, asyncio.Event()
        wake.set()


class TablePages:
    """The pages of every room that has a token, read from the table's committed state."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.renderer = table.renderer
        self._feeds: dict[str, Feed] = {}
        self._closing = False
        table.watchers.append(self._changed)

    def _changed(self, room_id: str) -> None:
        feed = self._feeds.get(room_id)
        if feed is not None:
            feed.changed()

    def room_for(self, token: str) -> str | None:
        """The room whose current token is ``token``, else None. The lookup is an index search, not a
        constant-time comparison: a token is 192 random bits, and a revoked one stays in no index."""
        if not TOKEN_SHAPE.fullmatch(token):
            return None
        room_id = self.table.store.room_for_token(token)
        return room_id if room_id is not None and self._is_current(room_id, token) else None

    def _is_current(self, room_id: str, token: str) -> bool:
        return self.table.room(room_id).page_token == token

    def _message(self, room_id: str, feed: Feed) -> bytes:
        """The board as an event, rendered once per change however many streams send it."""
        if feed.rendered != feed.version:
            feed.message, feed.rendered = sse_message("mesa", self.board(room_id)), feed.version
        return feed.message

    def view(self, room_id: str) -> dict[str, Any]:
        """What the page shows, read from a copy of the room's state (the games' hooks only read)."""
        room = RoomState.from_json(self.table.room(room_id).to_json())
        ctx = self.table.context_for(Event(room_id, "", "", ""), room)
        combat = room.combat
        rows = rounds.board(ctx, combat) if combat else []
        for row in rows:
            character = room.find_character(row["name"])
            row["npc"] = character is None or character.npc or character.owner is None
        lock = room.lock
        return {
            "system": ctx.system.name,
            "combat": combat,
            "rows": rows,
            "current": combat.current if combat else None,
            "lock": lock,
            "exploration": room.exploration,
            "rolls": list(reversed(room.last_rolls)),
            "recording": room.acta.on,
            "has_acta": bool(self.table.store.acta_sessions(room_id)),
        }

    def board(self, room_id: str) -> str:
        return self.renderer.document("table_board", "html", **self.view(room_id))

    def page(self, room_id: str, token: str) -> str:
        view = self.view(room_id)
        board = self.renderer.document("table_board", "html", **view)
        return self.renderer.document("table_page", "html", board=board, token=token, **view)

    def close(self) -> None:
        """The server is stopping: end every event stream."""
        self._closing = True
        for feed in self._feeds.values():
            feed.changed()

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

    async def events_view(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        room_id = self._room_or_404(request)
        feed = self._feeds.setdefault(room_id, Feed())
        if feed.streams >= MAX_STREAMS:
            raise web.HTTPServiceUnavailable(
                text=self.renderer.document("table_page_busy", "html", limit=MAX_STREAMS), content_type="text/html",
                headers={**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP, "Retry-After": "60"})
        feed.streams += 1
        try:
            response = web.StreamResponse(headers={**COMMON_HEADERS, "X-Accel-Buffering": "no",
                                                   "Content-Type": "text/event-stream; charset=utf-8"})
            await response.prepare(request)
            sent = b""
            while not self._closing and self._is_current(room_id, token):
                wake = feed.wake
                message = self._message(room_id, feed)
                if message != sent:
                    await response.write(message)
                    sent = message
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
                except TimeoutError:
                    await response.write(b": sigo aqui\n\n")
        except ConnectionResetError:
            pass
        finally:
            feed.streams -= 1
            if not feed.streams:
                self._feeds.pop(room_id, None)
        return response

    async def acta_view(self, request: web.Request) -> web.Response:
        room_id = self._room_or_404(request)
        which, fmt = request.match_info["which"], request.match_info["fmt"]
        try:
            numbers = pick_sessions(self.table.store, room_id, None if which == "ultima" else int(which))
        except (NoSuchActa, ValueError):
            raise self.not_found() from None
        text = render(self.renderer, room_id, sessions_of(self.table.store, self.renderer, room_id, numbers),
                      "html" if fmt == "html" else "md")
        if fmt == "html":
            csp = f"default-src 'none'; style-src {style_hash(style(self.renderer))}; base-uri 'none'; form-action 'none'; " \
                  "frame-ancestors 'none'"
            return web.Response(text=text, content_type="text/html", charset="utf-8",
                                headers={**COMMON_HEADERS, "Content-Security-Policy": csp})
        return web.Response(text=text, content_type="text/markdown", charset="utf-8",
                            headers={**COMMON_HEADERS, "Content-Security-Policy": "default-src 'none'"})

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
