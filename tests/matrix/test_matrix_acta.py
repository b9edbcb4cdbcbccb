"""The acta and the table page against a real Synapse: what a real room records, an edit and a
redaction sent by a real client, and the links the bot answers with, served by its own web app."""

from __future__ import annotations

import re

import aiohttp

from bot.config import parse_config
from tests.matrix.conftest import membership, reacted_to, reply_to


async def test_a_real_room_records_edits_and_redactions_and_serves_its_links(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    data = cast.config_dict()
    data["web"]["public_url"] = f"http://127.0.0.1:{cast.web_port}"
    async with run_bot(parse_config(data, env={})):
        room = await gm.create_room(invite=[bot_id, ana.user_id])
        await ana.join(room)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")

        async def answered(chat, text: str) -> str:
            event_id = await chat.say(room, text)
            reply = await chat.wait_for(room, reply_to(event_id, bot_id), what=f"reply to {text}")
            return reply["content"]["body"]

        await gm.say(room, "!acta activar")
        await gm.wait_for(room, lambda ev: ev.get("sender") == bot_id
                          and "acta de esta sala está activada" in (ev.get("content") or {}).get("body", ""),
                          what="recording on")
        claim = await ana.say(room, "!pj Ana")
        await ana.wait_for(room, reacted_to(claim, bot_id), what="Ana claimed")
        await gm.say(room, "Llueve sobre <Villanueva>.")
        typo = await ana.say(room, "Hola, soy Anna")
        await ana.say(room, "abre la puerta", msgtype="m.emote")
        await ana.say(room, "((voy a por agua))")
        gone = await ana.say(room, "Esto lo borraré.")
        roll = await ana.say(room, "!tiro 2d6 fuerza")
        roll_body = (await ana.wait_for(room, reply_to(roll, bot_id), what="roll reply"))["content"]["body"]
        await ana.send(room, "m.room.message", {
            "msgtype": "m.text", "body": "* Hola, soy Ana",
            "m.new_content": {"msgtype": "m.text", "body": "Hola, soy Ana"},
            "m.relates_to": {"rel_type": "m.replace", "event_id": typo}})
        await ana.client.room_redact(room, gone)
        await ana.client.room_redact(room, roll)
        link = await answered(gm, "!mesa")
        page = re.search(r"(http://\S+/mesa/[A-Za-z0-9_-]+)", link)
        assert page is not None, link
        links = await answered(ana, "!acta")
        assert f"{page[1]}/acta/ultima.md" in links

        async with aiohttp.ClientSession() as http:
            async with http.get(page[1]) as response:
                assert response.status == 200 and "default-src 'none'" in response.headers["Content-Security-Policy"]
                html = await response.text()
            async with http.get(f"{page[1]}/acta/ultima.md") as response:
                assert response.status == 200
                document = await response.text()
            async with http.get(page[1].rsplit("/", 1)[0] + "/" + "A" * 32) as response:
                assert response.status == 404
        assert "Mesa" in html and "2d6 (fuerza)" in html
        story = [line for line in document.splitlines() if line and not line.startswith("#")]
        assert story == ["Llueve sobre \\<Villanueva\\>.", "**Ana:** Hola, soy Ana", "*Ana abre la puerta*",
                         "- " + roll_body.replace("[", "\\[").replace("]", "\\]")]
