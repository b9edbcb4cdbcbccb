"""The GM's screen's own budget and its forms' refusals in a real browser (Debian's headless Chromium
through Selenium), served as ``rolbot run`` serves it, on a free port in this test's event loop: the
public table page's streams, full, leave the screen live; a bad field is answered on the page and
nothing reaches the table."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import aiohttp
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

import bot.web.table_page
from bot.metrics import Metrics
from bot.web import start_web
from bot.web.screen_page import ScreenPages
from tests.web.test_browser import chromium, console_errors, in_browser, order, text_of, wait_until
from tests.web.test_screen import FIGHT, GM, ROOM, Rig
from tests.web.test_screen_browser import submit

CROWD = ("10.0.0.1", "10.0.0.2", "10.0.0.3")


@dataclass
class Served:
    rig: Rig
    base: str


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    rig = Rig()
    rig.play(FIGHT + "@gm:local: !mesa\n")
    runner = await start_web(Metrics(), "127.0.0.1", 0, rig.table, trusted_proxy="127.0.0.1",
                             groups=[ScreenPages(rig.screen)])
    yield Served(rig, f"http://127.0.0.1:{runner.addresses[0][1]}")
    await runner.cleanup()


def live(driver: webdriver.Chrome) -> bool:
    """The screen's stream is open: its notice shows and the body is not marked disconnected."""
    body = driver.find_element(By.TAG_NAME, "body")
    return driver.find_element(By.ID, "aviso-vivo").is_displayed() and "sin-conexion" not in (body.get_attribute("class") or "")


def current(driver: webdriver.Chrome) -> list[str]:
    return [name for name, now, _ in order(driver) if now]


async def test_a_full_public_page_leaves_the_screen_live(browser: webdriver.Chrome, served: Served) -> None:
    token = served.rig.table.room(ROOM).page_token
    async with aiohttp.ClientSession(served.base) as crowd:
        streams = []
        for n in range(bot.web.table_page.MAX_STREAMS):
            stream = await crowd.get(f"/mesa/{token}/eventos", headers={"X-Forwarded-For": CROWD[n % 3]})
            assert stream.status == 200
            await stream.content.readuntil(b"\n\n")
            streams.append(stream)
        assert (await crowd.get(f"/mesa/{token}/eventos")).status == 503  # the room's public budget is spent
        await in_browser(browser.get, served.base + served.rig.link())
        await in_browser(wait_until, browser, live)
        first = await in_browser(current, browser)
        served.rig.say(GM, "!siguiente")
        await in_browser(wait_until, browser, lambda d: current(d) != first)  # followed live
        assert await in_browser(console_errors, browser) == []
        for stream in streams:
            stream.close()


BAD = [
    ("entra", None, "Lobo oculta", "«oculta»"),
    ("dano", "Orco 1", "2d6 oculta", "puntos o dados"),
]


@pytest.mark.parametrize(("accion", "nombre", "texto", "says"), BAD, ids=[b[0] for b in BAD])
async def test_a_bad_field_is_answered_on_the_page_and_sends_nothing(
        browser: webdriver.Chrome, served: Served, accion: str, nombre: str | None, texto: str, says: str) -> None:
    rig = served.rig
    await in_browser(browser.get, served.base + rig.link())
    await in_browser(wait_until, browser, live)
    before = rig.snapshot()
    if accion == "entra":
        await in_browser(submit, browser, accion, texto)
    else:
        await in_browser(submit, browser, accion, nombre, texto)
    await in_browser(wait_until, browser, lambda d: says in text_of(d, "respuesta"))
    assert "no se ha hecho nada" in (await in_browser(text_of, browser, "respuesta")).lower()
    assert rig.snapshot() == before
