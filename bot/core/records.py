"""The records the table keeps, as plain data: no logic, nothing from the other core modules.

A roll a game made from a sheet (``SheetRoll``), an entry of the acta or a change to it, a step
``!deshacer`` can take back, how able a combatant is (``Vitality``) and what a fight keeps open
between two messages (``Pending``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.core.state import Character, Part
from systems.base import Outcome

Vitality = Literal["up", "down", "dead"]
"""``up`` acts; ``down`` (dying, incapacitated, unconscious...) makes only the rolls its state requires,
which its game rolls for it; ``dead`` leaves the turn order."""


@dataclass
class SheetRoll:
    """What a game made of a roll from the actor's sheet and the table's state."""

    outcome: Outcome
    applied: list[tuple[str, int]] = field(default_factory=list)
    """The modifiers the game added by itself (``(reason, value)``), listed in the reply."""
    label: str = ""
    """The named roll, as the sheet calls it (``Disparar d8``), or empty for an expression."""
    replay: str = ""
    """The system text that rolls it again with the same modifiers, for a reroll (``!repetir``); empty
    for a plain roll, which leaves no state behind (the room's state never depends on plain dice)."""
    changes_state: bool = False
    """Its result changes the table's state (a recovery that may end Shaken): it cannot be secret, since
    what it changed would show before ``!revelar``."""
    shown: dict[str, Any] | None = None
    """The outcome's roll object (``Outcome.as_json``) once built: a game that built it already gives it."""
    follow: Callable[[], None] | None = None
    """What the game does once the roll is answered, in the same event (Savage: a burst's damage, shot
    by shot); a roll with it changes the table's state."""

    @property
    def json(self) -> dict[str, Any]:
        """The outcome's roll object, built once however many look at it."""
        if self.shown is None:
            self.shown = self.outcome.as_json()
        return self.shown


@dataclass(frozen=True, slots=True)
class Pending:
    """Something a game's fight keeps open between two messages (a soak offered, a blow to parry,
    damage to apply), for the GM's screen only. ``kind`` names the game's template
    (``<game>/pending_<kind>``); ``who`` must act, ``target`` is the other side of it (the attacker, the
    victim, the holder), ``amount`` its number (wounds, a multiplier, rounds left) and ``command`` the
    command that resolves it (without its ``!``)."""

    kind: str
    who: str
    command: str
    target: str | None = None
    amount: int | None = None
    closable: bool = False
    """The GM may close it as declined (``!<command> WHO no``): the screen shows a button for that, the
    game's ``cerrar`` control (``Game.screen_controls``)."""


@dataclass
class RollRequest:
    """One roll asked for, read once: the text the game resolves (the core's own words taken out),
    whether it is ``secret``, whether the table's state adds its modifiers (``auto``), who rolls, and
    whose vitality was found up already for it (folded names), so no one is checked twice."""

    text: str
    secret: bool = False
    auto: bool = True
    actor: Character | None = None
    up: set[str] = field(default_factory=set)


EntryKind = Literal["narration", "dialogue", "action", "roll", "state", "combat", "combat_end", "round", "turn", "lock"]
SPOKEN: tuple[EntryKind, ...] = ("narration", "dialogue", "action")
"""Entries that are someone's message: an edit changes them, a redaction removes them."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the record. ``source`` is the chat event it came from (a roll: its request), and
    ``sender`` the user id who sent it: only they may edit it."""

    session: int
    kind: EntryKind
    actor: str
    text: str
    source: str
    ts: int
    data: dict[str, Any] = field(default_factory=dict)
    sender: str = ""


@dataclass(frozen=True, slots=True)
class Change:
    """A change to what is recorded: ``edit`` or ``forget`` the entries of chat event ``source``,
    ``undo`` every entry it wrote (its command was undone), or ``erase`` recorded sessions
    (``sessions`` None: all of them). An edit or a forget applies only
    to entries ``by`` sent, unless ``any_sender`` (a redaction by the GM or a room admin)."""

    op: Literal["edit", "forget", "erase", "undo"]
    source: str = ""
    kind: EntryKind = "dialogue"
    text: str = ""
    sessions: tuple[int, ...] | None = None
    by: str = ""
    any_sender: bool = False


Record = Entry | Change


@dataclass(frozen=True, slots=True)
class UndoStep:
    """A command ``!deshacer`` can take back: its event, how the answer names it, the room's state
    (``RoomState.to_json``) just before it, the parts of it the command changed (none: it changed
    nothing) and who typed it (empty for steps stored before that was kept)."""

    event_id: str
    label: str
    state: str
    parts: list[Part]
    sender: str = ""


@dataclass(frozen=True, slots=True)
class RollRecord:
    """A roll kept for ``!historial``, ``!dados`` and ``!revelar`` (a row of the ``rolls`` table):
    ``actor`` is the folded name of who rolled, ``data`` the JSON of who, whom against, the roll object
    and the modifiers added, ``dice`` the sized dice and ``message`` the room's copy (body and HTML)."""

    roll_id: str
    room_id: str
    event_id: str
    ts: int
    actor: str
    sender: str
    system: str
    label: str
    secret: int
    revealed: int
    data: str
    dice: str
    message: str

    def to_row(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class ScreenControl:
    """One button or form of the GM's screen: the chat command it becomes, and what it needs. The core's
    are ``bot/screen/controls.py``'s ``CONTROLS``; a game adds its own (``Game.screen_controls``)."""

    command: str
    """The command's name as the room's game finds it (its Spanish name goes in the text)."""
    words: str = ""
    """Fixed words after the command (``fin`` of ``!combate fin``)."""
    name: str = ""
    """``character`` (one of the room's), ``names`` (any, as ``!entra`` takes them), ``optional`` or
    ``new`` (one name for a new character, and the player it is for)."""
    text: str = ""
    """``required`` or ``optional``: the free text after the name (an amount, dice, sheet changes);
    ``change``: a signed count (``+3``, ``-1``)."""
    after: str = ""
    """Fixed words after the name (``no`` of ``!absorber Kira no``)."""


@dataclass(frozen=True)
class ScreenAttack:
    """The GM's screen's attack control for a game's ``!ataque``: whether the attacker is named
    (``ATACANTE contra OBJETIVO``, for a turn several share) or is the one whose turn it is, whether a
    weapon or skill follows the target, and the lists of options the form offers (each the exact words
    the command reads: ``apuntado cabeza``); the game's ``screen_attack.html`` shows them."""

    by_name: bool = False
    weapon: bool = False
    options: tuple[frozenset[str], ...] = ()
