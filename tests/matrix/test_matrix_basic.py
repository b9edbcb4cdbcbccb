"""Invites, replies and the basic message shape against a real Synapse."""

from __future__ import annotations

from tests.matrix.conftest import Chat, membership, reply_to


async def test_join_on_invite_and_roll_reply(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    async with run_bot(cast.config(matrix={"allowed_inviters": [gm.user_id]})) as running:
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
        # The counter moves when the send returns, which may be after the player already got it.
        await ana.wait_until(lambda: running.bot.metrics.replies >= 1, what="the reply counted")


async def test_first_start_ignores_history_and_restart_keeps_the_device(cast, run_bot, synapse):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    # The bot account is already in the room, with history, before rolbot ever runs.
    raw_bot = Chat(synapse, cast.bot_user)
    room = await gm.create_room(invite=[bot_id, ana.user_id])
    await raw_bot.join(room)
    await raw_bot.close()
    await ana.join(room)
    old = await ana.say(room, "!tiro d6 antigua")
    async with run_bot(cast.config()):
        new = await ana.say(room, "!tiro d6 nueva")
        await ana.wait_for(room, reply_to(new, bot_id), what="reply to the new roll")
        assert not any(reply_to(old)(ev) for ev in ana.room_events(room))
    devices_before = devices(synapse, bot_id)
    async with run_bot(cast.config()):
        again = await ana.say(room, "!tiro d6 otra vez")
        await ana.wait_for(room, reply_to(again, bot_id), what="reply after a restart")
    assert devices(synapse, bot_id) == devices_before


async def test_access_token_login(cast, run_bot):
    ana = cast.players[0]
    bot_id = cast.bot_user.user_id
    config = cast.config(matrix={"password": None, "access_token": cast.bot_user.access_token})
    assert not config.matrix.password
    async with run_bot(config) as running:
        assert running.bot.client.device_id == cast.bot_user.device_id
        room = await ana.create_room(invite=[bot_id])
        await ana.wait_for(room, membership(bot_id, "join"), what="bot join")
        roll = await ana.say(room, "!tiro d20")
        await ana.wait_for(room, reply_to(roll, bot_id), what="reply")


def devices(synapse, user_id: str) -> list[str]:
    data = synapse._http("GET", f"/_synapse/admin/v2/users/{user_id}/devices", token=synapse.admin.access_token)
    return sorted(d["device_id"] for d in data["devices"])
