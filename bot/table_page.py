"""The live table page (``!mesa``) and the acta links (``!acta``), served by the ``[web]`` aiohttp app.

``GET /mesa/{token}`` is the page: the room's system, round, turn order, whose turn it is, the floor,
each combatant's state (the labels ``!estado`` shows, so an NPC shows only what players may see) and
the last public rolls. ``GET /mesa/{token}/eventos`` streams the same board as Server-Sent Events
each time an event of the room commits (``Table.watchers``); ``static/mesa.js`` swaps it in, and
without JavaScript the page is a snapshot. ``GET /mesa/{token}/acta/{N|ultima}.{md|html}`` is the
exported acta. A token that is not the room's current one gives 404, like any unknown address.

The page loads nothing from elsewhere and sends a strict Content-Security-Policy: no inline script
or style, only this server's own stylesheet, script and event stream."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import re
from importlib.resources import files
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from bot.core import combat as rounds
from bot.core.acta_document import NoSuchActa, pick_sessions, render, sessions_of, style, style_hash
from bot.core.events import Event
from bot.core.state import RoomState
from bot.core.table import Table

TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{22,64}")
KEEPALIVE_S = 15.0
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
ASSETS = {"mesa.css": "text/css", "mesa.js": "text/javascript", "icono.svg": "image/svg+xml"}


def sse_message(event: str, data: str) -> bytes:
    """One Server-Sent Event; every line of ``data`` (CR, LF or CRLF ends one) gets its ``data:``."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return (f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n").encode()


class TablePages:
    """The pages of every room that has a token, read from the table's committed state."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.renderer = table.renderer
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._closing = False
        table.watchers.append(self._changed)

    def _changed(self, room_id: str) -> None:
        for wake in self._waiting.get(room_id, ()):
            wake.set()

    def room_for(self, token: str) -> str | None:
        """The room whose current token is ``token``, else None."""
        if not TOKEN_SHAPE.fullmatch(token):
            return None
        room_id = self.table.store.room_for_token(token)
        if room_id is None:
            return None
        current = self.table.room(room_id).page_token or ""
        return room_id if hmac.compare_digest(current.encode(), token.encode()) else None

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
        for waiting in self._waiting.values():
            for wake in waiting:
                wake.set()

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
        response = web.StreamResponse(headers={**COMMON_HEADERS, "Content-Type": "text/event-stream; charset=utf-8",
                                               "X-Accel-Buffering": "no"})
        await response.prepare(request)
        wake = asyncio.Event()
        self._waiting.setdefault(room_id, set()).add(wake)
        sent = None
        try:
            while not self._closing and self.room_for(token) == room_id:
                board = self.board(room_id)
                if board != sent:
                    await response.write(sse_message("mesa", board))
                    sent = board
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
                    wake.clear()
                    continue
                await response.write(b": sigo aqui\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            waiting = self._waiting.get(room_id, set())
            waiting.discard(wake)
            if not waiting:
                self._waiting.pop(room_id, None)
        return response

    async def acta_view(self, request: web.Request) -> web.Response:
        room_id = self._room_or_404(request)
        which, fmt = request.match_info["which"], request.match_info["fmt"]
        try:
            numbers = pick_sessions(self.table.store, room_id, None if which == "ultima" else int(which))
        except (NoSuchActa, ValueError):
            raise self.not_found() from None
        text = render(self.renderer, room_id, sessions_of(self.table.store, room_id, numbers),
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
        app.router.add_get(r"/mesa/{token}/acta/{which:(\d{1,9}|ultima)}.{fmt:(md|html)}", self.acta_view)
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
