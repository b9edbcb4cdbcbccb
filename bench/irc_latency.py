"""Roll reply latency through a local ngircd: rolbot against a bare IRC bot on the same library
(pydle) with the same flood control (``bench/irc_bare_bot.py``), same server, same run, alternated.

rolbot (as ``rolbot run`` with only ``[irc]``) sits in ``#rol``, the bare bot in ``#bare``. Players
(raw sockets, several so that ngircd's per-client throttling never delays a roll) take turns to send
``!tiro 1d20``, alternately to each channel, waiting for the answer before the next roll. The
latency is the time from the roll leaving the player's socket to the bot's NOTICE arriving at it
(both ends on the same clock). Both bots use a bucket of ``--burst`` lines refilled every
``--interval`` seconds, and rolls are paced so that neither ever waits on it.

    python bench/irc_latency.py [--rolls 200] [--warmup 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._synapse import percentile
from tests.irc.conftest import ROOT, Ngircd, Player, connect_player, free_port

PYTHON = sys.executable
BURST, INTERVAL = 4, 0.25
PLAYERS = 6


async def roll(player: Player, channel: str, bot: str) -> float:
    mark = len(player.lines)
    sent = time.perf_counter()
    player.say(channel, "!tiro 1d20")
    await player.writer.drain()
    await player.wait_for(lambda m: m.command == "NOTICE" and m.nick == bot and "1d20" in m.text, "a reply", mark)
    return (time.perf_counter() - sent) * 1000


async def measure(server: Ngircd, rolls: int, warmup: int, workdir: Path) -> dict[str, list[float]]:
    conf = workdir / "rolbot.toml"
    conf.write_text(f'[irc]\nserver = "127.0.0.1"\nport = {server.port}\nnick = "rolbot"\nchannels = ["#rol"]\n'
                    f"flood_burst = {BURST}\nflood_interval_s = {INTERVAL}\n"
                    f'[storage]\npath = "{workdir / "st"}"\n[web]\nbind = "127.0.0.1:{free_port()}"\n'
                    '[logging]\nlevel = "WARNING"\n')
    rolbot = subprocess.Popen([PYTHON, "-m", "bot.cli", "run", "--config", str(conf)], cwd=ROOT)
    bare = subprocess.Popen([PYTHON, str(ROOT / "bench" / "irc_bare_bot.py"), "--port", str(server.port),
                             "--channel", "#bare", "--burst", str(BURST), "--interval", str(INTERVAL)],
                            stdout=subprocess.PIPE, text=True)
    players: list[Player] = []
    try:
        assert bare.stdout is not None and bare.stdout.readline().strip() == "ready"
        for n in range(PLAYERS):
            player = await connect_player(server.port, f"jugador{n}")
            await player.join("#rol")
            await player.join("#bare")
            players.append(player)
        # rolbot is ready once it answers
        await roll(players[0], "#rol", "rolbot")
        lat: dict[str, list[float]] = {"rolbot": [], "bare": []}
        for i in range(warmup + rolls):
            player = players[i % PLAYERS]
            order = [("#rol", "rolbot"), ("#bare", "barebot")]
            if i % 2:
                order.reverse()
            for channel, bot in order:
                ms = await roll(player, channel, bot)
                if i >= warmup:
                    lat["rolbot" if bot == "rolbot" else "bare"].append(ms)
                await asyncio.sleep(INTERVAL * 1.2)  # the bucket is full again: neither bot waits on it
        return lat
    finally:
        for player in players:
            await player.close()
        for proc in (rolbot, bare):
            proc.terminate()
            proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = Ngircd(Path(tmp))
        server.start()
        try:
            lat = asyncio.run(measure(server, args.rolls, args.warmup, Path(tmp)))
        finally:
            server.stop()
    version = " ".join(subprocess.run(["ngircd", "--version"], capture_output=True, text=True).stdout.split()[:2])
    print(f"{version} local; {args.rolls} tiradas (+{args.warmup} de calentamiento), alternadas; "
          f"cubo de {BURST} líneas, una cada {INTERVAL} s, para los dos")
    print(f"{'bot':10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'media ms':>9}")
    for name, values in lat.items():
        print(f"{name:10} {percentile(values, 50):8.2f} {percentile(values, 95):8.2f} {percentile(values, 99):8.2f} "
              f"{statistics.fmean(values):9.2f}")
    overhead = percentile(lat["rolbot"], 50) - percentile(lat["bare"], 50)
    print(f"sobrecoste p50 de rolbot: {overhead:+.2f} ms (objetivo: <= +5 ms)")


if __name__ == "__main__":
    main()
