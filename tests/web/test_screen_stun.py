"""Issue 31 item 14 on the GM's screen: a Stormbringer critical's stun shows on the fighter's row with how
long it has lasted, and the screen's state control (``ficha``: ``aturdido no``) lifts it, told to the room.

002: «el personaje dañado quedará temporalmente aturdido y no podrá combatir durante por lo menos cinco
minutos»; the house rules are silent on who ends it: the GM does, as in the published game."""

from __future__ import annotations

import re
from typing import Any

from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import ScreenPages
from tests.web.test_screen import Rig, page, post, room_messages

STUN = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 30 ataque 85 parada 70 esquiva 40 daño 12
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 30 ataque 60 parada 55 esquiva 30 daño 20
@gm:local: !combate
@gm:local: !turnos Orco, Elric
@gm:local: !siguiente
@ana:local: !siguiente
@gm:local: !daño Orco 2 crítico
"""


def row_of(html: str, name: str) -> str:
    found = re.search(rf'data-nombre="{name}">(.*?)</li>\n(?:<li class="combatiente|</ol>)', html, re.S)
    assert found is not None, html
    return found[1]


async def test_the_stun_shows_its_length_and_the_state_control_lifts_it(aiohttp_client: Any) -> None:
    rig = Rig(system="stormbringer")
    rig.play(STUN)
    client = await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))
    path = rig.link()
    html, nonce = await page(client, path)
    assert "aturdido desde el asalto 2 (1 de 25 asaltos)" in row_of(html, "Orco")
    response = await post(client, path, {"nonce": nonce, "accion": "ficha", "nombre": "Orco", "texto": "aturdido no"})
    assert response.status == 303
    assert any("Se acaba el aturdimiento de Orco (1 asalto)" in m for m in room_messages(rig.toy.delivered))
    html, _ = await page(client, path)
    assert "aturdido" not in row_of(html, "Orco") and "<code>!ficha Orco aturdido no</code>" in html
