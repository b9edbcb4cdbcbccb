"""Issue 19, item 1, through a real Synapse: with no ``gms`` in the config, the GMs the bot knows only
by power (the room's creator, a user of power level 50) get an NPC's numbers in encrypted direct rooms,
and the room gets the outcome without them."""

from __future__ import annotations

from tests.matrix.conftest import Chat, membership, reacted_to, reply_to
from tests.matrix.test_matrix_e2e import encrypted_reply

PARRY = "137"


async def _dm_message(chat: Chat, bot_id: str, contains: str) -> str:
    """The body of the bot's message in ``chat``'s direct room with it that says ``contains``."""
    await chat.wait_until(lambda: bool(chat.invites), what="invite to the direct room")
    dm = next(iter(chat.invites))
    if dm not in chat.client.rooms:
        await chat.join(dm)
    found = await chat.wait_for(dm, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.message"
                                and contains in ev.get("content", {}).get("body", ""), what=f"{contains!r} privately")
    assert found["event_id"] in chat.decrypted and chat.client.rooms[dm].encrypted
    return found["content"]["body"]


async def test_a_gm_known_by_power_gets_the_npcs_numbers_privately_and_the_room_does_not(e2e_cast, run_bot):
    gm, ana, bea = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(system="savage")):
        room = await gm.create_room(invite=[bot_id, ana.user_id, bea.user_id],
                                    power_users={bot_id: 50, bea.user_id: 50}, encrypted=True)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        for chat in (ana, bea):
            await chat.join(room)
        claim = await ana.say(room, "!pj McAvoy")
        await ana.wait_for(room, reacted_to(claim, bot_id), what="McAvoy claimed")
        await gm.say(room, "!pnj Orco")
        sheet = await gm.say(room, f"!ficha Orco parada {PARRY} dureza 9")
        # A GM's !ficha of an NPC is a ✅; its numbers go to that GM privately, nothing to the room (issue 30).
        await ana.wait_for(room, reacted_to(sheet, bot_id), what="the NPC sheet's ✅, nothing else in the room")
        assert f"Parada {PARRY}" in await _dm_message(gm, bot_id, f"Parada {PARRY}")

        roll = await ana.say(room, "!tiro Pelear contra Orco")
        public = await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="the roll's answer")
        assert "contra Orco" in public["content"]["body"] and PARRY not in public["content"]["body"]
        for chat in (gm, bea):  # the creator, and a user of power level 50 who never spoke
            assert f"vs {PARRY}" in await _dm_message(chat, bot_id, f"vs {PARRY}")
        assert not ana.invites, "the player gets no private copy"
        said = [ev.get("content", {}).get("body", "") for ev in ana.room_events(room) if ev.get("sender") == bot_id]
        assert said and all(PARRY not in body for body in said)
        assert not any(reply_to(sheet, bot_id)(ev) for ev in ana.room_events(room))
