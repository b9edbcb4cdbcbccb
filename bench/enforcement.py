"""Floor locks on a local Synapse: how fast a player's message is redacted, and how tight mute is.

- redact mode: the GM opens a narration lock (``-----``), a player writes; time from the
  player's message to the bot's redaction (both server timestamps), p50/p99. For reference,
  the time from the same message to the bot's lock notice, and, in the same run, the time
  from a roll to its reply (the plain round trip through this Synapse).
- mute mode: the GM opens a lock; once the bot's ``m.room.power_levels`` change is in the
  room, the player tries to write several times: how many did the server accept (target 0).
  Also the race no bot can win: the player writes right after the GM's dash line, before the
  bot has seen it: how many the server accepted and whether each was then redacted.

    python bench/enforcement.py [--locks 50] [--mute-locks 20]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synapse import RolbotProcess, SynapseServer, percentile, version

from tests.matrix.conftest import Chat, membership, redaction_of, reply_to
from tests.matrix.test_matrix_protocol import power_levels_by


def ts_of(chat: Chat, room: str, pred) -> int:
    return next(ev["origin_server_ts"] for ev in chat.room_events(room) if pred(ev))


def by_id(event_id: str):
    return lambda ev: ev.get("event_id") == event_id


async def table(gm: Chat, player: Chat, bot_id: str, power: int) -> str:
    room = await gm.create_room(invite=[bot_id, player.user_id], power_users={bot_id: power})
    await gm.wait_for(room, membership(bot_id, "join"), timeout=30, what="bot join")
    await player.join(room)
    claim = await player.say(room, "!pj McAvoy")
    await player.wait_for(room, reply_to(claim, bot_id), what="claim")
    return room


async def redact_mode(gm: Chat, player: Chat, bot_id: str, locks: int) -> dict[str, list[int]]:
    room = await table(gm, player, bot_id, power=50)
    out: dict[str, list[int]] = {"redaction": [], "notice": [], "roll": []}
    for i in range(locks):
        roll = await player.say(room, f"!tiro d6 {i}")
        await player.wait_for(room, reply_to(roll, bot_id), what="roll reply")
        out["roll"].append(ts_of(player, room, reply_to(roll, bot_id)) - ts_of(player, room, by_id(roll)))
        dash = await gm.say(room, "-----")
        # The player writes once the lock is in the room (their client shows the GM's line).
        await player.wait_for(room, by_id(dash), what="lock line")
        talk = await player.say(room, f"¿puedo hablar? {i}")
        await player.wait_for(room, redaction_of(talk), what="redaction")
        await player.wait_for(room, reply_to(talk, bot_id), what="lock notice")
        sent = ts_of(player, room, by_id(talk))
        out["redaction"].append(ts_of(player, room, redaction_of(talk)) - sent)
        out["notice"].append(ts_of(player, room, reply_to(talk, bot_id)) - sent)
        close = await gm.say(room, "-----")
        await player.wait_for(room, by_id(close), what="unlock line")
    return out


async def mute_mode(gm: Chat, player: Chat, bot_id: str, locks: int, tries: int) -> dict[str, int]:
    room = await table(gm, player, bot_id, power=100)
    mode = await gm.say(room, "!modo mute")
    await gm.wait_for(room, reply_to(mode, bot_id), what="mode set")
    counts = {"tries": 0, "accepted": 0, "race_tries": 0, "race_accepted": 0, "race_redacted": 0}
    for i in range(locks):
        muted_before = sum(power_levels_by(bot_id)(ev) for ev in gm.room_events(room))
        await gm.say(room, "-----")
        race = await player.try_say(room, f"justo a tiempo {i}")
        counts["race_tries"] += 1
        if hasattr(race, "event_id"):
            counts["race_accepted"] += 1
            await player.wait_for(room, redaction_of(race.event_id), what="redaction of the racing message")
            counts["race_redacted"] += 1
        await gm.wait_until(lambda: sum(power_levels_by(bot_id)(ev) for ev in gm.room_events(room)) > muted_before,
                            what="mute applied")
        for j in range(tries):
            resp = await player.try_say(room, f"intento {i}.{j}")
            counts["tries"] += 1
            if hasattr(resp, "event_id"):
                counts["accepted"] += 1
        await gm.say(room, "-----")
        await gm.wait_until(lambda: sum(power_levels_by(bot_id)(ev) for ev in gm.room_events(room))
                            > muted_before + 1, what="mute lifted")
    return counts


async def measure(hs: SynapseServer, locks: int, mute_locks: int, workdir: Path):
    syn = hs.synapse
    gm = Chat(syn, syn.register("master"))
    player = Chat(syn, syn.register("ana"))
    bot_user = syn.register("rolbot")
    bot = RolbotProcess(hs, bot_user, workdir / "rolbot")
    try:
        bot.start()
        redact = await redact_mode(gm, player, bot_user.user_id, locks)
        mute = await mute_mode(gm, player, bot_user.user_id, mute_locks, tries=3)
        return redact, mute
    finally:
        bot.stop()
        await gm.close()
        await player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--locks", type=int, default=50)
    parser.add_argument("--mute-locks", type=int, default=20)
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, SynapseServer() as hs:
        redact, mute = asyncio.run(measure(hs, args.locks, args.mute_locks, Path(tmp)))
    print(f"Synapse {version()} local ({time.monotonic() - start:.0f} s en total)")
    print(f"modo redact, {args.locks} bloqueos (mensaje del jugador -> evento del bot, marcas del servidor):")
    for key, label in (("redaction", "redacción"), ("notice", "aviso al jugador"), ("roll", "respuesta a una tirada")):
        v = redact[key]
        print(f"  {label:24} p50 {percentile(v, 50):5.0f} ms   p99 {percentile(v, 99):5.0f} ms")
    ratio = percentile(redact["redaction"], 50) / percentile(redact["roll"], 50)
    print(f"  ratio p50 redacción/tirada (misma sala, intercaladas): {ratio:.2f}")
    print(f"modo mute, {args.mute_locks} bloqueos:")
    print(f"  mensajes aceptados por el servidor con el silencio aplicado: {mute['accepted']}/{mute['tries']}"
          "  (objetivo 0)")
    print(f"  carrera (escribe justo tras la raya del máster, antes de que el bot la vea): "
          f"{mute['race_accepted']}/{mute['race_tries']} aceptados, {mute['race_redacted']} de ellos redactados")


if __name__ == "__main__":
    main()
