"""The transport contract (``bot/transport.py``): a core that knows no network, and one handler per
kind of action in every transport."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.console import ACTIONS as CONSOLE_ACTIONS
from bot.console import ROOM_ID
from bot.core.events import Event, Send
from bot.core.render import Message
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.transport import ACTION_KINDS, ActionRegistry, Backoff, TransportHub, fitting, pause, pending_of
from bot.transports import TRANSPORTS
from tests.transcript import GM, make_table, play

REGISTRIES = [*(transport.actions() for transport in TRANSPORTS), CONSOLE_ACTIONS]
"""Every transport's ``ACTIONS``: the registry's (``bot/transports``) and the console's."""
CORE = Path(__file__).resolve().parent.parent / "bot" / "core"
PACKAGES = tuple(sorted({t.config.schema.__module__.rpartition(".")[0] for t in TRANSPORTS}))
"""Every transport's package (``bot.matrix``, ``bot.irc``), from the registry."""
NOT_IN_THE_CORE = ("nio", "pydle", "aiohttp", *PACKAGES, "bot.web", "bot.transport", "bot.transports", "bot.games")
"""What the core must not import: a network's library, a transport (``bot.transport`` and the registry
``bot.transports`` too), the web server, the games."""


def imported(tree: ast.AST, package: str) -> list[str]:
    """Every module ``tree`` imports (relative imports resolved from ``package``), wherever the import is."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return names


def forbidden(names: list[str]) -> list[str]:
    return [n for n in names if any(n == bad or n.startswith(bad + ".") for bad in NOT_IN_THE_CORE)]


def test_the_registry_names_every_transport_package() -> None:
    assert {"bot.matrix", "bot.irc"} <= set(PACKAGES)


def test_the_core_imports_no_transport_and_no_game() -> None:
    modules = sorted(CORE.rglob("*.py"))
    assert len(modules) > 10
    found = {str(m.relative_to(CORE)): forbidden(imported(ast.parse(m.read_text(encoding="utf-8")), "bot.core"))
             for m in modules}
    assert {m: names for m, names in found.items() if names} == {}


@pytest.mark.parametrize("source", ["from bot.games import GAMES", "import nio", "from bot import transport",
                                    "from ..web import Metrics", "def f():\n    from bot.irc.bot import IrcBot"])
def test_an_import_the_core_must_not_have_is_caught(source: str) -> None:
    assert forbidden(imported(ast.parse(source), "bot.core"))


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.transport)
def test_every_action_kind_has_a_handler_in_each_transport(registry: ActionRegistry[object]) -> None:
    assert ACTION_KINDS and registry.missing() == []


@dataclass(frozen=True)
class Shout:
    """A kind of action no transport knows."""

    room_id: str
    kind: str = "shout"


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.transport)
def test_a_new_action_kind_without_a_handler_is_named(registry: ActionRegistry[object]) -> None:
    assert registry.missing((*ACTION_KINDS, Shout)) == ["Shout"]


def test_a_kind_registered_twice_is_refused() -> None:
    registry: ActionRegistry[int] = ActionRegistry("toy")
    registry.add(Send, 1)
    with pytest.raises(ValueError):
        registry.add(Send, 2)


def test_the_table_names_a_rooms_gms_for_its_transports() -> None:
    table = make_table(gms=(GM, "@zoe:local"))
    play(f"{GM}: !master @bea:local\n{GM}: !master @zoe:local", table=table)
    assert table.gms_of(ROOM_ID) == [GM, "@zoe:local", "@bea:local"]
    assert table.gms_of("!otra:local") == [GM, "@zoe:local"]


class Rooms:
    """The owner side of a transport: its name and the rooms it owns."""

    def __init__(self, name: str, *rooms: str) -> None:
        self.name = name
        self.rooms = set(rooms)

    def owns(self, room_id: str) -> bool:
        return room_id in self.rooms


def test_the_outbox_keeps_who_owns_each_action(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "rolbot.db"))
    table = Table(store, games=GAMES)
    table.handle(Event("!a:x", "@ana:x", "!tiro 1d6", "$1"), owner="matrix")
    table.handle(Event("#mesa", "@bea:x", "!tiro 1d6", "$2"), owner="irc")
    assert [a.room_id for a in pending_of(Rooms("irc", "#mesa", "!a:x"), store)] == ["#mesa"]
    assert [a.room_id for a in pending_of(Rooms("matrix", "!a:x", "#mesa"), store)] == ["!a:x"]


def test_actions_written_before_owners_were_kept_go_to_the_transport_owning_their_room(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.db")
    store = Store(path)
    for n, room in enumerate(("!a:x", "#mesa", "!b:x")):
        store.outbox.queue(f"${n}", [Send(room, Message("hola", "hola"), action_id=f"${n}/0")])
    store.db.execute("ALTER TABLE outbox DROP COLUMN transport")  # as schema 8 wrote it
    store.db.execute("PRAGMA user_version = 8")
    store.close()
    store = Store(path)
    irc = Rooms("irc", "#mesa")
    assert [a.room_id for a in pending_of(irc, store)] == ["#mesa"]
    assert [a.room_id for a in pending_of(Rooms("matrix", "!a:x"), store)] == ["!a:x"]
    assert [a.room_id for a in pending_of(Rooms("matrix", "!a:x", "#mesa"), store)] == ["!a:x"]  # claimed
    irc.rooms.clear()
    assert [a.room_id for a in pending_of(irc, store)] == ["#mesa"]  # its own now, owned or not
    assert len(store.outbox.pending()) == 3  # nothing carried out: still pending


def test_backoff_doubles_up_to_its_cap_and_starts_again_after_a_success() -> None:
    backoff = Backoff(0.5, 4.0, jitter=False)
    assert [backoff.next() for _ in range(5)] == [0.5, 1.0, 2.0, 4.0, 4.0] and backoff.failures == 5
    backoff.reset()
    assert backoff.next() == 0.5


def test_backoff_jitter_stays_within_three_quarters_of_the_pause() -> None:
    backoff = Backoff(0.5, 30.0)
    waits = [backoff.next() for _ in range(8)]
    assert all(0.75 * min(30.0, 0.5 * 2 ** n) <= w <= min(30.0, 0.5 * 2 ** n) for n, w in enumerate(waits))


async def test_a_pause_ends_when_the_stop_is_set() -> None:
    stop = asyncio.Event()
    stop.set()
    started = time.monotonic()
    await pause(stop, 30.0)
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize("budget", range(40))
def test_coalescing_takes_the_longest_run_from_the_first_that_fits(budget: int) -> None:
    words = ["uno", "dos", "tres", "cuatro", "cinco", "seis"]
    calls: list[int] = []

    def fits(run: list[str]) -> bool:
        calls.append(len(run))
        return len(" | ".join(run)) <= budget

    run = fitting(words, fits)
    longest = max((n for n in range(1, len(words) + 1) if len(" | ".join(words[:n])) <= budget), default=1)
    assert run == words[:longest]  # at least the first, which goes alone whatever its size
    assert len(calls) <= 4  # all at once, else a binary search


def test_before_it_runs_matrix_owns_the_rooms_it_was_in_so_the_hub_routes_their_answers(tmp_path: Path) -> None:
    from bot.config import parse_config
    from bot.matrix.bot import MatrixBot
    from bot.matrix.power import RoomAuth
    from bot.matrix.store import MatrixStore
    from bot.runner import build_table

    config = parse_config({"matrix": {"homeserver": "http://127.0.0.1:9", "user_id": "@rolbot:localhost",
                                      "password": "x"}, "storage": {"path": str(tmp_path)}}, env={})
    table = build_table(config)
    MatrixStore(table.store).save_room_auths({"!sala:localhost": RoomAuth().to_dict()})
    hub = TransportHub(table, Metrics())
    hub.add(MatrixBot(config, table, hub.metrics))
    assert hub.owner("!sala:localhost") is hub.transports[0] and hub.owner("!otra:localhost") is None


def test_the_runner_stops_on_the_contracts_failure_not_a_transports_own() -> None:
    """A new transport fails for good by raising ``TransportFailed``: the runner names no transport's errors."""
    from bot.matrix.errors import PermanentError
    from bot.transport import TransportFailed

    runner = (Path(__file__).resolve().parents[1] / "bot" / "runner.py").read_text(encoding="utf-8")
    assert issubclass(PermanentError, TransportFailed)
    assert "PermanentError" not in runner and "except TransportFailed" in runner


LIGHT = """
import sys
import bot.cli, bot.runner, bot.transports
from bot.config import parse_config
from bot.runner import build_hub, build_table
print(sorted(m for m in ("nio", "pydle") if m in sys.modules))
config = parse_config({"matrix": {"homeserver": "http://127.0.0.1:9", "user_id": "@rolbot:localhost", "password": "x"},
                       "storage": {"path": sys.argv[1]}}, env={})
table = build_table(config)
build_hub(config, table, bot.transports.TRANSPORTS.metrics())
print(sorted(m for m in ("nio", "pydle") if m in sys.modules))
"""


def test_the_registry_imports_no_network_library_and_a_run_only_those_of_its_transports(tmp_path: Path) -> None:
    """The descriptions are light: a run without ``[irc]`` never imports pydle."""
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", LIGHT, str(tmp_path)], cwd=root, capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "['nio']"], out.stdout + out.stderr
