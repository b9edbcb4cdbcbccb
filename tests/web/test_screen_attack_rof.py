"""Issue 31 item 1: the screen's Savage attack control offers a rate of fire (``rof 2``, ``rof 3``), which
posts the burst ``!ataque ... rof N`` the GM would type (000: «con una acción disparas en "fuego
automático" muchas balas y tiras tantos dados como cadencia, además del salvaje»)."""

from __future__ import annotations

from typing import Any

from tests.web.test_screen import GM, Rig, page, post, room_messages
from tests.web.test_screen_attack import client_for, orcs_turn

SAVAGE = """
@ana:local: !pj Ana
@gm:local: !ficha Ana Parada 5, Dureza 5
@gm:local: !pnj Orco x2 grupo orcos Disparar d8, Dureza 7, Arma Subfusil, Tipo de arma distancia, Daño 2d6, Munición 30
@gm:local: !combate
@gm:local: !iniciativa
"""


async def test_the_attack_control_fires_a_burst(aiohttp_client: Any) -> None:
    rig, twin = Rig(seed=3), Rig(seed=3)
    for r in (rig, twin):
        r.play(SAVAGE)
        orcs_turn(r)
    client = await client_for(rig, aiohttp_client)
    path = rig.link()
    twin.link()
    html, nonce = await page(client, path)
    assert 'value="rof 3"' in html and 'value="rof 2"' in html
    await post(client, path, {"nonce": nonce, "accion": "ataque", "atacante": "Orco 1", "nombre": "Ana",
                              "op4": "rof 3"})
    by_chat = room_messages(twin.handle(GM, "!ataque Orco 1 contra Ana rof 3"))
    assert room_messages(rig.toy.delivered) == by_chat and any("CdF 3" in m for m in map(str, by_chat))
