"""Stormbringer combat state kept in ``combat.data`` (JSON values only; the sheet is read in ``sheet.py``).

Layout of ``combat.data``:
- ``first``: the side that goes first in round 1 ("players" or "gm"); later rounds alternate.
- ``phases``: the current round's ``RoundPhases``, and ``order`` the turn order worked out from
  them (both dropped when the GM sets the turns by hand with ``!turnos``).
- ``stage``: "intent" while the declarations of intent go round (``combat.order`` is then the
  declarers, lowest DEX first), "actions" once the attacks resolve.
- ``changing``: name keys of those who declared a change of weapon this round (-5 DEX).
- ``counters``: name key -> ``RoundCounter`` of this round (emptied at each new round).
- ``blows``: the attacks that hit, in order, each awaiting its defence (this round only) and then its
  damage (``!daño`` takes it off; a later roll never loses it).
- ``surprise``: name key -> ``SurpriseState`` plus ``from``, the combat round it started.
- ``wounds``: name key -> condition codes ("major", "stunned") for the rest of the combat.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core import combat as rounds
from bot.core.context import Context
from bot.core.state import Character, Combat, name_key
from bot.games.stormbringer.sheet import phase_kind, sheet_int
from systems.stormbringer.combat import NORMAL, ActionLimits, Combatant, RoundCounter, RoundPhases, SurpriseState, round_phases


def data(combat: Combat) -> dict[str, Any]:
    for key in ("counters", "surprise", "wounds"):
        combat.data.setdefault(key, {})
    return combat.data


def side(ctx: Context, character: Character) -> str:
    return "players" if character.owner and not ctx.is_gm(character.owner) else "gm"


def combatants(ctx: Context, combat: Combat) -> list[Combatant]:
    out = []
    for name in combat.order:
        character = ctx.room.find_character(name)
        if character is not None:
            out.append(Combatant(character.name, sheet_int(character, "des"), phase_kind(character),
                                 side(ctx, character), name_key(name) in combat.data.get("changing", [])))
    return out


def order_round(ctx: Context, combat: Combat, round_number: int) -> RoundPhases:
    """Phases of ``round_number`` from the sheets; the turn order is missile, melee, then the rest."""
    phases, combat.order = round_order(ctx, combat, combat.order, round_number)
    data(combat).update(phases=phases.to_dict(), order=list(combat.order))
    return phases


def round_order(ctx: Context, combat: Combat, names: list[str], round_number: int) -> tuple[RoundPhases, list[str]]:
    """The phases of ``names`` in ``round_number`` and the turn order they give."""
    fighters = combatants(ctx, replace(combat, order=names))
    phases = round_phases(fighters, round_number, data(combat).get("first", "players"))
    acting = set(phases.missile) | set(phases.melee)
    rest = [c.name for c in sorted(fighters, key=lambda c: -c.dex) if c.name not in acting]
    return phases, [*phases.missile, *phases.melee, *rest]


def begin_intent(combat: Combat, phases: RoundPhases) -> None:
    """The round starts with the declarations: the turns go to the declarers, lowest DEX first."""
    combat.order = list(phases.intent)
    data(combat).update(order=list(combat.order), stage="intent")


def declaring(combat: Combat) -> bool:
    """The declarations of intent are going round (and the order is still the worked-out one)."""
    return combat.data.get("stage") == "intent" and not ordered_by_hand(combat)


def last_declarer(ctx: Context, combat: Combat, after: int = 1) -> bool:
    """Nobody from ``combat.turn + after`` on is left to declare (who cannot act declares nothing)."""
    return not any(rounds.can_act(ctx, name) for name in combat.order[combat.turn + after:])


def begin_actions(ctx: Context, combat: Combat) -> RoundPhases:
    """After the last declaration: the attack phases, worked out again (a declared change of weapon
    costs 5 DEX); the next turn is the first of them."""
    phases = order_round(ctx, combat, max(combat.round, 1))
    data(combat)["stage"] = "actions"
    combat.turn = -1
    return phases


def ordered_by_hand(combat: Combat) -> bool:
    """The GM set the turns (``!turnos``) since the order was last worked out from the sheets. The dead
    leaving the order (``bot.core.combat.drop_dead``) keep it worked out: what is left of it still counts."""
    worked_out = combat.data.get("order")
    if not isinstance(worked_out, list):
        return True
    return [name for name in worked_out if name in combat.order] != combat.order


def blows(combat: Combat) -> list[dict[str, Any]]:
    """The landed attacks awaiting defence or damage, oldest first (a single ``blow`` of an older
    version is taken in)."""
    table: list[dict[str, Any]] = combat.data.setdefault("blows", [])
    old = combat.data.pop("blow", None)
    if isinstance(old, dict):
        table.append({"round": combat.round, **old})
    return table


def aims_at(blow: dict[str, Any], name: str) -> bool:
    """The blow is at ``name``, or at nobody named yet."""
    return blow["target"] is None or name_key(blow["target"]) == name_key(name)


def pending_blow(combat: Combat | None, name: str) -> dict[str, Any] | None:
    """The oldest blow that hit ``name`` (or nobody named) and was not stopped: the next damage."""
    if combat is None:
        return None
    return next((b for b in blows(combat) if b["landed"] and aims_at(b, name)), None)


def close_round_blows(combat: Combat) -> None:
    """At a new round: the stopped blows go, and the others can no longer be defended (they wait for
    their damage)."""
    combat.data["blows"] = [{**b, "defended": True} for b in blows(combat) if b["landed"]]


def counter(combat: Combat, name: str) -> RoundCounter:
    return RoundCounter.from_dict(data(combat)["counters"].get(name_key(name), {}))


def save_counter(combat: Combat, name: str, value: RoundCounter) -> None:
    data(combat)["counters"][name_key(name)] = value.to_dict()


def surprise_round(combat: Combat, start: int) -> int:
    """The surprise's own round number (1 = its first round) in the combat's current round."""
    return max(combat.round, 1) - start + 1


def limits(combat: Combat, name: str) -> ActionLimits:
    entry = data(combat)["surprise"].get(name_key(name))
    if entry is None:
        return NORMAL
    return SurpriseState.from_dict(entry).limits(surprise_round(combat, int(entry["from"])))


def set_surprise(combat: Combat, name: str, state: SurpriseState) -> None:
    data(combat)["surprise"][name_key(name)] = {**state.to_dict(), "from": max(combat.round, 1)}


def surprise_left(combat: Combat, name: str) -> int:
    """Rounds of surprise still to come, this one included (ambush only; 0 otherwise)."""
    entry = data(combat)["surprise"].get(name_key(name))
    if entry is None or entry["kind"] != "ambush":
        return 0
    return max(0, int(entry["rounds"]) - surprise_round(combat, int(entry["from"])) + 1)


def prune_surprise(combat: Combat) -> None:
    """Drop surprise entries that no longer limit anyone."""
    table = data(combat)["surprise"]
    for key in [k for k, v in table.items() if SurpriseState.from_dict(v).limits(
            surprise_round(combat, int(v["from"]))) == NORMAL]:
        del table[key]


def wounds(combat: Combat, name: str) -> list[str]:
    return list(data(combat)["wounds"].get(name_key(name), []))


def add_wound(combat: Combat, name: str, code: str) -> None:
    codes = data(combat)["wounds"].setdefault(name_key(name), [])
    if code not in codes:
        codes.append(code)


def disarmed(combat: Combat, name: str) -> bool:
    """Disarmed by a critical (``!desarmar``) until a weapon is drawn or picked up (``!arma``)."""
    return name_key(name) in combat.data.get("disarmed", [])


def stunned(combat: Combat, name: str) -> bool:
    return "stunned" in wounds(combat, name)


