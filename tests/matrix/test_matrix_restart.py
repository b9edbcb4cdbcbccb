"""Restarts, crashes and rate limits: nothing answered twice, nothing lost."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter

from tests.matrix.conftest import ROOT, redaction_of, reply_counts, reply_to
from tests.matrix.test_matrix_protocol import open_table, power_levels_by
from tests.matrix.test_rate_limit import answered


async def test_backlog_and_open_lock_handled_after_restart(cast, run_bot):
    """Messages sent while the bot was down (more than one sync timeline holds) are all handled,
    and a lock opened before the stop is still enforced after it."""
    gm, ana, bruno = cast.gm, *cast.players[:2]
    bot_id = cast.bot_user.user_id
    config = cast.config(matrix={"timeline_limit": 3})
    async with run_bot(config):
        room = await open_table(cast)
    rolls = [await ana.say(room, f"!tiro d6 tirada {i}") for i in range(5)]
    await gm.say(room, "-----")
    talk = await ana.say(room, "hablo durante la narración")
    late = await bruno.say(room, "!tiro d20")
    async with run_bot(config):
        for roll in rolls:
            await ana.wait_for(room, reply_to(roll, bot_id), what="roll sent while the bot was down")
        await ana.wait_for(room, redaction_of(talk), what="redaction of a message sent while down")
        await bruno.wait_for(room, redaction_of(late), what="redaction of a roll sent while down")
    # Restart with the lock still open: it is still enforced.
    async with run_bot(config):
        again = await bruno.say(room, "¿ya?")
        await bruno.wait_for(room, redaction_of(again), what="lock enforced after a restart")
        await gm.say(room, "-----")
        free = await bruno.say(room, "!tiro d6")
        await bruno.wait_for(room, reply_to(free, bot_id), what="roll after closing")
    counts = reply_counts(ana.room_events(room), bot_id)
    assert all(counts[r] == 1 for r in rolls), counts


async def open_muted_table(cast, run_bot, config) -> tuple[str, dict]:
    """A table whose GM opened a narration that the bot muted; the power levels from before it."""
    gm, bot_id = cast.gm, cast.bot_user.user_id
    async with run_bot(config):
        room = await open_table(cast, power=100, players=1)
        await gm.sync_once(0)
        original = [ev for ev in gm.room_events(room) if ev.get("type") == "m.room.power_levels"][-1]["content"]
        await gm.say(room, "-----")
        await gm.wait_for(room, power_levels_by(bot_id, lambda c: c.get("events_default", 0) > 0), what="mute")
    return room, original


async def test_mute_lock_survives_restart_and_is_restored(cast, run_bot):
    gm, ana = cast.gm, cast.players[0]
    bot_id = cast.bot_user.user_id
    config = cast.config(enforcement="mute")
    room, original = await open_muted_table(cast, run_bot, config)
    async with run_bot(config):
        refused = await ana.try_say(room, "¿puedo?")
        assert getattr(refused, "status_code", None) == "M_FORBIDDEN"
        await gm.say(room, "-----")
        await gm.wait_for(room, power_levels_by(bot_id, lambda c: c == original), what="restored after restart")
        await ana.say(room, "ya puedo")


# --------------------------------------------------------------------------- subprocess bot


class BotProcess:
    def __init__(self, cast, tmp_path) -> None:
        self.config_path = cast.write_config(tmp_path / "rolbot.toml")
        self.log = tmp_path / "bot.log"
        self.health = f"http://127.0.0.1:{cast.web_port}/healthz"
        self.proc: subprocess.Popen | None = None

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with open(self.log, "ab") as out:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(self.config_path)],
                                         cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not self._healthy():
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the bot process never became healthy"
            await asyncio.sleep(0.05)  # polling /healthz, the bot's own readiness signal

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.health, timeout=1) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(30)


async def test_kill_9_and_restart_loses_nothing_and_repeats_nothing(cast, tmp_path):
    ana = cast.players[0]
    bot_id = cast.bot_user.user_id
    bot = BotProcess(cast, tmp_path)
    await bot.start()
    try:
        room = await open_table(cast, players=1)
        rolls = [await ana.say(room, f"!tiro 3d6 ráfaga {i}") for i in range(20)]

        def answered() -> Counter:
            return reply_counts(ana.room_events(room), bot_id)

        await ana.wait_until(lambda: sum(answered()[r] for r in rolls) >= 3, what="first replies")
        bot.kill9()
        more = [await ana.say(room, f"!tiro d8 mientras está caído {i}") for i in range(3)]
        await bot.start()
        await ana.wait_until(lambda: all(answered()[r] >= 1 for r in rolls + more), timeout=30,
                             what="every roll answered after the crash")
        marker = await ana.say(room, "!tiro d4 marca")
        await ana.wait_for(room, reply_to(marker, bot_id), what="marker reply")
        counts = answered()
        assert all(counts[r] == 1 for r in rolls + more + [marker]), counts
        with urllib.request.urlopen(bot.health.replace("healthz", "metrics"), timeout=5) as resp:
            metrics = resp.read().decode()
        assert "rolbot_events_handled_total" in metrics and "rolbot_sync_lag_seconds" in metrics
        assert bot.terminate() == 0
    finally:
        if bot.proc and bot.proc.poll() is None:
            bot.proc.kill()


async def test_burst_under_default_rate_limit_loses_no_reply(cast, run_bot, synapse):
    """The bot account keeps Synapse's default message rate limit (0.2/s, burst 10)."""
    limited = synapse.register("rolbotlento", ratelimited=True)
    cast.bot_user = limited
    ana = cast.players[0]
    async with run_bot(cast.config()) as running:
        room = await open_table(cast, players=1)
        rolls = [await ana.say(room, f"!tiro d10 {i}") for i in range(11)]
        # Once limited, replies are coalesced: a roll is answered by a reply or a link to it.
        await ana.wait_until(lambda: set(answered(ana.room_events(room), limited.user_id)) >= set(rolls),
                             timeout=60, what="every roll of the burst answered")
        assert all(answered(ana.room_events(room), limited.user_id)[r] == 1 for r in rolls)
        assert running.bot.metrics.retries > 0  # it really was rate-limited


async def test_saved_power_levels_without_an_open_lock_are_restored_at_start(cast, run_bot):
    """If the table no longer has a muted lock (here: its state edited while the bot was down),
    the power levels saved when muting are put back at start-up."""
    from bot.core.state import RoomState
    from bot.core.store import Store

    gm = cast.gm
    bot_id = cast.bot_user.user_id
    config = cast.config(enforcement="mute")
    room, original = await open_muted_table(cast, run_bot, config)
    store = Store(config.db_path)
    data = store.rooms.load(room)
    assert data["lock"] and data["lock"]["muted"]
    with store.transaction():
        store.rooms.save(room, RoomState.from_dict({**data, "lock": None}).to_json())
    store.close()
    async with run_bot(config):
        await gm.wait_for(room, power_levels_by(bot_id, lambda c: c == original), what="reconciled power levels")
