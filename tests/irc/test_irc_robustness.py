"""Server restart in the middle of a lock, a burst of rolls under flood control, `rolbot run` with only [irc]."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
import urllib.error
import urllib.request

from bot.config import parse_config
from bot.irc.metrics import IrcMetrics
from tests.irc.conftest import CHANNEL, ROOT, RunningIrcBot, connect_player, free_port, irc_config, wait_until
from tests.irc.test_irc_basic import op_bot, wait_state


async def test_server_restart_mid_lock_leaves_the_channel_right(ngircd, table_cast, tmp_path):
    dj, ana = table_cast["dj"], table_cast["ana"]
    config = irc_config(ngircd.port, tmp_path / "st")
    config = parse_config({"irc": {"server": "127.0.0.1", "port": ngircd.port, "channels": [CHANNEL],
                                   "flood_interval_s": 0.5},
                           "storage": {"path": str(tmp_path / "st")}, "web": {"bind": ""},
                           "rooms": {CHANNEL: {"gms": ["@dj:~dj@127.0.0.1"]}}}, env={})
    async with RunningIrcBot(config) as running:
        await op_bot(dj, running)
        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "🔒")
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": ""})

        for player in table_cast.values():
            await player.close()
        ngircd.stop()
        ngircd.start()
        await wait_until(lambda: running.metrics.part(IrcMetrics).reconnects >= 1 and running.metrics.healthy,
                         "the bot back in its channel", timeout=60)
        dj = await connect_player(ngircd.port, "dj")
        await dj.join(CHANNEL)
        ana = await connect_player(ngircd.port, "ana")
        await ana.join(CHANNEL)
        try:
            # The bot came back first (operator of the new channel): the lock holds, the GM speaks.
            await wait_state(dj, True, {"dj": "+", "rolbot": "@", "ana": ""})
            mark = ana.say(CHANNEL, "¿seguimos?")
            await ana.wait_for(lambda m: m.command == "404", "the server's refusal", mark)
            mark = dj.say(CHANNEL, "-----")
            await dj.notice_from("rolbot", mark, "🔓")
            await wait_state(dj, False, {"dj": "", "rolbot": "@", "ana": ""})
        finally:
            await dj.close()
            await ana.close()


async def test_lost_op_mid_lock_is_asked_for_and_caught_up(ngircd, table_cast, tmp_path):
    dj = table_cast["dj"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        await op_bot(dj, running)
        dj.say(CHANNEL, "-----")
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": ""})
        mark = len(dj.lines)
        dj.send_raw(f"MODE {CHANNEL} -o rolbot")
        asked = await dj.notice_from("rolbot", mark, "+o", target="dj")  # +m: the channel would not hear it
        assert "/op rolbot" in asked.text
        dj.say(CHANNEL, "-----")  # closed while the bot cannot change modes
        await op_bot(dj, running)
        await wait_state(dj, False, {"dj": "@", "rolbot": "@", "bob": "", "ana": ""})


async def test_a_burst_of_50_rolls_is_answered_without_a_flood_kill(ngircd, tmp_path):
    players = [await connect_player(ngircd.port, f"p{i}") for i in range(5)]
    for player in players:
        await player.join(CHANNEL)
    try:
        config = irc_config(ngircd.port, tmp_path / "st", flood_burst=4, flood_interval_s=1.0)
        async with RunningIrcBot(config) as running:
            watcher = players[0]
            mark = len(watcher.lines)
            for n in range(10):
                for player in players:
                    player.say(CHANNEL, f"!tiro 1d20 ronda{n}")

            def answered() -> int:
                return sum(m.text.count("🎲") for m in watcher.lines[mark:] if m.nick == "rolbot")

            await watcher.wait_for(lambda m: answered() >= 50, "50 answers", mark, timeout=120)
            assert answered() == 50
            assert running.metrics.part(IrcMetrics).reconnects == 0 and "Excess" not in ngircd.log()
            assert running.metrics.coalesced_messages > 0  # the bucket made the bot join replies
    finally:
        for player in players:
            await player.close()


async def test_rolbot_run_with_only_irc(ngircd, tmp_path):
    web = free_port()
    conf = tmp_path / "rolbot.toml"
    conf.write_text(f'[irc]\nserver = "127.0.0.1"\nport = {ngircd.port}\nnick = "rolbot"\nchannels = ["{CHANNEL}"]\n'
                    f'[storage]\npath = "{tmp_path / "st"}"\n[web]\nbind = "127.0.0.1:{web}"\n')
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", "--config", str(conf),
                                                cwd=ROOT)
    ana = await connect_player(ngircd.port, "ana")
    try:
        def health() -> int:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/healthz", timeout=2) as resp:
                    return resp.status
            except urllib.error.HTTPError as err:
                return err.code
            except OSError:
                return 0

        statuses: list[int] = []

        async def healthy() -> bool:
            statuses.append(await asyncio.to_thread(health))
            return statuses[-1] == 200

        deadline = time.monotonic() + 60
        while not await healthy() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # polling /healthz until it says so, as a supervisor would
        assert statuses[-1] == 200
        await ana.join(CHANNEL)
        mark = ana.say(CHANNEL, "!tiro 1d6")
        await ana.notice_from("rolbot", mark, "1d6")
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await ana.close()


async def test_the_bot_restarted_mid_lock_still_restores_the_channel_exactly(ngircd, table_cast, tmp_path):
    dj, bob = table_cast["dj"], table_cast["bob"]
    dj.send_raw(f"MODE {CHANNEL} +v bob")
    config = irc_config(ngircd.port, tmp_path / "st")
    async with RunningIrcBot(config) as running:
        await op_bot(dj, running)
        before = {"dj": "@", "rolbot": "@", "bob": "+", "ana": ""}
        await wait_state(dj, False, before)
        dj.say(CHANNEL, "-----")
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": ""})
    mark = len(dj.lines)
    async with RunningIrcBot(config):  # a new process would see the same: the store holds the lock
        await dj.wait_for(lambda m: m.command == "JOIN" and m.nick == "rolbot", "the bot back", mark)
        dj.send_raw(f"MODE {CHANNEL} +o rolbot")
        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "🔓")
        await wait_state(dj, False, before)
    assert bob.lines  # bob stayed in the channel all along


async def test_replies_committed_before_a_crash_are_sent_at_the_next_start(ngircd, table_cast, tmp_path):
    from bot.core.events import Event

    ana = table_cast["ana"]
    config = irc_config(ngircd.port, tmp_path / "st")
    crashed = RunningIrcBot(config)  # never started: as if it died between the commit and the send
    actions = crashed.table.handle(Event("#mesa", "@ana:~ana@127.0.0.1", "!tiro 1d6 antes del fallo", "irc:x:1"))
    assert [a.kind for a in actions] == ["send"]
    crashed.store.close()
    mark = len(ana.lines)
    async with RunningIrcBot(config) as running:
        await ana.notice_from("rolbot", mark, "antes del fallo")
        await wait_until(lambda: not running.table.pending_actions(), "the reply marked sent")
