"""Issue 19, item 1, on a real ngircd: a GM known only as the channel's operator (no ``gms`` in the
config) gets an NPC's numbers in a private NOTICE; the channel gets the outcome without them. Issue 30
item 2: a GM's ``!ficha`` of an NPC and a player's refusal go to their writer alone."""

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
        # !pnj's line reaches dj and ana on their own connections: ana's must be in before she is watched
        await ana.notice_from("rolbot", 0, "PNJ del máster: Orco", target=CHANNEL)
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
        # The sheet went to dj alone: the channel, whose lines come in order, heard nothing of it before the roll.
        said = [m.text for m in ana.lines[seen:] if m.nick == "rolbot" and m.command == "NOTICE"]
        assert not [text for text in said if "📜" in text or "ficha" in text]


async def test_a_players_refusal_is_a_notice_to_that_player_alone(ngircd, table_cast, tmp_path):
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        for who, line in ((dj, "!sistema savage"), (ana, "!pj Lyra"), (dj, "!pnj Orco")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)  # !sistema and !pj: a ✅ to their sender
        mark, watched, seen = ana.say(CHANNEL, "!ataque Orko"), len(dj.lines), len(ana.lines)
        assert "¿querías decir Orco?" in (await ana.notice_from("rolbot", mark, "Orko", target="ana")).text
        later = dj.say(CHANNEL, "!tiro 1d6")
        await dj.notice_from("rolbot", later, "1d6", target=CHANNEL)  # the bot's lines go out in order
        assert not [m.text for m in dj.lines[watched:] if m.nick == "rolbot" and "Orko" in m.text]
        assert not [m.text for m in ana.lines[seen:] if m.nick == "rolbot" and m.params[0] == CHANNEL and "Orko" in m.text]
