"""The table page in a real browser: Debian's headless Chromium driven through Selenium.

The server is the ``[web]`` aiohttp app on a free port in this test's event loop; the browser is
driven from a worker thread (Selenium blocks), so the loop keeps serving while it waits."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from bot.metrics import Metrics
from bot.web import start_web
from tests.web.test_table_page import GM, ROOM, Tables

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SCREENSHOT_ENV = "ROLBOT_SCREENSHOT"
"""Where to save the screenshot as well (the README's is made with ``ROLBOT_SCREENSHOT=docs/mesa.png``)."""
PHONE = (412, 915)

SCENE = """
@gm:local: !acta activar
@ana:local: !pj Ana
@bea:local: !pj Bea
@gm:local: !pnj Orco x2
@gm:local: !ficha Orco 1 dureza 5
@gm:local: !combate
@gm:local: !iniciativa
@ana:local: !tiro d8+1 trepar
@gm:local: !daño Orco 1 7
@gm:local: !mesa
"""


def chromium(javascript: bool = True) -> webdriver.Chrome:
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={PHONE[0]},{PHONE[1]}", "--lang=es"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    assert shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER), "apt-get install -y chromium chromium-driver"
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture
async def served() -> AsyncIterator[tuple[Tables, str]]:
    tables = Tables()
    tables.play(SCENE)
    runner = await start_web(Metrics(), "127.0.0.1", 0, tables.table)  # as ``rolbot run`` serves it
    port = runner.addresses[0][1]
    yield tables, f"http://127.0.0.1:{port}"
    await runner.cleanup()


async def in_browser(fn: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


def wait_until(driver: webdriver.Chrome, condition: Callable[[webdriver.Chrome], Any]) -> Any:
    return WebDriverWait(driver, 10, poll_frequency=0.02).until(condition)


def order(driver: webdriver.Chrome) -> list[tuple[str, bool, list[str]]]:
    """(name, is it their turn, state labels) of each row of the turn order, read in one script (the
    board may be swapped for a new one at any moment)."""
    rows = driver.execute_script("""
        return Array.from(document.querySelectorAll("#orden > li.combatiente")).map(function (item) {
            return [item.getAttribute("data-nombre"), item.classList.contains("actual"),
                    Array.from(item.querySelectorAll("ul.estado > li")).map(function (li) { return li.textContent; })];
        });""")
    return [(name, current, labels) for name, current, labels in rows]


def text_of(driver: webdriver.Chrome, element_id: str) -> str:
    """An element's text, read in one script (never a stale reference to a swapped board)."""
    return driver.execute_script("var e = document.getElementById(arguments[0]); return e ? e.innerText : ''",
                                 element_id)


def live_marked(driver: webdriver.Chrome) -> bool:
    """The page's own script ran (``mesa.js`` marks the body as soon as it opens the live stream)."""
    return bool(driver.find_element(By.TAG_NAME, "body").get_attribute("data-vivo") is not None)


def noscript_shown(driver: webdriver.Chrome) -> bool:
    """The ``noscript`` paragraph is an element on the page: the parser had scripting off."""
    paragraphs = driver.find_elements(By.CSS_SELECTOR, "noscript > p")
    return bool(paragraphs) and paragraphs[0].is_displayed()


def console_errors(driver: webdriver.Chrome) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


async def test_the_page_shows_the_fight_and_follows_it_without_a_reload(
        browser: webdriver.Chrome, served: tuple[Tables, str], tmp_path: Path) -> None:
    tables, base = served
    await in_browser(browser.get, f"{base}/mesa/{tables.token()}")
    assert await in_browser(live_marked, browser)  # the page's script ran before the load event
    assert not await in_browser(noscript_shown, browser)
    await in_browser(wait_until, browser, lambda d: d.find_element(By.ID, "aviso-vivo").is_displayed())
    combat = tables.table.room(ROOM).combat
    assert combat is not None
    rows = await in_browser(order, browser)
    assert [name for name, _, _ in rows] == combat.order
    assert [name for name, current, _ in rows if current] == [combat.current]
    states = {name: labels for name, _, labels in rows}
    assert "aturdido" in states["Orco 1"] and "aturdido" not in states["Orco 2"]
    assert all(any(label.startswith("🂠") for label in labels) for labels in states.values())  # each one's card
    assert text_of(browser, "ronda") == "⚔️ Ronda 1"
    assert "trepar: 1d8+1" in text_of(browser, "tiradas")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    marker = browser.execute_script("window.sinRecargar = 'sí'; return window.sinRecargar")
    before = combat.current
    tables.say(GM, "!siguiente")
    after = tables.table.room(ROOM).combat.current  # type: ignore[union-attr]
    assert after != before
    await in_browser(wait_until, browser, lambda d: [n for n, c, _ in order(d) if c] == [after])
    assert text_of(browser, "turno") == f"Turno de {after}"
    tables.say(GM, "-----")
    await in_browser(wait_until, browser, lambda d: "El máster narra" in text_of(d, "palabra"))
    assert browser.execute_script("return window.sinRecargar") == marker  # the same document: no reload

    shot = tmp_path / "mesa.png"
    assert await in_browser(browser.save_screenshot, str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get(SCREENSHOT_ENV):
        shutil.copyfile(shot, os.environ[SCREENSHOT_ENV])
    assert await in_browser(console_errors, browser) == []


async def test_a_wrong_or_revoked_token_gives_404_in_the_browser(browser: webdriver.Chrome,
                                                                served: tuple[Tables, str]) -> None:
    tables, base = served
    old = tables.token()
    await in_browser(browser.get, f"{base}/mesa/{'A' * 32}")
    assert browser.title == "No encontrada"
    await in_browser(browser.get, f"{base}/mesa/{old}")
    assert browser.title.startswith("Mesa")
    await in_browser(wait_until, browser, lambda d: d.find_element(By.ID, "aviso-vivo").is_displayed())
    tables.say(GM, "!mesa nueva")
    # The open page's stream ends and is refused when it comes back: the page says so.
    await in_browser(wait_until, browser, lambda d: "sin-conexion" in (d.find_element(By.TAG_NAME, "body")
                                                                       .get_attribute("class") or ""))
    await in_browser(browser.get, f"{base}/mesa/{old}")
    assert browser.title == "No encontrada"
    await in_browser(browser.get, f"{base}/mesa/{tables.token()}")
    assert browser.title.startswith("Mesa")
    browser.get_log("browser")  # the refused stream and the 404 pages are logged: clear them


async def test_without_javascript_the_page_is_a_full_snapshot(served: tuple[Tables, str]) -> None:
    """Chromium with JavaScript blocked by its content settings: the page's script never runs (it
    would mark the body ``data-vivo`` before the load event), the parser shows the ``noscript``
    paragraph (as it does only with scripting off), and the board is all there."""
    tables, base = served
    driver = await in_browser(chromium, False)
    try:
        await in_browser(driver.get, f"{base}/mesa/{tables.token()}")
        assert not await in_browser(live_marked, driver)
        assert await in_browser(noscript_shown, driver)
        combat = tables.table.room(ROOM).combat
        assert combat is not None
        assert [name for name, _, _ in order(driver)] == combat.order
        assert not driver.find_element(By.ID, "aviso-vivo").is_displayed()
        tables.say(GM, "!siguiente")
        await in_browser(driver.get, f"{base}/mesa/{tables.token()}")  # a reload shows the change
        assert [n for n, current, _ in order(driver) if current] == [tables.table.room(ROOM).combat.current]  # type: ignore[union-attr]
        assert not await in_browser(live_marked, driver)
        assert console_errors(driver) == []
    finally:
        await in_browser(driver.quit)
