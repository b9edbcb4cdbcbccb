"""Sync event JSON to the core's ``Event``. Pure: no I/O, never raises.

Everything here comes from room members, so every field is type-checked before use. An event
that cannot be read the way the spec says gives a ``Malformed``: the caller logs and counts it,
and hands its ``event`` (when there is one) to the table, where it counts as writing (kind
``other``) but is never run as a command.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace
from typing import Any

from bot.core.events import Event, EventKind
from bot.matrix.power import RoomAuth
from bot.transport import Capabilities

TEXT_KINDS: dict[str, EventKind] = {"m.text": "text", "m.emote": "emote", "m.notice": "notice"}
MEDIA_MSGTYPES = frozenset({"m.image", "m.file", "m.audio", "m.video", "m.location"})
POLL_TYPES = frozenset({
    "m.poll.start", "org.matrix.msc3381.poll.start",
    "m.poll.response", "org.matrix.msc3381.poll.response",
    "m.poll.end", "org.matrix.msc3381.poll.end",
})
CAPABILITIES = Capabilities(network_redacts=True, bot_can_mute=True)
"""Matrix takes messages back (redactions) and mutes by power levels; the homeserver sets the rate (429s)."""
REDACTION = "m.room.redaction"
"""Nobody's writing: it only takes the deleted message out of the room's acta."""
ENCRYPTED = "m.room.encrypted"
FUTURE_SLACK_MS = 60_000
"""How far ahead of the bot's clock an ``origin_server_ts`` may be (servers' clocks differ a little);
a later one is taken as this far ahead. A far future stamp would hold the acta's session open and
could not be written as a date."""


@dataclass(frozen=True, slots=True)
class Malformed:
    """An event the spec's shapes do not fit. ``event``: what the table still judges, if anything."""

    reason: str
    event_id: str | None
    event: Event | None = None


class _Bad(Exception):
    """A field of the wrong type (internal to this module)."""


def is_own_join(src: object, user_id: str) -> bool:
    """``src`` is the membership event of ``user_id`` joining."""
    if not isinstance(src, dict) or src.get("type") != "m.room.member" or src.get("state_key") != user_id:
        return False
    content = src.get("content")
    return isinstance(content, dict) and content.get("membership") == "join"


def is_state(src: object) -> bool:
    return isinstance(src, dict) and "state_key" in src


def translate(room_id: str, src: object, auth: RoomAuth, bot_user: str,
              now_ms: int | None = None) -> Event | Malformed | None:
    """One timeline event (not a state event) as the table sees it; ``None`` when it is no one's writing.
    ``now_ms``: the bot's clock (milliseconds since 1970; default: now), the bound of the event's time."""
    if not isinstance(src, dict):
        return Malformed("the event is not an object", None)
    event_id = src.get("event_id")
    if not isinstance(event_id, str) or not event_id:
        return Malformed("no event_id", None)
    sender = src.get("sender")
    if not isinstance(sender, str) or not sender:
        return Malformed("no sender", event_id)
    etype = src.get("type")
    if not isinstance(etype, str):
        return Malformed("no type", event_id)
    if sender == bot_user or "state_key" in src or _redacted(src):
        return None
    base = Event(
        room_id=room_id,
        sender=sender,
        text="",
        event_id=event_id,
        kind="other",
        ts=_timestamp(src.get("origin_server_ts"), int(time.time() * 1000) if now_ms is None else now_ms),
        sender_is_admin=auth.is_admin(sender),
        **CAPABILITIES.event_flags(auth.can_redact(bot_user), auth.can_mute(bot_user)),
    )
    if etype == REDACTION:
        return _redaction(base, src)
    try:
        return _read(base, etype, src.get("content"))
    except _Bad as bad:
        edit = isinstance(src.get("content"), dict) and _is_edit(src["content"])
        return Malformed(str(bad), event_id, replace(base, edit=edit))


def admins_event(room_id: str, admins: tuple[tuple[str, str], ...]) -> Event:
    """The room's admins now (``RoomAuth.admins``) as the table's ``admins`` event; its id is the bot's own
    (``$admins-`` and 128 random bits), never a message's."""
    return Event(room_id, "", "", f"$admins-{uuid.uuid4().hex}", kind="admins", ts=int(time.time() * 1000),
                 admins=admins)


def _timestamp(value: object, now_ms: int) -> int:
    """The event's time in milliseconds: an integer from 0 to ``now_ms + FUTURE_SLACK_MS`` (else 0)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return 0
    return min(value, now_ms + FUTURE_SLACK_MS)


def _redaction(base: Event, src: dict[str, Any]) -> Event | None:
    """The deleted event's id is at the top (room versions up to 10) or in the content (11 and later)."""
    content = src.get("content")
    target = content.get("redacts") if isinstance(content, dict) else None
    if not isinstance(target, str):
        target = src.get("redacts")
    if not isinstance(target, str) or not target:
        return None
    return replace(base, kind="redaction", target=target)


def _with(base: Event, kind: EventKind, text: str = "", edit: bool = False) -> Event:
    return replace(base, kind=kind, text=text, edit=edit)


def _redacted(src: dict[str, Any]) -> bool:
    unsigned = src.get("unsigned")
    return isinstance(unsigned, dict) and "redacted_because" in unsigned


def _obj(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(f"{what} is not an object")
    return value


def _opt_obj(value: object, what: str) -> dict[str, Any]:
    return {} if value is None else _obj(value, what)


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _Bad(f"{what} is not a string")
    return value


def _relation(content: dict[str, Any]) -> dict[str, Any]:
    relates = _opt_obj(content.get("m.relates_to"), "m.relates_to")
    if "rel_type" in relates:
        _str(relates["rel_type"], "m.relates_to.rel_type")
    return relates


def _is_edit(content: dict[str, Any]) -> bool:
    relates = content.get("m.relates_to")
    return isinstance(relates, dict) and relates.get("rel_type") == "m.replace"


def _read(base: Event, etype: str, raw: object) -> Event:
    content = _obj(raw, "content")
    relates = _relation(content)
    edit = relates.get("rel_type") == "m.replace"
    if etype == "m.room.message":
        if edit:
            new = _obj(content.get("m.new_content"), "m.new_content")
            kind, text = _message(new, {})
            target = relates.get("event_id")
            return replace(_with(base, kind, text, edit=True), target=target if isinstance(target, str) else "")
        kind, text = _message(content, relates)
        return replace(_with(base, kind, text), thread=_thread(relates))
    if etype == "m.sticker":
        return _with(base, "media", edit=edit)
    if etype == "m.reaction":
        key = relates.get("key")
        return _with(base, "reaction", key if isinstance(key, str) else "")
    if etype in POLL_TYPES:
        return _with(base, "poll", edit=edit)
    if etype == ENCRYPTED:  # still ciphertext: nio had no key for it
        return _with(base, "encrypted", edit=edit)
    return _with(base, "other", edit=edit)


def _thread(relates: dict[str, Any]) -> str:
    """The root of the thread a message was posted in (``m.thread``), or empty: any other shape is the main
    timeline's."""
    root = relates.get("event_id")
    return root if relates.get("rel_type") == "m.thread" and isinstance(root, str) and root.startswith("$") else ""


def _message(content: dict[str, Any], relates: dict[str, Any]) -> tuple[EventKind, str]:
    msgtype = _str(content.get("msgtype"), "msgtype")
    kind = TEXT_KINDS.get(msgtype)
    if kind is None:
        return ("media" if msgtype in MEDIA_MSGTYPES else "other"), ""
    text = _str(content.get("body"), "body")
    if "m.in_reply_to" in relates:
        _obj(relates["m.in_reply_to"], "m.in_reply_to")
        text = _strip_reply_fallback(text)
    return kind, text


def _strip_reply_fallback(text: str) -> str:
    if not text.startswith("> "):
        return text
    lines = text.split("\n")
    while lines and lines[0].startswith(">"):
        lines.pop(0)
    return "\n".join(lines).lstrip("\n")
