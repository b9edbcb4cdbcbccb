"""The GM's screen shows what each game's fight keeps open (issue 24: a soak offered, a blow to parry,
damage to apply), from the chat lines that open it until the one that closes it; the room never reads it."""

from __future__ import annotations

import re
from typing import Any

from aiohttp.test_utils import TestClient

from bot.core.events import Send
from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import ScreenPages
from tests.games.reino.test_issue31_pa import OWED as REINO_OWED
from tests.games.sombra.test_table import CAST as SOMBRA_CAST
from tests.games.stormbringer.test_table import FIGHT_SEED
from tests.games.test_pending import (
    GRAPPLE_DICE,
    REINO,
    SAVAGE,
    SOMBRA_DYING,
    SOMBRA_HELD,
    STORMBRINGER,
    STORMBRINGER_MASTER,
)
from tests.scripted import FaceRng, faces
from tests.web.test_screen import GM, Rig, page


async def screen(rig: Rig, aiohttp_client: Any) -> tuple[TestClient, str]:
    client = await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))
    return client, rig.link()


def pending_section(html: str) -> str:
    found = re.search(r'<section id="pendiente">(.*?)</section>', html, re.S)
    assert found is not None
    return found[1]


def open_items(html: str) -> list[str]:
    """The game's open items as the page lists them, tags dropped."""
    found = re.search(r'<ul id="abierto">(.*?)</ul>', pending_section(html), re.S)
    return [re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li>(.*?)</li>", found[1], re.S)] \
        if found else []


async def test_savage_a_soak_offered_shows_until_it_is_soaked(aiohttp_client: Any) -> None:
    rig = Rig(system="savage", seed=10)
    rig.play(SAVAGE)
    client, path = await screen(rig, aiohttp_client)
    html, _ = await page(client, path)
    assert open_items(html) == ["🛡️ Kira puede absorber 1 herida: !absorber Kira (o !absorber Kira no)."]
    assert "Nada pendiente." not in pending_section(html)
    rig.say("@bob:local", "!absorber")  # seed 10: the whole wound soaked
    html, _ = await page(client, path)
    assert open_items(html) == [] and "Nada pendiente." in pending_section(html)


async def test_savage_a_failed_soak_shows_its_reroll_until_the_next_turn(aiohttp_client: Any) -> None:
    rig = Rig(system="savage", seed=4)
    rig.play(SAVAGE + "@bob:local: !absorber")
    client, path = await screen(rig, aiohttp_client)
    html, _ = await page(client, path)
    assert open_items(html) == ["🛡️ Kira puede repetir la absorción con otro beni (1 herida por absorber): "
                                "!absorber Kira repetir."]
    rig.say(GM, "!siguiente")
    assert open_items((await page(client, path))[0]) == []


async def test_stormbringer_a_blow_to_parry_then_its_damage_to_apply(aiohttp_client: Any) -> None:
    rig = Rig(system="stormbringer", seed=FIGHT_SEED)
    rig.play(STORMBRINGER)
    client, path = await screen(rig, aiohttp_client)
    html, _ = await page(client, path)
    assert open_items(html) == ["🛡️ Orco puede parar o esquivar el golpe de Moonglum: !parada Orco o !esquiva Orco."]
    rig.play("@gm:local: !parada\n@bob:local: !siguiente\n@ana:local: !ataque Orco\n@gm:local: !parada")
    html, _ = await page(client, path)
    assert open_items(html) == ["💥 Golpe de Elric a Orco: falta el daño, !daño Orco."]
    rig.say(GM, "!daño Orco")
    assert open_items((await page(client, path))[0]) == []


async def test_stormbringer_a_masters_riposte_shows_until_the_next_turn(aiohttp_client: Any) -> None:
    rig = Rig(system="stormbringer", seed=FIGHT_SEED)
    rig.play(STORMBRINGER_MASTER)
    client, path = await screen(rig, aiohttp_client)
    riposte = "⚔️ Elric puede responder a Orco con su maestría: !ataque."
    assert riposte in open_items((await page(client, path))[0])
    rig.say(GM, "!siguiente")
    assert riposte not in open_items((await page(client, path))[0])


async def test_reino_a_landed_blow_shows_until_its_damage(aiohttp_client: Any) -> None:
    rig = Rig(system="reino", seed=10)
    rig.play(REINO)
    client, path = await screen(rig, aiohttp_client)
    html, _ = await page(client, path)
    assert open_items(html) == ["💥 Golpe de Jefe a Ana: falta el daño, !daño."]
    rig.say(GM, "!daño")
    assert open_items((await page(client, path))[0]) == []


async def test_sombra_the_held_one_shows_until_free(aiohttp_client: Any) -> None:
    rig = Rig(system="sombra")
    rig.table.rng = faces(10, *GRAPPLE_DICE)
    rig.play(SOMBRA_HELD)
    client, path = await screen(rig, aiohttp_client)
    held = ["🤼 Hans está apresado por McAvoy: !forcejeo para soltarse."]
    assert open_items((await page(client, path))[0]) == held
    rig.play("@ana:local: !siguiente\n@gm:local: !ataque McAvoy\n@gm:local: !forcejeo")
    assert open_items((await page(client, path))[0]) == held
    rig.say(GM, "!forcejeo")
    assert open_items((await page(client, path))[0]) == []


async def test_sombra_a_death_threshold_shows_its_rounds_until_healed(aiohttp_client: Any) -> None:
    rig = Rig(system="sombra")
    rig.play(SOMBRA_DYING)
    client, path = await screen(rig, aiohttp_client)
    assert open_items((await page(client, path))[0]) == [
        "💀 McAvoy muere en 2 asaltos si nadie lo cura: !curar McAvoy."]
    rig.say(GM, "!curar McAvoy")
    assert open_items((await page(client, path))[0]) == []


async def test_the_stream_sends_an_item_opened_and_closed(aiohttp_client: Any) -> None:
    rig = Rig(system="sombra")
    rig.play(SOMBRA_CAST + "@gm:local: !ficha McAvoy vit 2\n@gm:local: !combate\n"
             "@gm:local: !iniciativa McAvoy Bruno Hans")
    client, path = await screen(rig, aiohttp_client)
    html, _ = await page(client, path)
    found = re.search(r'data-eventos="([^"]+)"', html)
    assert found is not None
    stream = await client.get(f"/master/{found[1].replace('&amp;', '&')}")
    assert b"muere en" not in await stream.content.readuntil(b"\n\n")
    rig.say(GM, "!daño McAvoy 11 abdomen")  # a grave wound starts no threshold by itself (issue 31 item 18)
    assert b"muere en" not in await stream.content.readuntil(b"\n\n")
    rig.say(GM, "!ficha McAvoy umbral sí")  # the GM starts it
    assert b"muere en 2 asaltos" in await stream.content.readuntil(b"\n\n")
    rig.say(GM, "!curar McAvoy")
    assert b"muere en" not in await stream.content.readuntil(b"\n\n")
    stream.close()


def test_the_room_never_reads_the_screens_items() -> None:
    """What the screen lists is the GMs' page alone: no message of the table carries its words."""
    rig = Rig(system="savage", seed=10)
    said = [a.message for line in SAVAGE.splitlines() if line
            for a in rig.handle(*line.split(": ", 1)) if isinstance(a, Send)]
    assert said and not any("puede absorber" in m.body or "puede absorber" in m.html for m in said)


async def test_reino_a_blow_not_rolled_before_the_turn_ended_shows_as_owed(aiohttp_client: Any) -> None:
    """Issue 31 item 17b: a hit's damage not rolled before ``!siguiente`` stays owed, and the screen lists it
    with how to let its attacker roll it (``!permite``), until it is rolled."""
    rig = Rig(system="reino")
    rig.table.rng = FaceRng([(10, 20), (5, 8)])  # type: ignore[assignment]
    rig.play(REINO_OWED)
    client, path = await screen(rig, aiohttp_client)
    assert open_items((await page(client, path))[0]) == ["⏳ Golpe de Ana a Jefe: daño debido, !permite Ana y !daño."]
    rig.say(GM, "!permite Ana")
    rig.say("@ana:local", "!daño")
    assert open_items((await page(client, path))[0]) == []
