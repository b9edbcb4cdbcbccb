"""The bot without operator on a real ngircd (issue 29, item 10): one WARNING in the log per channel and
per change of the power it lacks, beside the channel's notice."""

from __future__ import annotations

import logging

from tests.irc.conftest import CHANNEL, RunningIrcBot, irc_config
from tests.irc.test_irc_basic import op_bot


async def test_a_bot_without_op_warns_the_log_once_per_change(ngircd, table_cast, tmp_path, caplog):
    dj = table_cast["dj"]
    caplog.set_level(logging.INFO)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "enforcement" in r.getMessage()]

    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "+o", target=CHANNEL)
        for lock in ("🔓", "🔒", "🔓"):  # closed, opened and closed again: still no op, nothing new to say
            mark = dj.say(CHANNEL, "-----")
            await dj.notice_from("rolbot", mark, lock, target="dj")
        assert len(warnings()) == 1 and "#mesa" in warnings()[0] and "mute the room" in warnings()[0], warnings()
        await op_bot(dj, running)
        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "🔒", target="dj")
        assert len(warnings()) == 1
        assert any("has the power" in r.getMessage() and "#mesa" in r.getMessage() for r in caplog.records)
