"""What a transport hands the table core, and what the core hands back.

The core never talks to a network: it turns one ``Event`` into a list of actions
(``Send``, ``Redact``, ``PowerLevels``, ``React``, ``Edit``, ``Tracker``) that a transport carries out.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields
from typing import Any, Literal

from bot.core.render import Message

EventKind = Literal["text", "emote", "notice", "media", "reaction", "poll", "encrypted", "redaction", "admins",
                    "other"]
"""``text`` and ``emote`` are read; the rest (a notice, images, files, stickers, a reaction, a poll,
any other timeline event) only counts as writing, for the locks. ``encrypted`` is a message the
transport could not decrypt (yet): see ``Table.handle_undecryptable``. A ``redaction`` (the message
``target`` was deleted) is nobody's writing: it only takes that message out of the room's acta. ``admins``
is nobody's writing either: the transport saw who the room's admins are change (a power-level change,
an operator's ``+o``/``-o``, a member gone) and tells the core the whole list now (``Event.admins``).
Its event id is any id unique to it (the transport's own, never a message's)."""


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
    target: str = ""
    """The event an edit replaces or a redaction deletes (empty when the transport does not say)."""
    thread: str = ""
    """The root of the thread the message was posted in (empty: the room's main timeline). The answers go
    to that thread; who may write is the room's rule all the same."""
    sender_is_admin: bool = False
    """The transport's word that the sender is a room creator or has power level >= 50."""
    admins: tuple[tuple[str, str], ...] = ()
    """For an ``admins`` event: every user the transport shows as the room's admin now, each with why
    (``creator``, ``power``: power level 50+, ``operator``: an IRC channel operator)."""
    bot_can_redact: bool = True
    bot_can_mute: bool = True
    network_redacts: bool = True
    """The network can take a message back (IRC cannot: enforcement there only warns and mutes)."""
    in_room: bool = True
    """The event is a message posted in the room, which the answers reply to; False for an event from a
    source that owns no room (a control of the GM's screen): its answers are posted as they are."""


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
    roll: dict[str, Any] | None = None
    """The roll it answers, as ``rolbot roll --json`` prints it (docs/contracts.md#3.2): of a message that
    shows several (one event's messages merged, ``bot/core/quiet.py``), the first."""
    rolls: tuple[dict[str, Any], ...] = ()
    """Every roll it shows, in order, when it shows more than one (else empty: ``roll`` is all)."""
    roll_ids: tuple[str | None, ...] = ()
    """The stored roll record of each of ``rolls`` (None: a roll not stored), when it has ``rolls``."""
    parts: tuple[str, ...] = ()
    """The plain text of each message it joins, in order, when it joins more than one (one event's
    messages merged, ``bot/core/quiet.py``); else empty."""
    applied: tuple[tuple[str, int], ...] = ()
    """The modifiers the bot added from the sheet and the table's state (``(reason, value)``)."""
    roll_id: str | None = None
    """The stored roll record it shows (``bot/core/rolls.py``)."""
    private_also: tuple[str, ...] = ()
    """More users who get the same private message as ``private_to`` (the GMs of a secret roll)."""
    to_room_gms: bool = False
    """A private message the transport also sends to whoever it knows as the room's GMs (on Matrix: the
    creators and users with power level >= 50, the bot excepted), besides ``private_to`` and
    ``private_also``."""
    secret: bool = False
    """It shows a secret roll: only for ``private_to`` (the roller or a GM) until ``!revelar``. A transport
    or a log (the acta, a live page, IRC) must never show a secret message to anyone else."""
    thread: str = ""
    """The root of the thread it answers in (``Event.thread``; empty: the main timeline)."""
    gm_copy: bool = False
    """The GMs' private copy of the message queued just before it, with what that one leaves out of a
    GM-owned sheet (``bot/core/privacy.py``)."""
    joinable: bool = False
    """A room message that reports an NPC's action that changed nothing in the fight (a miss): during a
    turn the GM runs it is held and joins the room's next message (``bot/core/quiet.py``)."""
    ref: str = ""
    """A name the core gives a room message it may change later (``Edit``): the transport remembers the
    network's id of the message it posted under that name."""
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
    """A reaction (an emoji ``key``) on ``event_id``: the GM's confirmation that a lock opened or closed,
    or a command's ✅ when it only did bookkeeping (``moderation.acknowledge``)."""

    room_id: str
    event_id: str
    key: str
    action_id: str = ""
    kind: Literal["react"] = "react"


@dataclass(frozen=True, slots=True)
class Edit:
    """Change the room message the bot posted as ``ref`` (``Send.ref``) to ``message`` (Matrix: an
    ``m.replace``), pinging ``mentions`` anew. Only for a room whose transport edits its messages
    (``Context.edits``); the others never get one."""

    room_id: str
    ref: str
    message: Message
    mentions: tuple[str, ...] = ()
    action_id: str = ""
    kind: Literal["edit"] = "edit"


TrackerStep = Literal["show", "end", "point"]


@dataclass(frozen=True, slots=True)
class Tracker:
    """The combat's one message in the room, kept by a transport that edits its messages: ``show`` posts
    ``message`` the first time (pinned where the bot may pin) and edits it in place after; ``end`` unpins
    it and forgets it (the fight is over); ``point`` answers the event ``answer`` (a ``!estado``) with a
    link to it. A transport that keeps no tracker ignores every step."""

    room_id: str
    step: TrackerStep
    message: Message | None = None
    answer: str | None = None
    action_id: str = ""
    kind: Literal["tracker"] = "tracker"


Action = Send | Redact | PowerLevels | React | Edit | Tracker


_FIELD_NAMES: dict[type, tuple[str, ...]] = {kind: tuple(f.name for f in fields(kind))
                                              for kind in (Send, Redact, PowerLevels, React, Edit, Tracker)}
"""Each action class's field names (``fields`` builds them anew on every call; the outbox asks per action)."""
_VALUES = {kind: operator.attrgetter(*names) for kind, names in _FIELD_NAMES.items()}
"""Each action class's fields read at once, in their order (``with_id``)."""
_ID_AT = {kind: names.index("action_id") for kind, names in _FIELD_NAMES.items()}


def with_id(action: Action, action_id: str) -> Action:
    """``dataclasses.replace(action, action_id=action_id)`` in under half its time (every action of every
    event gets its id so): the fields given in order to the constructor, as no action class has a field
    out of ``__init__`` or a ``__post_init__``."""
    kind = type(action)
    values = list(_VALUES[kind](action))
    values[_ID_AT[kind]] = action_id
    return kind(*values)


def action_to_dict(action: Action) -> dict:
    """JSON-able fields, shallow (``roll`` is JSON already; ``asdict`` would copy it deeply)."""
    data = {name: getattr(action, name) for name in _FIELD_NAMES[type(action)]}
    if isinstance(action, Send):
        data["message"] = {"body": action.message.body, "html": action.message.html}
        data["mentions"], data["applied"] = list(action.mentions), [list(a) for a in action.applied]
        data["private_also"] = list(action.private_also)
        data.update(rolls=list(action.rolls), parts=list(action.parts), roll_ids=list(action.roll_ids))
    elif isinstance(action, PowerLevels):
        data["speakers"] = list(action.speakers)
    elif isinstance(action, Edit):
        data["message"] = {"body": action.message.body, "html": action.message.html}
        data["mentions"] = list(action.mentions)
    elif isinstance(action, Tracker):
        data["message"] = None if action.message is None else {"body": action.message.body,
                                                               "html": action.message.html}
    return data


def action_from_dict(data: dict) -> Action:
    data = dict(data)
    kind = data.pop("kind")
    if kind == "send":
        msg = data.pop("message")
        applied = tuple((str(r), int(v)) for r, v in data.pop("applied", ()))
        return Send(message=Message(msg["body"], msg["html"]), mentions=tuple(data.pop("mentions")), applied=applied,
                    private_also=tuple(data.pop("private_also", ())), rolls=tuple(data.pop("rolls", ())),
                    parts=tuple(data.pop("parts", ())), roll_ids=tuple(data.pop("roll_ids", ())), **data)
    if kind == "redact":
        return Redact(**data)
    if kind == "react":
        return React(**data)
    if kind == "edit":
        msg = data.pop("message")
        return Edit(message=Message(msg["body"], msg["html"]), mentions=tuple(data.pop("mentions", ())), **data)
    if kind == "tracker":
        msg = data.pop("message")
        return Tracker(message=None if msg is None else Message(msg["body"], msg["html"]), **data)
    return PowerLevels(speakers=tuple(data.pop("speakers")), **data)

