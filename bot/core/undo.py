"""``!deshacer``: the last commands that changed a room's play, taken back one at a time.

A command that changes the play (``RoomState.play_json``: characters, the combat, the exploration turn)
leaves a step: how the answer names it, the room's state just before it (the snapshot ``run`` takes
anyway so that a refusal changes nothing) and the parts of the state it changed. ``Table.handle``
keeps each room's last ``UNDO_DEPTH`` steps in the store in the event's transaction, so they outlast
a restart. Undoing puts those parts back (``RoomState.undo_to``), and only those, and the acta drops the
entries derived from that step (``acta.derive``: by the step's event); its dice stay rolled: in the roll
history, and the RNG goes on.
"""

from __future__ import annotations

from bot.core.context import Context, FoundCommand
from bot.core.records import UndoStep

UNDO_DEPTH = 20
MAX_LABEL = 80
_SHEET_COMMANDS = ("ficha", "macro")
"""Commands whose arguments are a sheet's values: for a GM's sheet the answer names only the character."""


def keep(ctx: Context, command: FoundCommand, args: str, snapshot: str, play: str) -> None:
    """After ``command`` ran: a step to undo it when it changed the play (``play`` was it before)."""
    if ctx.work.undone or ctx.room.play_json() == play:
        return
    ctx.work.undoable.append(UndoStep(ctx.event.event_id, _label(ctx, command, args), snapshot,
                                 ctx.room.changed_since(snapshot)))


def take_back(ctx: Context, step: UndoStep) -> None:
    ctx.room.undo_to(step.state, step.parts)
    ctx.work.undone.append(step.event_id)
    combat = ctx.room.combat
    ctx.reply("undone", command=step.label, round=combat.round if combat and combat.started else None,
              actor=combat.current if combat else None)


def _label(ctx: Context, command: FoundCommand, args: str) -> str:
    """The command as the answer names it: ``!daño Orco 3``. A GM's sheet shows no numbers to the room,
    so an edit of one is named by its character alone."""
    words = args.split()
    if command.name in _SHEET_COMMANDS:
        character, _ = ctx.room.leading_character(words)
        if character is not None and ctx.sheet_is_gms(character):
            words = character.name.split()
    text = " ".join([f"!{command.name}", *words])
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "…"
