"""The transport contract: what the composition root (``bot/runner.py``) knows of a network.

A transport turns its network's messages into ``Event``s for the table core, and carries out the
``Action``s the core answers with in the rooms it owns. The core never sees a transport; the
``TransportHub`` is the one place that routes an answer to the transport that owns its room, so a
source of events that owns no room (the GM's screen) hands its events to the hub and the room's own
transport sends the replies, in the room's order, under its own rate limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar, get_args, runtime_checkable

from bot.core.events import Action, Event
from bot.metrics import Metrics

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from bot.config import Config, TransportSection
    from bot.core.store import Store
    from bot.core.table import Table, TransportTemplates
    from bot.metrics import MetricsPart

log = logging.getLogger(__name__)
Answer = TypeVar("Answer")
Item = TypeVar("Item")

ACTION_KINDS: tuple[type[Action], ...] = get_args(Action)
"""Every kind of action the core answers with (``bot.core.events.Action``)."""
Handler = TypeVar("Handler")


class ActionRegistry(Generic[Handler]):
    """How one transport carries out each kind of ``Action``: one handler per kind, looked up by the
    action's class (no ``isinstance`` ladder). ``missing()`` names the kinds it has no handler for:
    a kind added to ``Action`` without a handler in every transport fails ``tests/test_transport.py``."""

    def __init__(self, transport: str) -> None:
        self.transport = transport
        self.handlers: dict[type[Action], Handler] = {}

    def on(self, kind: type[Action]) -> Callable[[Handler], Handler]:
        """Register the decorated handler for ``kind`` (once)."""
        def register(handler: Handler) -> Handler:
            self.add(kind, handler)
            return handler
        return register

    def add(self, kind: type[Action], handler: Handler) -> None:
        if kind in self.handlers:
            raise ValueError(f"{self.transport}: {kind.__name__} has a handler already")
        self.handlers[kind] = handler

    def __getitem__(self, action: Action) -> Handler:
        return self.handlers[type(action)]

    def missing(self, kinds: tuple[type[Any], ...] = ACTION_KINDS) -> list[str]:
        return [kind.__name__ for kind in kinds if kind not in self.handlers]



class TransportFailed(Exception):
    """A transport cannot go on, for good (its server refused it, its account is gone): its ``run`` raises
    it (or a subclass, Matrix's ``PermanentError``), the runner logs it in one line and the run ends with 1."""

@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a network lets the bot do, which the core reads from each ``Event`` it is handed."""

    network_redacts: bool = True
    """The network can take a message back (IRC cannot: enforcement there warns and mutes)."""
    bot_can_mute: bool = True
    """The bot can keep members from writing (Matrix power levels, IRC ``+m``/voices)."""
    messages_per_second: float | None = None
    """The rate the network lets the bot send at, if it has a known fixed one (IRC's token bucket);
    ``None`` when the server says so itself (Matrix's 429s)."""

    def event_flags(self, may_redact: bool, may_mute: bool) -> EventFlags:
        """The ``Event`` fields that tell the core what enforcement can do in the room now: what the
        network allows, as far as the bot's power there (``may_redact``, ``may_mute``) goes."""
        return EventFlags(network_redacts=self.network_redacts, bot_can_redact=self.network_redacts and may_redact,
                          bot_can_mute=self.bot_can_mute and may_mute)


class EventFlags(TypedDict):
    network_redacts: bool
    bot_can_redact: bool
    bot_can_mute: bool


@runtime_checkable
class Transport(Protocol):
    name: str
    """Short and stable (``matrix``, ``irc``, ``screen``): the outbox records it with each action."""
    capabilities: Capabilities

    def owns(self, room_id: str) -> bool:
        """Whether this transport carries out the actions of ``room_id``."""
        ...

    async def run(self) -> None:
        """Until ``stop()``; raises ``TransportFailed`` when it fails for good."""
        ...

    def stop(self) -> None: ...

    def deliver(self, actions: list[Action]) -> None:
        """Carry out committed actions of rooms it owns, after those already handed to it for the
        same room. It must not block: it queues."""
        ...


@runtime_checkable
class SetsUp(Protocol):
    """A transport built for its set-up alone (``RunMode.setup_only``: Matrix's crypto set-up), which
    says whether it worked."""

    setup_ok: bool


@dataclass(frozen=True, slots=True)
class RunMode:
    """How ``rolbot run`` was asked to run (its command-line flags)."""

    setup_only: bool = False
    """``--setup-crypto``: only the transports with a set-up (``TransportDescription.sets_up``) run, once."""
    reset_cross_signing: bool = False


@dataclass(frozen=True)
class TransportDescription:
    """All the rest of the program knows of one transport, light to import: its network's library is
    imported only by ``build`` and ``actions``. The registry (``bot/transports/__init__.py``) lists them."""

    config: TransportSection
    """Its config section (``bot/config.py``): keys, how it reads, its rooms' ids, its secrets."""
    build: Callable[[Config, Table, Metrics, RunMode], Transport]
    """The transport for a config that has its section."""
    actions: Callable[[], ActionRegistry[Any]]
    """Its ``ACTIONS`` (``tests/test_transport.py`` checks every kind has a handler)."""
    template_folder: Traversable
    """Its messages, ``<name>/<kind>`` (``templates/matrix/``)."""
    metrics: type[MetricsPart] | None = None
    """Its own counters (``bot/metrics.py``): their rows go on ``/metrics``. It says whether it is
    connected in ``Metrics.transports[name]`` (``/healthz``)."""
    loggers: Mapping[str, int] = field(default_factory=dict)
    """Its libraries' loggers and their least level unless ``[logging] libraries = "debug"``."""
    templates: Mapping[str, str] = field(default_factory=dict)
    """Core messages it words its own way: kind -> its kind (``no_power`` -> ``irc/no_power``, in its
    ``template_folder``), rendered for the events of its rooms."""
    sets_up: bool = False
    """It runs under ``--setup-crypto`` (then alone, and it ``SetsUp``)."""
    edits_messages: bool = False
    """It edits the bot's messages in place and keeps a combat's tracker (``Edit``, ``Tracker``): the core
    then adds a later offender of a lock to the lock's one notice, and keeps the tracker (Matrix)."""

    @property
    def name(self) -> str:
        return self.config.name


class TransportRegistry:
    """The transports a run may configure, in order (their rows of ``/metrics`` in that order)."""

    def __init__(self, *descriptions: TransportDescription) -> None:
        self._by_name: dict[str, TransportDescription] = {}
        for description in descriptions:
            if description.name in self._by_name:
                raise ValueError(f"two transports named {description.name!r}")
            self._by_name[description.name] = description

    def __iter__(self) -> Iterator[TransportDescription]:
        return iter(self._by_name.values())

    def __getitem__(self, name: str) -> TransportDescription:
        return self._by_name[name]

    def sections(self) -> list[TransportSection]:
        return [t.config for t in self]

    def templates(self) -> list[TransportTemplates]:
        """Each transport's messages and own wording of core messages (``Table``'s ``transports``)."""
        return [(t.name, t.template_folder, t.templates) for t in self]

    def editing(self) -> list[str]:
        """The transports that edit their messages (``Table``'s ``editing``)."""
        return [t.name for t in self if t.edits_messages]

    def loggers(self) -> dict[str, int]:
        return {name: level for t in self for name, level in t.loggers.items()}

    def metrics(self) -> Metrics:
        """The run's counters, with every transport's rows, configured or not."""
        return Metrics(parts={t.metrics: t.metrics() for t in self if t.metrics is not None})


class Backoff:
    """The growing pause between failed attempts that every transport uses (a sync, a request, a
    connection, an event's transaction): ``first`` seconds, doubled after each failure up to ``cap``,
    each drawn at random within 75-100 % of that (``jitter``) so restarted bots do not retry in step."""

    def __init__(self, first: float, cap: float, jitter: bool = True) -> None:
        self.first = first
        self.cap = cap
        self.jitter = jitter
        self.failures = 0

    def next(self) -> float:
        """The pause after one more failure."""
        wait = min(self.cap, self.first * 2 ** self.failures)
        self.failures += 1
        return wait * random.uniform(0.75, 1.0) if self.jitter else wait

    def reset(self) -> None:
        """It worked: the next failure starts from ``first`` again."""
        self.failures = 0


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less if ``stop`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def fitting(run: list[Item], fits: Callable[[list[Item]], bool]) -> list[Item]:
    """Coalescing under a limit, as both transports do it (Matrix's one message for the replies a 429
    held back, IRC's notices joined while its bucket is empty): the longest part of ``run`` from its
    start that ``fits`` the budget (``fits`` must hold for every shorter part when it holds for a
    longer one); at least the first item, which goes alone whatever its size. ``fits`` is asked once
    when all fit, else about log2(len(run)) times."""
    if len(run) <= 1 or fits(run):
        return run
    low, high = 1, len(run) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if fits(run[:middle]):
            low = middle
        else:
            high = middle - 1
    return run[:low]


async def handle_until_committed(handle: Callable[[Event], Answer], event: Event, metrics: Metrics,
                                 stopping: Callable[[], bool]) -> Answer:
    """``handle(event)``, retried with a growing pause (0.5 s to 30 s) while it fails, so an event is
    never skipped by a passing database error; once the bot is stopping, the failure is raised."""
    backoff = Backoff(0.5, 30.0, jitter=False)
    while True:
        try:
            return handle(event)
        except Exception:
            metrics.errors += 1
            log.exception("room %s: event %s not handled, retrying", event.room_id, event.event_id)
            if stopping():
                raise
            await asyncio.sleep(backoff.next())


class Owner(Protocol):
    """What the outbox needs of a transport: its name and which rooms it owns."""

    name: str

    def owns(self, room_id: str) -> bool: ...


def pending_of(owner: Owner, store: Store) -> list[Action]:
    """The actions committed for ``owner`` and not carried out yet (a stop or a crash came between), in
    their order: those the outbox keeps as its own, and those queued before the outbox kept owners
    of the rooms it owns, from now on kept as its own. Another transport's are left as they are."""
    own, claimed = [], []
    for recorded, action in store.outbox.pending_owned(owner.name):
        if recorded or owner.owns(action.room_id):
            own.append(action)
            if not recorded:
                claimed.append(action.action_id)
    if claimed:
        store.outbox.claim(claimed, owner.name)
    return own


class TransportHub:
    """The transports of one run, over one table."""

    def __init__(self, table: Table, metrics: Metrics) -> None:
        self.table = table
        self.metrics = metrics
        self.transports: list[Transport] = []
        self._stopping = False

    def add(self, transport: Transport) -> None:
        self.transports.append(transport)

    def owner(self, room_id: str) -> Transport | None:
        return next((t for t in self.transports if t.owns(room_id)), None)

    def deliver(self, actions: list[Action]) -> None:
        """Hand each action to the transport that owns its room (an action of a room no transport
        owns stays pending in the outbox, for the run that owns it)."""
        by_owner: dict[int, tuple[Transport, list[Action]]] = {}
        for action in actions:
            owner = self.owner(action.room_id)
            if owner is None:
                log.info("room %s: no transport owns it: action %s left pending", action.room_id, action.action_id)
                continue
            by_owner.setdefault(id(owner), (owner, []))[1].append(action)
        for owner, owned in by_owner.values():
            owner.deliver(owned)

    async def submit(self, event: Event) -> list[Action]:
        """Handle an event that comes from a source owning no room (the GM's screen): the table's
        answer, committed, handed to the room's transport. It runs in the caller's task; the
        table core is synchronous, so it never interleaves with another event's handling."""
        owner = self.owner(event.room_id)
        actions = await handle_until_committed(partial(self.table.handle, owner=owner.name if owner else ""), event,
                                               self.metrics, lambda: self._stopping)
        self.deliver(actions)
        return actions

    def stop(self) -> None:
        self._stopping = True
        for transport in self.transports:
            transport.stop()
