"""Under Synapse's default message rate limit (``rc_message``: 0.2/s after a burst of 10), a burst
of rolls is answered in full, in coalesced messages (docs/contracts.md#3.4), and the GM is told once, privately."""

from __future__ import annotations

import re
import time
from collections import Counter
from urllib.parse import unquote

from tests.matrix.conftest import Chat
from tests.matrix.test_matrix_protocol import open_table

LINK = re.compile(r"https://matrix\.to/#/[^/\s\"]+/([^\s\")<]+)")


def bot_messages(events: list[dict], bot_id: str) -> list[dict]:
    return [ev for ev in events if ev.get("sender") == bot_id and ev.get("type") == "m.room.message"]


def answers(message: dict) -> list[str]:
    """The events a bot message answers: the one it replies to and the rolls it links."""
    content = message.get("content") or {}
    out = [unquote(m) for m in LINK.findall(content.get("body", ""))]
    rel = (content.get("m.relates_to") or {}).get("m.in_reply_to") or {}
    if isinstance(rel.get("event_id"), str):
        out.append(rel["event_id"])
    return out


def answered(events: list[dict], bot_id: str) -> Counter[str]:
    return Counter(e for msg in bot_messages(events, bot_id) for e in answers(msg))


async def test_burst_from_four_players_is_coalesced_under_the_default_rate_limit(cast, run_bot, synapse, caplog):
    limited = synapse.register("rolbotlimitado", ratelimited=True)  # Synapse's default rc_message
    cast.bot_user = limited
    bot_id = limited.user_id
    gm = cast.gm
    dario = Chat(synapse, synapse.register("dario"))
    try:
        async with run_bot(cast.config()) as running:
            room = await open_table(cast, players=3)
            await gm.client.room_invite(room, dario.user_id)
            await dario.join(room)
            players = [*cast.players, dario]
            names = {p.user_id: name for p, name in zip(players, ("McAvoy", "Kurtz", "Lerma"))}
            names[dario.user_id] = dario.user_id
            roller: dict[str, str] = {}
            start = time.monotonic()
            for i in range(20):
                player = players[i % 4]
                roll = await player.say(room, f"!tiro 1d20+{i} ráfaga")
                roller[roll] = player.user_id
            ana = cast.players[0]
            await ana.wait_until(lambda: set(answered(ana.room_events(room), bot_id)) >= set(roller),
                                 timeout=90, what="every roll of the burst answered")
            elapsed = time.monotonic() - start
            events = ana.room_events(room)
            counts = answered(events, bot_id)
            assert all(counts[r] == 1 for r in roller), counts  # each once: none lost, none twice
            by_id = {ev.get("event_id"): ev for ev in events}
            messages = [m for m in bot_messages(events, bot_id) if set(answers(m)) & set(roller)]
            coalesced = [m for m in messages if len(set(answers(m)) & set(roller)) > 1]
            assert coalesced, "no reply was coalesced: was the bot rate-limited?"
            assert len(messages) < len(roller)
            for msg in coalesced:
                content = msg["content"]
                target = content["m.relates_to"]["m.in_reply_to"]["event_id"]
                linked = [unquote(m) for m in LINK.findall(content["body"])]
                rolls_in = [e for e in answers(msg) if e in roller]
                # It replies to the last roll it carries and links the others.
                assert target == max(rolls_in, key=lambda e: by_id[e]["origin_server_ts"])
                assert target not in linked and len(linked) == len(rolls_in) - 1
                # Each result on its own line, attributed to its roller, with its link.
                lines = content["body"].splitlines()
                for event_id in linked:
                    line = next(ln for ln in lines if event_id in unquote(ln))
                    assert names[roller[event_id]] in line and "🎲" in line, line
                assert len(LINK.findall(content["formatted_body"])) == len(linked)  # user pills aside
                assert content["body"].count("(↪ tirada: ") == len(linked)  # each link says what it answers
                # Whoever a reply would have notified is mentioned.
                assert {roller[e] for e in rolls_in} <= set(content["m.mentions"]["user_ids"]), content["m.mentions"]
            # The GMs are told, privately (issue 29 item 9): nothing in the room explains the server to the players.
            assert not [m for m in bot_messages(events, bot_id) if "override_ratelimit" in m["content"]["body"]
                        or "frenando" in m["content"]["body"]]
            await gm.wait_until(lambda: bool(gm.invites), timeout=60, what="the GM's private room")
            private, = gm.invites
            await gm.join(private)
            assert running.bot.matrix_store.private_room(gm.user_id) == private
            await gm.wait_for(private, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.encrypted",
                              timeout=60, what="the rate-limit notice in the GM's private room")
            assert any("rate-limiting" in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)
            metrics = running.bot.metrics
            assert metrics.rate_limited > 0 and metrics.coalesced_messages == len(coalesced)
            # How long each roll waited for its visible result (server timestamps).
            sent = {e: m["origin_server_ts"] for m in messages for e in answers(m)}
            delays = sorted((sent[r] - by_id[r]["origin_server_ts"]) / 1000 for r in roller)
            p95 = delays[int(0.95 * (len(delays) - 1))]
            print(f"\nburst of 20: all answered in {elapsed:.1f} s; {len(messages)} messages "
                  f"({len(coalesced)} coalesced); delay p50 {delays[len(delays) // 2]:.2f} s, "
                  f"p95 {p95:.2f} s, max {delays[-1]:.2f} s")
    finally:
        await dario.close()
