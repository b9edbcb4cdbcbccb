"""What a member can post that is not a plain message, through a real Synapse: malformed content
must never stop the bot (issue 10, item 1), and notices, reactions and polls count as writing
during a lock (item 3)."""

from __future__ import annotations

from bot.core.events import React
from tests.matrix.conftest import redaction_of, reply_to
from tests.matrix.test_matrix_protocol import open_table

MALFORMED_RELATIONS = ("x", ["x"], 3)


async def send(chat, room: str, etype: str, content: dict) -> str:
    resp = await chat.client.room_send(room, etype, content)
    assert hasattr(resp, "event_id"), resp
    return resp.event_id


async def post_malformed(chat, room: str) -> list[str]:
    return [await send(chat, room, "m.room.message", {"msgtype": "m.text", "body": "!tiro 1d6", "m.relates_to": rel})
            for rel in MALFORMED_RELATIONS]


async def test_malformed_events_neither_stop_the_bot_nor_a_restart(cast, run_bot):
    ana = cast.players[0]
    bot_id = cast.bot_user.user_id
    config = cast.config(enforcement="redact")
    async with run_bot(config) as running:
        room = await open_table(cast, players=1)
        errors_before = running.bot.metrics.errors
        bad = await post_malformed(ana, room)
        roll = await ana.say(room, "!tiro 1d6")
        await ana.wait_for(room, reply_to(roll, bot_id), what="the roll after the malformed events")
        assert not running.task.done()
        assert all(running.bot.store.handled.seen(event_id) for event_id in bad)
        assert running.bot.metrics.errors >= errors_before + len(bad)
        assert not any(reply_to(event_id, bot_id)(ev) for ev in ana.room_events(room) for event_id in bad)

    # While the bot is down: the same events wait in its next sync.
    bad_offline = await post_malformed(ana, room)
    async with run_bot(config) as running:
        roll = await ana.say(room, "!tiro 1d6")
        await ana.wait_for(room, reply_to(roll, bot_id), what="the roll after a restart")
        assert not running.task.done()
        assert all(running.bot.store.handled.seen(event_id) for event_id in bad_offline)

    async with run_bot(config) as running:  # and a restart after that resumes past them
        roll = await ana.say(room, "!tiro 1d6")
        await ana.wait_for(room, reply_to(roll, bot_id), what="the roll after a second restart")
        assert not running.task.done()


async def test_notice_reaction_poll_and_notice_edit_during_narration_are_redacted(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    async with run_bot(cast.config(enforcement="redact")):
        room = await open_table(cast, players=1)
        before = await ana.say(room, "McAvoy mira alrededor")
        dash = await gm.say(room, "-----")
        posted = {
            "notice": await ana.say(room, "¡yo también hablo!", msgtype="m.notice"),
            "reaction": await send(ana, room, "m.reaction", {"m.relates_to": {
                "rel_type": "m.annotation", "event_id": dash, "key": "McAvoy dispara primero"}}),
            "poll": await send(ana, room, "m.poll.start", {
                "m.text": [{"body": "¿Disparo?"}],
                "m.poll": {"kind": "m.disclosed", "max_selections": 1,
                           "question": {"m.text": [{"body": "¿Disparo?"}]},
                           "answers": [{"m.id": "si", "m.text": [{"body": "sí"}]}]}}),
            "unstable poll": await send(ana, room, "org.matrix.msc3381.poll.start", {
                "org.matrix.msc1767.text": "¿Disparo?",
                "org.matrix.msc3381.poll.start": {"kind": "org.matrix.msc3381.poll.disclosed", "max_selections": 1,
                                                  "question": {"org.matrix.msc1767.text": "¿Disparo?"},
                                                  "answers": [{"id": "si", "org.matrix.msc1767.text": "sí"}]}}),
            "edit sent as a notice": await send(ana, room, "m.room.message", {
                "msgtype": "m.notice", "body": "* McAvoy dispara",
                "m.new_content": {"msgtype": "m.notice", "body": "McAvoy dispara"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": before}}),
        }
        for what, event_id in posted.items():
            redaction = await ana.wait_for(room, redaction_of(event_id), what=f"redaction of the {what}")
            assert redaction["sender"] == bot_id


async def test_react_action_posts_an_annotation(cast, run_bot):
    gm = cast.gm
    bot_id = cast.bot_user.user_id
    async with run_bot(cast.config()) as running:
        room = await open_table(cast, players=0)
        line = await gm.say(room, "Empieza la sesión")
        await running.bot.outbox.execute(React(room, line, "🔒", action_id="test/react"))

        def reaction(ev: dict) -> bool:
            rel = (ev.get("content") or {}).get("m.relates_to") or {}
            return (ev.get("type") == "m.reaction" and ev.get("sender") == bot_id
                    and rel == {"rel_type": "m.annotation", "event_id": line, "key": "🔒"})

        await gm.wait_for(room, reaction, what="the bot's reaction")
