"""What a transport hands the table core, and what the core hands back.

The core never talks to a network: it turns one ``Event`` into a list of actions
(``Send``, ``Redact``, ``PowerLevels``) that a transport carries out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from bot.core.render import Message

EventKind = Literal["text", "emote", "notice", "media", "reaction", "poll", "encrypted", "other"]
"""``text`` and ``emote`` are read; the rest (a notice, images, files, stickers, a reaction, a poll,
any other timeline event) only counts as writing, for the locks. ``encrypted`` is a message the
transport could not decrypt (yet): see ``Table.handle_undecryptable``."""


@dataclass(frozen=True, slots=True)
class Event:
    """One chat message as the table sees it. Identity is the Matrix user id, never a display name."""

    room_id: str
    sender: str
    text: str
    event_id: str
    kind: EventKind = "text"
    ts: int = 0
    edit: bool = False
    """An edit of an earlier message: ``text`` and ``kind`` are those of the new content. It is judged
    (locks, turns) but never run as a command."""
    sender_is_admin: bool = False
    """The transport's word that the sender is a room creator or has power level >= 50."""
    bot_can_redact: bool = True
    bot_can_mute: bool = True
    network_redacts: bool = True
    """The network can take a message back (IRC cannot: enforcement there only warns and mutes)."""


@dataclass(frozen=True, slots=True)
class Send:
    """Post a notice in the room (or privately to ``private_to``), replying to ``reply_to``."""

    room_id: str
    message: Message
    reply_to: str | None = None
    mentions: tuple[str, ...] = ()
    private_to: str | None = None
    action_id: str = ""
    template: str = ""
    """The message kind it was rendered from (``roll_by``, ``lock_warning``...), for the transport's
    priorities when it must ration messages."""
    actor: str = ""
    """How the room calls whoever it answers (``Context.speaker_name``): a coalesced reply names them."""
    kind: Literal["send"] = "send"


@dataclass(frozen=True, slots=True)
class Redact:
    room_id: str
    event_id: str
    reason: str
    action_id: str = ""
    kind: Literal["redact"] = "redact"


@dataclass(frozen=True, slots=True)
class PowerLevels:
    """Mute mode: ``lock`` raises ``events_default`` so only ``speakers`` may post;
    unlock (``lock=False``) restores the content saved when the lock was applied."""

    room_id: str
    lock: bool
    speakers: tuple[str, ...] = ()
    reply_to: str | None = None
    action_id: str = ""
    kind: Literal["power_levels"] = "power_levels"


@dataclass(frozen=True, slots=True)
class React:
    """A reaction (an emoji ``key``) on ``event_id``: the GM's confirmation that a lock opened or closed."""

    room_id: str
    event_id: str
    key: str
    action_id: str = ""
    kind: Literal["react"] = "react"


Action = Send | Redact | PowerLevels | React


def action_to_dict(action: Action) -> dict:
    data = asdict(action)
    if isinstance(action, Send):
        data["message"] = {"body": action.message.body, "html": action.message.html}
    return data


def action_from_dict(data: dict) -> Action:
    data = dict(data)
    kind = data.pop("kind")
    if kind == "send":
        msg = data.pop("message")
        return Send(message=Message(msg["body"], msg["html"]), mentions=tuple(data.pop("mentions")), **data)
    if kind == "redact":
        return Redact(**data)
    if kind == "react":
        return React(**data)
    return PowerLevels(speakers=tuple(data.pop("speakers")), **data)

