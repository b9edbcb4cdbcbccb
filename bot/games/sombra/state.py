"""Sistema Sombra's data in combat.data: what belongs to one fight.

Initiative ties, stun counters, whose turn started last, the round's shots and declared defences,
manoeuvre states, death thresholds, who watches for opportunity fire. (What outlasts a fight lives in
the sheet: ``sheet.py``.)
"""

from __future__ import annotations

from typing import Any

from bot.core.context import Context
from bot.core.state import Character, Combat

STATES = "states"
"""In ``combat.data``: the manoeuvre state on each combatant (``_set_state`` sets it)."""
DOWN, UNBALANCED, DISADVANTAGE, HELD = "derribado", "desequilibrado", "desventaja", "apresado"
STATE_PENALTY = 5
"""Unbalanced (a knockdown resisted) or at a disadvantage (a failed grab): +5 to every roll."""
THIS_ROUND, STUN_FRESH, OPPORTUNITY, THRESHOLD = "this_round", "stun_fresh", "opportunity", "death_threshold"
"""In ``combat.data``: what the round under way has seen (see ``_round_state``); who was stunned in
their own turn (that turn does not count down the stun); who watches a spot for opportunity fire."""
BY_INITIATIVE = "by_initiative"
"""In ``combat.data``: the order came from VEL/AGI (``!iniciativa``), not from the GM's ``!turnos``."""


def _round_state(combat: Combat | None) -> dict[str, Any] | None:
    """What the round under way has seen (shots, declared defences, who attacked); None out of combat."""
    if combat is None or not combat.started:
        return None
    state = combat.data.get(THIS_ROUND)
    if not state or state.get("round") != combat.round:
        state = {"round": combat.round, "fire": {}, "defence": {}, "attacked": []}
        combat.data[THIS_ROUND] = state
    return state


def _states(ctx: Context) -> dict[str, dict[str, Any]]:
    combat = ctx.room.combat
    return combat.data.setdefault(STATES, {}) if combat is not None else {}


def _state_of(ctx: Context, character: Character) -> str | None:
    """The manoeuvre state on ``character`` (down, unbalanced, at a disadvantage, held), if any."""
    state = _states(ctx).get(character.name)
    return str(state["kind"]) if state else None


def _set_state(ctx: Context, character: Character, kind: str, by: str | None = None) -> None:
    """Set in ``character``'s own turn, that turn does not count: it lasts through their next one."""
    combat = ctx.room.combat
    if combat is None:
        return
    fresh = combat.started and combat.current == character.name
    _states(ctx)[character.name] = {"kind": kind, "fresh": fresh, "by": by, "escapes": 0}


def _state_penalty(ctx: Context, character: Character) -> tuple[tuple[str, int], ...]:
    kind = _state_of(ctx, character)
    return ((kind, STATE_PENALTY),) if kind in (UNBALANCED, DISADVANTAGE) else ()
