"""A channel's lines (PRIVMSG, NOTICE, a CTCP ACTION as ``/me``) as ``Event``s for the table.

- Lines said in a channel before the bot has its names, modes and WHO are held and handled once it has.
- With ``chathistory``, what the channel said while the bot was away is counted as missed, not answered late.
- Event ids: the IRCv3 ``msgid`` when the server sends one, else ``irc:RUN:N`` (unique per start:
  IRC replays nothing, so no line comes twice)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import uuid
from collections import OrderedDict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.core.events import Event, EventKind
from bot.irc.channels import Channel, Channels, HeldLine
from bot.irc.client import Connection, IrcClient
from bot.irc.ctcp import CtcpAnswers
from bot.irc.identity import People, Person, fold
from bot.irc.metrics import IrcMetrics
from bot.irc.sending import LineQueue
from bot.irc.store import IrcStore
from bot.irc.text import without_formatting
from bot.transport import Capabilities

if TYPE_CHECKING:
    from bot.irc.bot import Metrics

RECENT_EVENTS = 1000
HELD_LINES = 200
"""Lines kept per channel while it is not synced; more are counted as missed."""


class Translator:
    """Channel lines to events, queued in the order they came (``events``, read by ``IrcBot``'s worker)."""

    def __init__(self, connection: Connection, people: People, channels: Channels, ctcp: CtcpAnswers,
                 lines: LineQueue, store: IrcStore, metrics: Metrics, capabilities: Capabilities) -> None:
        self.connection = connection
        self.people = people
        self.channels = channels
        self.ctcp = ctcp
        self.lines = lines
        self.store = store
        self.metrics = metrics
        self.capabilities = capabilities
        self.events: asyncio.Queue[Event | None] = asyncio.Queue()
        self._run_id = uuid.uuid4().hex[:10]
        self._counter = itertools.count(1)
        self._senders: OrderedDict[str, str] = OrderedDict()
        """Recent event id -> folded nick of its sender (replies address them)."""
        self._history_batches: set[str] = set()

    def batch(self, client: IrcClient, message: Any) -> None:
        """``BATCH +id chathistory #chan`` ... ``BATCH -id``: the replay of a CHATHISTORY request."""
        ref = message.params[0] if message.params else ""
        if ref.startswith("+") and len(message.params) >= 2 and message.params[1].endswith("chathistory"):
            self._history_batches.add(ref[1:])
        elif ref.startswith("-"):
            self._history_batches.discard(ref[1:])

    def privmsg(self, client: IrcClient, message: Any) -> None:
        self._chat(client, message, "text")

    def notice(self, client: IrcClient, message: Any) -> None:
        self._chat(client, message, "notice")

    def _chat(self, client: IrcClient, message: Any, kind: EventKind) -> None:
        if len(message.params) < 2 or not message.source or "!" not in message.source:
            return
        channel = self.channels.get(message.params[0])
        tags = getattr(message, "tags", None) or {}
        if tags.get("batch") in self._history_batches:
            if channel is not None:
                self.missed()  # said while the bot was away: counted, not answered late
            return
        nick, meta = client.source(message)
        user, host = meta.get("username"), meta.get("hostname")
        text = message.params[1]
        if text.startswith("\x01"):
            ctcp, _, rest = text.strip("\x01").partition(" ")
            if kind != "text":
                return  # a CTCP reply
            if ctcp.upper() != "ACTION":
                self.ctcp.answer(nick, user, host, ctcp, rest)
                return
            text, kind = rest, "emote"
        if channel is None:
            return
        if not channel.synced:
            self._hold(channel, (nick, user, host, text, kind, tags))
        else:
            self.translate(channel, nick, user, host, text, kind, tags)

    def _hold(self, channel: Channel, line: HeldLine) -> None:
        """A line said before ``channel`` is synced: who is GM there is not known yet."""
        if len(channel.held) < HELD_LINES:
            channel.held.append(line)
        else:
            self.missed()

    def release(self, channel: Channel) -> None:
        """``channel`` is synced: the lines held until now are handled."""
        held, channel.held = channel.held, []
        for line in held:
            self.translate(channel, *line)

    def missed(self) -> None:
        self.metrics.part(IrcMetrics).missed_messages += 1

    def catch_up(self, channel: Channel) -> None:
        """With ``chathistory``, ask what the channel said since the last message the bot saw: those
        messages are counted as missed (``rolbot_irc_missed_messages_total``), not handled late."""
        last = self.store.last_seen(channel.room_id)
        if not last or not self.connection.history():
            return
        self.lines.push_raw("CHATHISTORY", "AFTER", channel.name, f"msgid={last}", "100")

    def translate(self, channel: Channel, nick: str, user: str | None, host: str | None, text: str,
                  kind: EventKind, tags: dict[str, Any]) -> None:
        if self.connection.is_me(nick):
            return
        account = tags.get("account") if isinstance(tags.get("account"), str) else None
        person = self.people.person(nick, user, host, account)
        text = without_formatting(text)
        if text.startswith(("!", "/")) and "@" in text:
            text = self.people.ids_for_mentions(text[:4000])
        msgid = tags.get("msgid")
        event_id = f"irc:{msgid}" if isinstance(msgid, str) and msgid else f"irc:{self._run_id}:{next(self._counter)}"
        bot_op = self.channels.bot_is_op(channel)
        event = Event(channel.room_id, person.user_id, text, event_id, kind=kind,
                      ts=_server_time(tags), sender_is_admin=channel.is_op(nick),
                      **self.capabilities.event_flags(bot_op, bot_op))
        self._senders[event_id] = fold(nick)
        while len(self._senders) > RECENT_EVENTS:
            self._senders.popitem(last=False)
        if isinstance(msgid, str):
            self.store.set_last_seen(event.room_id, msgid)
        self.events.put_nowait(event)

    def sender_of(self, event_id: str) -> Person | None:
        """Who said the event ``event_id`` (a recent one), as the bot knows them now."""
        key = self._senders.get(event_id)
        return self.people.known.get(key) if key else None


def _server_time(tags: dict[str, Any]) -> int:
    """The IRCv3 ``time`` tag in ms, else now."""
    value = tags.get("time")
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    return int(time.time() * 1000)
