"""Issue 29 item 7 through a real Synapse: a command in a thread is answered in that thread (the ``m.thread``
relation with the reply fallback, as Element sends it), and an edited command runs nothing but gets one private
hint to its sender (an edit of plain text gets none)."""

from __future__ import annotations

from tests.matrix.conftest import Chat, reply_to
from tests.matrix.test_matrix_protocol import open_table

HINT = "editar un mensaje no ejecuta"


def _edit(original: str, body: str) -> dict:
    return {"msgtype": "m.text", "body": f"* {body}", "m.new_content": {"msgtype": "m.text", "body": body},
            "m.relates_to": {"rel_type": "m.replace", "event_id": original}}


def _from_bot(bot_id: str):
    def pred(ev: dict) -> bool:
        return ev.get("sender") == bot_id and ev.get("type") == "m.room.message"
    return pred


async def test_a_roll_in_a_thread_is_answered_in_the_thread(e2e_cast, run_bot):
    ana = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await open_table(e2e_cast)
        root = await ana.say(room, "tiro aparte, en un hilo")
        command = await ana.send(room, "m.room.message", {
            "msgtype": "m.text", "body": "!tiro 1d6",
            "m.relates_to": {"rel_type": "m.thread", "event_id": root, "is_falling_back": True,
                             "m.in_reply_to": {"event_id": root}}})
        answer = await ana.wait_for(room, reply_to(command, bot_id), what="the roll's answer")
        assert answer["content"]["m.relates_to"] == {
            "rel_type": "m.thread", "event_id": root, "is_falling_back": True,
            "m.in_reply_to": {"event_id": command}}, answer["content"]
        assert "🎲" in answer["content"]["body"]
        # A thread whose relation is not an object, or whose root is no string, is read as the main timeline.
        odd = await ana.send(room, "m.room.message", {
            "msgtype": "m.text", "body": "!tiro 1d4", "m.relates_to": {"rel_type": "m.thread", "event_id": 7}})
        plain = await ana.wait_for(room, reply_to(odd, bot_id), what="the odd thread's answer")
        assert plain["content"]["m.relates_to"] == {"m.in_reply_to": {"event_id": odd}}


async def test_an_edited_command_gets_one_private_hint_and_no_roll(e2e_cast, run_bot):
    ana: Chat = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await open_table(e2e_cast)
        talk = await ana.say(room, "hola")
        await ana.send(room, "m.room.message", _edit(talk, "hola a todos"))
        roll = await ana.say(room, "!tiro 1d6")
        await ana.wait_for(room, reply_to(roll, bot_id), what="the first roll")
        edit = await ana.send(room, "m.room.message", _edit(roll, "!tiro 1d20"))
        await ana.wait_until(lambda: bool(ana.invites), what="an invite to the private room")
        dm = next(iter(ana.invites))
        await ana.join(dm)
        hint = await ana.wait_for(dm, lambda ev: _from_bot(bot_id)(ev) and HINT in ev["content"]["body"].lower(),
                                  what="the edit hint")
        assert "!tiro" in hint["content"]["body"]
        after = await ana.say(room, "!tiro 1d8")
        await ana.wait_for(room, reply_to(after, bot_id), what="a later roll (everything before it handled)")
        await ana.sync_once(0)
        assert not any(reply_to(edit, bot_id)(ev) for ev in ana.room_events(room))
        rolls = [ev for ev in ana.room_events(room) if _from_bot(bot_id)(ev) and "🎲" in ev["content"]["body"]]
        assert len(rolls) == 2, [ev["content"]["body"] for ev in rolls]
        hints = [ev for ev in ana.room_events(dm) if _from_bot(bot_id)(ev)]
        assert len(hints) == 1, [ev["content"]["body"] for ev in hints]
