"""Combat rounds: the part every system shares, and the hooks each system fills in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bot.core.context import Context
from bot.core.state import Character, Combat, name_key
from systems.dice import parse

Vitality = Literal["up", "down", "dead"]
"""``up`` acts; ``down`` (dying, incapacitated, unconscious...) makes only the rolls its state requires,
which its system rolls for it; ``dead`` leaves the turn order."""


class CombatRules(Protocol):
    """A system's combat hooks. Each mutates ``combat.data`` (its own JSON-able state)."""

    sheet_fields: dict[str, type]

    def initiative(self, ctx: Context, combat: Combat) -> None:
        """Order ``combat.order`` by the system's initiative and announce it."""
        ...

    def new_round(self, ctx: Context, combat: Combat) -> None:
        """Between rounds (re-deal cards, reset per-round counters)."""
        ...

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        """At the start of ``actor``'s turn (conditions that tick)."""
        ...

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        """Short condition labels for the status board."""
        ...

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """Whether ``character`` can act, is down, or is dead, from its sheet."""
        ...


@dataclass
class GenericCombat:
    """Initiative 1d20 + the sheet's ``iniciativa``, highest first; no conditions."""

    sheet_fields: dict[str, type]

    def initiative(self, ctx: Context, combat: Combat) -> None:
        rolls = []
        for name in combat.order:
            character = ctx.room.find_character(name)
            bonus = int(character.sheet.get("iniciativa", 0)) if character else 0
            rolls.append((parse("1d20").roll(ctx.rng).total + bonus, bonus, name))
        rolls.sort(key=lambda r: (-r[0], -r[1]))
        combat.order = [name for _, _, name in rolls]
        ctx.announce("initiative_generic", rolls=rolls)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        return None

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        return None

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return []

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        return "up"


COMBAT_RULES: dict[str, CombatRules] = {"generic": GenericCombat({"iniciativa": int})}


def rules_for(ctx: Context) -> CombatRules:
    return COMBAT_RULES.get(ctx.system_key, COMBAT_RULES["generic"])


def ensure_character(ctx: Context, name: str) -> Character:
    """A known character, or a new non-player character run by the GM."""
    character = ctx.room.find_character(name)
    if character is None:
        character = Character(name, npc=True)
        ctx.room.characters[name_key(name)] = character
    return character


def announce_turn(ctx: Context, combat: Combat) -> None:
    actor = ctx.room.find_character(combat.current or "")
    if actor is None:
        return
    combat.warned.clear()
    rules_for(ctx).turn_start(ctx, combat, actor)
    mentions = (actor.owner,) if actor.owner else ()
    ctx.announce("turn_start", mentions=mentions, round=combat.round, actor=actor.name, owner=actor.owner)


def start_rounds(ctx: Context, combat: Combat) -> None:
    combat.round, combat.turn = 1, 0
    ctx.room.granted.clear()
    drop_dead(ctx, combat)
    announce_turn(ctx, combat)


def advance(ctx: Context, combat: Combat) -> None:
    """The next turn; out-of-turn permissions last until the turn changes."""
    ctx.room.granted.clear()
    combat.turn += 1
    _begin_turn(ctx, combat)


def _begin_turn(ctx: Context, combat: Combat) -> None:
    """Start the turn ``combat.turn`` points at, or a new round past the end of the order."""
    if combat.turn >= len(combat.order):
        combat.round += 1
        combat.turn = 0
        rules_for(ctx).new_round(ctx, combat)
        drop_dead(ctx, combat)
        ctx.announce("new_round", round=combat.round, order=list(combat.order))
    announce_turn(ctx, combat)


def drop_dead(ctx: Context, combat: Combat) -> bool:
    """The dead leave the turn order, each with a notice; True when the actor of the turn left."""
    rules = rules_for(ctx)
    actor_left = False
    for name in list(combat.order):
        character = ctx.room.find_character(name)
        if character is None or rules.vitality(ctx, character) != "dead":
            continue
        position = combat.order.index(name)
        actor_left = actor_left or (combat.started and position == combat.turn)
        del combat.order[position]
        if position < combat.turn:
            combat.turn -= 1
        ctx.announce("combatant_dead", name=name)
    return actor_left


def sweep_dead(ctx: Context) -> None:
    """After a command: whoever died leaves the order; if it was their turn, the next one starts."""
    combat = ctx.room.combat
    if combat is None or not combat.order:
        return
    if drop_dead(ctx, combat) and combat.order:
        ctx.room.granted.clear()
        _begin_turn(ctx, combat)


def refuse_if_down(ctx: Context, character: Character | None) -> bool:
    """True (with a notice) when ``character`` is down or dead: no in-character roll by or for them.

    Whatever their state requires (a dying save, a bleeding-out Vigor roll) their system rolls for them."""
    if character is None:
        return False
    vitality = rules_for(ctx).vitality(ctx, character)
    if vitality == "up":
        return False
    ctx.reply("character_down", name=character.name, dead=vitality == "dead",
              conditions=rules_for(ctx).conditions(ctx, ctx.room.combat, character) if ctx.room.combat else [])
    return True


def board(ctx: Context, combat: Combat) -> list[dict[str, Any]]:
    rules = rules_for(ctx)
    rows = []
    for i, name in enumerate(combat.order):
        character = ctx.room.find_character(name)
        rows.append({
            "name": name,
            "current": combat.started and i == combat.turn,
            "owner": character.owner if character else None,
            "conditions": rules.conditions(ctx, combat, character) if character else [],
        })
    return rows
