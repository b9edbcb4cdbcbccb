"""Restarts that do not read every room again (issue 12): each room's auth state (creators, power
levels, encryption, joined members) is kept in SQLite, kept current from every sync, and read
from the homeserver only when the stored copy is missing.

The bot talks to Synapse through ``counting_proxy``, which records every request it makes."""

from __future__ import annotations

import sqlite3

from nio import ErrorResponse

from bot.core.store import Store
from bot.matrix.rooms import STATE_FETCHES
from bot.matrix.store import MatrixStore
from tests.matrix.conftest import Chat, membership, reacted_to, redaction_of, reply_to
from tests.matrix.test_matrix_e2e import encrypted_reply, open_e2e_table
from tests.matrix.test_matrix_protocol import open_table

ROOMS = 20


async def make_rooms(cast, count: int, players: list[Chat]) -> list[str]:
    """``count`` rooms made by the GM (room v12), the bot at power 50 and ``players`` joined; each
    player's roll in each room answered, so the bot has handled every room before it stops."""
    gm, bot_id = cast.gm, cast.bot_user.user_id
    rooms = [await gm.create_room(invite=[bot_id, *(p.user_id for p in players)], power_users={bot_id: 50})
             for _ in range(count)]
    await gm.wait_until(lambda: all(any(membership(bot_id, "join")(ev) for ev in gm.room_events(r)) for r in rooms),
                        timeout=60, what="the bot joined every room")
    for player in players:
        rolls = {}
        for room in rooms:
            await player.join(room)
            rolls[room] = await player.say(room, "!tiro d6")
        for room, roll in rolls.items():
            await player.wait_for(room, reply_to(roll, bot_id), timeout=30, what="roll before the restart")
    return rooms


def stored(config) -> dict[str, dict]:
    store = Store(config.db_path)
    try:
        return MatrixStore(store).room_auths()
    finally:
        store.close()


async def test_restart_answers_every_room_without_reading_room_state(cast, run_bot, counting_proxy):
    ana, bot_id = cast.players[0], cast.bot_user.user_id
    config = cast.config(matrix={"homeserver": counting_proxy.url})
    async with run_bot(config):
        rooms = await make_rooms(cast, ROOMS, [ana])
    rolls = {room: await ana.say(room, "!tiro 2d6 mientras dormía") for room in rooms}
    counting_proxy.reset()
    async with run_bot(config):
        for room, roll in rolls.items():
            await ana.wait_for(room, reply_to(roll, bot_id), timeout=30, what="roll sent while the bot was down")
    assert any(path.endswith("/sync") for _, path in counting_proxy.requests)  # the proxy did see the bot
    assert counting_proxy.state_requests() == []


async def test_power_and_gms_changed_while_down_are_honoured(cast, run_bot, counting_proxy):
    """While the bot is down the GM makes Bruno a moderator (power 50: a GM), invites Carla and
    names her GM with ``!master``, and the room talks past the sync's timeline (a gap). After the
    restart, in a narration lock, both may speak and Ana is redacted; no room state is read."""
    gm, ana, bruno, carla = cast.gm, *cast.players
    bot_id = cast.bot_user.user_id
    config = cast.config(enforcement="redact", matrix={"homeserver": counting_proxy.url, "timeline_limit": 3})
    async with run_bot(config):
        room = await open_table(cast, players=2)
    power = await gm.client.room_get_state_event(room, "m.room.power_levels")
    content = dict(power.content)
    content["users"] = {**content.get("users", {}), bruno.user_id: 50}
    assert hasattr(await gm.client.room_put_state(room, "m.room.power_levels", content), "event_id")
    assert not isinstance(await gm.client.room_invite(room, carla.user_id), ErrorResponse)
    await carla.join(room)
    master = await gm.say(room, f"!master {carla.user_id}")
    for i in range(5):
        await ana.say(room, f"charla mientras el bot no está {i}")
    counting_proxy.reset()
    async with run_bot(config):
        await gm.wait_for(room, reacted_to(master, bot_id), what="the ✅ to !master sent while the bot was down")
        await gm.say(room, "-----")
        by_mod = await bruno.say(room, "hablo como moderador")
        by_master = await carla.say(room, "hablo como máster")
        by_player = await ana.say(room, "¿y yo?")
        await ana.wait_for(room, redaction_of(by_player), what="the player redacted during narration")
        assert not any(redaction_of(by_mod)(ev) or redaction_of(by_master)(ev) for ev in ana.room_events(room))
    assert counting_proxy.state_requests() == []
    auth = stored(config)[room]
    assert auth["power"]["users"][bruno.user_id] == 50
    assert {gm.user_id, ana.user_id, bruno.user_id, carla.user_id, bot_id} <= set(auth["members"])
    assert auth["creators"] == [gm.user_id]


async def test_room_whose_stored_state_is_lost_is_read_again_on_first_use(cast, run_bot, counting_proxy):
    gm, ana, bot_id = cast.gm, cast.players[0], cast.bot_user.user_id
    config = cast.config(matrix={"homeserver": counting_proxy.url})
    async with run_bot(config):
        lost, kept = await make_rooms(cast, 2, [ana])
    conn = sqlite3.connect(config.db_path)
    with conn:
        assert conn.execute("DELETE FROM matrix_room_auth WHERE room_id = ?", [lost]).rowcount == 1
    conn.close()
    rolls = {room: await ana.say(room, "!tiro d8 tras perder el estado") for room in (lost, kept)}
    counting_proxy.reset()
    async with run_bot(config):
        for room, roll in rolls.items():
            await ana.wait_for(room, reply_to(roll, bot_id), what="roll after the restart")
    reads = counting_proxy.state_requests()
    assert len(reads) == 1 and reads[0].endswith(f"/rooms/{lost}/state"), reads
    auth = stored(config)[lost]
    assert auth["creators"] == [gm.user_id] and auth["version"] == "12"
    assert {gm.user_id, ana.user_id, bot_id} <= set(auth["members"])
    assert auth["power"]["users"][bot_id] == 50


async def test_rooms_whose_stored_state_is_lost_are_read_concurrently_within_the_bound(cast, run_bot, counting_proxy):
    ana, bot_id = cast.players[0], cast.bot_user.user_id
    config = cast.config(matrix={"homeserver": counting_proxy.url})
    async with run_bot(config):
        rooms = await make_rooms(cast, ROOMS, [ana])
    conn = sqlite3.connect(config.db_path)
    with conn:
        assert conn.execute("DELETE FROM matrix_room_auth").rowcount == ROOMS
    conn.close()
    rolls = {room: await ana.say(room, "!tiro d4 sin estado guardado") for room in rooms}
    counting_proxy.reset()
    async with run_bot(config):
        for room, roll in rolls.items():
            await ana.wait_for(room, reply_to(roll, bot_id), timeout=30, what="roll after losing every room's state")
    reads = counting_proxy.state_requests()
    assert sorted(reads) == sorted(f"/_matrix/client/v3/rooms/{room}/state" for room in rooms), reads
    assert 1 <= counting_proxy.most_state_in_flight <= STATE_FETCHES
    assert set(stored(config)) == set(rooms)


async def test_restart_in_encrypted_rooms_reads_no_member_list(e2e_cast, run_bot, counting_proxy):
    """nio asks for an encrypted room's members before its first send there after a restart
    (its sync loads them lazily); the stored members spare that request."""
    ana, bot_id = e2e_cast.players[0], e2e_cast.bot_user.user_id
    config = e2e_cast.config(matrix={"homeserver": counting_proxy.url})
    async with run_bot(config):
        rooms = [await open_e2e_table(e2e_cast, players=1) for _ in range(3)]
    rolls = {room: await ana.say(room, "!tiro 2d6 cifrada mientras dormía") for room in rooms}
    counting_proxy.reset()
    async with run_bot(config):
        for room, roll in rolls.items():
            await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), timeout=30,
                               what="encrypted roll sent while the bot was down")
    assert counting_proxy.state_requests() == []
