"""A transport plugs in on the contract (``bot/transport.py``): a toy one, loaded here from its own folder
only, owns a room, gets the actions of the events handed to the hub, and after a restart carries out
its own pending actions while another transport's stay pending. Described (docs/architecture.md, "Adding
a transport"), it brings its own config section, room ids, secret, metric, loggers and wording of a core
message, and the whole run takes it with one registry line and no edit outside its folder."""

from __future__ import annotations

import importlib.util
import logging
import random
from pathlib import Path
from types import ModuleType

import pytest

from bot.config import ConfigError, parse_config, section_keys
from bot.core.events import Event
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.runner import SecretFilter, build_hub, build_table, config_secrets, configure_logging
from bot.transport import Transport, TransportHub, TransportRegistry
from bot.transports import TRANSPORTS
from bot.web import make_app

TOY = """
import logging
from dataclasses import dataclass
from pathlib import Path

from bot.config import NO_SECRET, ConfigError, RoomRule, Secret, TransportSection, string
from bot.core.events import Action, Edit, PowerLevels, React, Redact, Send, Tracker
from bot.transport import ActionRegistry, Capabilities, TransportDescription, pending_of

ACTIONS = ActionRegistry("juguete")
for kind in (Send, Redact, PowerLevels, React, Edit, Tracker):
    ACTIONS.add(kind, kind.__name__.lower())


@dataclass(frozen=True)
class ToyConfig:
    rooms: tuple = ()
    token: Secret = NO_SECRET


def parse(section, env):
    rooms = section.get("rooms", [])
    if not isinstance(rooms, list) or not all(isinstance(r, str) and is_toy_room(r) for r in rooms):
        raise ConfigError("not_a_user_list", key="rooms", where="juguete")
    return ToyConfig(tuple(rooms), Secret(env.get("TOY_TOKEN") or string(section, "token", "juguete") or ""))


def is_toy_room(room_id):
    return room_id.startswith("juguete:")


@dataclass
class ToyMetrics:
    lines: int = 0

    def rows(self):
        return [("rolbot_toy_lines_total", "counter", "Lines the toy carried.", self.lines)]


class ToyTransport:
    capabilities = Capabilities(network_redacts=False, bot_can_mute=False, messages_per_second=1.0)

    def __init__(self, name, rooms, store, metrics=None):
        self.name, self.rooms, self.store, self.metrics = name, set(rooms), store, metrics
        self.carried = []
        self.said = []
        if metrics is not None:
            metrics.transports[name] = False

    def owns(self, room_id):
        return room_id in self.rooms

    async def run(self):
        if self.metrics is not None:
            self.metrics.transports[self.name] = True
        self.deliver(pending_of(self, self.store))

    def stop(self):
        pass

    def deliver(self, actions):
        self.carried += [(ACTIONS[a], a.room_id, a.action_id) for a in actions]
        self.said += [a.message.body for a in actions if isinstance(a, Send)]
        if self.metrics is not None:
            self.metrics.part(ToyMetrics).lines += len(actions)


def build(config, table, metrics, mode):
    return ToyTransport("juguete", config.section(ToyConfig).rooms, table.store, metrics)


TRANSPORT = TransportDescription(
    TransportSection("juguete", ToyConfig, parse, RoomRule(is_toy_room, hint="juguete/room_id"),
                     secrets=lambda toy: [toy.token.value]),
    build, lambda: ACTIONS, Path(__file__).parent / "templates", metrics=ToyMetrics,
    loggers={"juguete.red": logging.WARNING}, templates={"no_power": "juguete/no_power"},
)
"""
TEMPLATES = {"no_power.txt": "⚠️ El juguete no sabe callar a nadie: solo avisaré (modo «{{ mode }}»).\n",
             "room_id.txt": "una mesa de juguete (empieza por «juguete:»)\n"}
"""Its messages: its wording of the core's ``no_power``, and what its room ids look like."""


def load_toy(folder: Path) -> ModuleType:
    """The toy's package, written to ``folder`` and imported from there: its module and its templates."""
    package = folder / "toy_transport"
    (package / "templates").mkdir(parents=True)
    (package / "__init__.py").write_text(TOY, encoding="utf-8")
    for name, text in TEMPLATES.items():
        (package / "templates" / name).write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_transport", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def started(path: Path, toy: ModuleType) -> tuple[Store, TransportHub, Transport, Transport]:
    store = Store(str(path))
    hub = TransportHub(Table(store, rng=random.Random(1), games=GAMES), Metrics())
    mine, other = toy.ToyTransport("juguete", {"!toy:local"}, store), toy.ToyTransport("otro", {"!otro:local"}, store)
    hub.add(mine)
    hub.add(other)
    return store, hub, mine, other


async def test_a_toy_transport_gets_its_rooms_answers_and_resumes_only_its_own(tmp_path: Path) -> None:
    toy = load_toy(tmp_path)
    store, hub, mine, other = started(tmp_path / "rolbot.db", toy)
    assert isinstance(mine, Transport)
    answer = await hub.submit(Event("!toy:local", "@ana:local", "!tiro 1d6", "$1"))
    await hub.submit(Event("!otro:local", "@bea:local", "!tiro 1d6", "$2"))
    await hub.submit(Event("!nadie:local", "@cai:local", "!tiro 1d6", "$3"))
    assert mine.carried == [("send", "!toy:local", "$1/0")] and [a.action_id for a in answer] == ["$1/0"]
    assert other.carried == [("send", "!otro:local", "$2/0")]
    store.outbox.done(["$2/0"])  # the other carried its out; the toy stops before it does
    store.close()

    store, hub, mine, other = started(tmp_path / "rolbot.db", toy)
    await mine.run()
    assert mine.carried == [("send", "!toy:local", "$1/0")] and other.carried == []
    assert {a.action_id for a in store.outbox.pending()} == {"$1/0", "$3/0"}  # nothing marked done for it
    await other.run()
    assert other.carried == []  # "$3/0": a room nobody owns stays pending, for the run that owns it


def toy_config(tmp_path: Path) -> dict:
    return {"juguete": {"token": "s3cr3t-juguete", "rooms": ["juguete:mesa"]},
            "storage": {"path": str(tmp_path / "datos")},
            "rooms": {"juguete:mesa": {"system": "savage", "enforcement": "mute", "gms": ["@gm:local"]}}}


@pytest.fixture
def kept_log_levels():
    names = ("", "juguete.red", *TRANSPORTS.loggers())
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def test_a_described_toy_reads_its_own_config_section_and_room_ids(tmp_path: Path) -> None:
    toy = load_toy(tmp_path)
    transports = TransportRegistry(*TRANSPORTS, toy.TRANSPORT)  # the one line
    config = parse_config(toy_config(tmp_path), env={}, transports=transports.sections())
    assert config.section(toy.ToyConfig).rooms == ("juguete:mesa",) and "s3cr3t" not in repr(config)
    assert config.table.for_room("juguete:mesa").system == "savage"
    assert section_keys(transports.sections())["juguete"] == {"rooms", "token"}
    with pytest.raises(ConfigError) as err:
        parse_config({**toy_config(tmp_path), "juguete": {"tokn": "x"}}, env={}, transports=transports.sections())
    assert "«tokn»" in str(err.value) and "¿querías decir «token»?" in str(err.value)
    with pytest.raises(ConfigError) as err:
        parse_config(toy_config(tmp_path), env={})  # the shipped registry does not know it
    assert err.value.code == "unknown_section"


def test_a_described_toy_has_its_secret_masked_and_its_loggers_set(tmp_path: Path, kept_log_levels: None) -> None:
    toy = load_toy(tmp_path)
    transports = TransportRegistry(*TRANSPORTS, toy.TRANSPORT)
    config = parse_config(toy_config(tmp_path), env={}, transports=transports.sections())
    record = logging.LogRecord("juguete.red", logging.INFO, __file__, 1, "token=%s", ("s3cr3t-juguete",), None)
    SecretFilter(config_secrets(config, transports)).filter(record)
    assert record.getMessage() == "token=***"
    configure_logging(config, transports)
    assert logging.getLogger("juguete.red").level == logging.WARNING


async def test_a_described_toy_is_built_counted_and_words_a_core_message_its_own_way(tmp_path: Path,
                                                                                      aiohttp_client) -> None:
    toy = load_toy(tmp_path)
    transports = TransportRegistry(*TRANSPORTS, toy.TRANSPORT)
    assert toy.TRANSPORT.actions().missing() == []
    config = parse_config(toy_config(tmp_path), env={}, transports=transports.sections())
    table = build_table(config, transports=transports)
    metrics = transports.metrics()
    hub = build_hub(config, table, metrics, transports=transports)
    [mine] = hub.transports
    assert isinstance(mine, toy.ToyTransport) and mine.rooms == {"juguete:mesa"}
    client = await aiohttp_client(make_app(metrics))
    assert (await client.get("/healthz")).status == 503
    await mine.run()
    assert (await client.get("/healthz")).status == 200
    await hub.submit(Event("juguete:mesa", "@gm:local", "-----", "$1", bot_can_mute=False))
    assert mine.said and mine.said[0].startswith("⚠️ El juguete no sabe callar a nadie") and "«mute»" in mine.said[0]
    text = await (await client.get("/metrics")).text()
    assert f"rolbot_toy_lines_total {len(mine.carried)}" in text and "rolbot_irc_reconnects_total 0" in text
    table.store.close()
