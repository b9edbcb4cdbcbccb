"""Through a real Synapse: ``!ayuda`` asked during a narration is removed from the room and answered
in the player's (encrypted) direct room with the bot."""

from __future__ import annotations

from tests.matrix.conftest import redaction_of
from tests.matrix.test_matrix_e2e import encrypted_reply, open_e2e_table


async def test_help_asked_during_a_narration_is_answered_in_a_direct_room(e2e_cast, run_bot):
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(enforcement="redact")):
        room = await open_e2e_table(e2e_cast, players=1)
        await gm.say(room, "-----")
        asked = await ana.say(room, "!ayuda combate")
        await ana.wait_for(room, redaction_of(asked), what="the question removed from the narration")
        await ana.wait_until(lambda: bool(ana.invites - {room}), what="invite to the direct room")
        dm = next(iter(ana.invites - {room}))
        await ana.join(dm)
        answer = await ana.wait_for(dm, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.message",
                                    what="the help, privately")
        assert answer["event_id"] in ana.decrypted and answer["content"]["msgtype"] == "m.notice"
        assert answer["content"]["body"].startswith("📖 Combate")
        await gm.say(room, "-----")
        after = await ana.say(room, "!tiro d6")
        await ana.wait_for(room, encrypted_reply(ana, room, after, bot_id), what="a later answer in the room")
        assert not any("📖" in ev.get("content", {}).get("body", "") for ev in ana.room_events(room))
