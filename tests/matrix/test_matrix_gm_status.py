"""Issue 29, item 2, through a real Synapse: a co-GM by power level 50 whose level is lowered stops being a
GM at once, without writing a word: their screen link answers 404 (GET and POST) and the GMs' private
copies of an NPC's numbers no longer go to them. ``rolbot run``'s composition root (``run_transports``)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator

import aiohttp

from bot.config import parse_config
from bot.runner import run_transports
from tests.irc.conftest import http_status as status
from tests.matrix.conftest import Chat, membership, reacted_to
from tests.matrix.test_matrix_e2e import encrypted_reply

PARRY = "137"


def _dm(chat: Chat) -> str:
    return next(iter(chat.invites))


async def _dm_message(chat: Chat, bot_id: str, contains: str) -> str:
    """The body of the bot's message in ``chat``'s direct room with it that says ``contains``."""
    await chat.wait_until(lambda: bool(chat.invites), what="invite to the direct room")
    dm = _dm(chat)
    if dm not in chat.client.rooms:
        await chat.join(dm)
    found = await chat.wait_for(dm, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.message"
                                and contains in ev.get("content", {}).get("body", ""), what=f"{contains!r} privately")
    return found["content"]["body"]


@contextlib.asynccontextmanager
async def _table_with_a_screen(e2e_cast) -> AsyncIterator[tuple[str, str, str]]:
    """``rolbot run`` with the web screen; a room where bea (power level 50) is a co-GM who opened
    ``!pantalla``: yields the room, the web base and bea's screen link."""
    gm, ana, bea = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    base = f"http://127.0.0.1:{e2e_cast.web_port}"
    data = e2e_cast.config_dict(system="savage")
    data["web"]["public_url"] = base
    config = parse_config(data, env={})
    stop = asyncio.Event()
    running = asyncio.ensure_future(run_transports(config, stop))
    try:
        while await asyncio.to_thread(status, f"{base}/healthz") != 200:
            assert not running.done(), running.result()
            await asyncio.sleep(0.1)
        room = await gm.create_room(invite=[bot_id, ana.user_id, bea.user_id],
                                    power_users={bot_id: 50, bea.user_id: 50}, encrypted=True)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        for chat in (ana, bea):
            await chat.join(room)
        await bea.say(room, "!pantalla")
        link = re.search(r"(http://\S+/master/[A-Za-z0-9_-]{32})", await _dm_message(bea, bot_id, "/master/"))
        assert link is not None
        yield room, base, link[1]
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 60) == 0


async def test_a_lowered_power_level_ends_the_screen_and_the_copies_without_a_word(e2e_cast) -> None:
    gm, ana, bea = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with _table_with_a_screen(e2e_cast) as (room, base, url):
        claim = await ana.say(room, "!pj McAvoy")
        await ana.wait_for(room, reacted_to(claim, bot_id), what="McAvoy claimed")
        await gm.say(room, "!pnj Orco")
        await gm.say(room, f"!ficha Orco parada {PARRY} dureza 9")
        await ana.say(room, "!tiro Pelear contra Orco")
        await _dm_message(bea, bot_id, f"vs {PARRY}")  # a GM's copy while at level 50

        async with aiohttp.ClientSession() as http:
            async with http.get(url) as response:
                assert response.status == 200
                nonce = re.search(r'name="nonce" value="([^"]+)"', await response.text())
            assert nonce is not None
            levels = await gm.client.room_get_state_event(room, "m.room.power_levels")
            content = dict(levels.content)
            content["users"] = {**content.get("users", {}), bea.user_id: 0}
            await gm.client.room_put_state(room, "m.room.power_levels", content)
            deadline = time.monotonic() + 15
            while (got := await asyncio.to_thread(status, url)) != 404:  # bea writes nothing
                assert got == 200 and time.monotonic() < deadline, f"the screen still answers {got}"
                await asyncio.sleep(0.1)
            async with http.post(url, data={"nonce": nonce[1], "accion": "siguiente"}, headers={"Origin": base},
                                 allow_redirects=False) as response:
                assert response.status == 404

        before = len(bea.room_events(_dm(bea)))
        roll = await ana.say(room, "!tiro Pelear contra Orco")
        await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="the roll's answer")
        assert f"vs {PARRY}" in await _dm_message(gm, bot_id, f"vs {PARRY}")
        end = time.monotonic() + 3
        while time.monotonic() < end:
            await bea.sync_once(500)
        said = [ev.get("content", {}).get("body", "") for ev in bea.room_events(_dm(bea))[before:]
                if ev.get("sender") == bot_id]
        assert not [body for body in said if PARRY in body], said


async def test_no_copies_reach_the_dms_of_a_gm_whose_screen_stream_is_open(e2e_cast) -> None:
    """Issue 30 item 3, through a real Synapse: while a GM's screen has its live stream open, the private
    copies of an NPC's numbers do not reach that GM's direct room (the screen shows them); a GM without the
    screen open still gets them there."""
    gm, ana, bea = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with _table_with_a_screen(e2e_cast) as (room, base, url), aiohttp.ClientSession() as http:
        async with http.get(url) as response:
            assert response.status == 200
            events = re.search(r'data-eventos="([^"]+)"', await response.text())
        assert events is not None
        async with http.get(f"{base}/master/{events[1].replace('&amp;', '&')}") as stream:
            await stream.content.readuntil(b"\n\n")  # the stream is open: the screen is seen
            claim = await ana.say(room, "!pj McAvoy")
            await ana.wait_for(room, reacted_to(claim, bot_id), what="McAvoy claimed")
            await gm.say(room, "!pnj Orco")
            await gm.say(room, f"!ficha Orco parada {PARRY} dureza 9")
            before = len(bea.room_events(_dm(bea)))
            roll = await ana.say(room, "!tiro Pelear contra Orco")
            await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="the roll's answer")
            assert f"vs {PARRY}" in await _dm_message(gm, bot_id, f"vs {PARRY}")  # no screen: the copy
            end = time.monotonic() + 3
            while time.monotonic() < end:
                await bea.sync_once(500)
            said = [ev.get("content", {}).get("body", "") for ev in bea.room_events(_dm(bea))[before:]
                    if ev.get("sender") == bot_id]
            assert not [body for body in said if PARRY in body], said
