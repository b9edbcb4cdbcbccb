"""Sistema Sombra's combat hooks (``bot/core/combat.py`` calls them): initiative by VEL then AGI, the
rounds' death thresholds and sinking boats, stun counted in the victim's turns, the status labels."""

from __future__ import annotations

from typing import Any

from bot.core import combat as rounds
from bot.core.context import Context
from bot.core.game import Vitality
from bot.core.state import Character, Combat
from bot.games.sombra.damage import _boat_state, _store_boat
from bot.games.sombra.sheet import CAPSIZED, DEAD, ENGINE, JAMMED, _effect, _int, _table, _wounds
from bot.games.sombra.state import BY_INITIATIVE, HELD, OPPORTUNITY, STATES, STUN_FRESH, THRESHOLD
from systems.sombra.damage import sinking_round
from systems.sombra.resolver import SombraInitiative
from systems.sombra.rules import OPPORTUNITY_INITIATIVE, Attributes, Combatant, InitiativeSlot, initiative_order


def _combatant(ctx: Context, name: str) -> tuple[Combatant, bool]:
    """The combatant for ``name`` and whether VEL/AGI were missing (the default 5 is used)."""
    character = ctx.room.find_character(name)
    combat = ctx.room.combat
    bonus = OPPORTUNITY_INITIATIVE if combat is not None and name in combat.data.get(OPPORTUNITY, []) else 0
    if character is not None and _table(character) == "barco":
        return Combatant.boat(name, bonus), False
    vel = _int(character, "vel") if character else None
    agi = _int(character, "agi") if character else None
    default = Attributes()
    return Combatant(name, default.vel if vel is None else vel, default.agi if agi is None else agi, bonus), \
        vel is None or agi is None


def _slots(ctx: Context, names: list[str]) -> list[InitiativeSlot]:
    """The initiative places of ``names`` by VEL, then AGI (full ties keep the order given)."""
    return initiative_order(_combatant(ctx, name)[0] for name in names)


class SombraCombat:
    """Initiative by VEL then AGI (ties flagged), stun counted in the victim's turns,
    sinking boats losing flotation each round, wounds and flotation on the status board."""


    def initiative(self, ctx: Context, combat: Combat) -> None:
        entries = [_combatant(ctx, name) for name in combat.order]
        slots = initiative_order(c for c, _ in entries)
        combat.order = [s.combatant.name for s in slots]
        combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        combat.data[BY_INITIATIVE] = True
        ctx.announce("sombra/table_initiative", roll=SombraInitiative(slots),
                     defaults=[c.name for c, missing in entries if missing])

    def new_round(self, ctx: Context, combat: Combat) -> None:
        _count_thresholds(ctx, combat)
        if combat.data.get(BY_INITIATIVE):
            slots = _slots(ctx, combat.order)
            combat.order = [s.combatant.name for s in slots]
            combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        for name in combat.order:
            character = ctx.room.find_character(name)
            if character is None or _table(character) != "barco" or _int(character, "flotabilidad") is None:
                continue
            before = _boat_state(character)
            after = sinking_round(before)
            if after != before:
                _store_boat(character, after)
                ctx.announce("sombra/table_sinking", name=name, lost=before.flotation - after.flotation,
                             state=after)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        stun = combat.data.setdefault("stun", {})
        previous = combat.data.get("last_turn")
        fresh = combat.data.get(STUN_FRESH, [])
        if previous in fresh:
            fresh.remove(previous)
        elif previous in stun:
            stun[previous] -= 1
            if stun[previous] <= 0:
                del stun[previous]
        held = combat.data.get(STATES, {}).get(previous)
        if held and held["kind"] != HELD:
            if held["fresh"]:
                held["fresh"] = False
            else:
                del combat.data[STATES][previous]
        combat.data["last_turn"] = actor.name
        if actor.name in stun or _effect(actor).fallen:
            ctx.announce("sombra/table_turn", name=actor.name, stun=stun.get(actor.name, 0))

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return [ctx.renderer.text("sombra/table_condition", l=label) for label in _labels(ctx, combat, actor)]

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """Placed by VEL, then AGI, among those still to act; in an order set by hand, last."""
        names = [*combat.order, character.name]
        if not combat.data.get(BY_INITIATIVE):
            rounds.place_late(combat, character.name, names)
            return None
        slots = _slots(ctx, names)
        rounds.place_late(combat, character.name, [s.combatant.name for s in slots])
        combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        if ctx.sheet_is_gms(character):
            return None
        mine, missing = _combatant(ctx, character.name)
        return ctx.renderer.text("sombra/table_join", c=mine, defaulted=missing)

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        combat.data["ties"] = [n for n in combat.data.get("ties", []) if n != name]
        combat.data.get("stun", {}).pop(name, None)
        combat.data[STUN_FRESH] = [n for n in combat.data.get(STUN_FRESH, []) if n != name]
        combat.data.get(STATES, {}).pop(name, None)
        combat.data.get(THRESHOLD, {}).pop(name, None)

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """The rules give people no death threshold: the GM marks the dead (``!ficha NOMBRE muerto 1``)."""
        if _int(character, DEAD):
            return "dead"
        return "up" if _effect(character).can_act else "down"


def _count_thresholds(ctx: Context, combat: Combat) -> None:
    """Each new round, one round of the death threshold (VIT) of who is down from a serious wound;
    at 0 they die. Whoever can act again (healed) stops counting."""
    counts = combat.data.get(THRESHOLD, {})
    for name in list(counts):
        character = ctx.room.find_character(name)
        if character is None or _effect(character).can_act or _int(character, DEAD):
            del counts[name]
            continue
        counts[name] -= 1
        if counts[name] <= 0:
            del counts[name]
            character.sheet[DEAD] = 1
        ctx.announce("sombra/table_threshold", name=name, left=counts.get(name, 0))


def _labels(ctx: Context, combat: Combat | None, actor: Character) -> list[dict[str, Any]]:
    data = combat.data if combat else {}
    labels: list[dict[str, Any]] = []
    if actor.name in data.get("ties", []):
        labels.append({"kind": "tie"})
    if data.get("stun", {}).get(actor.name):
        labels.append({"kind": "stunned", "turns": data["stun"][actor.name]})
    if actor.name in data.get(THRESHOLD, {}):
        # The rounds left are VIT counted down: an NPC's stay the GMs' (the round's notice tells them).
        labels.append({"kind": "threshold", "rounds": data[THRESHOLD][actor.name], "secret": ctx.sheet_is_gms(actor)})
    held = data.get(STATES, {}).get(actor.name)
    if held:
        labels.append({"kind": "state", "state": held["kind"], "by": held.get("by")})
    labels += [{"kind": "wound", "location": loc, **w} for loc, w in sorted(_wounds(actor).items())]
    effect = _effect(actor)
    for flag in ("unconscious", "helpless", "fallen", "half_movement"):
        if getattr(effect, flag):
            labels.append({"kind": flag, "hours": effect.unconscious_hours})
    labels += [{"kind": "arm_useless", "arm": arm} for arm in sorted(effect.useless_arms)]
    labels += [{"kind": flag} for flag in (JAMMED, CAPSIZED) if _int(actor, flag)]
    if _int(actor, ENGINE) == 0:
        labels.append({"kind": "adrift"})
    if effect.penalty:
        labels.append({"kind": "penalty", "value": effect.penalty})
    if _table(actor) == "barco" and _int(actor, "flotabilidad") is not None:
        state = _boat_state(actor)
        labels.append({"kind": "boat", "flotation": state.flotation, "sinking": state.sinking, "sunk": state.sunk})
    return labels
