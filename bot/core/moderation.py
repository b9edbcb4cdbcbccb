"""What the bot does to the room itself for one event, besides answering it: the room's enforcement
mode, who the transport says is the room's admin, and the redaction, reaction and power-level changes
it asks the transport for (queued in the event's unit of work, like its answers)."""

from __future__ import annotations

import logging
from typing import Any

from bot.core.context import Context
from bot.core.events import PowerLevels, React, Redact

log = logging.getLogger(__name__)

POWERS = {"redact": "take messages back", "mute": "mute the room (change who may write, above every player)"}
"""What each power the enforcement modes need lets the bot do, for the log (the core names no network)."""


def enforcement(ctx: Context) -> str:
    """How the room answers writing off the floor (``warn``, ``redact``, ``mute``): its own mode, else
    the config's."""
    return ctx.room.enforcement or ctx.settings.enforcement


MAX_ADMINS = 200
"""The most admins an ``admins`` event sets (a room whose every member is one keeps the first)."""


def note_admin(ctx: Context) -> None:
    """Remember whether the transport says the sender is the room's admin (``RoomState.admins``)."""
    admins = ctx.room.admins
    if ctx.event.sender_is_admin and ctx.sender not in admins:
        admins[ctx.sender] = "admin"
    elif not ctx.event.sender_is_admin and ctx.sender in admins:
        del admins[ctx.sender]


def set_admins(ctx: Context) -> None:
    """An ``admins`` event: the room's admins are those it lists, at once (whoever left the list is no
    longer a GM by power, without a message of theirs: docs/protocol.md#1.7)."""
    ctx.room.admins = {user: why for user, why in ctx.event.admins[:MAX_ADMINS]
                       if isinstance(user, str) and user and isinstance(why, str)}


def redact(ctx: Context) -> None:
    reason = ctx.renderer.text("redact_reason")
    ctx.work.actions.append(Redact(ctx.event.room_id, ctx.event.event_id, reason))


def react(ctx: Context, key_kind: str) -> None:
    """React to the event with the emoji in template ``key_kind``."""
    ctx.work.actions.append(React(ctx.event.room_id, ctx.event.event_id, ctx.renderer.text(key_kind)))


def acknowledge(ctx: Context, kind: str, **context: Any) -> bool:
    """The answer to a command that only did bookkeeping the table need not read (a character claimed, a
    sheet's fields set, a turn granted...): a ✅ reaction on it instead of the message ``kind`` (issue 30:
    at most 0.8 room messages per command); True when it reacted. IRC, which has no reactions, tells the
    sender privately. An event that is no message in the room (a control of the GM's screen) has nothing
    to react to: the room reads the message, the only trace of it in the chat."""
    if not ctx.event.in_room:
        ctx.reply(kind, **context)
        return False
    react(ctx, "done_key")
    return True


def power_levels(ctx: Context, lock: bool, speakers: tuple[str, ...] = ()) -> None:
    ctx.work.actions.append(PowerLevels(ctx.event.room_id, lock, speakers, ctx.event.event_id))


def note_power(ctx: Context, mode: str) -> None:
    """Log the powers ``mode`` needs that the event's flags say the bot lacks in the room: one WARNING per
    room and per change of what it lacks (``RoomState.power_missing``), and a line when it has them again.
    A network that cannot take a message back (IRC) needs no power to redact."""
    event = ctx.event
    missing = [power for power, lacking in (
        ("redact", mode != "warn" and event.network_redacts and not event.bot_can_redact),
        ("mute", mode == "mute" and not event.bot_can_mute)) if lacking]
    if missing == ctx.room.power_missing:
        return
    ctx.room.power_missing = missing
    if missing:
        log.warning("room %s: the bot cannot %s, which enforcement %r needs: it only warns there",
                    event.room_id, " nor ".join(POWERS[power] for power in missing), mode)
    else:
        log.info("room %s: the bot has the power enforcement %r needs again", event.room_id, mode)
