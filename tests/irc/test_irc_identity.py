"""Who is who on IRC: a NICK change keeps characters, turn and floor; @nick in commands; nick collision."""

from __future__ import annotations

from tests.irc.conftest import CHANNEL, RunningIrcBot, connect_player, irc_config, wait_until
from tests.irc.test_irc_basic import op_bot, wait_state


async def test_a_nick_change_keeps_character_turn_and_floor(ngircd, table_cast, tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        await op_bot(dj, running)
        for who, line in ((ana, "!pj Lyra"), (bob, "!pj Kor"), (dj, "!combate")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)
        mark = len(ana.lines)
        dj.say(CHANNEL, "!turnos Lyra Kor")
        await ana.notice_from("rolbot", mark, "turno de Lyra")

        mark = len(ana.lines)
        ana.send_raw("NICK anita")
        await ana.wait_for(lambda m: m.command == "NICK" and m.text == "anita", "the new nick", mark)
        ana.nick = "anita"
        mark = ana.say(CHANNEL, "!tiro 1d20")  # still her turn
        assert (await ana.notice_from("rolbot", mark, "1d20")).text.startswith("anita: Lyra · ")

        mark = len(ana.lines)
        dj.say(CHANNEL, "----- (Lyra)")
        await ana.notice_from("rolbot", mark, "Tiene la palabra Lyra")
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "anita": "+"})


async def test_the_gm_names_a_player_by_nick(ngircd, table_cast, tmp_path):
    dj, bob = table_cast["dj"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = bob.say(CHANNEL, "hola")  # the bot has seen bob
        mark = dj.say(CHANNEL, "!pj Kor @bob")
        await dj.notice_from("rolbot", mark, "✅", target="dj")
        mark = bob.say(CHANNEL, "!tiro 1d6")
        assert "Kor · 🎲" in (await bob.notice_from("rolbot", mark, "1d6")).text
        mark = bob.say(CHANNEL, "!pj Otro @dj")  # a player cannot assign
        assert "máster" in (await bob.notice_from("rolbot", mark)).text


async def test_nick_collision_then_the_nick_is_taken_back(ngircd, table_cast, tmp_path):
    squatter = await connect_player(ngircd.port, "rolbot")
    await squatter.join(CHANNEL)  # the bot sees it leave
    try:
        async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
            assert running.bot.connection.nick == "rolbot_"
            ana = table_cast["ana"]
            mark = ana.say(CHANNEL, "!tiro 1d4")
            await ana.notice_from("rolbot_", mark, "1d4")
            mark = len(ana.lines)
            await squatter.close()
            await ana.wait_for(lambda m: m.command == "NICK" and m.text == "rolbot", "the bot's nick back", mark)
            await wait_until(lambda: running.bot.connection.nick == "rolbot", "the bot to know its nick")
            mark = ana.say(CHANNEL, "!tiro 1d4")
            await ana.notice_from("rolbot", mark, "1d4")
    finally:
        await squatter.close()


async def test_a_renamed_player_is_still_themselves_after_the_bot_restarts(ngircd, table_cast, tmp_path):
    ana = table_cast["ana"]
    config = irc_config(ngircd.port, tmp_path / "st")
    async with RunningIrcBot(config):
        mark = ana.say(CHANNEL, "!pj Lyra")
        await ana.notice_from("rolbot", mark, "✅", target="ana")
        mark = len(ana.lines)
        ana.send_raw("NICK anita")
        await ana.wait_for(lambda m: m.command == "NICK", "the new nick", mark)
    mark = len(ana.lines)
    async with RunningIrcBot(config):
        await ana.wait_for(lambda m: m.command == "JOIN" and m.nick == "rolbot", "the bot back", mark)
        mark = ana.say(CHANNEL, "!tiro 1d6")
        assert "Lyra · 🎲" in (await ana.notice_from("rolbot", mark, "1d6")).text
