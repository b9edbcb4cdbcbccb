"""What one event has done so far and not yet committed: the unit of work ``Table.handle`` writes.

Everything a command leaves for the event's transaction (the actions to carry out, the acta's records,
the rolls to keep, the secret rolls revealed, the steps ``!deshacer`` can take back and the ones it took
back) is pending here, beside the room's state it changed. ``mark`` notes where it all stands and
``rollback`` puts it back there, so a refused command changes nothing by construction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.core.events import Action
from bot.core.records import Record, RollRecord, UndoStep
from bot.core.state import RoomState


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a unit of work stood: the room's state (``RoomState.to_json``) and how long each list was."""

    snapshot: str
    lengths: tuple[int, ...]


@dataclass
class UnitOfWork:
    room: RoomState
    actions: list[Action] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    """What the event adds to or changes in the room's acta."""
    rolls: list[RollRecord] = field(default_factory=list)
    """Roll records to store with the event (``bot/core/rolls.py``)."""
    reveals: list[str] = field(default_factory=list)
    """Secret rolls the GM revealed in this event (roll ids)."""
    undoable: list[UndoStep] = field(default_factory=list)
    """The command of this event changed the play: how to take it back (``bot/core/undo.py``)."""
    undone: list[str] = field(default_factory=list)
    """The events whose commands this event took back (``!deshacer``)."""
    screen_links: list[tuple[str, str]] = field(default_factory=list)
    """(GM, token): the room's screen links this event made (``!pantalla``)."""

    def _lists(self) -> tuple[list[Any], ...]:
        return self.actions, self.records, self.rolls, self.reveals, self.undoable, self.undone, self.screen_links

    def mark(self) -> Mark:
        return Mark(self.room.to_json(), tuple(len(pending) for pending in self._lists()))

    def rollback(self, mark: Mark) -> None:
        """Everything back to ``mark``: the room's state and each pending list."""
        self.room.restore(mark.snapshot)
        for pending, length in zip(self._lists(), mark.lengths):
            del pending[length:]
