"""The channels' state as the server tells it: joined, synced (names, modes and WHO in), ``+m``, and each
member's prefix modes (``o``, ``v``...); and who is GM there: the channel's operators and the ids the
config lists."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.core.events import EventKind
from bot.irc.config import irc_room_key
from bot.irc.identity import People, fold

if TYPE_CHECKING:
    from bot.irc.client import Connection

OP_PREFIXES = {"o", "a", "q"}
HeldLine = tuple[str, str | None, str | None, str, EventKind, dict[str, Any]]
"""A channel line as ``Translator.translate`` takes it: nick, user, host, text, kind, tags."""
ModeChanges = list[tuple[str, str | None]]
"""A channel MODE's changes (``+v``, ``-m``...), each with its parameter when the mode takes one."""


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

    @property
    def room_id(self) -> str:
        return irc_room_key(self.name)

    def is_op(self, nick: str) -> bool:
        return bool(self.members.get(fold(nick), set()) & OP_PREFIXES)

    def joined_again(self) -> None:
        """The bot (re)joined: what it knew of the channel is read again."""
        self.joined, self.synced, self.members, self.asked_op = True, False, {}, False

    def apply_modes(self, changes: ModeChanges) -> None:
        for change, param in changes:
            if change[1] == "m":
                self.moderated = change[0] == "+"
            elif param is not None and change[1] in "ovhaq":
                modes = self.members.setdefault(fold(param), set())
                if change[0] == "+":
                    modes.add(change[1])
                else:
                    modes.discard(change[1])


class Channels:
    """The channels of the config (the rooms IRC owns), by room id; read again on each connection."""

    def __init__(self, names: Sequence[str], connection: Connection) -> None:
        self.names = names
        self.connection = connection
        self.by_room: dict[str, Channel] = {}
        self.reset()

    def reset(self) -> None:
        self.by_room = {irc_room_key(name): Channel(name) for name in self.names}

    def get(self, name: str) -> Channel | None:
        """The channel a line names (``#Mesa`` is ``#mesa``)."""
        return self.by_room.get(irc_room_key(name))

    def room(self, room_id: str) -> Channel | None:
        return self.by_room.get(room_id)

    def all_synced(self) -> bool:
        return all(channel.synced for channel in self.by_room.values())

    def bot_is_op(self, channel: Channel) -> bool:
        return channel.is_op(self.connection.nick)

    def rename(self, old: str, new: str) -> None:
        for channel in self.by_room.values():
            if fold(old) in channel.members:
                channel.members[fold(new)] = channel.members.pop(fold(old))

    def drop(self, nick: str, channel: Channel | None = None) -> bool:
        """``nick`` left ``channel`` (or the server): whether they still share a channel with the bot."""
        key = fold(nick)
        for left in [channel] if channel is not None else list(self.by_room.values()):
            left.members.pop(key, None)
        return any(key in other.members for other in self.by_room.values())


class GameMasters:
    """Who is GM in a channel: its operators and the ids the config (or ``!master``) lists."""

    def __init__(self, people: People, connection: Connection, gms_of: Callable[[str], list[str]]) -> None:
        self.people = people
        self.connection = connection
        self.gms_of = gms_of

    def nicks(self, channel: Channel) -> list[str]:
        listed = set(self.gms_of(channel.room_id))
        me = fold(self.connection.nick)
        out = []
        for key, modes in channel.members.items():
            person = self.people.known.get(key)
            if key != me and (modes & OP_PREFIXES or (person is not None and person.user_id in listed)):
                out.append(person.nick if person else key)
        return out
