"""Who may write now: narration and named locks, combat turns, and their enforcement."""

from __future__ import annotations

from bot.core.commands import Command
from bot.core.context import Context
from bot.core.protocol import Line
from bot.core.state import Character, FloorLock


def gm_dash_line(ctx: Context, line: Line) -> None:
    """A GM's dash line opens or closes the floor (DESIGN.md 1.3-1.4)."""
    room = ctx.room
    if line.kind == "dash":
        if room.lock:
            close_lock(ctx)
        else:
            open_lock(ctx, FloorLock(ctx.sender, ctx.event.event_id))
        return
    character = room.find_character(line.name)
    if character is None:
        ctx.reply("lock_unknown_character", name=line.name, known=room.character_names())
        return
    if room.lock:
        close_lock(ctx)
    open_lock(ctx, FloorLock(ctx.sender, ctx.event.event_id, character.name, character.owner))
    ctx.reply("lock_named", character=character.name, owner=character.owner)


def open_lock(ctx: Context, lock: FloorLock) -> None:
    ctx.room.lock = lock
    if ctx.enforcement != "mute":
        return
    if not ctx.event.bot_can_mute:
        warn_no_power(ctx)
        return
    lock.muted = True
    ctx.power_levels(True, lock_speakers(ctx, lock))


def lock_speakers(ctx: Context, lock: FloorLock) -> tuple[str, ...]:
    """Who may still post under a muted lock: the GMs, the GM who opened it and the named player."""
    return tuple(dict.fromkeys([*ctx.gms, lock.opened_by, *([lock.owner] if lock.owner else [])]))


def refresh_mute(ctx: Context) -> None:
    """Re-apply a muted lock after its speakers changed (the transport keeps the first saved levels)."""
    lock = ctx.room.lock
    if lock is not None and lock.muted:
        ctx.power_levels(True, lock_speakers(ctx, lock))


def close_lock(ctx: Context) -> None:
    lock = ctx.room.lock
    ctx.room.lock = None
    if lock and lock.muted:
        ctx.power_levels(False)


def may_write(ctx: Context, line: Line, command: Command | None) -> bool:
    """During a lock only the GM, the named player and (if the room allows) off-topic text pass."""
    lock = ctx.room.lock
    if lock is None or ctx.is_gm() or ctx.sender == lock.owner:
        return True
    if line.kind == "ooc" and ctx.settings.ooc_in_locks:
        return True
    if command is not None and command.in_character and ctx.sender in ctx.room.granted:
        return True
    enforce(ctx, lock.warned, "lock_warning", lock=lock)
    return False


def may_act(ctx: Context) -> bool:
    """In combat only the actor whose turn it is (or a granted player, or the GM) acts in character."""
    room = ctx.room
    if ctx.is_gm() or ctx.sender in room.granted:
        return True
    combat = room.combat
    if combat is None or not combat.started or room.exploration is not None:
        return True
    actor = room.find_character(combat.current or "")
    if actor is not None and actor.owner == ctx.sender:
        return True
    enforce(ctx, combat.warned, "turn_warning", actor=actor.name if actor else combat.current)
    return False


def consume_grant(ctx: Context) -> None:
    """A GM's out-of-turn permission covers one roll."""
    if ctx.sender in ctx.room.granted:
        ctx.room.granted.remove(ctx.sender)


def enforce(ctx: Context, warned: list[str], kind: str, **context: object) -> None:
    """Redact (if the room's mode and the bot's power allow) and warn each offender once."""
    mode = effective_mode(ctx)
    if mode != "warn":
        ctx.redact()
    if ctx.sender not in warned:
        warned.append(ctx.sender)
        ctx.reply(kind, mode=mode, **context)


def effective_mode(ctx: Context) -> str:
    """The room's mode, or ``warn`` when the bot lacks the power that mode needs (said once)."""
    mode = ctx.enforcement
    if mode == "warn":
        return mode
    if not ctx.event.bot_can_redact or (mode == "mute" and not ctx.event.bot_can_mute):
        warn_no_power(ctx)
        return "warn"
    return mode


def warn_no_power(ctx: Context) -> None:
    """Said once per room: the bot lacks the power its mode needs and falls back to warnings."""
    if not ctx.room.warned_no_power:
        ctx.room.warned_no_power = True
        ctx.announce("no_power", mode=ctx.enforcement)


def players(ctx: Context) -> list[Character]:
    return [c for c in ctx.room.characters.values() if c.owner and not ctx.is_gm(c.owner)]


def may_explore(ctx: Context) -> bool:
    """The free exploration turn: each player acts once; the GM hears when all have."""
    exploration = ctx.room.exploration
    if exploration is None or ctx.is_gm():
        return True
    if ctx.sender in exploration.acted:
        enforce(ctx, exploration.warned, "exploration_second")
        return False
    exploration.acted.append(ctx.sender)
    if all(c.owner in exploration.acted for c in players(ctx)):
        ctx.announce("exploration_all_acted", mentions=tuple(ctx.gms))
    return True
