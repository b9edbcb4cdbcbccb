"""Sistema Sombra's combat hooks (``bot/core/combat.py`` calls them): initiative by VEL then AGI, the
rounds' death thresholds and sinking boats, stun counted in the victim's turns, the status labels."""

from __future__ import annotations

from typing import Any

from bot.core import combat as rounds
from bot.core.context import CombatRules, Context
from bot.core.game import Vitality
from bot.core.records import Pending
from bot.core.state import Character, Combat
from bot.games.sombra.damage import boat_state, store_boat
from bot.games.sombra.sheet import CAPSIZED, DEAD, ENGINE, JAMMED, sheet_int, table_of, wound_effect, wounds_of
from bot.games.sombra.state import HELD, SombraState
from systems.sombra.damage import sinking_round
from systems.sombra.resolver import SombraInitiative
from systems.sombra.rules import OPPORTUNITY_INITIATIVE, Attributes, Combatant, InitiativeSlot, initiative_order


def _combatant(ctx: Context, name: str) -> tuple[Combatant, bool]:
    """The combatant for ``name`` and whether VEL/AGI were missing (the default 5 is used)."""
    character = ctx.room.find_character(name)
    combat = ctx.room.combat
    bonus = OPPORTUNITY_INITIATIVE if combat is not None and name in SombraState.of(combat).watching else 0
    if character is not None and table_of(character) == "barco":
        return Combatant.boat(name, bonus), False
    vel = sheet_int(character, "vel") if character else None
    agi = sheet_int(character, "agi") if character else None
    default = Attributes()
    return Combatant(name, default.vel if vel is None else vel, default.agi if agi is None else agi, bonus), \
        vel is None or agi is None


def _slots(ctx: Context, names: list[str]) -> list[InitiativeSlot]:
    """The initiative places of ``names`` by VEL, then AGI (full ties keep the order given)."""
    return initiative_order(_combatant(ctx, name)[0] for name in names)


class SombraCombat(CombatRules):
    """Initiative by VEL then AGI (ties flagged), stun counted in the victim's turns,
    sinking boats losing flotation each round, wounds and flotation on the status board."""


    def initiative(self, ctx: Context, combat: Combat) -> None:
        entries = [_combatant(ctx, name) for name in combat.order]
        slots = initiative_order(c for c, _ in entries)
        combat.order = [s.combatant.name for s in slots]
        state = SombraState.of(combat)
        state.ties = [s.combatant.name for s in slots if s.tied]
        state.by_initiative = True
        ctx.announce("sombra/table_initiative", roll=SombraInitiative(slots),
                     defaults=[c.name for c, missing in entries if missing])

    def new_round(self, ctx: Context, combat: Combat) -> None:
        _count_thresholds(ctx, combat)
        state = SombraState.of(combat)
        if state.by_initiative:
            slots = _slots(ctx, combat.order)
            combat.order = [s.combatant.name for s in slots]
            state.ties = [s.combatant.name for s in slots if s.tied]
        for name in combat.order:
            character = ctx.room.find_character(name)
            if character is None or table_of(character) != "barco" or sheet_int(character, "flotabilidad") is None:
                continue
            before = boat_state(character)
            after = sinking_round(before)
            if after != before:
                store_boat(character, after)
                ctx.announce("sombra/table_sinking", name=name, lost=before.flotation - after.flotation,
                             state=after)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        state = SombraState.of(combat)
        stun = state.stun_counts()
        previous = state.last_turn
        fresh = state.stun_fresh
        if previous in fresh:
            fresh.remove(previous)
        elif previous in stun:
            stun[previous] -= 1
            if stun[previous] <= 0:
                del stun[previous]
        held = state.manoeuvre(previous) if previous is not None else None
        if held and held["kind"] != HELD:
            if held["fresh"]:
                held["fresh"] = False
            else:
                state.end_manoeuvre(str(previous))
        state.last_turn = actor.name
        if actor.name in stun or wound_effect(actor).fallen:
            ctx.announce("sombra/table_turn", name=actor.name, stun=stun.get(actor.name, 0))

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return [ctx.renderer.text("sombra/table_condition", l=label) for label in status_labels(ctx, combat, actor)]

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """Placed by VEL, then AGI, among those still to act; in an order set by hand, last."""
        names = [*combat.order, character.name]
        state = SombraState.of(combat)
        if not state.by_initiative:
            rounds.place_late(combat, character.name, names)
            return None
        slots = _slots(ctx, names)
        rounds.place_late(combat, character.name, [s.combatant.name for s in slots])
        state.ties = [s.combatant.name for s in slots if s.tied]
        if ctx.sheet_is_gms(character):
            return None
        mine, missing = _combatant(ctx, character.name)
        return ctx.renderer.text("sombra/table_join", c=mine, defaulted=missing)

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """Who is held and may struggle (``!forcejeo``), and who counts down a death threshold until
        healed (``!curar``), with the rounds left."""
        state = SombraState.of(combat)
        held = [Pending("held", name, "forcejeo", target=mark["by"])
                for name, mark in state.manoeuvres().items() if mark["kind"] == HELD]
        dying = [Pending("threshold", name, "curar", amount=left) for name, left in state.thresholds.items()]
        return held + dying

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        state = SombraState.of(combat)
        state.ties = [n for n in state.ties if n != name]
        state.end_stun(name)
        state.end_manoeuvre(name)
        state.end_threshold(name)

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """The rules give people no death threshold: the GM marks the dead (``!ficha NOMBRE muerto 1``)."""
        if sheet_int(character, DEAD):
            return "dead"
        return "up" if wound_effect(character).can_act else "down"


def _count_thresholds(ctx: Context, combat: Combat) -> None:
    """Each new round, one round of the death threshold (VIT) of who is down from a serious wound;
    at 0 they die. Whoever can act again (healed) stops counting."""
    counts = SombraState.of(combat).thresholds
    for name in list(counts):
        character = ctx.room.find_character(name)
        if character is None or wound_effect(character).can_act or sheet_int(character, DEAD):
            del counts[name]
            continue
        counts[name] -= 1
        if counts[name] <= 0:
            del counts[name]
            character.sheet[DEAD] = 1
        ctx.announce("sombra/table_threshold", name=name, left=counts.get(name, 0))


def status_labels(ctx: Context, combat: Combat | None, actor: Character) -> list[dict[str, Any]]:
    fight = SombraState.of(combat) if combat else None
    labels: list[dict[str, Any]] = []
    if fight and actor.name in fight.ties:
        labels.append({"kind": "tie"})
    stun = fight.stunned(actor.name) if fight else 0
    if stun:
        labels.append({"kind": "stunned", "turns": stun})
    thresholds = fight.thresholds if fight else {}
    if actor.name in thresholds:
        # The rounds left are VIT counted down: an NPC's stay the GMs' (the round's notice tells them).
        labels.append({"kind": "threshold", "rounds": thresholds[actor.name], "secret": ctx.sheet_is_gms(actor)})
    held = fight.manoeuvre(actor.name) if fight else None
    if held:
        labels.append({"kind": "state", "state": held["kind"], "by": held.get("by")})
    labels += [{"kind": "wound", "location": loc, **w} for loc, w in sorted(wounds_of(actor).items())]
    effect = wound_effect(actor)
    for flag in ("unconscious", "helpless", "fallen", "half_movement"):
        if getattr(effect, flag):
            labels.append({"kind": flag, "hours": effect.unconscious_hours})
    labels += [{"kind": "arm_useless", "arm": arm} for arm in sorted(effect.useless_arms)]
    labels += [{"kind": flag} for flag in (JAMMED, CAPSIZED) if sheet_int(actor, flag)]
    if sheet_int(actor, ENGINE) == 0:
        labels.append({"kind": "adrift"})
    if effect.penalty:
        labels.append({"kind": "penalty", "value": effect.penalty})
    if table_of(actor) == "barco" and sheet_int(actor, "flotabilidad") is not None:
        state = boat_state(actor)
        labels.append({"kind": "boat", "flotation": state.flotation, "sinking": state.sinking, "sunk": state.sunk})
    return labels
