"""``!deshacer``: the last commands that changed a room's play, taken back one at a time; ``!rehacer``
puts back what it took.

A command that changes the play (``RoomState.play_json``: characters, the combat, the exploration turn),
or one declared to change it (``CommandGroup.takes(changes=True)``: a damage, an attack) even when it
changed nothing, leaves a step: how the answer names it, who typed it, the room's state just before it
(the snapshot ``run`` takes anyway so that a refusal changes nothing) and the parts of the state it
changed (none: the answer says it changed nothing). ``Table.handle`` keeps each room's last
``UNDO_DEPTH`` steps in the store in the event's transaction, so they outlast a restart. Undoing puts
those parts back (``RoomState.undo_to``), and only those, and the acta drops the entries derived from
that step (``acta.derive``: by the step's event); its dice stay rolled: in the roll history, and the RNG
goes on. The step undone keeps the state it left: ``!rehacer`` puts those parts back as they were, rolling
nothing, until a new step is kept. A GM's ``!deshacer`` right after a command of theirs that was refused
names the step and waits for a second one.
"""

from __future__ import annotations

from typing import Any

from bot.core import moderation, quiet
from bot.core.context import Context, FoundCommand
from bot.core.records import UndoStep
from bot.core.state import UNDOABLE, changes, play_of
from bot.core.work import Mark

UNDO_DEPTH = 20
LISTED = 5
"""How many steps ``!deshacer ?`` lists."""
MAX_LABEL = 80
_UNDO_COMMANDS = ("deshacer", "rehacer")
_SHEET_COMMANDS = ("ficha", "macro")
"""Commands whose arguments are a sheet's values: for a GM's sheet the answer names only the character."""


def keep(ctx: Context, command: FoundCommand, args: str, before: Mark) -> None:
    """After ``command`` ran: a step to undo it when it changed the play (``before``: the state before it)
    or is one that changes it. Only the play and the rerolls are encoded again."""
    if ctx.work.undone or ctx.work.undo_marks:
        return
    now = ctx.room.encoded(UNDOABLE)
    if play_of(now) == before.play and not ctx.work.changing:
        return
    ctx.work.undoable.append(UndoStep(ctx.event.event_id, label(ctx, command, args), before.snapshot,
                                      changes(before.encoded, now), ctx.sender))


def take_back(ctx: Context, step: UndoStep) -> None:
    after, turn = ctx.room.to_json(), _turn(ctx)
    ctx.room.undo_to(step.state, step.parts)
    quiet.forget_held(ctx, step.event_id)
    ctx.work.undone.append(step.event_id)
    ctx.work.undo_marks.append((step.event_id, after))
    _answer(ctx, "undone", step, turn)


def redo(ctx: Context, step: UndoStep, after: str) -> None:
    """Put back what undoing ``step`` took (the parts it changed, as they were when it was undone)."""
    turn = _turn(ctx)
    ctx.room.undo_to(after, step.parts)
    ctx.work.undo_marks.append((step.event_id, None))
    _answer(ctx, "redone", step, turn)


def refused(ctx: Context, command: FoundCommand, args: str) -> None:
    """A GM's command was refused: their next ``!deshacer`` asks first."""
    if ctx.is_gm() and command.name not in _UNDO_COMMANDS:
        ctx.work.refusal = label(ctx, command, args)


def _turn(ctx: Context) -> tuple[object, ...]:
    """Where the play stands for the room: the combat, its round and whose turn it is."""
    combat = ctx.room.combat
    return (combat is not None, combat.started, combat.round, combat.current) if combat else (False,)


def _answer(ctx: Context, kind: str, step: UndoStep, turn: tuple[object, ...]) -> None:
    """The step undone or redone, named. When whose turn it is stays as it was (the room read the step's
    answer when it happened, right above), the room gets a ✅ on the command and its typist the step's
    name privately (issue 30: bookkeeping as a reaction); a turn, round or combat that moves is said in
    the room. A control of the screen, no line in the room, is answered there."""
    combat = ctx.room.combat
    context: dict[str, Any] = {"command": step.label, "unchanged": not step.parts,
                               "actor": combat.current if combat else None,
                               "round": combat.round if combat and combat.started else None}
    if _turn(ctx) == turn and ctx.event.in_room:
        moderation.react(ctx, "done_key")
        ctx.whisper(ctx.sender, kind, **context)
        return
    ctx.reply(kind, **context)


def label(ctx: Context, command: FoundCommand, args: str) -> str:
    """The command as the answer names it: ``!daño Orco 3``. A GM's sheet shows no numbers to the room,
    so an edit of one is named by its character alone."""
    words = args.split()
    if command.name in _SHEET_COMMANDS:
        character, _ = ctx.room.leading_character(words)
        if character is not None and ctx.sheet_is_gms(character):
            words = character.name.split()
    text = " ".join([f"!{command.name}", *words])
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "…"
