"""The GM's screen (``/master/<token>``): how long the server takes to render it over a 40-combatant
fight, and how long a click takes to reach the room.

    python bench/screen.py [--renders 500] [--clicks 60]

- render: ``ScreenPages.page`` in the server process (p50, p99) for a Savage room of 40 combatants
  (2 players' characters and 38 NPCs) in a running combat, each with a sheet, some of them hurt, with
  secret rolls waiting; baseline: the same room's ``!estado`` chat message, in the same run.
- click: ``rolbot run`` (a process of its own, as in production) against a local Synapse; the GM reads
  the link from the bot's encrypted direct message and posts "Siguiente" as the page's form does
  (``POST /master/TOKEN`` with the page's nonce); the delay runs from just before the POST to the
  server timestamp of the bot's message in the room (p50, p95). Clicks are paced at
  ``CLICK_EVERY_S`` (under the screen's post rate, as a GM clicks); baseline: the same GM typing
  ``!siguiente`` in the chat (from its send to the bot's message, server timestamps both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synapse import RolbotProcess, SynapseServer, percentile, version

from bot.core.events import Event
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.screen import Screen
from bot.transport import TransportHub
from bot.web.screen_page import ScreenPages
from tests.matrix.conftest import Chat, membership

ROOM, GM = "!bench:local", "@gm:bench"
CLICK_EVERY_S = 0.6
FIGHT = ["@ana:bench: !pj Ana", "@bea:bench: !pj Bea", "@gm:bench: !pnj Orco x38", "@gm:bench: !combate",
         "@gm:bench: !iniciativa", "@gm:bench: !daño Orco 3 6", "@gm:bench: !daño Orco 7 12",
         "@gm:bench: !tiro d20 oculta", "@gm:bench: !tiro 2d6 oculta", "@gm:bench: !permite Ana"]


def render_times(renders: int) -> tuple[list[float], list[float], int]:
    settings = TableSettings(RoomSettings(system="savage", gms=(GM,), public_url="https://rol.example.org"))
    table = Table(Store(), settings, random.Random(1), games=GAMES)
    for i, line in enumerate(FIGHT):
        sender, _, text = line.partition(": ")
        table.handle(Event(ROOM, sender, text, f"$b{i}", ts=1_700_000_000_000 + i))
    for n in range(1, 39):
        table.handle(Event(ROOM, GM, f"!ficha Orco {n} dureza {5 + n % 3} parada {4 + n % 4} pelear d{6 + 2 * (n % 3)}",
                           f"$f{n}", ts=1_700_000_001_000 + n))
    table.handle(Event(ROOM, GM, "!pantalla", "$p", ts=1_700_000_002_000))
    token = table.store.screen_links.token(ROOM, GM)
    assert token is not None
    combat = table.room(ROOM).combat
    assert combat is not None and len(combat.order) == 40
    pages = ScreenPages(Screen(TransportHub(table, Metrics())))
    page: list[float] = []
    status: list[float] = []
    for i in range(renders):
        start = time.perf_counter()
        html = pages.page(ROOM, GM, token)
        page.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        table.handle(Event(ROOM, GM, "!estado", f"$s{i}", ts=1_700_000_003_000 + i))
        status.append((time.perf_counter() - start) * 1000)
    return page, status, len(html)


async def click_delays(clicks: int) -> tuple[list[float], list[float]]:
    with SynapseServer() as hs, tempfile.TemporaryDirectory(prefix="rolbot-bench-screen-") as tmp:
        syn = hs.synapse
        gm = Chat(syn, syn.register("master"), store=Path(tmp) / "keys-gm")
        ana = Chat(syn, syn.register("ana"))
        bot_user = syn.register("rolbot")
        rolbot = RolbotProcess(hs, bot_user, Path(tmp) / "rolbot", bot={"system": "savage"})
        base = f"http://127.0.0.1:{rolbot.web_port}"
        text = rolbot.config_path.read_text()
        bind = f'bind = "127.0.0.1:{rolbot.web_port}"'
        rolbot.config_path.write_text(text.replace(bind, f'{bind}\npublic_url = "{base}"'))
        try:
            await gm.sync_once(0)
            rolbot.start()
            room = await gm.create_room(invite=[bot_user.user_id, ana.user_id])
            await ana.join(room)
            await gm.wait_for(room, membership(bot_user.user_id, "join"), timeout=30, what="rolbot join")

            def from_bot(since_ms: float) -> Any:
                """The bot's first room message stamped at or after ``since_ms`` (a step's later messages,
                such as a new round's cards, are older than the next step's trigger)."""
                return lambda ev: (ev.get("sender") == bot_user.user_id and ev.get("type") == "m.room.message"
                                   and ev.get("origin_server_ts", 0) >= since_ms)

            async def say(chat: Chat, line: str) -> tuple[int, dict]:
                event_id = await chat.say(room, line)
                await gm.wait_until(lambda: any(ev.get("event_id") == event_id for ev in gm.room_events(room)),
                                    timeout=30, what=line)
                sent = next(ev["origin_server_ts"] for ev in gm.room_events(room) if ev.get("event_id") == event_id)
                answer = await gm.wait_for(room, from_bot(sent), timeout=30, what=f"the answer to {line}")
                return sent, answer

            for line in ("!pj Ana", "!pnj Orco x10", "!combate", "!iniciativa"):
                await say(ana if line == "!pj Ana" else gm, line)
            await say(gm, "!pantalla")
            await gm.wait_until(lambda: bool(gm.invites - {room}), timeout=30, what="the direct room")
            dm = next(iter(gm.invites - {room}))
            if dm not in gm.client.rooms:
                await gm.join(dm)
            message = await gm.wait_for(dm, lambda ev: "/master/" in (ev.get("content") or {}).get("body", ""),
                                        timeout=30, what="the link")
            url = re.search(r"(http://\S+/master/[A-Za-z0-9_-]+)", message["content"]["body"])
            assert url is not None
            chat: list[float] = []
            screen: list[float] = []
            async with aiohttp.ClientSession() as http:
                async with http.get(url[1]) as response:
                    nonce = re.search(r'name="nonce" value="([^"]+)"', await response.text())
                assert nonce is not None
                for _ in range(clicks):
                    sent, answer = await say(gm, "!siguiente")
                    chat.append(answer["origin_server_ts"] - sent)
                    await asyncio.sleep(CLICK_EVERY_S)  # a GM's pace, under the screen's post rate
                    started = time.time()
                    async with http.post(url[1], data={"nonce": nonce[1], "accion": "siguiente"},
                                         headers={"Origin": base}, allow_redirects=False) as response:
                        assert response.status == 303, response.status
                    answer = await gm.wait_for(room, from_bot(started * 1000), timeout=30, what="the click's message")
                    screen.append(answer["origin_server_ts"] - started * 1000)
                    gm.events[room] = gm.events[room][-50:]
            return screen, chat
        finally:
            rolbot.stop()
            for c in (gm, ana):
                await c.close()


def row(what: str, values: list[float], qs: tuple[float, ...]) -> str:
    return f"{what:<50}" + "  ".join(f"p{q:g} {percentile(values, q):7.2f} ms" for q in qs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=500)
    parser.add_argument("--clicks", type=int, default=60)
    args = parser.parse_args()
    page, status, size = render_times(args.renders)
    print(f"render, 40 combatants ({size // 1024} KiB), {args.renders} renders")
    print(row("  screen page (ScreenPages.page)", page, (50, 99)))
    print(row("  baseline: !estado through Table.handle", status, (50, 99)))
    screen, chat = asyncio.run(click_delays(args.clicks))
    print(f"click to room message, Synapse {version()}, {args.clicks} clicks")
    print(row("  screen: POST Siguiente -> the bot's message", screen, (50, 95)))
    print(row("  baseline: !siguiente in the chat", chat, (50, 95)))
    print(json.dumps({"render_p99_ms": round(percentile(page, 99), 2),
                      "click_p50_ms": round(percentile(screen, 50), 1), "click_p95_ms": round(percentile(screen, 95), 1)}))


if __name__ == "__main__":
    main()
