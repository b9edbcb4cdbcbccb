"""The mute lock on IRC (pure): the channel's modes before the lock, and the MODE changes that bring
a channel to the lock (``+m``, voice only for the speakers) or back to how it was."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass
class MuteRecord:
    """Kept in the store while a muted lock is on, or its undoing waits for the bot's ``+o``."""

    locked: bool
    speakers: list[str] = field(default_factory=list)
    """User ids that keep (or get) a voice under the lock."""
    moderated: bool = False
    """The channel was ``+m`` before the lock."""
    voiced: list[str] = field(default_factory=list)
    """User ids with a voice before the lock: given it back on unlock, and only them."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> MuteRecord:
        data = json.loads(text)
        return cls(bool(data["locked"]), list(data["speakers"]), bool(data["moderated"]), list(data["voiced"]))


@dataclass(frozen=True)
class Member:
    nick: str
    user_id: str
    voiced: bool


def plan(record: MuteRecord, moderated: bool, members: list[Member]) -> list[tuple[str, str | None]]:
    """The mode changes (``("+m", None)``, ``("-v", nick)``...) from the channel as it is to the state
    ``record`` asks for: locked (``+m``, voices for the speakers present and nobody else) or
    unlocked (``+m`` and the voices as they were before the lock)."""
    want_moderated = True if record.locked else record.moderated
    keep = set(record.speakers if record.locked else record.voiced)
    changes: list[tuple[str, str | None]] = []
    if moderated != want_moderated:
        changes.append(("+m" if want_moderated else "-m", None))
    for member in members:
        want = member.user_id in keep
        if want != member.voiced:
            changes.append(("+v" if want else "-v", member.nick))
    return changes


def mode_lines(changes: list[tuple[str, str | None]], per_line: int) -> list[list[str]]:
    """``MODE`` parameters for ``changes``, at most ``per_line`` changes with a parameter per line
    (the server's ``MODES``): ``[["+mv-v", "ana", "bob"], ...]``."""
    lines: list[list[str]] = []
    flags, sign, counted = "", "", 0
    params: list[str] = []
    for change, param in changes:
        if param is not None and counted == per_line:
            lines.append([flags, *params])
            flags, sign, counted = "", "", 0
            params = []
        if change[0] != sign:
            sign = change[0]
            flags += sign
        flags += change[1]
        if param is not None:
            params.append(param)
            counted += 1
    if flags:
        lines.append([flags, *params])
    return lines


def opens(flags: str) -> bool:
    """Whether a MODE line's flags let someone speak: ``-m``, or a ``+v`` in a line that does not set
    ``+m`` (a lock's ``+mv`` gives the GM a voice but closes the floor)."""
    changes, sign = set(), ""
    for char in flags:
        if char in "+-":
            sign = char
        else:
            changes.add(sign + char)
    return "-m" in changes or ("+v" in changes and "+m" not in changes)
