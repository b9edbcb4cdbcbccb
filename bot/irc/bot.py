"""The IRC transport (pydle): channel messages in, the table's actions out.

- Identity: a services account (IRCv3 ``account-tag``, ``extended-join``, WHOX) is the user id
  ``@account:irc``. Without one, a person is ``@nick:user@host`` as first seen; the id follows their
  ``NICK`` changes, so characters, turn and floor stay theirs (``docs/irc.md``).
- GMs: channel operators (the server says who has ``+o``) and the ids the config lists.
- Mute: ``+m`` on lock with ``+v`` for the speakers only; the modes before the first lock are kept in
  the store and put back on unlock (``bot.irc.modes``); a lock that replaces another changes only the
  voices. The bot's own MODE changes count as made when it sends them (its view never goes back to an
  older state when the server's echo of an earlier line comes in). Without ``+o`` the bot asks for it
  and catches up later.
- Lines said in a channel before the bot has its names, modes and WHO are held and handled once it has.
- Every line goes through one token bucket; replies that wait there are joined into fewer lines. CTCP
  queries: ACTION is a ``/me``; VERSION, PING and TIME are answered at most once a minute per sender,
  after every table reply waiting; no other is answered.
- Event ids: the IRCv3 ``msgid`` when the server sends one, else ``irc:RUN:N`` (unique per start:
  IRC replays nothing, so no line comes twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import importlib.metadata
import itertools
import logging
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pydle
from pydle.features.ircv3.tags import TaggedMessage
from pydle.features.whox import WHOXSupport

from bot.config import Config
from bot.core.events import Action, Event, EventKind, PowerLevels, React, Redact, Send
from bot.core.table import Table
from bot.irc.config import IrcConfig, irc_account_id, irc_room_key
from bot.irc.flood import PerSender, TokenBucket
from bot.irc.metrics import IrcMetrics
from bot.irc.modes import Member, MuteRecord, mode_lines, plan
from bot.irc.store import IrcStore
from bot.irc.text import LINE_LIMIT, decode_line, irc_lines, plain_lines, split_line, without_formatting
from bot.metrics import Metrics
from bot.transport import ActionRegistry, Backoff, Capabilities, fitting, handle_until_committed, pause, pending_of

log = logging.getLogger("rolbot.irc")
_PYDLE_LOG = logging.getLogger("rolbot.irc.pydle")

JOIN_WITH = "  |  "
"""Between replies joined into one line while the bucket is empty."""
OP_PREFIXES = {"o", "a", "q"}
MAX_RECONNECT_S = 60.0
STABLE_S = 30.0
"""A connection that lasted this long was good: the next reconnection waits the least again."""
QUIT_WAIT_S = 5.0
RECLAIM_NICK_S = 30.0
"""Under another nick (ours was taken), ask for ours back this often (and whenever its holder leaves)."""
RECENT_EVENTS = 1000
HELD_LINES = 200
"""Lines kept per channel while it is not synced; more are counted as missed."""
CTCP_ANSWERED = ("VERSION", "PING", "TIME")
CTCP_INTERVAL_S = 60.0
CTCP_QUEUED = 10
"""CTCP replies waiting in the bucket at most: more are not answered."""
CTCP_PING_MAX = 64
PROTOCOL, REPLY, CTCP = 0, 1, 2
"""Line priorities: protocol lines first, then the table's replies, then CTCP replies."""
HeldLine = tuple[str, str | None, str | None, str, EventKind, dict[str, Any]]
"""A channel line as ``IrcBot.on_message`` takes it: nick, user, host, text, kind, tags."""
_MENTION = re.compile(r"(?<!\S)@([^\s@:!,]{1,30})(?!\S)")


@dataclass
class Person:
    user_id: str
    nick: str
    mask: str
    """``user@host`` when first seen."""


@dataclass
class Channel:
    name: str
    joined: bool = False
    synced: bool = False
    """Names, modes and WHO are in: the modes can be planned."""
    moderated: bool = False
    members: dict[str, set[str]] = field(default_factory=dict)
    """Folded nick -> prefix modes (``o``, ``v``...)."""
    asked_op: bool = False
    held: list[HeldLine] = field(default_factory=list)
    """Lines said before the channel was synced, handled once it is."""


@dataclass
class _Delivery:
    """What the handlers of one batch of actions share."""

    private: set[str]
    """Who gets a private message in the batch (a secret roll's GM copy is not doubled)."""
    muted: dict[str, Channel] = field(default_factory=dict)
    """The channels a lock changed: their modes are reconciled once, after the batch."""


ACTIONS: ActionRegistry[Callable[[IrcBot, Any, _Delivery], None]] = ActionRegistry("irc")
"""How IRC carries out each kind of action (``IrcBot.deliver``)."""


@dataclass(order=True)
class Line:
    priority: int
    seq: int
    command: str = field(compare=False)
    params: list[str] = field(compare=False)
    done: list[str] = field(compare=False, default_factory=list)
    """Action ids finished once this line is written."""
    joinable: bool = field(compare=False, default=False)


class IrcBot:
    """The IRC transport (``bot.transport.Transport``): it owns the channels of its config."""

    name = "irc"

    def __init__(self, config: Config, table: Table, metrics: Metrics) -> None:
        assert config.irc is not None
        self.config = config
        self.icfg: IrcConfig = config.irc
        self.capabilities = Capabilities(network_redacts=False, bot_can_mute=True,
                                         messages_per_second=1 / self.icfg.flood_interval_s)
        """IRC takes no line back; ``+m`` mutes; the bucket lets a line out every ``flood_interval_s``."""
        self.table = table
        self.irc_store = IrcStore(table.store)
        self.metrics = metrics
        self._stopping = False
        self._stop_event = asyncio.Event()
        self._connected = asyncio.Event()
        self.client: _Client | None = None
        self.channels: dict[str, Channel] = {irc_room_key(c): Channel(c) for c in self.icfg.channels}
        self.people: dict[str, Person] = {}
        self._run_id = uuid.uuid4().hex[:10]
        self._counter = itertools.count(1)
        self._events: asyncio.Queue[Event | None] = asyncio.Queue()
        self._lines: list[Line] = []
        self._line_ready = asyncio.Event()
        self._seq = itertools.count()
        self.bucket = TokenBucket(self.icfg.flood_burst, self.icfg.flood_interval_s)
        self.ctcp_senders = PerSender(CTCP_INTERVAL_S)
        self._senders: OrderedDict[str, str] = OrderedDict()
        """Recent event id -> folded nick of its sender (replies address them)."""
        self.own_mask = ""
        self.isupport_modes = 3
        self.metrics.transports["irc"] = False
        self._load_people()

    # ------------------------------------------------------------------ lifecycle

    def owns(self, room_id: str) -> bool:
        return room_id in self.channels

    def stop(self) -> None:
        self._stopping = True
        self._stop_event.set()
        self._line_ready.set()

    @property
    def nick(self) -> str:
        return self.client.nickname if self.client is not None else self.icfg.nick

    async def run(self) -> None:
        worker = asyncio.ensure_future(self._worker())
        sender = asyncio.ensure_future(self._sender())
        self._resume_pending()
        backoff = Backoff(0.5, MAX_RECONNECT_S)
        try:
            while not self._stopping:
                started = time.monotonic()
                try:
                    await self._session()
                except Exception:  # whatever broke this connection, the next one starts clean
                    self.metrics.errors += 1
                    log.exception("IRC connection failed")
                if self._stopping:
                    break
                if time.monotonic() - started > STABLE_S:
                    backoff.reset()
                wait = backoff.next()
                log.warning("IRC connection lost; reconnecting in %.1f s", wait)
                self.metrics.part(IrcMetrics).reconnects += 1
                await pause(self._stop_event, wait)
        finally:
            self._stopping = True
            self._events.put_nowait(None)
            self._line_ready.set()
            await asyncio.gather(worker, return_exceptions=True)
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            if self.client is not None and self.client.connected:
                self.client.quitting = True
                with contextlib.suppress(Exception):
                    # The server closes the connection once it has the QUIT: the nick is free when we return.
                    await self.client.raw("QUIT :rolbot\r\n")
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.client.lost.wait(), QUIT_WAIT_S)
                    await self.client.disconnect(expected=True)

    async def _session(self) -> None:
        """One connection, from connect to its loss (or the bot's stop)."""
        icfg = self.icfg
        fallback = [f"{icfg.nick}_", f"{icfg.nick}__", *(f"{icfg.nick}{n}" for n in range(1, 10))]
        sasl = {}
        if icfg.password:
            sasl = {"sasl_username": icfg.account or icfg.nick, "sasl_password": icfg.password.value,
                    "sasl_mechanism": "PLAIN"}
        client = _Client(self, icfg.nick, fallback_nicknames=fallback, username=icfg.nick.lower(),
                         realname="rolbot", **sasl)
        self.client = client
        self.channels = {irc_room_key(c): Channel(c) for c in icfg.channels}
        # Protocol lines of the last connection (JOIN, WHO, MODE) mean nothing on this one; replies stay.
        self._lines = [line for line in self._lines if line.command in ("NOTICE", "PRIVMSG")]
        heapq.heapify(self._lines)
        try:
            await client.connect(icfg.server, icfg.port, tls=icfg.tls, tls_verify=icfg.tls_verify)
        except (OSError, TimeoutError, pydle.Error) as err:
            log.warning("cannot connect to %s:%s (%s)", icfg.server, icfg.port, err)
            self.metrics.errors += 1
            return
        stop = asyncio.ensure_future(self._stop_event.wait())
        lost = asyncio.ensure_future(client.lost.wait())
        while not (stop.done() or lost.done()):
            await asyncio.wait({stop, lost}, timeout=RECLAIM_NICK_S, return_when=asyncio.FIRST_COMPLETED)
            if client.registered and self.fold(self.nick) != self.fold(icfg.nick):
                self.push_raw("NICK", icfg.nick)
        stop.cancel()
        lost.cancel()
        self._connected.clear()
        self.set_ready(False)

    def set_ready(self, ready: bool) -> None:
        """``/healthz``: IRC counts as connected while the bot is in all its channels."""
        self.metrics.transports["irc"] = ready

    async def on_registered(self) -> None:
        """Registered on the server: identify (no SASL) and join the channels."""
        client = self.client
        assert client is not None
        self._connected.set()
        if self.icfg.password and not client.sasl_done:
            self.push_raw("PRIVMSG", "NickServ", f"IDENTIFY {self.icfg.account or self.icfg.nick} "
                          f"{self.icfg.password.value}")
        for channel in self.icfg.channels:
            self.push_raw("JOIN", channel)

    def push_raw(self, command: str, *params: str) -> None:
        """A protocol line (JOIN, WHO, MODE...): ahead of the replies, through the same bucket."""
        self._push(Line(PROTOCOL, next(self._seq), command, list(params)))

    # ------------------------------------------------------------------ people

    def _load_people(self) -> None:
        self._saved_people: dict[str, list[str]] = self.irc_store.people()

    def _save_people(self) -> None:
        self.irc_store.save_people({key: [p.user_id, p.mask] for key, p in self.people.items()})

    def fold(self, nick: str) -> str:
        return irc_room_key(nick)

    def person(self, nick: str, user: str | None, host: str | None, account: str | None = None) -> Person:
        """Who ``nick`` is: their account, else the id they had when first seen (kept across nick
        changes and across the bot's restarts while they keep their nick and ``user@host``)."""
        key = self.fold(nick)
        mask = f"{user}@{host}" if user and host else ""
        known = self.people.get(key)
        if account:
            user_id = irc_account_id(account)
            if known is None or known.user_id != user_id:
                known = self.people[key] = Person(user_id, nick, mask or (known.mask if known else ""))
                self._save_people()
            return known
        if known is not None and (not mask or not known.mask or known.mask == mask):
            if mask and not known.mask:
                known.mask = mask
            return known
        saved = self._saved_people.get(key)
        if saved is not None and mask and saved[1] == mask and not saved[0].endswith(":irc"):
            user_id = saved[0]
        else:
            user_id = f"@{nick}:{mask}" if mask else f"@{nick}:?"
        taken = {p.user_id for k, p in self.people.items() if k != key}
        base, n = user_id, 2
        while user_id in taken:
            name, _, rest = base.partition(":")
            user_id, n = f"{name}~{n}:{rest}", n + 1
        person = self.people[key] = Person(user_id, nick, mask)
        self._save_people()
        return person

    def _id_for_mention(self, nick: str) -> str | None:
        """``@nick`` in a command (``!pj Lyra @ana``, ``!master @ana``) stands for that person's id."""
        person = self.people.get(self.fold(nick))
        return person.user_id if person else None

    def nick_of(self, user_id: str) -> str | None:
        for person in self.people.values():
            if person.user_id == user_id:
                return person.nick
        return None

    def rename(self, old: str, new: str) -> None:
        old_key, new_key = self.fold(old), self.fold(new)
        person = self.people.pop(old_key, None)
        if person is not None:
            person.nick = new
            self.people[new_key] = person
            self._save_people()
        for channel in self.channels.values():
            if old_key in channel.members:
                channel.members[new_key] = channel.members.pop(old_key)
        if old_key == self.fold(self.icfg.nick) and self.fold(self.nick) != old_key:
            self.push_raw("NICK", self.icfg.nick)

    def gone(self, nick: str, channel: Channel | None = None) -> None:
        """``nick`` left ``channel`` (or the server): forget them once they share no channel with us."""
        key = self.fold(nick)
        for ch in [channel] if channel is not None else list(self.channels.values()):
            ch.members.pop(key, None)
        if not any(key in ch.members for ch in self.channels.values()) and self.people.pop(key, None) is not None:
            self._save_people()
        if key == self.fold(self.icfg.nick) and self.fold(self.nick) != key:
            self.push_raw("NICK", self.icfg.nick)

    # ------------------------------------------------------------------ channel state

    def channel(self, name: str) -> Channel | None:
        return self.channels.get(irc_room_key(name))

    def _ask_history(self, channel: Channel) -> None:
        """With ``chathistory``, ask what the channel said since the last message the bot saw: those
        messages are counted as missed (``rolbot_irc_missed_messages_total``), not handled late."""
        client = self.client
        last = self.irc_store.last_seen(irc_room_key(channel.name))
        if client is None or not last or not client.history_cap():
            return
        self.push_raw("CHATHISTORY", "AFTER", channel.name, f"msgid={last}", "100")

    def missed(self) -> None:
        self.metrics.part(IrcMetrics).missed_messages += 1

    def bot_is_op(self, channel: Channel) -> bool:
        return bool(channel.members.get(self.fold(self.nick), set()) & OP_PREFIXES)

    def is_op(self, channel: Channel, nick: str) -> bool:
        return bool(channel.members.get(self.fold(nick), set()) & OP_PREFIXES)

    def channel_synced(self, channel: Channel) -> None:
        channel.synced = True
        self._ask_history(channel)
        log.info("joined %s (%d members, op: %s)", channel.name, len(channel.members), self.bot_is_op(channel))
        if all(c.synced for c in self.channels.values()):
            self.set_ready(True)
        self.reconcile(channel)
        held, channel.held = channel.held, []
        for line in held:
            self.on_message(channel, *line)

    def hold(self, channel: Channel, line: HeldLine) -> None:
        """A line said before ``channel`` is synced: who is GM there is not known yet."""
        if len(channel.held) < HELD_LINES:
            channel.held.append(line)
        else:
            self.missed()

    def resync(self, channel: Channel) -> None:
        """The server refused a MODE line: the bot's view of the channel is wrong; ask for it again."""
        if channel.joined and channel.synced:
            log.warning("%s: a mode change was refused; reading the channel again", channel.name)
            channel.synced, channel.members = False, {}
            self.push_raw("MODE", channel.name)
            self.push_raw("WHO", channel.name, *(["%tcuhnfa,42"] if self.client and self.client.whox() else []))

    def mode_changed(self, channel: Channel, changes: list[tuple[str, str | None]]) -> None:
        me = self.fold(self.nick)
        self._apply_modes(channel, changes)
        if any(p is not None and self.fold(p) == me and c[1] == "o" for c, p in changes):
            if self.bot_is_op(channel):
                channel.asked_op = False
            self.reconcile(channel)

    def _apply_modes(self, channel: Channel, changes: list[tuple[str, str | None]]) -> None:
        for change, param in changes:
            if change[1] == "m":
                channel.moderated = change[0] == "+"
            elif param is not None and change[1] in "ovhaq":
                modes = channel.members.setdefault(self.fold(param), set())
                if change[0] == "+":
                    modes.add(change[1])
                else:
                    modes.discard(change[1])

    def member_joined(self, channel: Channel, nick: str) -> None:
        channel.members.setdefault(self.fold(nick), set())
        if channel.synced:
            self.reconcile(channel)

    # ------------------------------------------------------------------ events in

    def on_message(self, channel: Channel, nick: str, user: str | None, host: str | None, text: str,
                   kind: EventKind, tags: dict[str, Any]) -> None:
        if self.fold(nick) == self.fold(self.nick):
            return
        account = tags.get("account") if isinstance(tags.get("account"), str) else None
        person = self.person(nick, user, host, account)
        text = without_formatting(text)
        if text.startswith(("!", "/")) and "@" in text:
            text = _MENTION.sub(lambda m: self._id_for_mention(m[1]) or m[0], text[:4000])
        msgid = tags.get("msgid")
        event_id = f"irc:{msgid}" if isinstance(msgid, str) and msgid else f"irc:{self._run_id}:{next(self._counter)}"
        bot_op = self.bot_is_op(channel)
        event = Event(irc_room_key(channel.name), person.user_id, text, event_id, kind=kind,
                      ts=_server_time(tags), sender_is_admin=self.is_op(channel, nick),
                      **self.capabilities.event_flags(bot_op, bot_op))
        self._senders[event_id] = self.fold(nick)
        while len(self._senders) > RECENT_EVENTS:
            self._senders.popitem(last=False)
        if isinstance(msgid, str):
            self.irc_store.set_last_seen(event.room_id, msgid)
        self._events.put_nowait(event)

    async def _worker(self) -> None:
        """Events are handled one by one, in the order they came."""
        while True:
            event = await self._events.get()
            if event is None:
                break
            try:
                actions = await handle_until_committed(functools.partial(self.table.handle, owner=self.name), event,
                                                       self.metrics, lambda: self._stopping)
            except Exception:  # logged; the bot is stopping, and the event is handled at the next start
                break
            self.metrics.events_handled += 1
            self.deliver(actions)

    def _resume_pending(self) -> None:
        """Actions committed before a stop and not sent: sent now (IRC's own only)."""
        pending = pending_of(self, self.table.store)
        if pending:
            log.info("%d IRC actions pending from before the stop", len(pending))
            self.deliver(pending)

    # ------------------------------------------------------------------ actions out

    def deliver(self, actions: list[Action]) -> None:
        """The table's actions; the channels a lock changed are brought to it once, after all of them
        (a named lock replacing a narration is an unlock and a lock: only the voices change)."""
        batch = _Delivery({a.private_to for a in actions if isinstance(a, Send) and a.private_to is not None})
        for action in actions:
            ACTIONS[action](self, action, batch)
        for channel in batch.muted.values():
            self.reconcile(channel)

    @ACTIONS.on(Redact)
    def _redact(self, action: Redact, batch: _Delivery) -> None:
        """IRC cannot take a line back (the warning says so)."""
        self._done(action.action_id)

    def _done(self, action_id: str) -> None:
        if action_id:
            self.table.action_done(action_id)

    @ACTIONS.on(Send)
    def _send(self, action: Send, batch: _Delivery) -> None:
        channel = self.channels.get(action.room_id)
        if channel is None:
            self._done(action.action_id)
            return
        lines = [self._nicks_for_ids(line) for line in irc_lines(action.message)]
        if action.private_to:
            targets = [nick for nick in (self.nick_of(u) for u in (action.private_to, *action.private_also)) if nick]
            if not self._known_gm(channel, action.private_to):
                # A secret roll goes to its roller and to the channel's GMs.
                targets += [n for n in self._gm_nicks(channel) if self._id_of(n) not in batch.private]
            if not targets:
                log.info("%s: private message for %s, who is not here: dropped", channel.name, action.private_to)
            for i, nick in enumerate(dict.fromkeys(targets)):
                self._queue_text("NOTICE", nick, lines, [action.action_id] if i == 0 else [])
            if not targets:
                self._done(action.action_id)
            return
        addressed = [n for n in (self.nick_of(u) for u in action.mentions) if n]
        if not addressed and action.reply_to:
            sender = self._senders.get(action.reply_to)
            person = self.people.get(sender) if sender else None
            addressed = [person.nick] if person else []
        if addressed and lines:
            lines[0] = f"{', '.join(addressed)}: {lines[0]}"
        self._queue_text("NOTICE", channel.name, lines, [action.action_id], joinable=True)

    def _nicks_for_ids(self, line: str) -> str:
        """User ids of people in the channels shown as their nicks (what IRC users know each other by)."""
        if "@" not in line:
            return line
        for person in sorted(self.people.values(), key=lambda p: -len(p.user_id)):
            if person.user_id in line:
                line = line.replace(person.user_id, person.nick)
        return line

    @ACTIONS.on(React)
    def _react(self, action: React, batch: _Delivery) -> None:
        """The GM's confirmation of a lock: IRC has no reactions, so a private notice with the emoji."""
        nick = self._senders.get(action.event_id)
        person = self.people.get(nick) if nick else None
        if person is None:
            self._done(action.action_id)
            return
        self._queue_text("NOTICE", person.nick, plain_lines(action.key), [action.action_id])

    def _id_of(self, nick: str) -> str | None:
        person = self.people.get(self.fold(nick))
        return person.user_id if person else None

    def _known_gm(self, channel: Channel, user_id: str) -> bool:
        nick = self.nick_of(user_id)
        return (nick is not None and self.is_op(channel, nick)) or user_id in self._listed_gms(channel)

    def _listed_gms(self, channel: Channel) -> set[str]:
        return set(self.table.gms_of(irc_room_key(channel.name)))

    def _gm_nicks(self, channel: Channel) -> list[str]:
        listed = self._listed_gms(channel)
        me = self.fold(self.nick)
        out = []
        for key, modes in channel.members.items():
            person = self.people.get(key)
            if key != me and (modes & OP_PREFIXES or (person is not None and person.user_id in listed)):
                out.append(person.nick if person else key)
        return out

    def _queue_text(self, command: str, target: str, lines: list[str], done: list[str], joinable: bool = False) -> None:
        budget = self.budget(command, target)
        pieces = [piece for line in lines for piece in split_line(line, budget)] or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            self._push(Line(REPLY, next(self._seq), command, [target, piece], done if last else [], joinable))

    def ctcp(self, nick: str, user: str | None, host: str | None, query: str, argument: str) -> None:
        """Answer a CTCP VERSION, PING or TIME: at most once a minute per sender, after the table's
        replies, through the bucket."""
        query = query.upper()
        if query not in CTCP_ANSWERED or self.fold(nick) == self.fold(self.nick):
            return
        waiting = sum(1 for line in self._lines if line.priority == CTCP)
        if waiting >= CTCP_QUEUED or not self.ctcp_senders.allow(f"{user}@{host}" if user and host else nick):
            return
        if query == "VERSION":
            answer = f"rolbot {importlib.metadata.version('rolbot')}"
        elif query == "PING":
            answer = "".join(c for c in argument[:CTCP_PING_MAX] if c.isprintable())
        else:
            answer = time.strftime("%a %b %d %H:%M:%S %Y %z")
        body = f"{query} {answer}" if answer else query
        self._push(Line(CTCP, next(self._seq), "NOTICE", [nick, f"\x01{body}\x01"]))

    def _push(self, line: Line) -> None:
        heapq.heappush(self._lines, line)
        self._line_ready.set()

    def budget(self, command: str, target: str) -> int:
        """Bytes left for the text of ``:NICK!USER@HOST COMMAND TARGET :TEXT\\r\\n`` as the server relays it."""
        mask = self.own_mask or f"{self.nick}!~{self.nick[:10]}@{'x' * 63}"
        return LINE_LIMIT - len(f":{mask} {command} {target} :\r\n".encode())

    # ------------------------------------------------------------------ mute

    def _record(self, room_id: str) -> MuteRecord | None:
        return self.irc_store.mute_record(room_id)

    @ACTIONS.on(PowerLevels)
    def _mute(self, action: PowerLevels, batch: _Delivery) -> None:
        """Keep what the lock asks for in the channel's mute record; the channel is reconciled after the
        batch (``batch.muted``). The modes to restore are those from before the first lock: a record
        still waiting for its undoing keeps them."""
        channel = self.channels.get(action.room_id)
        record = self._record(action.room_id)
        if channel is not None:
            if action.lock:
                if record is None:
                    me = self.fold(self.nick)
                    voiced = [self._id_of(k) or k for k, modes in channel.members.items() if "v" in modes and k != me]
                    record = MuteRecord(True, list(action.speakers), channel.moderated, [v for v in voiced if v])
                record.locked, record.speakers = True, list(action.speakers)
            elif record is not None:
                record.locked = False
            if record is not None:
                self.irc_store.save_mute_record(action.room_id, record)
                self.metrics.power_level_changes += 1
                batch.muted[channel.name] = channel
        self._done(action.action_id)

    def reconcile(self, channel: Channel) -> None:
        """Bring the channel's modes to what its mute record asks for; without ``+o``, ask for it once."""
        room_id = irc_room_key(channel.name)
        record = self._record(room_id)
        if record is None or not channel.synced:
            return
        if not self.bot_is_op(channel):
            if not channel.asked_op:
                channel.asked_op = True
                message = self.table.renderer.render("irc/need_op", locked=record.locked, nick=self.nick)
                # In the channel, and to its GMs in private: under +m without a voice the bot is not heard there.
                for target in [channel.name, *self._gm_nicks(channel)]:
                    self._queue_text("NOTICE", target, irc_lines(message), [])
            return
        me = self.fold(self.nick)
        members = [Member(self.people[k].nick if k in self.people else k, self._id_of(k) or f"?{k}", "v" in modes)
                   for k, modes in channel.members.items() if k != me]
        changes = plan(record, channel.moderated, members)
        for params in mode_lines(changes, self.isupport_modes):
            self._push(Line(PROTOCOL, next(self._seq), "MODE", [channel.name, *params]))
        self._apply_modes(channel, changes)  # as the server will have them: the next plan starts there
        if not record.locked:
            self.irc_store.forget_mute_record(room_id)

    # ------------------------------------------------------------------ sending

    async def _sender(self) -> None:
        """Lines go out through the token bucket; notices to one target that wait there are joined."""
        while True:
            while not self._lines:
                self._line_ready.clear()
                await self._line_ready.wait()
            await self._connected.wait()
            wait = self.bucket.wait()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            line = heapq.heappop(self._lines)
            if line.joinable:
                line = self._join_waiting(line)
            client = self.client
            if client is None or not client.connected:
                heapq.heappush(self._lines, line)
                self._connected.clear()
                continue
            self.bucket.take()
            try:
                await client.rawmsg(line.command, *line.params)
            except Exception:
                log.exception("IRC send failed")
                heapq.heappush(self._lines, line)
                continue
            if line.command in ("NOTICE", "PRIVMSG"):
                self.metrics.replies += 1
            if line.done:
                self.table.actions_done(line.done)

    def _join_waiting(self, line: Line) -> Line:
        """Under a backlog (more lines waiting than the bucket lets out now) join the following
        joinable notices to the same target into this line, as far as the byte budget allows."""
        if len(self._lines) < 2 or self.bucket.tokens >= 2:
            return line
        target = line.params[0]
        budget = self.budget(line.command, target)
        most = 1 + budget // len(JOIN_WITH)  # more cannot fit: each adds the separator at least
        run = [line]
        while self._lines and len(run) < most and self._joins(self._lines[0], line):
            run.append(heapq.heappop(self._lines))
        joined = fitting(run, lambda part: len(JOIN_WITH.join(p.params[1] for p in part).encode()) <= budget)
        for rest in run[len(joined):]:
            heapq.heappush(self._lines, rest)
        if len(joined) > 1:
            self.metrics.coalesced_messages += 1
            self.metrics.coalesced_replies += len(joined)
        text = JOIN_WITH.join(p.params[1] for p in joined)
        done = [action_id for p in joined for action_id in p.done]
        return Line(line.priority, line.seq, line.command, [target, text], done, True)

    @staticmethod
    def _joins(nxt: Line, line: Line) -> bool:
        return nxt.joinable and nxt.command == line.command and nxt.params[0] == line.params[0]


def _server_time(tags: dict[str, Any]) -> int:
    """The IRCv3 ``time`` tag in ms, else now."""
    value = tags.get("time")
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    return int(time.time() * 1000)


class _Client(pydle.Client):
    """pydle, with its own reconnection off (``IrcBot.run`` reconnects with backoff).

    pydle handles each line in a task of its own; the bot's view of the channels and the events it
    hands the table are taken from each line as it is parsed (``_track``, no awaiting), so they keep
    the order the server sent them in."""

    RECONNECT_ON_ERROR = False
    _receive_buffer: bytes

    def __init__(self, bot: IrcBot, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bot = bot
        self.lost = asyncio.Event()
        self.sasl_done = False
        self.quitting = False
        """The bot sent QUIT: the server's ERROR and the end of the connection are its goodbye."""
        self._handlers: set[asyncio.Future[None]] = set()
        self._history_batches: set[str] = set()

    @property
    def logger(self) -> logging.Logger:
        """pydle's log, under one name whatever the server (pydle names it after the server)."""
        return _PYDLE_LOG

    @logger.setter
    def logger(self, value: logging.Logger) -> None:
        pass

    def _parse_message(self) -> Any:
        """pydle's parsing, with the line decoded by ``decode_line`` (a line the server cut inside a
        UTF-8 character keeps its text)."""
        line, _, self._receive_buffer = self._receive_buffer.partition(b"\n")
        return TaggedMessage.parse(decode_line(line.rstrip(b"\r")).encode() + b"\r\n", encoding="utf-8")

    async def on_data(self, data: bytes) -> None:
        self._receive_buffer += data
        while self._has_message():
            message = self._parse_message()
            try:
                self._track(message)
            except Exception:  # a line we cannot read must not stop the others
                self.bot.metrics.errors += 1
                log.exception("IRC line not understood: %r", getattr(message, "_raw", "")[:200])
            task = asyncio.ensure_future(self.on_raw(message))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    async def on_capability_batch_available(self, value: str | None) -> bool:
        return True

    async def on_capability_server_time_available(self, value: str | None) -> bool:
        return True

    async def on_capability_chathistory_available(self, value: str | None) -> bool:
        return True

    async def on_capability_draft_chathistory_available(self, value: str | None) -> bool:
        return True

    def history_cap(self) -> bool:
        return bool(self._capabilities.get("chathistory") or self._capabilities.get("draft/chathistory"))

    async def _create_user(self, nickname: str) -> None:
        """pydle would WHOIS every new nick (one line each, outside the bucket): the bot's own WHO
        of the channel says what it needs."""
        super(WHOXSupport, self)._create_user(nickname)

    async def on_connect(self) -> None:
        self._autojoin_channels: list[str] = []
        await super().on_connect()
        await self.bot.on_registered()

    async def on_data_error(self, exception: BaseException) -> None:
        """The server's ERROR line or a failed socket: the connection is over (``IrcBot.run`` says so
        and reconnects). After the bot's QUIT it is the server's goodbye."""
        if self.quitting:
            log.info("IRC server closed the connection after QUIT (%s)", exception)
        else:
            log.warning("IRC connection closed (%s)", exception)
        await self.disconnect(expected=self.quitting)

    async def on_disconnect(self, expected: bool) -> None:
        """pydle's own only logs (its reconnection is off): ``IrcBot.run`` handles the loss."""
        self.lost.set()

    async def on_ctcp_version(self, by: str, target: str, contents: str | None) -> None:
        """pydle would answer every VERSION at once, outside the bucket: ``IrcBot.ctcp`` answers."""

    def whox(self) -> bool:
        return "WHOX" in self._isupport

    def _track(self, message: Any) -> None:
        command = str(message.command).zfill(3) if isinstance(message.command, int) else str(message.command).upper()
        handler = getattr(self, f"_track_{command.lower()}", None)
        if handler is not None:
            handler(message)

    def _symbols(self) -> dict[str, str]:
        modes, symbols = _prefix_map(self._isupport.get("PREFIX"))
        return dict(zip(symbols, modes))

    def _track_900(self, message: Any) -> None:
        self.sasl_done = True

    def _track_005(self, message: Any) -> None:
        for token in message.params[1:-1]:
            name, _, value = token.partition("=")
            if name == "MODES" and value.isdigit():
                self.bot.isupport_modes = max(1, int(value))

    def _track_join(self, message: Any) -> None:
        nick, meta = self._parse_user(message.source)
        channel = self.bot.channel(message.params[0])
        if channel is None or not nick:
            return
        account = message.params[1] if len(message.params) >= 3 and message.params[1] != "*" else None
        if self.bot.fold(nick) == self.bot.fold(self.bot.nick):
            self.bot.own_mask = message.source
            channel.joined, channel.synced, channel.members, channel.asked_op = True, False, {}, False
            self.bot.push_raw("MODE", channel.name)
            self.bot.push_raw("WHO", channel.name, *(["%tcuhnfa,42"] if self.whox() else []))
            return
        self.bot.person(nick, meta.get("username"), meta.get("hostname"), account)
        self.bot.member_joined(channel, nick)

    def _track_353(self, message: Any) -> None:
        channel = self.bot.channel(message.params[2])
        if channel is None or channel.synced:
            return
        symbols = self._symbols()
        for entry in message.params[3].split():
            modes = set()
            while entry and entry[0] in symbols:
                modes.add(symbols[entry[0]])
                entry = entry[1:]
            nick = entry.split("!", 1)[0]
            if nick:
                channel.members[self.bot.fold(nick)] = modes

    def _track_324(self, message: Any) -> None:
        channel = self.bot.channel(message.params[1])
        if channel is not None:
            channel.moderated = "m" in message.params[2]

    def _track_352(self, message: Any) -> None:
        # :server 352 me #chan user host server nick flags :hops realname
        params = message.params
        if len(params) >= 7:
            self._who_entry(params[1], params[2], params[3], params[5], params[6], None)

    def _track_354(self, message: Any) -> None:
        # WHOX %tcuhnfa,42: :server 354 me 42 #chan user host nick flags account
        params = message.params
        if len(params) >= 8 and params[1] == "42":
            self._who_entry(params[2], params[3], params[4], params[5], params[6], params[7] if params[7] != "0" else None)

    def _who_entry(self, channel_name: str, user: str, host: str, nick: str, flags: str, account: str | None) -> None:
        self.bot.person(nick, user, host, account)
        symbols = self._symbols()
        channel = self.bot.channel(channel_name)
        if channel is not None and channel.joined and not channel.synced:
            channel.members[self.bot.fold(nick)] = {symbols[c] for c in flags if c in symbols}

    def _track_315(self, message: Any) -> None:
        channel = self.bot.channel(message.params[1])
        if channel is not None and channel.joined and not channel.synced:
            self.bot.channel_synced(channel)

    def _track_mode(self, message: Any) -> None:
        channel = self.bot.channel(message.params[0])
        nick, _ = self._parse_user(message.source)
        # The bot's own changes were counted when it sent them (``IrcBot.reconcile``).
        if channel is not None and self.bot.fold(nick or "") != self.bot.fold(self.bot.nick):
            self.bot.mode_changed(channel, _parse_modes(message.params[1:], self._isupport))

    def _track_482(self, message: Any) -> None:
        # :server 482 me #chan :You're not channel operator
        channel = self.bot.channel(message.params[1]) if len(message.params) >= 2 else None
        if channel is not None:
            self.bot.resync(channel)

    def _track_nick(self, message: Any) -> None:
        old, _ = self._parse_user(message.source)
        if old and message.params and self.bot.fold(old) != self.bot.fold(message.params[0]):
            self.bot.rename(old, message.params[0])

    def _track_part(self, message: Any) -> None:
        nick, _ = self._parse_user(message.source)
        channel = self.bot.channel(message.params[0])
        if channel is None or not nick:
            return
        if self.bot.fold(nick) == self.bot.fold(self.bot.nick):
            channel.joined = channel.synced = False
            return
        self.bot.gone(nick, channel)

    def _track_kick(self, message: Any) -> None:
        channel = self.bot.channel(message.params[0])
        if channel is None or len(message.params) < 2:
            return
        target = message.params[1]
        if self.bot.fold(target) == self.bot.fold(self.bot.nick):
            channel.joined = channel.synced = False
            log.warning("kicked from %s: joining again", channel.name)
            self.bot.set_ready(False)
            self.bot.push_raw("JOIN", channel.name)
            return
        self.bot.gone(target, channel)

    def _track_quit(self, message: Any) -> None:
        nick, _ = self._parse_user(message.source)
        if nick:
            self.bot.gone(nick)

    def _track_batch(self, message: Any) -> None:
        """``BATCH +id chathistory #chan`` ... ``BATCH -id``: the replay of a CHATHISTORY request."""
        ref = message.params[0] if message.params else ""
        if ref.startswith("+") and len(message.params) >= 2 and message.params[1].endswith("chathistory"):
            self._history_batches.add(ref[1:])
        elif ref.startswith("-"):
            self._history_batches.discard(ref[1:])

    def _track_privmsg(self, message: Any) -> None:
        self._chat(message, "text")

    def _track_notice(self, message: Any) -> None:
        self._chat(message, "notice")

    def _chat(self, message: Any, kind: EventKind) -> None:
        if len(message.params) < 2 or not message.source or "!" not in message.source:
            return
        channel = self.bot.channel(message.params[0])
        tags = getattr(message, "tags", None) or {}
        if tags.get("batch") in self._history_batches:
            if channel is not None:
                self.bot.missed()  # said while the bot was away: counted, not answered late
            return
        nick, meta = self._parse_user(message.source)
        user, host = meta.get("username"), meta.get("hostname")
        text = message.params[1]
        if text.startswith("\x01"):
            ctcp, _, rest = text.strip("\x01").partition(" ")
            if kind != "text":
                return  # a CTCP reply
            if ctcp.upper() != "ACTION":
                self.bot.ctcp(nick, user, host, ctcp, rest)
                return
            text, kind = rest, "emote"
        if channel is None:
            return
        if not channel.synced:
            self.bot.hold(channel, (nick, user, host, text, kind, tags))
        else:
            self.bot.on_message(channel, nick, user, host, text, kind, tags)


def _prefix_map(value: Any) -> tuple[str, str]:
    """ISUPPORT PREFIX ``(ov)@+`` as (modes, symbols); RFC 1459's when missing."""
    if isinstance(value, dict):  # pydle parses it as {mode: symbol}
        return "".join(value), "".join(value.values())
    if isinstance(value, str) and value.startswith("(") and ")" in value:
        modes, symbols = value[1:].split(")", 1)
        return modes, symbols
    return "ov", "@+"


def _parse_modes(params: list[str], isupport: dict[str, Any]) -> list[tuple[str, str | None]]:
    """A channel MODE's changes, each with its parameter when the mode takes one."""
    modes, _ = _prefix_map(isupport.get("PREFIX"))
    always, on_set = set(modes) | set("beIk"), set("l")
    chanmodes = isupport.get("CHANMODES")
    if isinstance(chanmodes, str):
        chanmodes = chanmodes.split(",")
    if isinstance(chanmodes, list | tuple) and len(chanmodes) >= 3:
        always |= set(chanmodes[0]) | set(chanmodes[1])
        on_set |= set(chanmodes[2])
    out: list[tuple[str, str | None]] = []
    if not params:
        return out
    args = list(params[1:])
    sign = "+"
    for char in params[0]:
        if char in "+-":
            sign = char
            continue
        takes = char in always or (sign == "+" and char in on_set)
        out.append((sign + char, args.pop(0) if takes and args else None))
    return out
