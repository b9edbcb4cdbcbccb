"""Issue 30 item 3: no private copies to a GM whose screen's live stream is open; the screen shows the
GMs' view of the room's messages instead."""

from __future__ import annotations

import re
from typing import Any

from bot.core.events import Send
from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import ScreenPages
from tests.web.test_screen import GM, Rig, page

NPC_ATTACK = """
@ana:local: !pj Ana
@ana:local: !ficha Ana Parada 5, Dureza 5, Pelear d6
@gm:local: !pnj Orco
@gm:local: !ficha Orco Parada 7, Dureza 7, Comodín no, Pelear d8
"""


def _copies(rig: Rig) -> list[Send]:
    actions = rig.handle(GM, "!ataque Orco contra Ana")
    return [a for a in actions if isinstance(a, Send) and a.gm_copy]


async def test_no_copies_to_the_gm_while_the_screens_stream_is_open(aiohttp_client: Any) -> None:
    closed = Rig(seed=3)
    closed.play(NPC_ATTACK)
    copies = _copies(closed)
    assert [c.private_to for c in copies] == [GM]  # without the screen, the GM gets the numbers
    assert "= 2 vs 5" in copies[0].message.body  # numbers the room's line leaves out

    rig = Rig(seed=3)
    rig.play(NPC_ATTACK)
    client = await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))
    path = rig.link()
    html, _ = await page(client, path)
    found = re.search(r'data-eventos="([^"]+)"', html)
    assert found is not None
    stream = await client.get(f"/master/{found[1].replace('&amp;', '&')}")
    await stream.content.readuntil(b"\n\n")
    assert _copies(rig) == []
    board = await stream.content.readuntil(b"\n\n")  # the board again: it lists the GMs' view
    view = board.split(b"Lo que la sala no ve", 1)
    assert len(view) == 2 and f"<li>{copies[0].message.body}</li>".encode() in view[1]
    stream.close()
