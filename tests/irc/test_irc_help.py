"""On a real ngircd: ``!ayuda`` and ``!regla`` asked during a narration are answered privately."""

from __future__ import annotations

from tests.irc.conftest import CHANNEL, RunningIrcBot, irc_config


async def test_help_and_rules_asked_during_a_narration_come_back_as_private_notices(ngircd, table_cast, tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "+o", target=CHANNEL)  # no op here: warn mode, the lock holds
        start = len(ana.lines), len(bob.lines)
        ana.say(CHANNEL, "!ayuda")
        ana.say(CHANNEL, "!regla aturdido")
        await ana.notice_from("rolbot", start[0], "📖 rolbot", target="ana")
        await ana.notice_from("rolbot", start[0], "📘", target="ana")
        await ana.notice_from("rolbot", start[0], "espera a la raya", target=CHANNEL)
        mark = bob.say(CHANNEL, "(( sigo aquí ))")
        await bob.notice_from("rolbot", mark, "espera a la raya", target="bob")  # the lock's one notice is ana's
        channel = [m.text for m in bob.lines[start[1]:] if m.command == "NOTICE" and m.params[0] == CHANNEL]
        assert channel and not any("📖" in text or "📘" in text for text in channel)
