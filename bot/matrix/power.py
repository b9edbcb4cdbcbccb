"""Who may do what in a room: creators and ``m.room.power_levels``, read from plain dicts.

Pure: no I/O. Content comes from the homeserver, so every field is type-checked: a value of the
wrong type counts as absent (the spec's default applies).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from bot.matrix.errors import PermanentError

ADMIN_LEVEL = 50
INFINITE = 10**12
# Room versions in which the creators outrank every power level (and are not in ``users``).
PRE_CREATOR_VERSIONS = frozenset(str(v) for v in range(1, 12))
# Message-like event types a mute must cover when the room sets a level for them.
MUTED_EVENT_TYPES = ("m.room.message", "m.room.encrypted", "m.sticker", "m.reaction",
                     "m.poll.start", "org.matrix.msc3381.poll.start",
                     "m.poll.response", "org.matrix.msc3381.poll.response")


def as_level(value: object, default: int) -> int:
    """A power level: an integer, or a string of one (older room versions allow it)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isascii() and digits.isdigit() and len(digits) <= 18:
            return int(text)
    return default


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class CannotMute(PermanentError):
    """The bot's power level is not above every player it would have to silence."""


@dataclass
class RoomAuth:
    """What the bot needs to know of a room: creators and room version (``m.room.create``),
    ``m.room.power_levels``, whether it is encrypted, and its joined members.

    Kept in SQLite between runs (``to_dict``/``from_dict``): ``dirty`` says it changed since
    it was last stored."""

    creators: set[str] = field(default_factory=set)
    version: str = "1"
    power: dict[str, Any] = field(default_factory=dict)
    encrypted: bool = False
    members: set[str] = field(default_factory=set)
    """Joined members, as the state events seen so far say (complete once read from ``/state``)."""
    dirty: bool = field(default=False, repr=False, compare=False)
    _can_mute: tuple[dict[str, Any], str, bool] | None = field(default=None, repr=False, compare=False)

    @property
    def creators_privileged(self) -> bool:
        return self.version not in PRE_CREATOR_VERSIONS

    def apply(self, ev: object) -> None:
        """Take in a state event (any JSON value: what is not a well-formed event is ignored)."""
        if not isinstance(ev, dict):
            return
        content = ev.get("content")
        state_key = ev.get("state_key")
        if not isinstance(content, dict) or not isinstance(state_key, str):
            return
        etype = ev.get("type")
        if etype == "m.room.member":
            if not state_key:
                return
            if content.get("membership") == "join":
                if state_key not in self.members:
                    self.members.add(state_key)
                    self.dirty = True
            elif state_key in self.members:
                self.members.discard(state_key)
                self.dirty = True
            return
        if state_key != "":
            return
        if etype == "m.room.power_levels":
            self.power = content
        elif etype == "m.room.create":
            version = content.get("room_version", "1")
            self.version = version if isinstance(version, str) else "1"
            sender = ev.get("sender")
            extra = content.get("additional_creators")
            self.creators = {u for u in [sender, content.get("creator"), *(extra if isinstance(extra, list) else [])]
                             if isinstance(u, str) and u}
        elif etype == "m.room.encryption":
            self.encrypted = True  # encryption, once on, cannot be turned off
        else:
            return
        self._can_mute = None
        self.dirty = True

    def to_dict(self) -> dict[str, Any]:
        return {"creators": sorted(self.creators), "version": self.version, "power": self.power,
                "encrypted": self.encrypted, "members": sorted(self.members)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomAuth:
        """The inverse of ``to_dict``; a field of the wrong type counts as absent."""
        def users(value: object) -> set[str]:
            return {u for u in value if isinstance(u, str) and u} if isinstance(value, list) else set()
        version = data.get("version")
        return cls(creators=users(data.get("creators")), version=version if isinstance(version, str) else "1",
                   power=as_dict(data.get("power")), encrypted=data.get("encrypted") is True,
                   members=users(data.get("members")))

    def level(self, user: str) -> int:
        if user in self.creators and self.creators_privileged:
            return INFINITE
        if not self.power and user in self.creators:
            return 100  # no power levels event yet: the creator has 100
        users = as_dict(self.power.get("users"))
        default = as_level(self.power.get("users_default"), 0)
        return as_level(users.get(user), default)

    def is_admin(self, user: str) -> bool:
        return user in self.creators or self.level(user) >= ADMIN_LEVEL

    def admins(self, bot: str) -> tuple[tuple[str, str], ...]:
        """The room's admins but the bot, each with why (``creator``, ``power``: level 50+), sorted: the
        joined members among them once the members are known (the creators and the users the power
        levels name, and every member when ``users_default`` is 50+)."""
        candidates = self.creators | set(as_dict(self.power.get("users")))
        if as_level(self.power.get("users_default"), 0) >= ADMIN_LEVEL:
            candidates |= self.members
        if self.members:
            candidates &= self.members
        return tuple(sorted((user, "creator" if user in self.creators else "power") for user in candidates
                            if user != bot and self.is_admin(user)))

    def can_redact(self, user: str) -> bool:
        return self.level(user) >= as_level(self.power.get("redact"), 50)

    def can_mute(self, user: str) -> bool:
        """Allowed to edit power levels and above every player it would have to silence.

        Asked on every event: the answer is kept until ``power`` is replaced."""
        cached = self._can_mute
        if cached is not None and cached[0] is self.power and cached[1] == user:
            return cached[2]
        answer = self._compute_can_mute(user)
        self._can_mute = (self.power, user, answer)
        return answer

    def _compute_can_mute(self, user: str) -> bool:
        events = as_dict(self.power.get("events"))
        state_default = as_level(self.power.get("state_default"), 50)
        if self.level(user) < as_level(events.get("m.room.power_levels"), state_default):
            return False
        try:
            locked_power_levels(self.power, self, user, ())
        except CannotMute:
            return False
        return True


def locked_power_levels(base: dict[str, Any], auth: RoomAuth, bot: str, speakers: tuple[str, ...]) -> dict[str, Any]:
    """``base`` with ``events_default`` above every player and the speakers able to post.

    Raises ``CannotMute`` when the bot's own level is not above every player's."""
    new = copy.deepcopy(base)
    users = as_dict(new.get("users"))
    new["users"] = users
    users_default = as_level(base.get("users_default"), 0)
    bot_level = auth.level(bot)
    speakers_set = set(speakers) | {bot}
    player_levels = [users_default]
    for user, value in users.items():
        lvl = as_level(value, users_default)
        if user not in speakers_set and lvl < min(bot_level, ADMIN_LEVEL):  # level >= 50 counts as a GM
            player_levels.append(lvl)
    needed = max(player_levels) + 1
    if needed >= bot_level:
        raise CannotMute("the bot's power level is too low to mute the room")
    new["events_default"] = max(as_level(base.get("events_default"), 0), needed)
    events = as_dict(new.get("events"))
    new["events"] = events
    for etype in MUTED_EVENT_TYPES:
        if etype in events and as_level(events[etype], 0) < needed:
            events[etype] = needed
    for speaker in speakers:
        if speaker in auth.creators and auth.creators_privileged:
            continue
        if as_level(users.get(speaker), users_default) < needed:
            users[speaker] = needed
    return new
