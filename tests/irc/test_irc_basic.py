"""The table on a real ngircd: rolls, /me, locks by +m with the right voices, turns, secret rolls."""

from __future__ import annotations

from tests.irc.conftest import CHANNEL, RunningIrcBot, irc_config, wait_until


async def op_bot(dj, bot) -> None:
    mark = len(dj.lines)
    dj.send_raw(f"MODE {CHANNEL} +o rolbot")
    await dj.wait_for(lambda m: m.command == "MODE" and m.params[1:] == ["+o", "rolbot"], "rolbot's +o", mark)
    await wait_until(lambda: bot.bot.bot_is_op(bot.bot.channels["#mesa"]), "the bot to see its +o")


async def test_roll_and_action(ngircd, table_cast, tmp_path):
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as bot:
        mark = ana.say(CHANNEL, "!tiro 2d6+1 ataque")
        reply = await ana.notice_from("rolbot", mark, "2d6+1")
        assert reply.params[0] == CHANNEL and reply.text.startswith("ana: ")
        mark = ana.act(CHANNEL, "saca la espada")
        ana.say(CHANNEL, "!pj Lyra")
        claimed = await dj.notice_from("rolbot", mark, "Lyra")
        assert "ana" in claimed.text
        assert bot.metrics.events_handled >= 2
