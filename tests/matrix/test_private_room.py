"""The private room of secret rolls (issue 19, item 7): a player who rejected its invite, or left it,
never got a secret roll again (the bot kept sending to the room it had made). Real Synapse."""

from __future__ import annotations

from tests.matrix.conftest import membership, reply_to


def from_bot(bot_id: str):
    def pred(ev: dict) -> bool:
        return ev.get("sender") == bot_id and ev.get("type") in ("m.room.message", "m.room.encrypted")
    return pred


async def test_a_player_who_rejects_or_leaves_the_private_room_gets_a_new_one(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    async with run_bot(cast.config()) as running:
        store = running.bot.matrix_store
        room = await gm.create_room(invite=[bot_id, ana.user_id])
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        await ana.join(room)

        async def secret_roll(known: set[str]) -> str:
            roll = await ana.say(room, "!tiro d20 oculta")
            await ana.wait_for(room, reply_to(roll, bot_id), what="the public notice of a secret roll")
            await ana.wait_until(lambda: bool(ana.invites - known), what="an invite to a new private room")
            new, = ana.invites - known
            return new

        rejected = await secret_roll(set())
        await ana.client.room_leave(rejected)  # rejects the invite
        await ana.wait_until(lambda: store.private_room(ana.user_id) != rejected,
                             what="the bot forgetting the rejected room")
        left = await secret_roll({rejected})
        await ana.join(left)
        await ana.wait_for(left, from_bot(bot_id), what="the secret roll in the new private room")
        await ana.client.room_leave(left)  # leaves after reading it
        await ana.wait_until(lambda: store.private_room(ana.user_id) != left,
                             what="the bot forgetting the room she left")
        third = await secret_roll({rejected, left})
        await ana.join(third)
        await ana.wait_for(third, from_bot(bot_id), what="the secret roll in the third private room")
        joined = (await running.bot.client.joined_rooms()).rooms
        assert rejected not in joined and left not in joined  # the bot does not stay alone in them


async def test_the_private_room_is_named_rolbot_privado_and_an_old_one_is_renamed_at_start(cast, run_bot):
    """Issue 29 item 9: the private room carries rule answers, copies and links, not only hidden rolls."""
    from nio import RoomGetStateEventResponse

    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id

    async def name_of(room_id: str) -> object:
        resp = await ana.client.room_get_state_event(room_id, "m.room.name")
        return resp.content.get("name") if isinstance(resp, RoomGetStateEventResponse) else resp

    async with run_bot(cast.config()) as running:
        room = await gm.create_room(invite=[bot_id, ana.user_id])
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        await ana.join(room)
        roll = await ana.say(room, "!tiro d20 oculta")
        await ana.wait_for(room, reply_to(roll, bot_id), what="the public notice of a secret roll")
        await ana.wait_until(lambda: bool(ana.invites), what="an invite to the private room")
        private, = ana.invites
        await ana.join(private)
        assert await name_of(private) == "rolbot: privado"
        await running.bot.client.room_put_state(private, "m.room.name", {"name": "rolbot: tiradas ocultas"})
        assert await name_of(private) == "rolbot: tiradas ocultas"  # as a room made by an older rolbot
    async with run_bot(cast.config()):
        for _ in range(50):
            if await name_of(private) == "rolbot: privado":
                break
            await ana.sync_once(200)
        assert await name_of(private) == "rolbot: privado"
