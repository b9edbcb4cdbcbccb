"""`rolbot run` with [matrix] and [irc]: one table core, one store, /healthz waits for both."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

from bot.config import parse_config
from bot.core.store import Store
from bot.runner import run_transports
from tests.irc.conftest import CHANNEL, connect_player
from tests.matrix.conftest import cast, membership, reply_to, synapse  # noqa: F401 (fixtures)


def status(port: int, path: str = "/healthz") -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, ""
    except OSError:
        return 0, ""


async def test_matrix_and_irc_in_one_process(cast, ngircd, tmp_path):  # noqa: F811
    gm, ana_matrix = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    data = cast.config_dict(matrix={"allowed_inviters": [gm.user_id]})
    data["irc"] = {"server": "127.0.0.1", "port": ngircd.port, "channels": [CHANNEL], "flood_interval_s": 0.5}
    config = parse_config(data, env={})
    stop = asyncio.Event()
    seen: list[int] = []

    async def health() -> int:
        seen.append((await asyncio.to_thread(status, cast.web_port))[0])
        return seen[-1]

    running = asyncio.ensure_future(run_transports(config, stop))
    ana_irc = await connect_player(ngircd.port, "ana")
    try:
        while await health() != 200:
            assert not running.done(), running.result()
            await asyncio.sleep(0.05)  # polling /healthz as a supervisor would
        assert 503 in seen  # not healthy before both networks were up

        room = await gm.create_room(invite=[bot_id, ana_matrix.user_id])
        await ana_matrix.join(room)
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        roll = await ana_matrix.say(room, "!tiro 1d6 desde matrix")
        await ana_matrix.wait_for(room, reply_to(roll, bot_id), what="roll reply")

        await ana_irc.join(CHANNEL)
        mark = ana_irc.say(CHANNEL, "!tiro 1d6 desde irc")
        await ana_irc.notice_from("rolbot", mark, "desde irc")
        metrics = (await asyncio.to_thread(status, cast.web_port, "/metrics"))[1]
        assert "rolbot_irc_reconnects_total 0" in metrics and "rolbot_up 1" in metrics
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 30) == 0
        await ana_irc.close()
    store = Store(config.db_path)  # one store: both rooms' events were handled there
    rooms = {row[0] for row in store.db.execute("SELECT DISTINCT room_id FROM handled")}
    store.close()
    assert {room, "#mesa"} <= rooms
