"""The GM's screen on a real ngircd: ``!pantalla`` from the channel's operator sends the link in a
private NOTICE (the channel only hears that it went privately), and a click on the screen reaches
the channel through the IRC transport, as the GM's ``!siguiente`` does. ``rolbot run``'s composition
root (``run_transports``) with IRC alone."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp

from tests.irc.conftest import CHANNEL, Player, rolbot_with_screen


async def test_the_screen_link_goes_in_a_private_notice_and_a_click_reaches_the_channel(
        ngircd, table_cast: dict[str, Player], tmp_path: Path) -> None:
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with rolbot_with_screen(ngircd, tmp_path) as base:
        for who, line in ((dj, "!sistema savage"), (ana, "!pj Lyra"), (dj, "!pnj Orco x2"), (dj, "!combate")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)  # !sistema and !pj: a ✅ to their sender
        mark = dj.say(CHANNEL, "!iniciativa")
        await dj.notice_from("rolbot", mark, "▶️ ", target=CHANNEL)  # the deal's last line: the first turn

        mark, seen = dj.say(CHANNEL, "!pantalla"), len(ana.lines)
        link = await dj.notice_from("rolbot", mark, "/master/", target="dj")
        await ana.notice_from("rolbot", seen, "privado", target=CHANNEL)  # after the initiative's last lines
        assert not any("/master/" in m.text for m in ana.lines)
        url = re.search(r"(http://\S+/master/[A-Za-z0-9_-]{32})", link.text)
        assert url is not None

        async with aiohttp.ClientSession() as http:
            async with http.get(url[1]) as response:
                assert response.status == 200
                nonce = re.search(r'name="nonce" value="([^"]+)"', await response.text())
            assert nonce is not None
            seen = len(ana.lines)
            async with http.post(url[1], data={"nonce": nonce[1], "accion": "siguiente"}, headers={"Origin": base},
                                 allow_redirects=False) as response:
                assert response.status == 303
            turn = await ana.notice_from("rolbot", seen, "▶️ ", target=CHANNEL)
        mark = dj.say(CHANNEL, "!deshacer")  # back, and the same turn by the chat
        await dj.notice_from("rolbot", mark, "Deshecho", target=CHANNEL)
        mark, seen = dj.say(CHANNEL, "!siguiente"), len(ana.lines)
        if turn.text.startswith("▶️ Orco"):  # a click has no line to react to; the chat's NPC turn is a ✅
            await dj.notice_from("rolbot", mark, "✅", target="dj")  # IRC's reaction: a private notice
            mark = dj.say(CHANNEL, "!estado")
            assert f"▶ {turn.text[3:]}" in (await dj.notice_from("rolbot", mark, "▶ ", target=CHANNEL)).text
        else:  # a player's turn is said alike
            assert (await ana.notice_from("rolbot", seen, "▶️ ", target=CHANNEL)).text == turn.text
