"""What the bot does to the room itself for one event, besides answering it: the room's enforcement
mode, who the transport says is the room's admin, and the redaction, reaction and power-level changes
it asks the transport for (queued in the event's unit of work, like its answers)."""

from __future__ import annotations

from bot.core.context import Context
from bot.core.events import PowerLevels, React, Redact


def enforcement(ctx: Context) -> str:
    """How the room answers writing off the floor (``warn``, ``redact``, ``mute``): its own mode, else
    the config's."""
    return ctx.room.enforcement or ctx.settings.enforcement


def note_admin(ctx: Context) -> None:
    """Remember whether the transport says the sender is the room's admin (``RoomState.admins``)."""
    admins = ctx.room.admins
    if ctx.event.sender_is_admin and ctx.sender not in admins:
        admins.append(ctx.sender)
    elif not ctx.event.sender_is_admin and ctx.sender in admins:
        admins.remove(ctx.sender)


def redact(ctx: Context) -> None:
    reason = ctx.renderer.text("redact_reason")
    ctx.work.actions.append(Redact(ctx.event.room_id, ctx.event.event_id, reason))


def react(ctx: Context, key_kind: str) -> None:
    """React to the event with the emoji in template ``key_kind``."""
    ctx.work.actions.append(React(ctx.event.room_id, ctx.event.event_id, ctx.renderer.text(key_kind)))


def power_levels(ctx: Context, lock: bool, speakers: tuple[str, ...] = ()) -> None:
    ctx.work.actions.append(PowerLevels(ctx.event.room_id, lock, speakers, ctx.event.event_id))
