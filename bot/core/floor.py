"""Who may write now: narration and named locks, combat turns, and their enforcement."""

from __future__ import annotations

from typing import Any, Literal

from bot.core import combat as rounds
from bot.core import moderation, replies
from bot.core.context import Context, FoundCommand
from bot.core.events import Edit
from bot.core.protocol import Line
from bot.core.replies import Addressing
from bot.core.state import Character, FloorLock, name_key

Refusal = Literal["lock", "turn"]


def gm_dash_line(ctx: Context, line: Line) -> Line | None:
    """A GM's dash line opens or closes the floor (docs/protocol.md#1.3 and #1.4); a reaction confirms it.
    A line that is no lock is plain text on the floor: it is returned as such (the acta records it)."""
    room = ctx.room
    if line.kind == "short_dash" or (line.bare and room.find_character(line.name) is None):
        ctx.whisper(ctx.sender, "dash_hint", name=line.name, known=room.character_names())
        return Line("talk")
    if line.kind == "dash":
        if room.lock:
            close_lock(ctx)
            moderation.react(ctx, "lock_closed_key")
        else:
            open_lock(ctx, FloorLock(ctx.sender, ctx.event.event_id))
            moderation.react(ctx, "lock_opened_key")
        return None
    character = room.find_character(line.name)
    if character is None:
        ctx.whisper(ctx.sender, "lock_unknown_character", name=line.name, known=room.character_names())
        return None
    if room.lock:
        close_lock(ctx)
    open_lock(ctx, FloorLock(ctx.sender, ctx.event.event_id, character.name, character.owner))
    moderation.react(ctx, "lock_opened_key")
    ctx.reply("lock_named", character=character.name, owner=character.owner)
    return None


def open_lock(ctx: Context, lock: FloorLock) -> None:
    """Outside combat a grant is for the lock it was given in: an earlier one does not carry into it."""
    if ctx.room.combat is None or not ctx.room.combat.started:
        ctx.room.clear_grants()
    ctx.room.lock = lock
    if moderation.enforcement(ctx) != "mute":
        return
    moderation.note_power(ctx, "mute")
    if not ctx.event.bot_can_mute:
        warn_no_power(ctx)
        return
    lock.muted = True
    moderation.power_levels(ctx, True, lock_speakers(ctx, lock))


def lock_speakers(ctx: Context, lock: FloorLock) -> tuple[str, ...]:
    """Who may still post under a muted lock: the GMs, the GM who opened it and the named player."""
    return tuple(dict.fromkeys([*ctx.gms, lock.opened_by, *([lock.owner] if lock.owner else [])]))


def refresh_mute(ctx: Context) -> None:
    """Re-apply a muted lock after its speakers changed (the transport keeps the first saved levels)."""
    lock = ctx.room.lock
    if lock is not None and lock.muted:
        moderation.power_levels(ctx, True, lock_speakers(ctx, lock))


def close_lock(ctx: Context) -> None:
    """Outside combat, ``!permite`` grants end with the lock."""
    room = ctx.room
    lock = room.lock
    room.lock = None
    if room.combat is None or not room.combat.started:
        room.clear_grants()
    if lock and lock.muted:
        moderation.power_levels(ctx, False)


def in_character(line: Line, command: FoundCommand | None) -> bool:
    return line.kind == "action" or (command is not None and command.in_character)


def refusal(ctx: Context, line: Line, command: FoundCommand | None) -> Refusal | None:
    """What keeps this post off the floor without a grant: the lock (any post), then the turn
    (in-character posts only, docs/protocol.md#1.8); None when nothing does."""
    if not _lock_allows(ctx, line):
        return "lock"
    if in_character(line, command) and not _turn_allows(ctx):
        return "turn"
    return None


def has_floor(ctx: Context, line: Line) -> bool:
    """Neither the lock nor the turn keeps the sender from speaking in the room now."""
    return _lock_allows(ctx, line) and _turn_allows(ctx)


def lock_allows_sender(ctx: Context) -> bool:
    """No lock keeps the sender off the floor, whatever they wrote (off-topic aside)."""
    lock = ctx.room.lock
    return lock is None or ctx.is_gm() or ctx.sender == lock.owner


def _lock_allows(ctx: Context, line: Line) -> bool:
    """During a lock only the GM, the named player and (if the room allows) off-topic text pass."""
    lock = ctx.room.lock
    if lock is None or ctx.is_gm() or ctx.sender == lock.owner:
        return True
    return line.kind == "ooc" and ctx.settings.ooc_in_locks


def _turn_allows(ctx: Context) -> bool:
    """In combat only the actor whose turn it is, the GM and the player a named lock names act."""
    room = ctx.room
    combat = room.combat
    if ctx.is_gm() or combat is None or not combat.started or room.exploration is not None:
        return True
    if room.lock is not None and room.lock.owner == ctx.sender:
        return True
    actor = room.find_character(combat.current or "")
    acting = [*([actor] if actor else []), *rounds.turn_members(ctx, combat)]
    return any(character.owner == ctx.sender for character in acting)


def refuse(ctx: Context, reason: Refusal) -> None:
    """Enforce the rule that refused the post (redact by the room's mode, warn once)."""
    room = ctx.room
    if reason == "lock" and room.lock is not None:
        notice_lock(ctx, room.lock)
    elif room.combat is not None:
        actor = room.find_character(room.combat.current or "")
        enforce(ctx, room.combat.warned, "turn_warning", actor=actor.name if actor else room.combat.current)


def judge(ctx: Context, line: Line, command: FoundCommand | None) -> bool:
    """Refuse the post if the lock or the turn forbids it; grants never apply (edits, media...)."""
    reason = refusal(ctx, line, command)
    if reason is None:
        return True
    refuse(ctx, reason)
    return False


GRANT_SEPARATOR = "|"
"""Between the command names a narrowed grant allows (``RoomState.grant_only``)."""


def has_grant(ctx: Context, command: FoundCommand) -> bool:
    """The sender holds a ``!permite`` grant that covers ``command`` (an in-character one)."""
    if not command.in_character or ctx.sender not in ctx.room.granted:
        return False
    only = ctx.room.grant_only.get(ctx.sender)
    return only is None or any(name_key(n) in only.split(GRANT_SEPARATOR) for n in command.names)


def may_act(ctx: Context) -> bool:
    """For a command's own checks: may the sender act in character now (their turn, or their grant;
    a refusal is enforced)."""
    if ctx.on_grant or _turn_allows(ctx):
        return True
    if ctx.sender in ctx.room.granted and ctx.sender not in ctx.room.grant_only:
        ctx.on_grant = True
        return True
    refuse(ctx, "turn")
    return False


def consume_grant(ctx: Context) -> None:
    """A valid in-character command calls this: if it ran on the sender's grant, the grant is spent."""
    if ctx.on_grant and not ctx.grant_spent:
        ctx.grant_spent = True
        if ctx.sender in ctx.room.granted:
            ctx.room.granted.remove(ctx.sender)
        ctx.room.grant_only.pop(ctx.sender, None)


def grant(ctx: Context, user: str, only: str | None = None) -> None:
    """Give ``user`` one out-of-turn in-character command: any (``!permite``), or only ``only`` (a roll the
    rules let that player answer with, such as a soak of the hit just taken). A full grant is never
    narrowed."""
    room = ctx.room
    if only is None:
        room.grant_only.pop(user, None)
    elif user not in room.granted:
        room.grant_only[user] = name_key(only)
    if user not in room.granted:
        room.granted.append(user)


def keep_grant_for(ctx: Context, *command_names: str) -> None:
    """Spend the grant as ``consume_grant`` does, leaving the sender one follow-up with one of
    ``command_names`` on it (Savage: the second-benny reroll of a soak, ``!absorber repetir`` or
    ``!repetir``). The follow-up expires like any grant."""
    if not ctx.on_grant:
        return
    consume_grant(ctx)
    grant(ctx, ctx.sender, GRANT_SEPARATOR.join(map(name_key, command_names)))


def enforce(ctx: Context, warned: list[str], kind: str, **context: Any) -> None:
    """Redact (if the room's mode and the bot's power allow) and tell each offender once, privately: a
    refusal goes to the one who caused it (docs/protocol.md#1.8)."""
    mode = _take_back(ctx)
    if ctx.sender not in warned:
        warned.append(ctx.sender)
        ctx.whisper(ctx.sender, kind, mode=mode, who=ctx.speaker_name, **context)


def notice_lock(ctx: Context, lock: FloorLock) -> None:
    """Writing during a lock: redacted by the room's mode, and at most one notice in the room for the whole
    lock, posted at the first offence. A later offender is added to that notice where the transport edits
    its messages (``Edit``), else told privately (docs/protocol.md#1.8)."""
    mode = _take_back(ctx)
    if ctx.sender in lock.warned:
        return
    lock.warned.append(ctx.sender)
    if not lock.notice:
        lock.notice = f"{ctx.event.event_id}/{LOCK_NOTICE}"
        # The notice names and mentions its player: a reply to a message the bot took back points at nothing.
        replies.render_send(ctx, "lock_warning", Addressing(reply=mode == "warn", mentions=(ctx.sender,)),
                            ref=lock.notice, mode=mode, names=[ctx.speaker_name], lock=lock)
    elif ctx.edits:
        names = [_name_of(ctx, user) for user in lock.warned]
        message = ctx.renderer.render("lock_warning", mode=mode, names=names, lock=lock)
        ctx.work.actions.append(Edit(ctx.event.room_id, lock.notice, message, (ctx.sender,)))
    else:
        ctx.whisper(ctx.sender, "lock_warning", mode=mode, names=[ctx.speaker_name], lock=lock)


LOCK_NOTICE = "lock"
"""The ``Send.ref`` of a lock's notice is the first offence's event id and this."""


def _take_back(ctx: Context) -> str:
    """Redact the event if the room's mode and the bot's power allow; the mode that applies."""
    mode = effective_mode(ctx)
    if not ctx.event.network_redacts:
        mode = "warn"
    if mode != "warn":
        moderation.redact(ctx)
    return mode


def _name_of(ctx: Context, user: str) -> str:
    character = ctx.room.character_of(user)
    return character.name if character else user


def effective_mode(ctx: Context) -> str:
    """The room's mode, or ``warn`` when the bot lacks the power that mode needs (said once)."""
    mode = moderation.enforcement(ctx)
    if mode == "warn":
        return mode
    moderation.note_power(ctx, mode)
    if not ctx.event.bot_can_redact or (mode == "mute" and not ctx.event.bot_can_mute):
        warn_no_power(ctx)
        return "warn"
    return mode


def warn_no_power(ctx: Context) -> None:
    """Said once per room: the bot lacks the power its mode needs and falls back to warnings."""
    if not ctx.room.warned_no_power:
        ctx.room.warned_no_power = True
        ctx.announce("no_power", mode=moderation.enforcement(ctx))


def players(ctx: Context) -> list[Character]:
    return [c for c in ctx.room.characters.values() if c.owner and not ctx.is_gm(c.owner)]


def may_explore(ctx: Context) -> bool:
    """The free exploration turn: each player acts once (a second action is refused)."""
    exploration = ctx.room.exploration
    if exploration is None or ctx.is_gm():
        return True
    if ctx.sender in exploration.acted:
        enforce(ctx, exploration.warned, "exploration_second")
        return False
    return True


def explored(ctx: Context) -> None:
    """The sender's one action of the exploration turn is spent; the GM hears when all have acted."""
    exploration = ctx.room.exploration
    if exploration is None or ctx.is_gm() or ctx.sender in exploration.acted:
        return
    exploration.acted.append(ctx.sender)
    if all(c.owner in exploration.acted for c in players(ctx)):
        ctx.announce("exploration_all_acted", mentions=tuple(ctx.gms))
