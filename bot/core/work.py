"""What one event has done so far and not yet committed: the unit of work ``Table.handle`` writes.

Everything a command leaves for the event's transaction (the actions to carry out and the messages they
say, the acta's records,
the rolls to keep, the secret rolls revealed, the steps ``!deshacer`` can take back and the ones it took
back) is pending here, beside the room's state it changed. ``mark`` notes where it all stands and
``rollback`` puts it back there, so a refused command changes nothing by construction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.events import Action
from bot.core.records import Record, RollRecord, UndoStep
from bot.core.state import Encoded, RoomState, play_of, state_json


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a unit of work stood: the room's state (each field's JSON, encoded once: ``RoomState.encoded``)
    and how long each list was."""

    encoded: Encoded
    lengths: tuple[int, ...]

    @property
    def snapshot(self) -> str:
        """The room's state then (``RoomState.to_json``)."""
        return state_json(self.encoded)

    @property
    def play(self) -> str:
        """The room's play then (``RoomState.play_json``)."""
        return play_of(self.encoded)


@dataclass(frozen=True, slots=True)
class SeenRoll:
    """A roll the room saw (never a secret one): its public roll object, the room's message, the
    character the message credits (None: whoever sent it) and the named roll's label as far as the
    room's copy shows it (an NPC's skill without its die)."""

    result: dict[str, Any]
    body: str
    who: str | None
    label: str


@dataclass(frozen=True, slots=True)
class Said:
    """A message the event queued, as its end reads it back (the acta): its kind and context, where the
    combat stood then (``turn``: its round and turn, None when it had not started; ``turn_of``: the
    current actor) and the roll the room saw in it."""

    kind: str
    context: Mapping[str, Any]
    turn: tuple[int, int] | None = None
    turn_of: str | None = None
    roll: SeenRoll | None = None


@dataclass
class UnitOfWork:
    room: RoomState
    actions: list[Action] = field(default_factory=list)
    said: list[Said] = field(default_factory=list)
    """The messages it queued, in order, as the acta derives its entries from them (``bot/core/acta.py``)."""
    records: list[Record] = field(default_factory=list)
    """What the event adds to or changes in the room's acta, derived at its end (``acta.derive``)."""
    rolls: list[RollRecord] = field(default_factory=list)
    """Roll records to store with the event (``bot/core/rolls.py``)."""
    reveals: list[str] = field(default_factory=list)
    """Secret rolls the GM revealed in this event (roll ids)."""
    undoable: list[UndoStep] = field(default_factory=list)
    """The command of this event changed the play: how to take it back (``bot/core/undo.py``)."""
    undone: list[str] = field(default_factory=list)
    """The events whose commands this event took back (``!deshacer``)."""
    undo_marks: list[tuple[str, str | None]] = field(default_factory=list)
    """(event, state): the steps this event undid, each with the state it left for ``!rehacer``, or
    redid (None)."""
    refusal: str | None = None
    """A GM's command this event refused, as typed: their next ``!deshacer`` asks first (``bot/core/undo.py``)."""
    commanded: bool = False
    """A command of this event ran to its end (the sender's refusal noted before is over)."""
    changing: bool = False
    """The command under way is one that changes the play (``CommandGroup.takes(changes=True)``): it is an
    undo step even when it changed nothing."""
    screen_links: list[tuple[str, str]] = field(default_factory=list)
    """(GM, token): the room's screen links this event made (``!pantalla``)."""

    def _lists(self) -> tuple[list[Any], ...]:
        return (self.actions, self.said, self.records, self.rolls, self.reveals, self.undoable, self.undone,
                self.undo_marks, self.screen_links)

    def mark(self) -> Mark:
        return Mark(self.room.encoded(), tuple(len(pending) for pending in self._lists()))

    def rollback(self, mark: Mark) -> None:
        """Everything back to ``mark``: the room's state and each pending list."""
        self.room.restore(mark.snapshot)
        for pending, length in zip(self._lists(), mark.lengths):
            del pending[length:]
