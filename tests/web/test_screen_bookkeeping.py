"""Issue 30 ("a quiet table", Done when: "the GM types no bookkeeping with the screen open"): the screen's
controls for the bookkeeping the evenings' GM still typed: ``!rehacer``, ``!pj NOMBRE @jugador`` (a
latecomer), closing a pending soak (``!absorber NOMBRE no``, "or the GM closes it ... on the screen") and
Savage's bennies (``!beni NOMBRE ±N``, a control of the game's own); ``!beni master`` is shown on the screen.
Each is a real POST with the page's nonce, as ``test_screen.py``'s controls."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import ScreenPages
from tests.games.test_pending import SAVAGE
from tests.web.test_screen import FIGHT, GM, ROOM, Rig, page, post, room_messages
from tests.web.test_screen_pending import open_items


async def _client(rig: Rig, aiohttp_client: Any) -> TestClient:
    return await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))


async def test_redo_from_the_screen_redoes_what_undo_undid(aiohttp_client: Any) -> None:
    rig = Rig()
    rig.play(FIGHT)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    rig.say(GM, "!daño Orco 1 6")
    hurt = rig.say(GM, "!estado")
    rig.say(GM, "!deshacer")
    assert rig.say(GM, "!estado") != hurt
    html, nonce = await page(client, path)
    assert 'name="accion" value="rehacer"' in html
    response = await post(client, path, {"nonce": nonce, "accion": "rehacer"})
    assert response.status == 303
    assert rig.say(GM, "!estado") == hurt
    assert "<code>!rehacer</code>" in (await page(client, path))[0]


async def test_a_latecomer_gets_a_character_from_the_screen(aiohttp_client: Any) -> None:
    rig = Rig()
    rig.play(FIGHT)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    html, nonce = await page(client, path)
    assert 'name="jugador"' in html
    await post(client, path, {"nonce": nonce, "accion": "pj", "nombre": "Luz Roja", "jugador": "@dani:local"})
    luz = rig.table.room(ROOM).find_character("Luz Roja")
    assert luz is not None and luz.owner == "@dani:local" and not luz.npc
    assert "<code>!pj Luz Roja @dani:local</code>" in (await page(client, path))[0]


async def test_a_bad_player_id_is_refused_in_spanish_and_changes_nothing(aiohttp_client: Any) -> None:
    rig = Rig()
    rig.play(FIGHT)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    before = rig.snapshot()
    _, nonce = await page(client, path)
    await post(client, path, {"nonce": nonce, "accion": "pj", "nombre": "Luz", "jugador": "dani contra Orco"})
    assert rig.snapshot() == before
    assert "no es un jugador" in (await page(client, path))[0]


async def test_a_pending_soak_is_closed_from_the_screen(aiohttp_client: Any) -> None:
    rig = Rig(system="savage", seed=10)
    rig.play(SAVAGE)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    html, nonce = await page(client, path)
    assert open_items(html) == ["🛡️ Kira puede absorber 1 herida: !absorber Kira (o !absorber Kira no)."]
    assert 'id="cerrar"' in html and 'name="nombre" value="Kira"' in html
    await post(client, path, {"nonce": nonce, "accion": "cerrar", "nombre": "Kira"})
    html, _ = await page(client, path)
    assert open_items(html) == [] and "<code>!absorber Kira no</code>" in html and 'id="cerrar"' not in html


async def test_savage_bennies_from_the_screen_and_the_gms_pool_shown(aiohttp_client: Any) -> None:
    rig = Rig(system="savage")
    rig.play(FIGHT)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    html, nonce = await page(client, path)
    assert 'name="accion" value="beni"' in html and 'id="notas"' in html and "Reserva del máster" in html
    await post(client, path, {"nonce": nonce, "accion": "beni", "nombre": "Ana", "texto": "+2"})
    ana = rig.table.room(ROOM).find_character("Ana")
    assert ana is not None and int(ana.sheet["bennies"]) == 5  # a player's new Wild Card starts with 3
    assert room_messages(rig.toy.delivered) or "<code>!beni Ana +2</code>" in (await page(client, path))[0]
    before = rig.snapshot()
    _, nonce = await page(client, path)
    await post(client, path, {"nonce": nonce, "accion": "beni", "nombre": "Ana", "texto": "gastar"})
    assert rig.snapshot() == before
    assert "con su signo" in (await page(client, path))[0]


async def test_a_game_without_bennies_has_no_bennies_control(aiohttp_client: Any) -> None:
    rig = Rig(system="reino")
    rig.play(FIGHT)
    client = await _client(rig, aiohttp_client)
    path = rig.link()
    html, nonce = await page(client, path)
    assert 'value="beni"' not in html and 'id="notas"' not in html
    before = rig.snapshot()
    await post(client, path, {"nonce": nonce, "accion": "beni", "nombre": "Ana", "texto": "+2"})
    assert rig.snapshot() == before
    assert "No conozco esa orden" in (await page(client, path))[0]
