"""Many rooms, a restart, a busy evening and a strict server: rolbot against the bare nio bot.

A local Synapse (message rate limit lifted for every user but the ones of the last phase), N
rooms per size (``--rooms 300 1000``), each with a GM and two players (the busy rooms four), and
two bots invited to all of them: rolbot (``rolbot run``, as in production) and
``bench/bare_bot.py`` (syncs and answers, nothing else). The bots never run at the same time.

Per size, per bot:
- time to join every room it was invited to, and its RSS once joined;
- cold start: both bots stopped, one ``!tiro`` sent to every room, then the bot started: time
  to ready (``/healthz`` 200; the bare bot's first sync) and to its reply in the room written
  last, and to its replies in every room; how many per-room reads (``GET /rooms/...``) it made
  on the way (Synapse's access log); RSS once every room is answered. Two rounds, the order of
  the bots swapped in the second.

Then, on the largest size, a busy evening per bot (rolbot first, each on its own 30 rooms):
4 players a room, each rolling about every 10 s for 2 minutes; reply latency from server
timestamps (p50/p95/p99), replies lost, 429s met.

Then the strict server: a fresh bot user with Synapse's default ``rc_message`` (0.2/s, burst
10), one room, 4 players each rolling every 2.5 s for 20 s (32 rolls); how long each roll's
result took to be visible (a coalesced message counts for every roll it carries), and losses.

With ``--encrypted``, rolbot's figures in end-to-end encrypted rooms (made as Element makes a
private room) are printed beside: join, RSS, cold start, busy evening. The bare bot has no
encryption, so these have no ratio.

With ``--only-memory``, only what memory needs: the rooms, both bots joined, one cold start each
(a roll pending in every room), then the quiet restart ``--memory-rounds`` times per bot
(alternated; the median). ``--tracemalloc`` adds one more quiet restart of rolbot under
``tracemalloc`` and prints where its Python memory is: allocated while importing (by the package
whose code ran) and after (by the innermost non-stdlib file), the figures of docs/performance.md.

    python bench/scale.py [--rooms 300 1000] [--busy-seconds 120] [--encrypted | --encrypted-only]
    python bench/scale.py --rooms 300 --only-memory [--memory-rounds 3] [--tracemalloc]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synapse import PYTHON, ROOT, RolbotProcess, SynapseServer, percentile, version

from tests.matrix.conftest import ENCRYPTION, Chat, User
from tests.matrix.test_rate_limit import answers

PERIOD_S = 10.0
BUSY_PLAYERS = 4
RL_ROLLS_EVERY_S = 2.5
RL_SECONDS = 20.0
GRACE_S = 60.0


# --------------------------------------------------------------------------- HTTP as the humans


class Homeserver:
    """The client-server API as the GMs and players use it (one aiohttp session, no sync)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http: aiohttp.ClientSession | None = None
        self._txn = 0

    async def __aenter__(self) -> Homeserver:
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.http is not None
        await self.http.close()

    async def call(self, method: str, path: str, token: str, body: dict | None = None) -> dict:
        assert self.http is not None
        for _ in range(20):
            async with self.http.request(method, self.url + path, json=body,
                                         headers={"Authorization": f"Bearer {token}"}) as resp:
                data = await resp.json(content_type=None)
                if resp.status == 429:
                    await asyncio.sleep(data.get("retry_after_ms", 500) / 1000)
                    continue
                if resp.status != 200:
                    raise RuntimeError(f"{method} {path}: {resp.status} {data}")
                return data
        raise RuntimeError(f"{method} {path}: still rate limited")

    async def create_room(self, gm: User, invite: list[str], encrypted: bool = False) -> str:
        body: dict[str, Any] = {"preset": "private_chat", "invite": invite}
        if encrypted:
            body["initial_state"] = [ENCRYPTION]
        return (await self.call("POST", "/_matrix/client/v3/createRoom", gm.access_token, body))["room_id"]

    async def join(self, user: User, room_id: str) -> None:
        await self.call("POST", f"/_matrix/client/v3/join/{quote(room_id)}", user.access_token, {})

    async def say(self, user: User, room_id: str, text: str) -> str:
        self._txn += 1
        path = f"/_matrix/client/v3/rooms/{quote(room_id)}/send/m.room.message/bench{self._txn}-{time.time_ns()}"
        data = await self.call("PUT", path, user.access_token, {"msgtype": "m.text", "body": text})
        return data["event_id"]

    async def messages(self, user: User, room_id: str, limit: int = 1000) -> list[dict]:
        path = f"/_matrix/client/v3/rooms/{quote(room_id)}/messages?dir=b&limit={limit}"
        return (await self.call("GET", path, user.access_token))["chunk"]

    async def joined_count(self, user: User) -> int:
        return len((await self.call("GET", "/_matrix/client/v3/joined_rooms", user.access_token))["joined_rooms"])


async def bounded(coros: Iterable[Awaitable[Any]], limit: int = 8) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coro: Awaitable[Any]) -> Any:
        async with gate:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


# --------------------------------------------------------------------------- the bots


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Bot:
    """One of the two bots, started and stopped as a process; ``ready()`` as it defines it."""

    name: str
    user: User

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def pid(self) -> int: ...
    def counts(self) -> dict[str, float]: ...


class Rolbot(Bot):
    name = "rolbot"

    def __init__(self, hs: SynapseServer, user: User, storage: Path, launcher: list[str] | None = None) -> None:
        self.user = user
        self.proc = RolbotProcess(hs, user, storage, launcher=launcher)

    def start(self) -> None:
        self.proc.start(timeout=600)

    def stop(self) -> None:
        self.proc.stop()

    def pid(self) -> int:
        assert self.proc.proc is not None
        return self.proc.proc.pid

    def counts(self) -> dict[str, float]:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.proc.web_port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                key, value = line.rsplit(" ", 1)
                out[key] = float(value)
        return {"rate_limited": out.get("rolbot_rate_limited_total", 0.0),
                "errors": out.get("rolbot_errors_total", 0.0)}


class BareBot(Bot):
    name = "bare"

    def __init__(self, hs: SynapseServer, user: User, storage: Path) -> None:
        self.user = user
        self.hs = hs
        storage.mkdir(parents=True, exist_ok=True)
        self.token_file = storage / "token"
        self.proc: subprocess.Popen[str] | None = None
        self.last: dict[str, float] = {}
        self.fresh = False

    def start(self) -> None:
        args = [PYTHON, str(ROOT / "bench" / "bare_bot.py"), "--homeserver", self.hs.url,
                "--user", self.user.user_id, "--password", self.user.password, "--join"]
        if self.fresh:
            self.token_file.unlink(missing_ok=True)
        args += ["--token-file", str(self.token_file)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError(f"bare bot: {line!r}")

    def stop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        self.proc.terminate()
        out = self.proc.stdout.read().split()
        self.proc.wait(30)
        self.last = {k: float(v) for k, v in zip(out[::2], out[1::2])}

    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def counts(self) -> dict[str, float]:
        return self.last


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    hs: SynapseServer
    api: Homeserver
    gms: list[User]
    rooms: list[str] = field(default_factory=list)
    gm_of: dict[str, User] = field(default_factory=dict)
    players_of: dict[str, list[User]] = field(default_factory=dict)


def register_many(hs: SynapseServer, name: str, n: int, **kw: Any) -> list[User]:
    return [hs.synapse.register(name, **kw) for _ in range(n)]


async def build_rooms(world: World, n: int, bots: list[User], pool: list[User], busy: list[list[User]],
                      encrypted: bool = False) -> list[str]:
    """``n`` rooms, each with a GM, players (the first ``len(busy)`` rooms get their own four)
    and every bot invited."""
    api = world.api

    async def one(i: int) -> str:
        gm = world.gms[i % len(world.gms)]
        pair = [pool[(2 * i) % len(pool)], pool[(2 * i + 1) % len(pool)]] if pool else []
        players = busy[i] if i < len(busy) else pair
        room = await api.create_room(gm, [b.user_id for b in bots] + [p.user_id for p in players], encrypted)
        for p in players:
            await api.join(p, room)
        world.gm_of[room] = gm
        world.players_of[room] = players
        return room

    return list(await bounded((one(i) for i in range(n)), limit=8))


async def wait_joined(api: Homeserver, bot: User, n: int, timeout: float = 900) -> None:
    """Until ``bot`` is in ``n`` rooms (polled every 0.1 s: a benchmark's observer)."""
    start = time.monotonic()
    while await api.joined_count(bot) < n:
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"{bot.user_id} joined only {await api.joined_count(bot)} of {n} rooms")
        await asyncio.sleep(0.1)


def answered_at(events: list[dict], bot_id: str) -> dict[str, int]:
    """Event id -> server timestamp of the first bot message that answers it."""
    out: dict[str, int] = {}
    for ev in sorted(events, key=lambda e: e.get("origin_server_ts", 0)):
        if ev.get("sender") == bot_id and ev.get("type") in ("m.room.message", "m.room.encrypted"):
            for target in answers(ev):
                out.setdefault(target, ev["origin_server_ts"])
    return out


async def collect(world: World, reader: Callable[[str], User], bot_id: str, rolls: dict[str, str],
                  grace: float = GRACE_S) -> tuple[dict[str, tuple[int, int]], int]:
    """Wait (up to ``grace`` s) for the bot to answer every roll (event id -> room); the server
    timestamps (roll, answer) of each answered roll, and how many were never answered."""
    pending = dict(rolls)
    stamps: dict[str, tuple[int, int]] = {}
    deadline = time.monotonic() + grace
    while pending and time.monotonic() < deadline:
        rooms = sorted(set(pending.values()))
        chunks = await bounded((world.api.messages(reader(r), r) for r in rooms), limit=8)
        for chunk in chunks:
            sent = {ev["event_id"]: ev["origin_server_ts"] for ev in chunk}
            for target, ts in answered_at(chunk, bot_id).items():
                if target in pending and target in sent:
                    stamps[target] = (sent[target], ts)
                    del pending[target]
        if pending:
            await asyncio.sleep(0.5)
    return stamps, len(pending)


def delays_ms(stamps: dict[str, tuple[int, int]]) -> list[float]:
    """Each answered roll's wait, in the order the rolls were sent."""
    return [float(answer - roll) for roll, answer in sorted(stamps.values())]


# --------------------------------------------------------------------------- phases


async def join_phase(world: World, bot: Bot, n: int) -> dict[str, float]:
    """From the process start to being in all ``n`` rooms (invited while it was down)."""
    before = len(world.hs.requests(bot.user.user_id))
    t0 = time.monotonic()
    bot.start()
    await wait_joined(world.api, bot.user, n)
    took = time.monotonic() - t0
    if isinstance(bot, Rolbot):
        # rolbot reads a new room's state once, after joining: let it finish before it stops
        # (a bot that keeps running would), so the cold start finds every room stored.
        while sum(1 for _, path in world.hs.requests(bot.user.user_id)[before:] if path.endswith("/state")) < n:
            await asyncio.sleep(0.2)
    rss = rss_mb(bot.pid())
    bot.stop()
    return {"join_s": took, "rss_joined_mb": rss}


async def cold_starts(world: World, bots: tuple[Bot, ...], rooms: list[str], label: str
                      ) -> dict[str, dict[str, float]]:
    """Every room gets a roll while the bots are down; then each starts in turn, answers them
    all and stops again."""
    rolls = {}
    for room in rooms:
        rolls[await world.api.say(world.gm_of[room], room, f"!tiro d20 {label}")] = room
    return {bot.name: await cold_start(world, bot, rolls) for bot in bots}


async def cold_start(world: World, bot: Bot, rolls: dict[str, str]) -> dict[str, float]:
    last_event, last_room = next(reversed(rolls.items()))
    before = len(world.hs.requests(bot.user.user_id))
    t0 = time.time()
    bot.start()
    ready = time.time() - t0
    gm = world.gm_of[last_room]
    while True:
        chunk = await world.api.messages(gm, last_room, limit=20)
        ts = answered_at(chunk, bot.user.user_id).get(last_event)
        if ts is not None:
            first_reply = ts / 1000 - t0
            break
        if time.time() - t0 > 600:
            raise RuntimeError(f"{bot.name}: no reply in the last room")
        await asyncio.sleep(0.05)
    stamps, lost = await collect(world, lambda r: world.gm_of[r], bot.user.user_id, rolls)
    all_done = max(answer for _, answer in stamps.values()) / 1000 - t0 if stamps else float("nan")
    rss = rss_mb(bot.pid())
    bot.stop()
    made = world.hs.requests(bot.user.user_id)[before:]
    reads = [path for method, path in made if method == "GET" and "/rooms/" in path]
    if reads:
        print(f"    {bot.name}: {reads[:3]}...", file=sys.stderr)
    return {"ready_s": ready, "last_room_s": first_reply, "all_rooms_s": all_done,
            "lost": lost, "room_reads": len(reads), "rss_mb": rss, "requests": len(made)}


async def quiet_rss(bot: Bot) -> float:
    """RSS of the bot started with nothing to catch up, once it has settled."""
    bot.start()
    await asyncio.sleep(5)  # settling after start: a memory reading, not a synchronisation
    rss = rss_mb(bot.pid())
    bot.stop()
    return rss


Say = Callable[[str, str], Awaitable[str]]
"""A player's way to post in a room: ``say(room, text)`` -> the event id."""


async def busy_evening(world: World, bot: Bot, rollers: list[tuple[str, Say]], seconds: float, seed: int,
                       label: str) -> dict[str, Any]:
    """Each (room, player) rolls about every 10 s for ``seconds``; the bot's answers, from server
    timestamps."""
    bot.start()
    start_counts = bot.counts() if isinstance(bot, Rolbot) else {}
    rng = random.Random(seed)
    rolls: dict[str, str] = {}
    end = time.monotonic() + seconds

    async def player(say: Say, room: str, offset: float) -> None:
        await asyncio.sleep(offset)
        i = 0
        while time.monotonic() < end:
            rolls[await say(room, f"!tiro 1d20+{i % 5} {label}")] = room
            i += 1
            await asyncio.sleep(PERIOD_S * rng.uniform(0.8, 1.2))

    await asyncio.gather(*(player(say, room, rng.uniform(0, PERIOD_S)) for room, say in rollers))
    stamps, lost = await collect(world, lambda r: world.gm_of[r], bot.user.user_id, rolls)
    counts = bot.counts() if isinstance(bot, Rolbot) else {}
    bot.stop()
    if isinstance(bot, BareBot):
        counts = bot.counts()
    limited = counts.get("rate_limited", 0.0) - start_counts.get("rate_limited", 0.0)
    return {"rolls": len(rolls), "delays": delays_ms(stamps), "lost": lost, "rate_limited": limited}


async def strict_server(world: World, bot: Bot, gm: User, players: list[User]) -> dict[str, Any]:
    room = await world.api.create_room(gm, [bot.user.user_id] + [p.user_id for p in players])
    for p in players:
        await world.api.join(p, room)
    world.gm_of[room] = gm
    bot.start()
    await wait_joined(world.api, bot.user, 1)
    rolls: dict[str, str] = {}

    async def player(k: int, p: User) -> None:
        await asyncio.sleep(k * RL_ROLLS_EVERY_S / len(players))
        for i in range(int(RL_SECONDS / RL_ROLLS_EVERY_S)):
            rolls[await world.api.say(p, room, f"!tiro 1d20+{i} ráfaga")] = room
            await asyncio.sleep(RL_ROLLS_EVERY_S)

    await asyncio.gather(*(player(k, p) for k, p in enumerate(players)))
    stamps, lost = await collect(world, lambda r: gm, bot.user.user_id, rolls, grace=120)
    bot.stop()
    return {"rolls": len(rolls), "delays": delays_ms(stamps), "lost": lost}


# --------------------------------------------------------------------------- report


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def row(label: str, rol: float, bare: float | None, unit: str, target: str = "") -> None:
    if bare is None:
        print(f"  {label:44} {rol:10.2f} {'':>10} {'':>6} {unit:4} {target}")
    else:
        print(f"  {label:44} {rol:10.2f} {bare:10.2f} {ratio(rol, bare):>6} {unit:4} {target}")


def lat_rows(label: str, rol: list[float], bare: list[float], targets: dict[int, str]) -> None:
    for q in (50, 95, 99):
        row(f"{label} p{q}", percentile(rol, q), percentile(bare, q), "ms", targets.get(q, ""))


async def clear_figures(args: argparse.Namespace, world: World, pool: list[User], workdir: Path) -> None:
    """Both bots, rooms in the clear: joins, cold starts, the busy evening, the strict server."""
    hs = world.hs
    sizes = sorted(args.rooms)
    bots: dict[str, Bot] = {}
    for n in sizes:
        rol = Rolbot(hs, hs.synapse.register("rolbot"), workdir / f"rolbot-{n}")
        bare = BareBot(hs, hs.synapse.register("bare"), workdir / f"bare-{n}")
        busy = ([register_many(hs, "mesa", BUSY_PLAYERS) for _ in range(2 * args.busy_rooms)]
                if n == sizes[-1] else [])
        t = time.monotonic()
        rooms = await build_rooms(world, n, [rol.user, bare.user], pool, busy)
        print(f"\n{n} salas creadas en {time.monotonic() - t:.0f} s "
              "(máster y 2 jugadores cada una; las de la tarde concurrida, 4 jugadores)")
        joined = {b.name: await join_phase(world, b, n) for b in (rol, bare)}
        colds: dict[str, list[dict[str, float]]] = {"rolbot": [], "bare": []}
        for k, order in enumerate(((rol, bare), (bare, rol))):
            for name, figures in (await cold_starts(world, order, rooms, f"caída {k}")).items():
                colds[name].append(figures)
        quiet = {b.name: await quiet_rss(b) for b in (rol, bare)}
        print(f"\n{n} salas {'rolbot':>54} {'bare':>10} {'ratio':>6}")
        row("unirse a todas las salas", joined["rolbot"]["join_s"], joined["bare"]["join_s"], "s")
        row("RSS tras unirse", joined["rolbot"]["rss_joined_mb"], joined["bare"]["rss_joined_mb"], "MB")
        for k in range(2):
            r, b = colds["rolbot"][k], colds["bare"][k]
            order = "rolbot primero" if k == 0 else "bare primero"
            print(f"  arranque en frío {k + 1} ({order}), con una tirada pendiente en cada sala:")
            row("  hasta /healthz 200 (bare: primer sync)", r["ready_s"], b["ready_s"], "s")
            row("  hasta responder en todas", r["all_rooms_s"], b["all_rooms_s"], "s")
            row("  hasta la respuesta en la última sala", r["last_room_s"], b["last_room_s"], "s",
                "objetivo <= 1.05")
            row("  respuestas perdidas", r["lost"], b["lost"], "")
            row("  lecturas por sala (GET /rooms/...)", r["room_reads"], b["room_reads"], "",
                "objetivo rolbot 0")
            row("  RSS con todas respondidas", r["rss_mb"], b["rss_mb"], "MB",
                "objetivo <= 1.2" if n >= 1000 else "")
        row("RSS en reposo (reinicio sin nada pendiente)", quiet["rolbot"], quiet["bare"], "MB",
            "objetivo <= 1.2" if n >= 1000 else "")
        bots = {"rolbot": rol, "bare": bare}
    big = sizes[-1]
    busy_rooms = rooms[:2 * args.busy_rooms]
    evening = {}
    for k, b in enumerate((bots["rolbot"], bots["bare"])):
        if isinstance(b, BareBot):
            b.fresh = True  # the other bot's evening is history to it, not work
        mine = busy_rooms[k * args.busy_rooms:(k + 1) * args.busy_rooms]
        rollers = [(room, functools.partial(world.api.say, p)) for room in mine for p in world.players_of[room]]
        evening[b.name] = await busy_evening(world, b, rollers, args.busy_seconds, seed=k, label="tarde")
    r, b = evening["rolbot"], evening["bare"]
    print(f"\ntarde concurrida ({big} salas unidas; {args.busy_rooms} salas activas, {BUSY_PLAYERS} jugadores, "
          f"una tirada cada ~{PERIOD_S:.0f} s por jugador, {args.busy_seconds:.0f} s; "
          f"rolbot {r['rolls']} tiradas, bare {b['rolls']})")
    lat_rows("latencia", r["delays"], b["delays"], {50: "objetivo <= 1.10", 99: "objetivo <= 1.10"})
    row("respuestas perdidas", r["lost"], b["lost"], "", "objetivo 0")
    row("429 del servidor absorbidos", r["rate_limited"], b["rate_limited"], "")

    strict = {}
    rl_gm = hs.synapse.register("masterestricto")
    for b_cls, name in ((Rolbot, "rolbotlimitado"), (BareBot, "barelimitado")):
        user = hs.synapse.register(name, ratelimited=True)
        bot = b_cls(hs, user, workdir / name)
        strict[bot.name] = await strict_server(world, bot, rl_gm, register_many(hs, "prisa", 4))
    r, b = strict["rolbot"], strict["bare"]
    print(f"\nservidor estricto (rc_message por defecto de Synapse: 0.2/s, ráfaga 10): "
          f"4 jugadores, una tirada cada {RL_ROLLS_EVERY_S} s cada uno durante {RL_SECONDS:.0f} s "
          f"({r['rolls']} tiradas)")
    for q in (50, 95):
        row(f"resultado visible p{q}", percentile(r["delays"], q) / 1000,
            percentile(b["delays"], q) / 1000 if b["delays"] else float("nan"), "s",
            "objetivo rolbot p95 <= 6 s" if q == 95 else "")
    row("resultado visible máx", max(r["delays"]) / 1000,
        max(b["delays"]) / 1000 if b["delays"] else float("nan"), "s")
    row("perdidas", r["lost"], b["lost"], "", "objetivo rolbot 0")

# --------------------------------------------------------------------------- where the memory goes


TRACE_FRAMES = 30
TRACED_LAUNCHER = """
import runpy, signal, sys, tracemalloc
dump_to, frames = sys.argv[1:3]
tracemalloc.start(int(frames))
signal.signal(signal.SIGUSR1, lambda *_: tracemalloc.take_snapshot().dump(dump_to))
sys.argv = ["bot.cli", *sys.argv[3:]]
runpy.run_module("bot.cli", run_name="__main__", alter_sys=True)
"""
"""``bot.cli`` under ``tracemalloc`` (``-c`` code; argv: dump path, frames, cli arguments); SIGUSR1
dumps a snapshot."""


@functools.cache
def owner(filename: str) -> str | None:
    """Whose code a frame is: a third-party distribution, a rolbot module (3 levels), or None
    (the standard library, the import machinery)."""
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    path = Path(filename)
    if path.is_absolute() and path.resolve().is_relative_to(ROOT):
        return ".".join(path.resolve().relative_to(ROOT).with_suffix("").parts[:3])
    return None


def breakdown(snapshot: tracemalloc.Snapshot) -> dict[str, Counter[str]]:
    """Traced bytes by phase (``import``: allocated while a module was imported; ``run``: after)
    and by the innermost frame that is not the standard library's (the interpreter's own if none)."""
    out: dict[str, Counter[str]] = {"import": Counter(), "run": Counter()}
    for trace in snapshot.traces:
        files = [frame.filename for frame in reversed(trace.traceback)]  # innermost first
        phase = "import" if any(f.startswith("<frozen importlib") for f in files) else "run"
        who = next((o for f in files if (o := owner(f))), "stdlib / intérprete")
        out[phase][who] += trace.size
    return out


async def traced_quiet(hs: SynapseServer, rol: Rolbot, workdir: Path) -> tuple[float, dict[str, Counter[str]]]:
    """rolbot's quiet restart under ``tracemalloc``: its RSS so traced, and ``breakdown``."""
    dump = workdir / "rolbot.tracemalloc"
    traced = Rolbot(hs, rol.user, rol.proc.config_path.parent,
                    launcher=[PYTHON, "-c", TRACED_LAUNCHER, str(dump), str(TRACE_FRAMES)])
    traced.start()
    await asyncio.sleep(5)  # settling after start, as in quiet_rss
    rss = rss_mb(traced.pid())
    os.kill(traced.pid(), signal.SIGUSR1)
    while not dump.exists() or dump.stat().st_size == 0:
        await asyncio.sleep(0.5)
    await asyncio.sleep(2)  # the dump is written at once; let it finish before stopping
    traced.stop()
    return rss, breakdown(tracemalloc.Snapshot.load(str(dump)))


def print_breakdown(rss: float, groups: dict[str, Counter[str]], top: int = 18) -> None:
    total = sum(sum(c.values()) for c in groups.values())
    print(f"\n  rolbot bajo tracemalloc ({TRACE_FRAMES} marcos): RSS {rss:.1f} MB (tracemalloc incluido), "
          f"memoria de Python trazada {total / 2**20:.1f} MB")
    for phase, title in (("import", "al importar"), ("run", "después (estado en marcha)")):
        counter = groups[phase]
        print(f"  {title}: {sum(counter.values()) / 2**20:.1f} MB")
        for who, size in counter.most_common(top):
            print(f"    {who:40} {size / 2**20:6.2f} MB")


async def memory_figures(args: argparse.Namespace, world: World, pool: list[User], workdir: Path) -> None:
    """Both bots, rooms in the clear: joined, one cold start each, then quiet restarts (RSS)."""
    hs = world.hs
    for n in sorted(args.rooms):
        rol = Rolbot(hs, hs.synapse.register("rolbot"), workdir / f"rolbot-{n}")
        bare = BareBot(hs, hs.synapse.register("bare"), workdir / f"bare-{n}")
        t = time.monotonic()
        rooms = await build_rooms(world, n, [rol.user, bare.user], pool, [])
        print(f"\n{n} salas creadas en {time.monotonic() - t:.0f} s (máster y 2 jugadores cada una)")
        for b in (rol, bare):
            await join_phase(world, b, n)
        await cold_starts(world, (rol, bare), rooms, "caída")
        quiet: dict[str, list[float]] = {"rolbot": [], "bare": []}
        for k in range(args.memory_rounds):
            for bot in ((rol, bare) if k % 2 == 0 else (bare, rol)):
                quiet[bot.name].append(await quiet_rss(bot))
        print(f"\n{n} salas {'rolbot':>54} {'bare':>10} {'ratio':>6}")
        row(f"RSS en reposo tras reiniciar (mediana de {args.memory_rounds})", statistics.median(quiet["rolbot"]),
            statistics.median(quiet["bare"]), "MB", "objetivo <= 1.2")
        print(f"  (cada reinicio: rolbot {', '.join(f'{v:.1f}' for v in quiet['rolbot'])}; "
              f"bare {', '.join(f'{v:.1f}' for v in quiet['bare'])})")
        if args.tracemalloc:
            print_breakdown(*await traced_quiet(hs, rol, workdir))


async def run(args: argparse.Namespace, workdir: Path) -> None:
    print(f"Synapse {version()} local; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} núcleos; Python {platform.python_version()}")
    with SynapseServer(access_log=True) as hs:
        async with Homeserver(hs.url) as api:
            gms = register_many(hs, "master", 10)
            pool = register_many(hs, "jugador", 40)
            world = World(hs, api, gms)
            if args.only_memory:
                await memory_figures(args, world, pool, workdir)
                return
            if not args.encrypted_only:
                await clear_figures(args, world, pool, workdir)
            if args.encrypted or args.encrypted_only:
                await encrypted_figures(world, workdir, min(args.rooms), args.busy_rooms, args.busy_seconds)


async def encrypted_figures(world: World, workdir: Path, n: int, busy_rooms: int, seconds: float) -> None:
    """rolbot alone, in ``n`` encrypted rooms (the GM's client encrypts, as Element does) plus
    ``busy_rooms`` where four encrypting players roll; the same phases as in the clear."""
    hs = world.hs
    rol = Rolbot(hs, hs.synapse.register("rolbotcifrado"), workdir / "rolbot-cifrado")
    gm = Chat(hs.synapse, hs.synapse.register("mastercifrado"), store=workdir / "keys-gm")
    players = [Chat(hs.synapse, hs.synapse.register("cifrado"), store=workdir / f"keys-p{k}")
               for k in range(BUSY_PLAYERS)]
    try:
        for chat in (gm, *players):
            await chat.sync_once(0)
        world.gms.append(gm.user)
        enc = World(hs, world.api, [gm.user])
        t = time.monotonic()
        rooms = await build_rooms(enc, n, [rol.user], [], [[p.user for p in players]] * busy_rooms, encrypted=True)
        print(f"\ncifrado: {n} salas cifradas creadas en {time.monotonic() - t:.0f} s; rolbot solo "
              f"(el bot mínimo no cifra); las {busy_rooms} primeras con {BUSY_PLAYERS} jugadores que cifran")
        joined = await join_phase(enc, rol, n)
        row("unirse a todas las salas", joined["join_s"], None, "s")
        row("RSS tras unirse", joined["rss_joined_mb"], None, "MB")
        for chat in (gm, *players):
            await chat.sync_once(0)
            await chat.keys_upkeep()
        rolls = {}
        for room in rooms:
            rolls[await gm.say(room, "!tiro d20 caída cifrada")] = room
        before = len(hs.requests(rol.user.user_id))
        cold = await cold_start(enc, rol, rolls)
        made = hs.requests(rol.user.user_id)[before:]
        to_device = sum(1 for _, path in made if "/sendToDevice/" in path)
        print("  arranque en frío, con una tirada cifrada pendiente en cada sala:")
        row("  hasta /healthz 200", cold["ready_s"], None, "s")
        row("  hasta responder en todas", cold["all_rooms_s"], None, "s")
        row("  hasta la respuesta en la última sala", cold["last_room_s"], None, "s")
        row("  respuestas perdidas", cold["lost"], None, "")
        row("  lecturas por sala (GET /rooms/...)", cold["room_reads"], None, "")
        row("  envíos a dispositivos (claves de sala repartidas de nuevo)", to_device, None, "")
        row("  RSS con todas respondidas", cold["rss_mb"], None, "MB")
        # The same four encrypting players in every room (one client each, as a player would have).
        rollers: list[tuple[str, Say]] = [(room, chat.say) for room in rooms[:busy_rooms] for chat in players]
        evening = await busy_evening(enc, rol, rollers, seconds, seed=7, label="cifrada")
        print(f"  tarde concurrida cifrada ({busy_rooms} salas, {BUSY_PLAYERS} jugadores que cifran, "
              f"{evening['rolls']} tiradas):")
        for q in (50, 95, 99):
            row(f"  latencia p{q}", percentile(evening["delays"], q), None, "ms")
        row("  respuestas perdidas", evening["lost"], None, "")
    finally:
        for chat in (gm, *players):
            await chat.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--busy-seconds", type=float, default=120.0)
    parser.add_argument("--busy-rooms", type=int, default=30)
    parser.add_argument("--encrypted", action="store_true", help="también las cifras de rolbot en salas cifradas")
    parser.add_argument("--encrypted-only", action="store_true", help="solo las cifras en salas cifradas")
    parser.add_argument("--only-memory", action="store_true", help="solo la memoria en reposo tras reiniciar")
    parser.add_argument("--memory-rounds", type=int, default=3, help="reinicios en reposo por bot (--only-memory)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="con --only-memory: dónde está la memoria de rolbot (tracemalloc)")
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args, Path(tmp)))
    print(f"\n({time.monotonic() - start:.0f} s en total)")


if __name__ == "__main__":
    main()
