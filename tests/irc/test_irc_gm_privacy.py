"""Issue 19, item 1, on a real ngircd: a GM known only as the channel's operator (no ``gms`` in the
config) gets an NPC's numbers in a private NOTICE; the channel gets the outcome without them."""

from __future__ import annotations

import re

from tests.irc.conftest import CHANNEL, RunningIrcBot, irc_config

PARRY = "137"


async def test_the_channel_operator_gets_the_npcs_numbers_in_a_private_notice(ngircd, table_cast, tmp_path):
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        for who, line in ((dj, "!sistema savage"), (ana, "!pj Lyra"), (dj, "!pnj Orco")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)  # !sistema and !pj: a ✅ to their sender
        mark, seen = dj.say(CHANNEL, f"!ficha Orco parada {PARRY} dureza 9"), len(ana.lines)
        assert f"Parada {PARRY}" in (await dj.notice_from("rolbot", mark, f"Parada {PARRY}", target="dj")).text
        await dj.notice_from("rolbot", mark, "✅", target="dj")
        assert not any(m.nick == "rolbot" and "Orco" in m.text for m in ana.lines[seen:])

        mark, watched = ana.say(CHANNEL, "!tiro Pelear contra Orco"), len(dj.lines)
        public = await ana.notice_from("rolbot", mark, "contra Orco", target=CHANNEL)
        copy = await dj.notice_from("rolbot", watched, f"vs {PARRY}", target="dj")
        total = re.compile(r"= (-?\d+) →")
        assert PARRY not in public.text and total.findall(copy.text) == total.findall(public.text) != []
        assert not any(PARRY in m.text for m in ana.lines if m.nick == "rolbot")
