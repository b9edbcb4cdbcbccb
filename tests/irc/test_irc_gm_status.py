"""Issue 29, item 2, on a real ngircd: a co-GM by ``+o`` who loses it (``-o``) stops being a GM at once,
without a line of theirs: their screen link answers 404 (GET and POST) and the GMs' private copies of an
NPC's numbers no longer go to them."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import aiohttp

from tests.irc.conftest import CHANNEL, Player, http_status, rolbot_with_screen

PARRY = "137"


async def test_minus_o_ends_the_screen_and_the_copies_without_a_line_from_that_user(
        ngircd, table_cast: dict[str, Player], tmp_path: Path) -> None:
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with rolbot_with_screen(ngircd, tmp_path) as base:
        mark = len(bob.lines)
        dj.send_raw(f"MODE {CHANNEL} +o bob")
        await bob.wait_for(lambda m: m.command == "MODE" and m.params[-1] == "bob", "bob's +o", mark)
        for who, line in ((dj, "!sistema savage"), (ana, "!pj Lyra"), (dj, "!pnj Orco")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)  # !sistema and !pj: a ✅ to their sender
        mark = bob.say(CHANNEL, "!pantalla")
        link = await bob.notice_from("rolbot", mark, "/master/", target="bob")
        url = re.search(r"(http://\S+/master/[A-Za-z0-9_-]{32})", link.text)
        assert url is not None
        mark = dj.say(CHANNEL, f"!ficha Orco parada {PARRY} dureza 9")
        await dj.notice_from("rolbot", mark, f"Parada {PARRY}", target="dj")  # an NPC's sheet: to its writer alone
        mark, copied, watched = ana.say(CHANNEL, "!tiro Pelear contra Orco"), len(bob.lines), len(dj.lines)
        await ana.notice_from("rolbot", mark, "contra Orco", target=CHANNEL)
        await bob.notice_from("rolbot", copied, f"vs {PARRY}", target="bob")  # a GM's copy, while +o
        for gm, start in ((bob, copied), (dj, watched)):  # the copy's last line (the unskilled -2), to each GM
            await gm.notice_from("rolbot", start, "Aplicado por el bot", target=gm.nick)

        async with aiohttp.ClientSession() as http:
            async with http.get(url[1]) as response:
                assert response.status == 200
                nonce = re.search(r'name="nonce" value="([^"]+)"', await response.text())
            assert nonce is not None
            mark = len(bob.lines)
            dj.send_raw(f"MODE {CHANNEL} -o bob")
            await bob.wait_for(lambda m: m.command == "MODE" and m.params[1] == "-o", "bob's -o", mark)
            deadline = time.monotonic() + 5
            while (got := await asyncio.to_thread(http_status, url[1])) != 404:  # bob says nothing
                assert got == 200 and time.monotonic() < deadline, f"the screen still answers {got}"
                await asyncio.sleep(0.05)
            async with http.post(url[1], data={"nonce": nonce[1], "accion": "siguiente"}, headers={"Origin": base},
                                 allow_redirects=False) as response:
                assert response.status == 404

        mark, watched, seen = ana.say(CHANNEL, "!tiro Pelear contra Orco"), len(dj.lines), len(bob.lines)
        await ana.notice_from("rolbot", mark, "contra Orco", target=CHANNEL)
        await dj.notice_from("rolbot", watched, f"vs {PARRY}", target="dj")
        await asyncio.sleep(1.0)
        assert not [m.text for m in bob.lines[seen:] if m.command == "NOTICE" and m.params[0] == "bob"]
