"""What each line from the server changes in the bot's view, as it is parsed: who is who, the channels'
members and modes, and the channel lines the ``Translator`` turns into events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.irc.channels import OP_PREFIXES, Channel, Channels
from bot.irc.client import Connection, IrcClient
from bot.irc.identity import People, fold
from bot.irc.mute import Mute
from bot.irc.sending import LineQueue
from bot.irc.translate import Translator

if TYPE_CHECKING:
    from bot.irc.bot import Metrics

log = logging.getLogger("rolbot.irc")
WHOX_FIELDS = "%tcuhnfa,42"
"""The WHOX request: type, channel, user, host, nick, flags, account; ``42`` marks its answers."""


class LineReader:
    def __init__(self, connection: Connection, people: People, channels: Channels, translator: Translator,
                 mute: Mute, lines: LineQueue, metrics: Metrics, ready: Callable[[bool], None]) -> None:
        self.connection = connection
        self.people = people
        self.channels = channels
        self.translator = translator
        self.mute = mute
        self.lines = lines
        self.metrics = metrics
        self.ready = ready
        """Told whether the bot is in all its channels (``/healthz``)."""
        self.handlers: dict[str, Callable[[IrcClient, Any], None]] = {
            "900": self._sasl_done, "005": self._isupport, "JOIN": self._join, "353": self._names,
            "324": self._channel_modes, "352": self._who, "354": self._whox, "315": self._end_of_who,
            "MODE": self._mode, "482": self._not_op, "NICK": self._nick, "PART": self._part, "KICK": self._kick,
            "QUIT": self._quit, "BATCH": translator.batch, "PRIVMSG": translator.privmsg, "NOTICE": translator.notice,
        }

    def read(self, client: IrcClient, message: Any) -> None:
        command = str(message.command).zfill(3) if isinstance(message.command, int) else str(message.command).upper()
        handler = self.handlers.get(command)
        if handler is None:
            return
        try:
            handler(client, message)
        except Exception:  # a line we cannot read must not stop the others
            self.metrics.errors += 1
            log.exception("IRC line not understood: %r", getattr(message, "_raw", "")[:200])

    def _sasl_done(self, client: IrcClient, message: Any) -> None:
        client.sasl_done = True

    def _isupport(self, client: IrcClient, message: Any) -> None:
        for token in message.params[1:-1]:
            name, _, value = token.partition("=")
            if name == "MODES" and value.isdigit():
                self.connection.modes_per_line = max(1, int(value))

    def _join(self, client: IrcClient, message: Any) -> None:
        nick, meta = client.source(message)
        channel = self.channels.get(message.params[0])
        if channel is None or not nick:
            return
        account = message.params[1] if len(message.params) >= 3 and message.params[1] != "*" else None
        if self.connection.is_me(nick):
            self.connection.own_mask = message.source
            channel.joined_again()
            self._read_channel(channel)
            return
        self.people.person(nick, meta.get("username"), meta.get("hostname"), account)
        channel.members.setdefault(fold(nick), set())
        if channel.synced:
            self.mute.reconcile(channel)

    def _read_channel(self, channel: Channel) -> None:
        self.lines.push_raw("MODE", channel.name)
        self.lines.push_raw("WHO", channel.name, *([WHOX_FIELDS] if self.connection.whox() else []))

    def _names(self, client: IrcClient, message: Any) -> None:
        channel = self.channels.get(message.params[2])
        if channel is None or channel.synced:
            return
        symbols = client.symbols()
        for entry in message.params[3].split():
            modes = set()
            while entry and entry[0] in symbols:
                modes.add(symbols[entry[0]])
                entry = entry[1:]
            nick = entry.split("!", 1)[0]
            if nick:
                channel.members[fold(nick)] = modes

    def _channel_modes(self, client: IrcClient, message: Any) -> None:
        channel = self.channels.get(message.params[1])
        if channel is not None:
            channel.moderated = "m" in message.params[2]

    def _who(self, client: IrcClient, message: Any) -> None:
        # :server 352 me #chan user host server nick flags :hops realname
        params = message.params
        if len(params) >= 7:
            self._who_entry(client, params[1], params[2], params[3], params[5], params[6], None)

    def _whox(self, client: IrcClient, message: Any) -> None:
        # WHOX %tcuhnfa,42: :server 354 me 42 #chan user host nick flags account
        params = message.params
        if len(params) >= 8 and params[1] == "42":
            self._who_entry(client, params[2], params[3], params[4], params[5], params[6],
                            params[7] if params[7] != "0" else None)

    def _who_entry(self, client: IrcClient, channel_name: str, user: str, host: str, nick: str, flags: str,
                   account: str | None) -> None:
        self.people.person(nick, user, host, account)
        symbols = client.symbols()
        channel = self.channels.get(channel_name)
        if channel is not None and channel.joined and not channel.synced:
            channel.members[fold(nick)] = {symbols[c] for c in flags if c in symbols}

    def _end_of_who(self, client: IrcClient, message: Any) -> None:
        channel = self.channels.get(message.params[1])
        if channel is not None and channel.joined and not channel.synced:
            self._synced(channel)

    def _synced(self, channel: Channel) -> None:
        """Names, modes and WHO are in: the mute can be planned and the lines held are handled."""
        channel.synced = True
        self.translator.catch_up(channel)
        log.info("joined %s (%d members, op: %s)", channel.name, len(channel.members), self.channels.bot_is_op(channel))
        if self.channels.all_synced():
            self.ready(True)
        self.mute.reconcile(channel)
        self.translator.admins(channel)
        self.translator.release(channel)

    def _mode(self, client: IrcClient, message: Any) -> None:
        channel = self.channels.get(message.params[0])
        nick, _ = client.source(message)
        # The bot's own changes were counted when it sent them (``Mute.reconcile``).
        if channel is None or self.connection.is_me(nick):
            return
        changes = client.mode_changes(message.params[1:])
        channel.apply_modes(changes)
        if any(p is not None and c[1] in OP_PREFIXES for c, p in changes):
            self.translator.admins(channel)
        if any(p is not None and self.connection.is_me(p) and c[1] == "o" for c, p in changes):
            if self.channels.bot_is_op(channel):
                channel.asked_op = False
            self.mute.reconcile(channel)

    def _not_op(self, client: IrcClient, message: Any) -> None:
        """The server refused a MODE line (``482``): the bot's view of the channel is wrong; ask for it again."""
        channel = self.channels.get(message.params[1]) if len(message.params) >= 2 else None
        if channel is not None and channel.joined and channel.synced:
            log.warning("%s: a mode change was refused; reading the channel again", channel.name)
            channel.synced, channel.members = False, {}
            self._read_channel(channel)

    def _nick(self, client: IrcClient, message: Any) -> None:
        old, _ = client.source(message)
        if not old or not message.params or fold(old) == fold(message.params[0]):
            return
        self.people.rename(old, message.params[0])
        self.channels.rename(old, message.params[0])
        if self.connection.should_reclaim(old):
            self.lines.push_raw("NICK", self.connection.wanted_nick)

    def _part(self, client: IrcClient, message: Any) -> None:
        nick, _ = client.source(message)
        channel = self.channels.get(message.params[0])
        if channel is None or not nick:
            return
        if self.connection.is_me(nick):
            channel.joined = channel.synced = False
            return
        self._gone(nick, channel)

    def _kick(self, client: IrcClient, message: Any) -> None:
        channel = self.channels.get(message.params[0])
        if channel is None or len(message.params) < 2:
            return
        target = message.params[1]
        if self.connection.is_me(target):
            channel.joined = channel.synced = False
            log.warning("kicked from %s: joining again", channel.name)
            self.ready(False)
            self.lines.push_raw("JOIN", channel.name)
            return
        self._gone(target, channel)

    def _quit(self, client: IrcClient, message: Any) -> None:
        nick, _ = client.source(message)
        if nick:
            self._gone(nick)

    def _gone(self, nick: str, channel: Channel | None = None) -> None:
        """``nick`` left ``channel`` (or the server): forget them once they share no channel with the bot."""
        left = [channel] if channel is not None else list(self.channels.by_room.values())
        if not self.channels.drop(nick, channel):
            self.people.forget(nick)
        for each in left:
            self.translator.admins(each)
        if self.connection.should_reclaim(nick):
            self.lines.push_raw("NICK", self.connection.wanted_nick)
