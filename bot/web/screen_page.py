"""The GM's screen over HTTP: ``/master/<token>`` (a route group of the ``[web]`` app).

``GET /master/<token>`` is the page: everything ``!estado`` shows and what only the GMs see (each
combatant's sheet numbers, NPCs included, the unrevealed secret rolls, the grants, what the game's
fight keeps open: ``CombatRules.pending``, each through its game's ``pending_<kind>`` template), with the controls
of the fight. ``GET /master/<token>/eventos?n=NONCE`` streams the part that changes as Server-Sent
Events, on a budget of the screens' own that the public table page's streams never use
(``MAX_STREAMS_PER_TOKEN`` per link, then ``TablePages.screen_stream_opened``);
``pantalla.js`` swaps it in and posts the forms with ``fetch``. Without JavaScript each control is a
plain form: ``POST /master/<token>``, then 303 back to the page, which shows the table's answer.

Every request checks the token and that its user is still a GM of the room as the core judges it
(``Table.is_gm``); otherwise the answer is the app's one 404. A POST needs a nonce of a page rendered
for that token (``NONCES_PER_TOKEN`` kept, the least recently used dropped) and a same-origin
request (``Sec-Fetch-Site``, ``Origin``): else 403 and nothing happens. ``POSTS_BURST`` posts in a
row, then ``POSTS_PER_S``, per token (429 beyond), counting only posts with a good nonce: a
refused one spends nothing, so a stranger cannot use up the GM's budget. GET never changes anything; nothing is cached and
no referrer is sent (the token is in the address)."""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from aiohttp import web

from bot.screen import Screen
from bot.screen.controls import MAX_FORM_BYTES, FormError, GameWords, command_text, read_form
from bot.web.table_page import COMMON_HEADERS, RETRY_AFTER_S, TOKEN_SHAPE, TablePages, follow, sse_message
from bot.web.view import TableView

SCREEN_CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; "
              "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'")
NONCES_PER_TOKEN = 16
"""Pages of one token whose forms are accepted (each render makes one; an open stream keeps its own)."""
TOKENS_KEPT = 256
"""Tokens whose nonces, answers and post budget are kept in memory (the least recently used dropped)."""
POSTS_BURST = 10
POSTS_PER_S = 2.0
MAX_STREAMS_PER_TOKEN = 4


@dataclass
class Answer:
    """What the table said to the GM's last control, shown once on the next render of the page."""

    command: str = ""
    messages: list[str] = field(default_factory=list)
    error: str = ""


@dataclass
class TokenState:
    """What the server keeps of one screen link between requests."""

    nonces: OrderedDict[str, None] = field(default_factory=OrderedDict)
    answer: Answer | None = None
    tokens: float = POSTS_BURST
    refilled: float = field(default_factory=time.monotonic)
    streams: int = 0

    def take(self) -> bool:
        """Spend one post of the token bucket; False when it is empty."""
        now = time.monotonic()
        self.tokens = min(POSTS_BURST, self.tokens + (now - self.refilled) * POSTS_PER_S)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def issue(self) -> str:
        nonce = secrets.token_urlsafe(16)
        self.nonces[nonce] = None
        while len(self.nonces) > NONCES_PER_TOKEN:
            self.nonces.popitem(last=False)
        return nonce

    def knows(self, nonce: str) -> bool:
        if nonce not in self.nonces:
            return False
        self.nonces.move_to_end(nonce)
        return True


class ScreenPages:
    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.view = TableView(screen.table)
        self.renderer = self.view.renderer
        self._tokens: OrderedDict[str, TokenState] = OrderedDict()
        self._pages: TablePages | None = None

    def add_routes(self, app: web.Application, pages: TablePages) -> None:
        self._pages = pages
        app.router.add_get("/master/{token}", self.page_view)
        app.router.add_post("/master/{token}", self.post_view)
        app.router.add_get("/master/{token}/eventos", self.events_view)

    # -- who asks

    def link(self, token: str) -> tuple[str, str] | None:
        """(room, GM) of a current token whose user the core still counts a GM of the room."""
        if not TOKEN_SHAPE.fullmatch(token):
            return None
        return self.view.screen_of(token)

    def _link_or_404(self, request: web.Request) -> tuple[str, str, str]:
        token = request.match_info["token"]
        found = self.link(token)
        if found is None:
            raise web.HTTPNotFound()  # the app's one 404 page (``TablePages``' middleware)
        return token, *found

    def _state(self, token: str) -> TokenState:
        state = self._tokens.get(token)
        if state is None:
            state = self._tokens[token] = TokenState()
            while len(self._tokens) > TOKENS_KEPT:
                self._tokens.popitem(last=False)
        else:
            self._tokens.move_to_end(token)
        return state

    def _same_origin(self, request: web.Request) -> bool:
        """A form of this site posted it. ``Sec-Fetch-Site`` (set by the browser, never by a page) must
        say ``same-origin`` when it is there; ``Origin`` must be this server as the client reached it or
        as ``[web] public_url`` names it, except ``null`` next to a same-origin ``Sec-Fetch-Site`` (a
        form posted from a page whose referrer policy is ``no-referrer``, as this one's). A client
        that sends neither header is no browser a page of another site could drive."""
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site != "same-origin":
            return False
        origin = request.headers.get("Origin")
        if origin is None or (origin == "null" and site is not None):
            return True
        allowed = {f"{request.scheme}://{request.host}"}
        public = self.view.public_url
        if public:
            parts = urlsplit(public)
            allowed.add(f"{parts.scheme}://{parts.netloc}")
        return origin in allowed

    # -- what it shows

    def board(self, room_id: str, user_id: str, token: str, nonce: str, shown: dict[str, Any] | None = None) -> str:
        return self.renderer.document("web/screen_board", "html", nonce=nonce, action=token,
                                      **(shown or self.view.screen_board(room_id, user_id)))

    def page(self, room_id: str, user_id: str, token: str) -> str:
        state = self._state(token)
        nonce = state.issue()
        answer, state.answer = state.answer, None
        shown = self.view.screen_board(room_id, user_id)
        board = self.board(room_id, user_id, token, nonce, shown)
        return self.renderer.document("web/screen_page", "html", board=board, answer=answer, token=token,
                                      nonce=nonce, system=shown["system"])

    def _html(self, text: str, status: int = 200, **headers: str) -> web.Response:
        return web.Response(text=text, status=status, content_type="text/html", charset="utf-8",
                            headers={**COMMON_HEADERS, "Content-Security-Policy": SCREEN_CSP, **headers})

    def _refused(self, status: int, reason: str, **headers: str) -> web.Response:
        return self._html(self.renderer.document("web/screen_refused", "html", reason=reason), status, **headers)

    # -- handlers

    async def page_view(self, request: web.Request) -> web.Response:
        token, room_id, user_id = self._link_or_404(request)
        return self._html(self.page(room_id, user_id, token))

    async def post_view(self, request: web.Request) -> web.Response:
        token, room_id, user_id = self._link_or_404(request)
        if not self._same_origin(request):
            return self._refused(403, "origin")
        state = self._state(token)
        if request.content_length is not None and request.content_length > MAX_FORM_BYTES:
            return self._refused(413, "size")
        body = await request.content.read(MAX_FORM_BYTES + 1)
        if len(body) > MAX_FORM_BYTES:
            return self._refused(413, "size")
        try:
            fields: dict[str, str] | None = read_form(body)
            error: FormError | None = None
        except FormError as bad:
            fields, error = None, bad
        nonce = fields.get("nonce", "") if fields is not None else _lenient_nonce(body)
        if not state.knows(nonce):
            return self._refused(403, "nonce")
        if not state.take():
            return self._refused(429, "rate", **{"Retry-After": str(max(1, round(1 / POSTS_PER_S)))})
        command = ""
        try:
            if error is not None:
                raise error
            assert fields is not None
            command = command_text(fields, self.view.room(room_id), self.view.command_finder(room_id, user_id),
                                   GameWords(*self.view.game_words(room_id)))
        except FormError as bad:
            state.answer = Answer(error=self.renderer.text("web/screen_form_error", code=bad.code, **bad.context))
        else:
            actions = await self.screen.send(room_id, user_id, command)
            state.answer = Answer(command, self.view.answered_to(actions, user_id))
        raise web.HTTPSeeOther(location=token, headers={**COMMON_HEADERS})

    async def events_view(self, request: web.Request) -> web.StreamResponse:
        token, room_id, user_id = self._link_or_404(request)
        state = self._state(token)
        nonce = request.query.get("n", "")
        if not state.knows(nonce):
            raise web.HTTPNotFound()
        pages = self._pages
        assert pages is not None
        if state.streams >= MAX_STREAMS_PER_TOKEN:
            return self._refused(429, "streams", **{"Retry-After": RETRY_AFTER_S})
        client = pages.client(request)
        feed = pages.screen_stream_opened(room_id, client)
        if feed is None:
            return self._refused(503, "screens", **{"Retry-After": RETRY_AFTER_S})
        state.streams += 1
        response = web.StreamResponse(headers={**COMMON_HEADERS, "X-Accel-Buffering": "no",
                                               "Content-Type": "text/event-stream; charset=utf-8"})
        try:
            await response.prepare(request)

            def message() -> bytes:
                state.knows(nonce)  # an open page's forms stay good
                return sse_message("pantalla", self.board(room_id, user_id, token, nonce))

            def current() -> bool:
                self.view.screen_open(room_id, user_id)  # each wake and keep-alive: the screen is open
                return not pages.closing and self.link(token) is not None

            await follow(response, feed, current, message)
        except ConnectionResetError:
            pass
        finally:
            state.streams -= 1
            pages.stream_closed(room_id, client, feed, screen=True)
        return response


def _lenient_nonce(body: bytes) -> str:
    """The nonce of a form that is wrong elsewhere (so its error can be told to the page that sent it)."""
    pairs = parse_qsl(body.decode("ascii", errors="replace"), keep_blank_values=True, errors="replace",
                      max_num_fields=None)
    return next((value for key, value in pairs if key == "nonce"), "")
