"""The live table page and the acta links over HTTP (the aiohttp app of ``[web]``)."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from markupsafe import escape

from bot.core.events import Event
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.web import make_app
from bot.web.table_page import sse_message

GM = "@gm:local"
ROOM, OTHER = "!mesa:local", "!otra:local"


class Tables:
    def __init__(self, system: str = "savage") -> None:
        settings = TableSettings(RoomSettings(system=system, gms=(GM,), public_url="https://rol.example.org"))
        self.table = Table(Store(), settings, random.Random(3), games=GAMES)
        self.count = 0

    def say(self, sender: str, text: str, room: str = ROOM, **extra: Any) -> list[str]:
        self.count += 1
        event = Event(room, sender, text, f"$w{self.count}", ts=1_700_000_000_000 + self.count, **extra)
        return [a.message.body for a in self.table.handle(event) if a.kind == "send"]

    def play(self, script: str, room: str = ROOM) -> None:
        for line in script.strip().splitlines():
            sender, _, text = line.strip().partition(": ")
            self.say(sender, text, room)

    def token(self, room: str = ROOM) -> str:
        token = self.table.room(room).page_token
        assert token is not None
        return token


FIGHT = """
@gm:local: !acta activar
@ana:local: !pj Ana
@bea:local: !pj <b>Bea</b>
@gm:local: !pnj Orco x2
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !mesa
"""


@pytest.fixture
def tables() -> Tables:
    t = Tables()
    t.play(FIGHT)
    return t


@pytest.fixture
async def client(tables: Tables, aiohttp_client: Any) -> TestClient:
    return await aiohttp_client(make_app(Metrics(), tables.table))


def order_in(html: str) -> list[str]:
    return re.findall(r'<li class="combatiente[^"]*" data-nombre="([^"]*)"', html)


async def test_the_page_shows_the_order_the_turn_and_the_states(tables: Tables, client: TestClient) -> None:
    response = await client.get(f"/mesa/{tables.token()}")
    assert response.status == 200
    html = await response.text()
    combat = tables.table.room(ROOM).combat
    assert combat is not None
    assert order_in(html) == [n.replace("<", "&lt;").replace(">", "&gt;") for n in combat.order]
    assert f"Turno de <b>{escape(combat.current)}</b>" in html
    assert 'data-ronda="1"' in html and "⚔️ Ronda 1" in html
    assert html.count('class="combatiente actual') == 1
    assert "Savage Worlds" in html and "🔓 La palabra está abierta." in html
    # Each combatant's card shows as its state label (``!estado`` shows the same ones).
    status = tables.say(GM, "!estado")[0]
    for label in re.findall(r"\[([^\]]+)\]", status):
        for part in label.split(", "):
            assert f"<li>{part}</li>" in html


async def test_the_page_escapes_user_text(tables: Tables, client: TestClient) -> None:
    html = await (await client.get(f"/mesa/{tables.token()}")).text()
    assert "<b>Bea</b>" not in html and 'data-nombre="&lt;b&gt;Bea&lt;/b&gt;"' in html


async def test_the_page_sends_a_strict_csp_and_loads_only_its_own_files(tables: Tables, client: TestClient) -> None:
    response = await client.get(f"/mesa/{tables.token()}")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response.headers["Referrer-Policy"] == "no-referrer"
    html = await response.text()
    assert "<style" not in html and "<script>" not in html and " style=" not in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(not a.startswith(("http:", "https:", "//")) for a in assets)
    for path in ("/estatico/mesa.css", "/estatico/mesa.js", "/estatico/vivo.js", "/estatico/icono.svg"):
        assert (await client.get(path)).status == 200
    assert (await client.get("/estatico/../web.py")).status == 404


async def test_a_wrong_or_revoked_token_gives_404_and_one_room_never_shows_another(tables: Tables,
                                                                                     client: TestClient) -> None:
    old = tables.token()
    for bad in ("x" * 32, old[:-1] + ("A" if old[-1] != "A" else "B"), "../../etc/passwd", old + "x", f"{old}/nada"):
        response = await client.get(f"/mesa/{bad}")
        assert response.status == 404
        assert "Página no encontrada" in await response.text()
    tables.say(GM, "!mesa nueva")
    for path in (f"/mesa/{old}", f"/mesa/{old}/eventos", f"/mesa/{old}/acta/ultima.md"):
        assert (await client.get(path)).status == 404
    assert (await client.get(f"/mesa/{tables.token()}")).status == 200
    tables.play("@gm:local: !sistema reino\n@gm:local: !pj Zoe\n@gm:local: !combate\n@gm:local: !turnos Zoe\n"
                "@gm:local: !mesa", room=OTHER)
    other = await (await client.get(f"/mesa/{tables.token(OTHER)}")).text()
    mine = await (await client.get(f"/mesa/{tables.token()}")).text()
    assert order_in(other) == ["Zoe"] and "Ana" not in other
    assert "Zoe" not in mine and "Ana" in mine


async def test_the_event_stream_sends_the_board_then_each_change(tables: Tables, client: TestClient) -> None:
    response = await client.get(f"/mesa/{tables.token()}/eventos")
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/event-stream")

    async def next_board() -> str:
        lines = []
        while True:
            line = (await asyncio.wait_for(response.content.readline(), 10)).decode()
            if line == "\n" and lines:
                break
            if line.startswith("data: "):
                lines.append(line[6:].rstrip("\n"))
        return "\n".join(lines)

    first = await next_board()
    combat = tables.table.room(ROOM).combat
    assert combat is not None and f"▶ {combat.current}" in first.replace("&lt;", "<").replace("&gt;", ">")
    before = combat.current
    tables.say(GM, "!siguiente")
    second = await next_board()
    after = tables.table.room(ROOM).combat.current  # type: ignore[union-attr]
    assert after != before and f"▶ {after}" in second.replace("&lt;", "<").replace("&gt;", ">")
    tables.say(GM, "-----")
    assert "🔒 El máster narra" in await next_board()
    response.close()


def test_an_event_with_line_breaks_stays_one_event() -> None:
    assert sse_message("mesa", "a\r\nb\rc\nd") == b"event: mesa\ndata: a\ndata: b\ndata: c\ndata: d\n\n"


async def test_the_acta_links_serve_the_exported_document(tables: Tables, client: TestClient) -> None:
    tables.say(GM, "La <i>niebla</i> cubre el campo.")
    token = tables.token()
    md = await client.get(f"/mesa/{token}/acta/ultima.md")
    assert md.status == 200 and md.headers["Content-Type"].startswith("text/markdown")
    assert "La \\<i\\>niebla\\</i\\> cubre el campo." in await md.text()
    html = await client.get(f"/mesa/{token}/acta/1.html")
    assert html.status == 200
    body = await html.text()
    assert "La &lt;i&gt;niebla&lt;/i&gt; cubre el campo." in body
    csp = html.headers["Content-Security-Policy"]
    assert "style-src 'sha256-" in csp and "unsafe-inline" not in csp and "script-src" not in csp
    assert (await client.get(f"/mesa/{token}/acta/2.html")).status == 404
    assert (await client.get(f"/mesa/{token}/acta/x.html")).status == 404


async def test_the_acta_style_hash_matches_the_inline_style(tables: Tables, client: TestClient) -> None:
    import base64
    import hashlib

    tables.say(GM, "Escena.")
    response = await client.get(f"/mesa/{tables.token()}/acta/ultima.html")
    body = await response.text()
    css = body.split("<style>", 1)[1].split("</style>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in response.headers["Content-Security-Policy"]


async def test_no_roll_of_a_secret_shows_on_the_page(tables: Tables, client: TestClient) -> None:
    tables.say(GM, "!tiro 1d100 oculta")
    tables.say(GM, "!tiro 3d6+100 visible")
    html = await (await client.get(f"/mesa/{tables.token()}")).text()
    rolls = html.split('id="tiradas"', 1)[1]
    assert "3d6+100 (visible)" in rolls and "1d100" not in rolls


async def test_stopping_the_server_ends_the_open_event_streams(tables: Tables) -> None:
    from aiohttp import ClientSession, web

    runner = web.AppRunner(make_app(Metrics(), tables.table), shutdown_timeout=30)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/mesa/{tables.token()}/eventos"
    async with ClientSession() as http, http.get(url) as response:
        assert (await asyncio.wait_for(response.content.readline(), 10)) == b"event: mesa\n"
        # Well under the 30 s the runner would otherwise wait for the stream's handler.
        await asyncio.wait_for(runner.cleanup(), 5)
        assert await asyncio.wait_for(response.content.read(), 5) is not None


async def test_the_page_links_the_acta_only_while_it_has_a_session(tables: Tables, client: TestClient) -> None:
    link = "/acta/ultima.html"
    assert link in await (await client.get(f"/mesa/{tables.token()}")).text()  # the fight's start
    tables.say(GM, "!acta borrar todo")
    assert link not in await (await client.get(f"/mesa/{tables.token()}")).text()
    tables.say(GM, "La niebla cubre el campo.")
    assert link in await (await client.get(f"/mesa/{tables.token()}")).text()
    tables.say(GM, "!acta borrar todo")
    assert link not in await (await client.get(f"/mesa/{tables.token()}")).text()
    tables.say(GM, "!sesion")
    assert link not in await (await client.get(f"/mesa/{tables.token()}")).text()


async def read_board(response: Any) -> str:
    """The next board event of an open stream (its ``data:`` lines joined)."""
    lines: list[str] = []
    while True:
        line = (await asyncio.wait_for(response.content.readline(), 10)).decode()
        if line == "\n" and lines:
            return "\n".join(lines)
        if line.startswith("data: "):
            lines.append(line[6:].rstrip("\n"))


async def test_each_change_renders_the_board_once_for_all_the_rooms_streams(tables: Tables, client: TestClient,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    renders: list[str] = []
    document = tables.table.renderer.document

    def counted(kind: str, ext: str, **context: Any) -> str:
        renders.append(kind)
        return document(kind, ext, **context)

    monkeypatch.setattr(tables.table.renderer, "document", counted)
    streams = [await client.get(f"/mesa/{tables.token()}/eventos") for _ in range(3)]
    first = [await read_board(s) for s in streams]
    assert len(set(first)) == 1 and renders.count("table_board") == 1
    tables.say(GM, "!siguiente")
    second = [await read_board(s) for s in streams]
    assert len(set(second)) == 1 and second[0] != first[0] and renders.count("table_board") == 2
    for s in streams:
        s.close()


async def test_a_room_takes_at_most_max_streams_and_one_more_gets_a_spanish_503(
        tables: Tables, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.web.table_page

    monkeypatch.setattr(bot.web.table_page, "MAX_STREAMS", 2)
    url = f"/mesa/{tables.token()}/eventos"
    streams = [await client.get(url) for _ in range(2)]
    for s in streams:
        await read_board(s)
    refused = await client.get(url)
    assert refused.status == 503 and "Demasiada gente mirando esta mesa" in await refused.text()
    assert refused.headers["Content-Security-Policy"] == bot.web.table_page.PAGE_CSP
    assert (await client.get(f"/mesa/{tables.token()}")).status == 200  # the page itself still loads
    for s in streams:
        s.close()


async def test_cancelling_a_stream_cancels_its_handler_and_frees_its_place(tables: Tables) -> None:
    from aiohttp.test_utils import make_mocked_request

    from bot.web.table_page import TablePages
    from bot.web.view import TableView

    pages = TablePages(TableView(tables.table), Metrics())
    token = tables.token()
    request = make_mocked_request("GET", f"/mesa/{token}/eventos", match_info={"token": token})
    handler = asyncio.ensure_future(pages.events_view(request))
    while not pages._feeds.get(ROOM) or pages._feeds[ROOM].rendered < 0:
        await asyncio.sleep(0)  # until the handler sent the board and waits for a change
    handler.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handler
    assert ROOM not in pages._feeds


NPC_SECRETS = [
    # (game, script after the cast, what a PC shows, what the NPC's sheet would show)
    ("stormbringer", "@gm:local: !ficha Ana pv 12\n@gm:local: !ficha Orco pv 15\n", "PV 12", "PV 15"),
    ("savage", "@gm:local: !ficha Ana bennies 3\n@gm:local: !ficha Orco bennies 2\n", "3 benis", "2 benis"),
    ("reino", "@gm:local: !ficha Ana pr 20\n@gm:local: !ficha Orco pr 13\n@gm:local: !ficha Orco pa 3\n",
     "PR 20/20", "PR 13/13"),
]


@pytest.mark.parametrize(("system", "sheet", "pc_shows", "npc_hides"), NPC_SECRETS, ids=[c[0] for c in NPC_SECRETS])
async def test_an_npcs_sheet_numbers_show_neither_on_the_page_nor_in_estado(
        system: str, sheet: str, pc_shows: str, npc_hides: str, aiohttp_client: Any) -> None:
    """The GM's sheet of an NPC is private (``!ficha`` refuses it to players): its hit points,
    resistance, action points or bennies are left out of what the room sees; its wounds and states
    stay (the room saw them happen)."""
    tables = Tables(system)
    tables.play("@ana:local: !pj Ana\n@gm:local: !pnj Orco\n" + sheet +
                "@gm:local: !combate\n@gm:local: !turnos Ana Orco\n@gm:local: !mesa")
    client = await aiohttp_client(make_app(Metrics(), tables.table))
    html = await (await client.get(f"/mesa/{tables.token()}")).text()
    status = tables.say("@ana:local", "!estado")[0]
    for shown in (html, status):
        assert pc_shows in shown and npc_hides not in shown, shown
        assert "PA 3" not in shown
    npc_row = html.split('data-nombre="Orco"', 1)[1].split("</li>\n</ol>", 1)[0]
    assert "benis" not in npc_row and "PV" not in npc_row and "PR" not in npc_row
