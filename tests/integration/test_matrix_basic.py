"""Invites, replies and the basic message shape against a real Synapse."""

from __future__ import annotations

from tests.integration.conftest import membership, reply_to


async def test_join_on_invite_and_roll_reply(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    async with run_bot(cast.config(allowed_inviters=[gm.user_id])) as running:
        room = await gm.create_room(invite=[bot_id, ana.user_id])
        await ana.join(room)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        roll = await ana.say(room, "!tiro 2d6+1 ataque")
        answer = await ana.wait_for(room, reply_to(roll, bot_id), what="roll reply")
        content = answer["content"]
        assert content["msgtype"] == "m.notice"
        assert content["format"] == "org.matrix.custom.html"
        assert content["formatted_body"] and content["body"]
        assert content["m.mentions"] == {"user_ids": []}
        assert running.bot.metrics.replies >= 1
