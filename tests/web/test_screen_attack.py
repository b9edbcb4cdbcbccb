"""Issue 30 item 7: the screen runs NPC turns. An attack control (attacker among the current turn's
members, target, weapon and the game's options) posts the command the GM would type, through the same
path as the screen's other controls; a tie in initiative is broken from the screen (``!orden``)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import ScreenPages
from tests.web.test_screen import GM, ROOM, Rig, page, post, room_messages

SAVAGE = """
@ana:local: !pj Ana
@gm:local: !ficha Ana Parada 5, Dureza 5
@gm:local: !pnj Orco x2 grupo orcos Pelear d8, Parada 6, Dureza 7, Arma Hacha, Arma daño Fue+d8
@gm:local: !combate
@gm:local: !iniciativa
"""
SOMBRA = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !pj Hans
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 disparo 16 arma II+2
@gm:local: !ficha Bruno vel 6 agi 8 res 6 disparo 15 arma II
@gm:local: !ficha Hans vel 6 agi 8 res 4 disparo 14 arma II
@gm:local: !combate
@gm:local: !iniciativa
"""


async def client_for(rig: Rig, aiohttp_client: Any) -> TestClient:
    return await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))


def orcs_turn(rig: Rig) -> None:
    while rig.table.room(ROOM).combat.current not in ("Orco 1", "Orco 2"):  # type: ignore[union-attr]
        rig.say(GM, "!siguiente")


async def test_the_attack_control_sends_what_the_gm_would_type(aiohttp_client: Any) -> None:
    rig, twin = Rig(seed=3), Rig(seed=3)
    for r in (rig, twin):
        r.play(SAVAGE)
        orcs_turn(r)
    client = await client_for(rig, aiohttp_client)
    path = rig.link()
    twin.link()
    html, nonce = await page(client, path)
    assert 'value="ataque"' in html and 'name="atacante"' in html and "apuntado cabeza" in html
    await post(client, path, {"nonce": nonce, "accion": "ataque", "atacante": "Orco 2", "nombre": "Ana",
                              "op1": "apuntado cabeza", "op3": "multi 2"})
    by_chat = room_messages(twin.handle(GM, "!ataque Orco 2 contra Ana apuntado cabeza multi 2"))
    assert room_messages(rig.toy.delivered) == by_chat and by_chat
    html, _ = await page(client, path)
    assert "<code>!ataque Orco 2 contra Ana apuntado cabeza multi 2</code>" in html


@pytest.mark.parametrize("fields", [
    {"atacante": "Ana", "nombre": "Orco 1"},  # not a member of the current turn
    {"atacante": "Orco 1", "nombre": "Ana", "op1": "apuntado cabeza oculta"},  # not one of the game's options
    {"atacante": "Orco 1", "nombre": "Ana", "op1": "multi 2"},  # an option of another list
])
async def test_a_bad_attack_form_sends_nothing(aiohttp_client: Any, fields: dict[str, str]) -> None:
    rig = Rig(seed=3)
    rig.play(SAVAGE)
    orcs_turn(rig)
    client = await client_for(rig, aiohttp_client)
    path = rig.link()
    before = rig.snapshot()
    _, nonce = await page(client, path)
    response = await post(client, path, {"nonce": nonce, "accion": "ataque", **fields})
    assert response.status == 303 and rig.snapshot() == before
    html, _ = await page(client, path)
    assert 'class="error"' in html


async def test_a_tie_is_shown_to_break_and_broken_from_the_screen(aiohttp_client: Any) -> None:
    rig = Rig(system="sombra")
    rig.play(SOMBRA)
    client = await client_for(rig, aiohttp_client)
    path = rig.link()
    html, nonce = await page(client, path)
    assert 'id="empates"' in html and "Bruno = Hans" in html
    await post(client, path, {"nonce": nonce, "accion": "orden", "nombre": "Hans", "antes": "Bruno"})
    assert rig.table.room(ROOM).combat.order == ["McAvoy", "Hans", "Bruno"]  # type: ignore[union-attr]
    html, _ = await page(client, path)
    assert 'id="empates"' not in html
