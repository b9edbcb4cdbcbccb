"""The GM's screen in a real browser (Debian's headless Chromium through Selenium) against a real
Synapse: ``rolbot run``'s composition root (``run_transports``) with the Matrix transport, the web app
and the screen; the GM reads the link from the bot's encrypted direct message and runs the fight from
the page while the room gets the same messages as the chat commands."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from bot.config import parse_config
from bot.runner import run_transports
from tests.matrix.conftest import Chat, e2e_cast, membership, reacted_to, replaces, reply_to, synapse  # noqa: F401 (fixtures)
from tests.web.test_browser import CHROMEDRIVER, CHROMIUM, chromium, console_errors, in_browser, order, text_of, wait_until

SCREENSHOT_ENV = "ROLBOT_SCREEN_SCREENSHOT"
"""Where to save the screenshot as well (``docs/pantalla.png`` is made with it)."""


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@dataclass
class Live:
    gm: Chat
    ana: Chat
    room: str
    bot_id: str
    base: str

    def known(self) -> set[str]:
        return {ev.get("event_id", "") for ev in self.gm.room_events(self.room)}

    async def said(self, chat: Chat, text: str) -> str:
        """What the bot answers in the room to ``text`` (its reply's body)."""
        event_id = await chat.say(self.room, text)
        reply = await self.gm.wait_for(self.room, reply_to(event_id, self.bot_id), what=f"the reply to {text}")
        return str(reply["content"]["body"])

    async def answered(self, chat: Chat, text: str, contains: str = "") -> str:
        """``text`` said, and the bot's first room message after it (a reply or an announcement) that
        holds ``contains``."""
        known = self.known()
        await chat.say(self.room, text)
        answer = await self.gm.wait_for(self.room, lambda ev: ev.get("sender") == self.bot_id
                                        and ev.get("event_id") not in known and ev.get("type") == "m.room.message"
                                        and contains in (ev.get("content") or {}).get("body", ""),
                                        what=f"the answer to {text}")
        return str(answer["content"]["body"])

    async def acked(self, chat: Chat, text: str) -> str:
        """``text`` said and answered with the bot's ✅ (a bookkeeping command); its event id."""
        event_id = await chat.say(self.room, text)
        await self.gm.wait_for(self.room, reacted_to(event_id, self.bot_id), what=f"the ✅ to {text}")
        return event_id

    async def privately(self, chat: Chat, text: str, contains: str) -> str:
        """``text`` said, answered with the bot's ✅ in the room and the message in ``chat``'s direct room
        with it that holds ``contains`` (a GM's ``!ficha`` of an NPC: its numbers only there)."""
        await self.acked(chat, text)
        await chat.wait_until(lambda: bool(chat.invites - {self.room}), what="an invite to the direct room")
        dm = next(iter(chat.invites - {self.room}))
        if dm not in chat.client.rooms:
            await chat.join(dm)
        answer = await chat.wait_for(dm, lambda ev: ev.get("sender") == self.bot_id and ev.get("type") == "m.room.message"
                                     and contains in (ev.get("content") or {}).get("body", ""),
                                     what=f"the private answer to {text}")
        return str(answer["content"]["body"])

    async def posted(self, known: set[str], what: str, contains: str = "") -> str:
        """The bot's next room message after ``known`` that answers no chat line (the screen's) and holds
        ``contains`` (an earlier step's later messages may still be arriving)."""
        def pred(ev: dict) -> bool:
            content = ev.get("content") or {}
            return (ev.get("sender") == self.bot_id and ev.get("type") == "m.room.message"
                    and ev.get("event_id") not in known and "m.relates_to" not in content
                    and contains in content.get("body", ""))
        return str((await self.gm.wait_for(self.room, pred, what=what))["content"]["body"])


@pytest.fixture
async def live(e2e_cast: Any) -> AsyncIterator[Live]:  # noqa: F811
    assert shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER), "apt-get install -y chromium chromium-driver"
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    base = f"http://127.0.0.1:{e2e_cast.web_port}"
    data = e2e_cast.config_dict(system="savage")
    data["web"]["public_url"] = base
    stop = asyncio.Event()
    running = asyncio.ensure_future(run_transports(parse_config(data, env={}), stop))
    try:
        while await asyncio.to_thread(status, f"{base}/healthz") != 200:
            assert not running.done(), running.result()
            await asyncio.sleep(0.05)  # polling /healthz as a supervisor would
        room = await gm.create_room(invite=[bot_id, ana.user_id])
        await ana.join(room)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        table = Live(gm, ana, room, bot_id, base)
        await table.acked(ana, "!pj Ana")
        await table.answered(gm, "!pnj Orco x2")
        await table.privately(gm, "!ficha Orco 1 dureza 5", "Dureza 5")  # an NPC's sheet: no message in the room
        await table.answered(gm, "!combate")
        await table.answered(gm, "!iniciativa")
        yield table
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 30) == 0


async def screen_link(live: Live) -> str:
    """``!pantalla`` in the room: the room hears only that it went privately; the link is read from the
    bot's encrypted direct message to the GM."""
    gm = live.gm
    room_reply = await live.said(gm, "!pantalla")
    assert "privado" in room_reply
    # The bot's direct room with the GM (made already if the bot wrote to them privately before).
    await gm.wait_until(lambda: bool(gm.invites - {live.room}), what="an invite to the direct room")
    dm = next(iter(gm.invites - {live.room}))
    if dm not in gm.client.rooms:
        await gm.join(dm)
    message = await gm.wait_for(dm, lambda ev: ev.get("sender") == live.bot_id and "/master/" in
                                (ev.get("content") or {}).get("body", ""), what="the link, decrypted")
    assert message["event_id"] in gm.decrypted
    assert all("/master/" not in str(ev.get("content")) for ev in gm.room_events(live.room))
    found = re.search(r"(http://\S+/master/[A-Za-z0-9_-]{32})", message["content"]["body"])
    assert found is not None
    return found[1]


def submit(driver: webdriver.Chrome, accion: str, nombre: str | None = None, texto: str | None = None,
           label: str | None = None) -> None:
    """Fill and send the control ``accion`` (the one whose button reads ``label``, if given)."""
    forms = [f for f in driver.find_elements(By.CSS_SELECTOR, f'form:has(input[name="accion"][value="{accion}"])')
             if label is None or label in f.find_element(By.TAG_NAME, "button").text]
    form = forms[0]
    if nombre is not None:
        field = form.find_element(By.NAME, "nombre")
        if field.tag_name == "select":
            Select(field).select_by_value(nombre)
        elif field.get_attribute("type") != "hidden":
            field.send_keys(nombre)
    if texto is not None:
        form.find_element(By.NAME, "texto").send_keys(texto)
    form.find_element(By.TAG_NAME, "button").click()


def answered(driver: webdriver.Chrome, command: str) -> bool:
    return f"Enviado: {command}" in text_of(driver, "respuesta")


def current(driver: webdriver.Chrome) -> list[str]:
    return [name for name, now, _ in order(driver) if now]


async def test_the_gm_runs_the_fight_from_the_screen(live: Live, tmp_path: Path) -> None:
    url = await screen_link(live)
    driver = await in_browser(chromium)
    try:
        await in_browser(driver.get, url)
        assert driver.title.startswith("Pantalla del máster")
        await in_browser(wait_until, driver, lambda d: d.find_element(By.ID, "aviso-vivo").is_displayed())
        first = current(driver)
        assert len(first) == 1 and "Dureza 5" in text_of(driver, "orden")  # the NPC's numbers: the GMs' page

        # The chat command, then the same from the page. A turn passing to an NPC alone is a ✅ on the chat's
        # line (issue 30); a click has no line to react to, so the screen says it.
        known = live.known()
        typed = await live.gm.say(live.room, "!siguiente")
        chat_answer = await live.gm.wait_for(live.room, lambda ev: ev.get("event_id") not in known and (
            reacted_to(typed, live.bot_id)(ev) or (ev.get("sender") == live.bot_id and ev.get("type") == "m.room.message"
                                                   and "▶️ " in (ev.get("content") or {}).get("body", ""))),
            what="the answer to !siguiente")
        by_chat = None if chat_answer.get("type") == "m.reaction" else str(chat_answer["content"]["body"])
        await in_browser(wait_until, driver, lambda d: current(d) != first)  # followed live
        known = live.known()
        await in_browser(submit, driver, "deshacer")
        await live.posted(known, "the undo's message", "Deshecho: !siguiente")
        await in_browser(wait_until, driver, lambda d: current(d) == first)
        known = live.known()
        await in_browser(submit, driver, "siguiente")
        by_screen = await live.posted(known, "the screen's !siguiente", "▶️ ")
        assert by_screen == by_chat or (by_chat is None and "(" not in by_screen), (by_screen, by_chat)
        await in_browser(wait_until, driver, lambda d: answered(d, "!siguiente") and current(d) != first)

        known = live.known()
        await in_browser(submit, driver, "dano", "Orco 1", "6")
        await live.posted(known, "the damage", "Orco 1")
        link = re.search(r"https://matrix\.to/#/[^/\s]+/(\S+)", await live.said(live.gm, "!estado"))
        assert link is not None  # !estado points to the tracker, which follows the screen's damage
        await live.gm.wait_for(live.room, lambda ev: replaces(link[1], live.bot_id)(ev) and re.search(
            r"Orco 1 \[[^\]]*aturdido", ev["content"]["m.new_content"]["body"]) is not None, what="Orco 1 Shaken on the tracker")
        table_url = re.search(r"(http://\S+/mesa/[A-Za-z0-9_-]+)", await live.said(live.gm, "!mesa"))
        assert table_url is not None
        code, players_page = await asyncio.to_thread(get, table_url[1])
        assert code == 200 and re.search(r'data-nombre="Orco 1">.*?aturdido', players_page, re.S)

        await live.said(live.gm, "!tiro d20 oculta")
        # The list shows the room's copy: during an NPC's turn the roll is the NPC's, without its expression.
        await in_browser(wait_until, driver, lambda d: text_of(d, "ocultas").startswith("(oculta) "))
        known = live.known()
        await in_browser(submit, driver, "revelar", None, None, "la última")
        await live.posted(known, "the reveal", "revelada")
        await in_browser(wait_until, driver, lambda d: not d.find_elements(By.ID, "ocultas"))

        await in_browser(driver.set_window_size, 360, 800)
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        driver.execute_script("window.scrollTo(0, 0)")
        shot = tmp_path / "pantalla.png"
        assert await in_browser(driver.save_screenshot, str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get(SCREENSHOT_ENV):
            shutil.copyfile(shot, os.environ[SCREENSHOT_ENV])
        assert await in_browser(console_errors, driver) == []
    finally:
        await in_browser(driver.quit)


NO_JS: list[tuple[str, str | None, str | None, str, str, bool]] = [
    # (control, name, text, the command it stands for, what the answer about it holds, in the room: else
    # answered only to the GM, on the page)
    ("siguiente", None, None, "!siguiente", "▶️ ", True),
    ("dano", "Orco 1", "9", "!daño Orco 1 9", "Orco 1", True),
    ("deshacer", None, None, "!deshacer", "Deshecho: !daño", True),
    ("curar", "Ana", None, "!sanar Ana", "desangra", False),  # a refusal (which depends on the turn): to the GM only
    ("ficha", "Orco 1", "heridas 1", "!ficha Orco 1 heridas 1", "Heridas 1", False),  # an NPC's sheet
    ("permite", "Ana", None, "!permite Ana", "Ana", True),
    ("entra", "Lobo", None, "!entra Lobo", "Lobo", True),
    ("sale", "Lobo", None, "!sale Lobo", "Lobo", True),
    ("fin", None, None, "!combate fin", "Fin del combate", True),
    ("combate", None, None, "!combate", "¡Combate!", True),
    ("iniciativa", None, None, "!iniciativa", "Cartas de acción", True),
]


async def test_without_javascript_every_control_still_works(live: Live) -> None:
    url = await screen_link(live)
    driver = await in_browser(chromium, False)
    try:
        await in_browser(driver.get, url)
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-vivo") is None  # no script ran
        for accion, nombre, texto, command, says, in_room in NO_JS:
            known = live.known()
            page = driver.find_element(By.TAG_NAME, "html")
            await in_browser(submit, driver, accion, nombre, texto)
            await in_browser(wait_until, driver, lambda d, p=page: not _attached(p))  # the POST's 303 loaded the page
            assert answered(driver, command), (command, driver.title, text_of(driver, "respuesta"))
            if in_room:
                await live.posted(known, f"the room's message for {command}", says)
            else:
                assert says in text_of(driver, "respuesta"), (command, text_of(driver, "respuesta"))
        said = [str((ev.get("content") or {}).get("body", "")) for ev in live.gm.room_events(live.room)]
        assert not [s for s in said for _, _, _, _, says, in_room in NO_JS if not in_room and says in s]
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-vivo") is None
        assert console_errors(driver) == []
    finally:
        await in_browser(driver.quit)


def _attached(element: Any) -> bool:
    try:
        element.tag_name  # noqa: B018 (raises once the page it belonged to is gone)
    except Exception:
        return False
    return True
