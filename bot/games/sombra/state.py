"""Sistema Sombra's data in ``combat.data``: what belongs to one fight, read and written through ``SombraState``.

Initiative ties, stun counters, whose turn started last, the round's shots and declared defences,
manoeuvre states, death thresholds, who watches for opportunity fire, who spent a turn aiming. (What outlasts a fight lives in
the sheet: ``sheet.py``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from bot.core.api import (
    Character,
    Combat,
    Context,
)

STATES = "states"
"""In ``combat.data``: the manoeuvre state on each combatant (``Manoeuvre``, by name)."""
DOWN, UNBALANCED, DISADVANTAGE, HELD = "derribado", "desequilibrado", "desventaja", "apresado"
STATE_PENALTY = 5
"""Unbalanced (a knockdown resisted) or at a disadvantage (a failed grab): +5 to every roll."""
THIS_ROUND, STUN_FRESH, OPPORTUNITY, THRESHOLD = "this_round", "stun_fresh", "opportunity", "death_threshold"
"""In ``combat.data``: what the round under way has seen (``RoundSeen``); who was stunned in
their own turn (that turn does not count down the stun); who watches a spot for opportunity fire."""
BY_INITIATIVE = "by_initiative"
"""In ``combat.data``: the order came from VEL/AGI (``!iniciativa``), not from the GM's ``!turnos``."""
TIES, STUN, LAST_TURN = "ties", "stun", "last_turn"
"""In ``combat.data``: who is tied in the order; the stun turns left, by name; whose turn started last."""
AIM = "aim"
"""In ``combat.data``: who spent a turn aiming (``Aim``), by name."""
SETTLED = "ties_settled"
"""In ``combat.data``: who the GM placed among those it tied with (``!orden``): no longer tied."""


class Manoeuvre(TypedDict):
    """A manoeuvre's mark on a combatant: down, unbalanced, at a disadvantage or held (``by`` whom)."""

    kind: str
    fresh: bool
    """Set in the combatant's own turn: that turn does not count, it lasts through their next one."""
    by: str | None
    escapes: int
    """Struggles won in a row by the held one."""


class Aim(TypedDict):
    """A turn spent aiming (004: «apuntar (un turno y aumentar un -5 el modificador)»)."""

    location: str | None
    """The location aimed at, as its words (``cabeza``, ``brazo derecho``): the shot's ``apuntado``."""
    fresh: bool
    """Taken in the turn under way, which is spent; the -5 is for the next turn's first shot."""


class Shots(TypedDict):
    """A shooter's fire in the round under way."""

    shots: int
    covering: bool
    burst: bool


class RoundSeen(TypedDict):
    """What the round under way has seen: shots, declared defences (stance by name), who attacked."""

    round: int
    fire: dict[str, Shots]
    defence: dict[str, str]
    attacked: list[str]


@dataclass
class SombraState:
    """Sombra's keys in ``combat.data``, typed. A view over the combat's own dict: what it reads and
    writes is the stored JSON as it always was, and a read adds no key."""

    combat: Combat

    @classmethod
    def of(cls, combat: Combat) -> SombraState:
        return cls(combat)

    @property
    def _data(self) -> dict[str, Any]:
        return self.combat.data

    @property
    def by_initiative(self) -> bool:
        return bool(self._data.get(BY_INITIATIVE))

    @by_initiative.setter
    def by_initiative(self, value: bool) -> None:
        self._data[BY_INITIATIVE] = value

    @property
    def ties(self) -> list[str]:
        return self._data.get(TIES, [])

    @ties.setter
    def ties(self, names: list[str]) -> None:
        self._data[TIES] = names

    @property
    def settled(self) -> list[str]:
        return self._data.get(SETTLED, [])

    @settled.setter
    def settled(self, names: list[str]) -> None:
        self._data[SETTLED] = names

    @property
    def watching(self) -> list[str]:
        """Who watches a spot for opportunity fire."""
        return self._data.get(OPPORTUNITY, [])

    @watching.setter
    def watching(self, names: list[str]) -> None:
        self._data[OPPORTUNITY] = names

    @property
    def last_turn(self) -> str | None:
        return self._data.get(LAST_TURN)

    @last_turn.setter
    def last_turn(self, name: str) -> None:
        self._data[LAST_TURN] = name

    def stunned(self, name: str) -> int:
        """The stun turns ``name`` has left (0: not stunned)."""
        return int(self._data.get(STUN, {}).get(name, 0))

    def stun_counts(self) -> dict[str, int]:
        """The stun turns left by name, kept (the key is added when missing)."""
        return self._data.setdefault(STUN, {})

    @property
    def stun_fresh(self) -> list[str]:
        """Who was stunned in their own turn (that turn does not count down the stun)."""
        return self._data.get(STUN_FRESH, [])

    @stun_fresh.setter
    def stun_fresh(self, names: list[str]) -> None:
        self._data[STUN_FRESH] = names

    def end_stun(self, name: str) -> None:
        self._data.get(STUN, {}).pop(name, None)
        self.stun_fresh = [n for n in self.stun_fresh if n != name]

    @property
    def thresholds(self) -> dict[str, int]:
        """The death threshold's rounds left (VIT counted down) of who the GM marked dying (``umbral``),
        from the first new round after the mark."""
        return self._data.get(THRESHOLD, {})

    def counted_thresholds(self) -> dict[str, int]:
        """The thresholds' rounds left, kept (the key is added when missing)."""
        return self._data.setdefault(THRESHOLD, {})

    def end_threshold(self, name: str) -> None:
        self.thresholds.pop(name, None)

    def manoeuvre(self, name: str) -> Manoeuvre | None:
        return self._data.get(STATES, {}).get(name)

    def manoeuvres(self) -> dict[str, Manoeuvre]:
        """The manoeuvre marks by name, kept (the key is added when missing)."""
        return self._data.setdefault(STATES, {})

    def marked(self) -> dict[str, Manoeuvre]:
        """The manoeuvre marks by name, only read (nothing is added: a look at the fight changes no state)."""
        return dict(self._data.get(STATES, {}))

    def end_manoeuvre(self, name: str) -> None:
        self._data.get(STATES, {}).pop(name, None)

    def round_seen(self) -> RoundSeen | None:
        """What the round under way has seen, begun afresh in each round; None before the turns start."""
        if not self.combat.started:
            return None
        seen: RoundSeen | None = self._data.get(THIS_ROUND)
        if not seen or seen.get("round") != self.combat.round:
            seen = {"round": self.combat.round, "fire": {}, "defence": {}, "attacked": []}
            self._data[THIS_ROUND] = seen
        return seen


@dataclass
class Aims:
    """Who spent a turn aiming, in ``combat.data`` (``Aim`` by name): a view like ``SombraState``'s."""

    combat: Combat

    def of(self, name: str) -> Aim | None:
        """The aim ``name`` took, if any."""
        return self.combat.data.get(AIM, {}).get(name)

    def take(self, name: str, location: str | None) -> None:
        self.combat.data.setdefault(AIM, {})[name] = {"location": location, "fresh": True}

    def end(self, name: str) -> None:
        self.combat.data.get(AIM, {}).pop(name, None)


def round_state(combat: Combat | None) -> RoundSeen | None:
    """What the round under way has seen (shots, declared defences, who attacked); None out of combat."""
    return SombraState.of(combat).round_seen() if combat is not None else None


def manoeuvres(ctx: Context) -> dict[str, Manoeuvre]:
    combat = ctx.room.combat
    return SombraState.of(combat).manoeuvres() if combat is not None else {}


def state_of(ctx: Context, character: Character) -> str | None:
    """The manoeuvre state on ``character`` (down, unbalanced, at a disadvantage, held), if any."""
    combat = ctx.room.combat
    state = SombraState.of(combat).manoeuvre(character.name) if combat is not None else None
    return str(state["kind"]) if state else None


def set_state(ctx: Context, character: Character, kind: str, by: str | None = None) -> None:
    """Set in ``character``'s own turn, that turn does not count: it lasts through their next one."""
    combat = ctx.room.combat
    if combat is None:
        return
    fresh = combat.started and combat.current == character.name
    SombraState.of(combat).manoeuvres()[character.name] = {"kind": kind, "fresh": fresh, "by": by, "escapes": 0}


def state_penalty(ctx: Context, character: Character) -> tuple[tuple[str, int], ...]:
    kind = state_of(ctx, character)
    return ((kind, STATE_PENALTY),) if kind in (UNBALANCED, DISADVANTAGE) else ()
