"""What the GM's screen (``/master/<token>``) keeps for itself and what its forms accept (issue 29, item 3):
its live streams have a budget the public table page cannot use; each field takes only what it names
and anything else gets the form's message and sends nothing; only a post with a good nonce spends the
post budget."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

import bot.web.table_page
from bot.metrics import Metrics
from bot.web import make_app
from bot.web.screen_page import MAX_STREAMS_PER_TOKEN, POSTS_BURST, ScreenPages
from tests.web.test_screen import FIGHT, GM, Rig, nonce_of, page, post

PROXY = "127.0.0.1"
CROWD = ("10.0.0.1", "10.0.0.2", "10.0.0.3")
"""Three addresses behind the trusted proxy: enough for a room's whole public budget."""


async def first_event(stream: ClientResponse) -> bytes:
    assert stream.status == 200, await stream.text()
    return await stream.content.readuntil(b"\n\n")


async def public_streams(client: TestClient, token: str, count: int) -> list[ClientResponse]:
    """``count`` public streams of the table page, from the three addresses in turn."""
    opened = []
    for n in range(count):
        stream = await client.get(f"/mesa/{token}/eventos", headers={"X-Forwarded-For": CROWD[n % len(CROWD)]})
        await first_event(stream)
        opened.append(stream)
    return opened


async def screen_stream(client: TestClient, path: str, address: str = CROWD[0]) -> ClientResponse:
    html, _ = await page(client, path)
    found = re.search(r'data-eventos="([^"]+)"', html)
    assert found is not None
    return await client.get(f"/master/{found[1].replace('&amp;', '&')}", headers={"X-Forwarded-For": address})


@pytest.fixture
async def proxied(rig: Rig, aiohttp_client: Any) -> TestClient:
    return await aiohttp_client(make_app(Metrics(), rig.table, trusted_proxy=PROXY, groups=[ScreenPages(rig.screen)]))


@pytest.fixture
def rig() -> Rig:
    r = Rig()
    r.play(FIGHT + "@gm:local: !mesa\n")
    return r


# -- the streams


async def test_the_public_pages_streams_cannot_starve_the_screens(rig: Rig, proxied: TestClient) -> None:
    """Anyone with the table link fills the room's public streams from three addresses: the GM's
    screen still follows the fight, from one of those addresses too."""
    token = rig.table.room("!mesa:local").page_token
    assert token is not None
    crowd = await public_streams(proxied, token, bot.web.table_page.MAX_STREAMS)
    refused = await proxied.get(f"/mesa/{token}/eventos", headers={"X-Forwarded-For": "10.0.0.9"})
    assert refused.status == 503
    path = rig.link()
    screens = [await screen_stream(proxied, path) for _ in range(MAX_STREAMS_PER_TOKEN)]
    for stream in screens:
        assert (await first_event(stream)).startswith(b"event: pantalla\n")
    rig.say(GM, "!siguiente")
    assert b"event: pantalla\n" in await screens[0].content.readuntil(b"\n\n")  # each change still arrives
    for stream in crowd + screens:
        stream.close()


async def test_the_screens_streams_use_none_of_the_public_budget(rig: Rig, proxied: TestClient) -> None:
    """With the GM's screens open, the table page still has its whole budget, per room and per address."""
    path = rig.link()
    screens = [await screen_stream(proxied, path) for _ in range(MAX_STREAMS_PER_TOKEN)]
    for stream in screens:
        await first_event(stream)
    token = rig.table.room("!mesa:local").page_token
    assert token is not None
    crowd = await public_streams(proxied, token, bot.web.table_page.MAX_STREAMS)
    one_address = [await proxied.get(f"/mesa/{token}/eventos", headers={"X-Forwarded-For": CROWD[0]})]
    assert one_address[0].status == 503  # the room's public budget, whole, and no more
    for stream in crowd + screens + one_address:
        stream.close()


async def test_the_screens_own_budget_is_refused_with_the_screens_message(
        rig: Rig, proxied: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.web.table_page, "MAX_SCREEN_STREAMS", 2)
    rig.play("@gm:local: !master @otro:local")
    mine, theirs = rig.link(), rig.link("@otro:local")
    kept = [await screen_stream(proxied, mine), await screen_stream(proxied, theirs, CROWD[1])]
    for stream in kept:
        await first_event(stream)
    refused = await screen_stream(proxied, mine, CROWD[2])
    assert refused.status == 503 and "pantallas del máster" in await refused.text()
    assert refused.headers["Content-Type"].startswith("text/html") and "Retry-After" in refused.headers
    token = rig.table.room("!mesa:local").page_token
    public = await proxied.get(f"/mesa/{token}/eventos", headers={"X-Forwarded-For": CROWD[2]})
    await first_event(public)  # the public page's budget is its own too
    kept[0].close()
    again = await screen_stream(proxied, mine, CROWD[2])
    await first_event(again)
    for stream in (*kept, public, again):
        stream.close()


# -- the fields

CAST = """
@ana:local: !pj Ana
@gm:local: !pnj Orco x2
@gm:local: !combate
@gm:local: !iniciativa
"""


async def send(client: TestClient, path: str, fields: dict[str, str]) -> tuple[int, str]:
    """The form posted with a good nonce: the status, and the page shown next (the answer on it)."""
    _, nonce = await page(client, path)
    response = await post(client, path, {"nonce": nonce, **fields})
    html, _ = await page(client, path)
    return response.status, html


def answer_of(html: str) -> str:
    found = re.search(r'<section id="respuesta"[^>]*>(.*?)</section>', html, re.S)
    assert found is not None, html
    return re.sub(r"<[^>]+>", "", found[1]).strip()


BAD_FIELDS: list[tuple[dict[str, str], str]] = [
    # "entra": names separated by commas, each of letters, digits, spaces, hyphens and apostrophes
    ({"accion": "entra", "nombre": "Lobo oculta"}, "«oculta»"),
    ({"accion": "entra", "nombre": "Lobo, Cuervo contra Ana"}, "«contra»"),
    ({"accion": "entra", "nombre": "Lobo fin"}, "«fin»"),
    ({"accion": "entra", "nombre": "Lobo en secreto"}, "«en secreto»"),
    ({"accion": "entra", "nombre": "Lobo x3"}, "«x3»"),
    ({"accion": "entra", "nombre": "Lobo; Cuervo"}, "letras, cifras, espacios, guiones y apóstrofos"),
    ({"accion": "entra", "nombre": "Lobo!"}, "letras, cifras, espacios, guiones y apóstrofos"),
    ({"accion": "entra", "nombre": "<b>Lobo</b>"}, "letras, cifras, espacios, guiones y apóstrofos"),
    ({"accion": "entra", "nombre": "@ana:local"}, "letras, cifras, espacios, guiones y apóstrofos"),
    ({"accion": "entra", "nombre": "Lobo,,Cuervo"}, "un nombre vacío"),
    ({"accion": "entra", "nombre": "Lobo, "}, "un nombre vacío"),
    ({"accion": "entra", "nombre": "L" * 41}, "pasa de 40"),
    ({"accion": "entra", "nombre": "Lobo, 123"}, "ninguna letra"),
    ({"accion": "entra", "nombre": "\u3164"}, "ninguna letra"),  # a Hangul filler: a letter that shows nothing
    # "texto" of a damage or a healing: an amount or dice, and the game's locations
    ({"accion": "dano", "nombre": "Orco 1", "texto": "2d6 oculta"}, "puntos o dados"),
    ({"accion": "dano", "nombre": "Orco 1", "texto": "6 contra Ana"}, "puntos o dados"),
    ({"accion": "dano", "nombre": "Orco 1", "texto": "2d6+"}, "puntos o dados"),
    ({"accion": "dano", "nombre": "Orco 1", "texto": "dos"}, "puntos o dados"),
    ({"accion": "dano", "nombre": "Orco 1", "texto": "6 cabeza"}, "puntos o dados"),  # no locations in Savage
    ({"accion": "curar", "nombre": "Ana", "texto": "Orco 1"}, "puntos o dados"),
    # the text after a name never makes it another character's
    ({"accion": "ficha", "nombre": "Lobo", "texto": "Negro dureza 9"}, "«Lobo Negro»"),
    ({"accion": "dano", "nombre": "Lobo", "texto": "Negro 5"}, "puntos o dados"),
]


@pytest.mark.parametrize(("fields", "says"), BAD_FIELDS, ids=[f"{f['accion']}:{f.get('nombre')}:{f.get('texto')}"
                                                              for f, _ in BAD_FIELDS])
async def test_each_bad_field_gets_the_forms_message_and_sends_nothing(
        rig: Rig, proxied: TestClient, fields: dict[str, str], says: str) -> None:
    rig.play("@gm:local: !entra Lobo, Lobo Negro")
    assert rig.table.room("!mesa:local").find_character("Lobo Negro") is not None
    path = rig.link()
    before = rig.snapshot()
    status, html = await send(proxied, path, fields)
    assert status == 303
    assert rig.snapshot() == before  # nothing reached the table
    assert says in answer_of(html) and "no se ha hecho nada" in answer_of(html).lower()


GOOD_FIELDS: list[tuple[str, dict[str, str], str]] = [
    ("savage", {"accion": "dano", "nombre": "Orco 1", "texto": "2d6+1"}, "!daño Orco 1 2d6+1"),
    ("savage", {"accion": "dano", "nombre": "orco 1", "texto": "7"}, "!daño Orco 1 7"),
    ("savage", {"accion": "entra", "nombre": "Lobo, Lobo2 Lobo3"}, "!entra Lobo, Lobo2 Lobo3"),
    ("savage", {"accion": "entra", "nombre": "Lobo Negro"}, "!entra Lobo Negro,"),
    ("savage", {"accion": "entra", "nombre": "O'Hara, Jean-Luc"}, "!entra O'Hara, Jean-Luc"),
    ("savage", {"accion": "ficha", "nombre": "Orco 1", "texto": "heridas 1"}, "!ficha Orco 1 heridas 1"),
    ("sombra", {"accion": "dano", "nombre": "Orco 1", "texto": "5 brazo derecho"}, "!daño Orco 1 5 brazo derecho"),
    ("sombra", {"accion": "curar", "nombre": "Orco 1", "texto": "Cabeza"}, "!curar Orco 1 Cabeza"),
    # issue 31 item 18: the state control starts a death threshold, as `!ficha NOMBRE umbral sí`
    ("sombra", {"accion": "ficha", "nombre": "Orco 1", "texto": "umbral sí"}, "!ficha Orco 1 umbral sí"),
]


@pytest.mark.parametrize(("system", "fields", "command"), GOOD_FIELDS, ids=[c for _, _, c in GOOD_FIELDS])
async def test_a_field_that_is_what_it_names_sends_its_command(system: str, fields: dict[str, str], command: str,
                                                               aiohttp_client: Any) -> None:
    rig = Rig(system=system)
    rig.play(CAST)
    served = await aiohttp_client(make_app(Metrics(), rig.table, groups=[ScreenPages(rig.screen)]))
    _, html = await send(served, rig.link(), fields)
    shown = command.replace("'", "&#39;")
    assert f"<code>{shown}</code>" in html, answer_of(html)


async def test_entra_takes_each_name_between_commas_and_no_other(rig: Rig, proxied: TestClient) -> None:
    """``Lobo Negro`` is one name (the chat's ``!entra`` would read two); ``Lobo, Lobo2 Lobo3`` two."""
    path = rig.link()
    await send(proxied, path, {"accion": "entra", "nombre": "Lobo Negro"})
    await send(proxied, path, {"accion": "entra", "nombre": "Cuervo, Cuervo2 Cuervo3"})
    combat = rig.table.room("!mesa:local").combat
    assert combat is not None
    assert {"Lobo Negro", "Cuervo", "Cuervo2 Cuervo3"} <= set(combat.order)
    assert not {"Lobo", "Negro", "Cuervo2", "Cuervo3"} & set(combat.order)


# -- the post budget


async def test_a_bad_nonce_spends_nothing_of_the_post_budget(rig: Rig, proxied: TestClient) -> None:
    path = rig.link()
    html, nonce = await page(proxied, path)
    for _ in range(POSTS_BURST * 3):
        refused = await post(proxied, path, {"nonce": "x" * 22, "accion": "siguiente"})
        assert refused.status == 403
    refused = await proxied.post(path, data=b"accion=siguiente", allow_redirects=False,
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert refused.status == 403
    before = rig.snapshot()
    statuses = [(await post(proxied, path, {"nonce": nonce, "accion": "siguiente"})).status for _ in range(POSTS_BURST)]
    assert statuses == [303] * POSTS_BURST and rig.snapshot() != before
    assert (await post(proxied, path, {"nonce": nonce, "accion": "siguiente"})).status == 429
    assert nonce_of(html) == nonce


def test_the_docs_give_the_screens_own_budget() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "pantalla.md").read_text(encoding="utf-8")
    budget = (f"{MAX_STREAMS_PER_TOKEN} por enlace, {bot.web.table_page.MAX_SCREEN_STREAMS_PER_ADDRESS} por "
              f"dirección y\n{bot.web.table_page.MAX_SCREEN_STREAMS} en todo el servidor")
    assert budget in text and "nunca añade palabras" not in text
