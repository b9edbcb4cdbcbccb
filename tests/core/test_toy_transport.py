"""A transport plugs in on the contract (``bot/transport.py``): a toy one, loaded here from its own folder
only, owns a room, gets the actions of the events handed to the hub, and after a restart carries out
its own pending actions while another transport's stay pending."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

from bot.core.events import Event
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.transport import Transport, TransportHub
from bot.web import Metrics

TOY = '''
from bot.core.events import Action, React, Redact, PowerLevels, Send
from bot.transport import ActionRegistry, Capabilities, pending_of

ACTIONS = ActionRegistry("toy")
for kind in (Send, Redact, PowerLevels, React):
    ACTIONS.add(kind, kind.__name__.lower())


class ToyTransport:
    capabilities = Capabilities(network_redacts=False, bot_can_mute=False, messages_per_second=1.0)

    def __init__(self, name, rooms, store):
        self.name, self.rooms, self.store = name, set(rooms), store
        self.carried = []

    def owns(self, room_id):
        return room_id in self.rooms

    async def run(self):
        self.deliver(pending_of(self, self.store))

    def stop(self):
        pass

    def deliver(self, actions):
        self.carried += [(ACTIONS[a], a.room_id, a.action_id) for a in actions]
'''


def load_toy(folder: Path) -> ModuleType:
    (folder / "toy_transport.py").write_text(TOY, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_transport", folder / "toy_transport.py")
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
    store.db.conn.close()

    store, hub, mine, other = started(tmp_path / "rolbot.db", toy)
    await mine.run()
    assert mine.carried == [("send", "!toy:local", "$1/0")] and other.carried == []
    assert {a.action_id for a in store.outbox.pending()} == {"$1/0", "$3/0"}  # nothing marked done for it
    await other.run()
    assert other.carried == []  # "$3/0": a room nobody owns stays pending, for the run that owns it
