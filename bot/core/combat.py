"""Combat rounds: the part every system shares, and the hooks each system fills in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bot.core.context import Context
from bot.core.state import Character, Combat, name_key
from systems.dice import parse


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
    ctx.room.clear_grants()
    announce_turn(ctx, combat)


def advance(ctx: Context, combat: Combat) -> None:
    """The next turn; out-of-turn permissions last until the turn changes."""
    ctx.room.clear_grants()
    combat.turn += 1
    if combat.turn >= len(combat.order):
        combat.round += 1
        combat.turn = 0
        rules_for(ctx).new_round(ctx, combat)
        ctx.announce("new_round", round=combat.round, order=list(combat.order))
    announce_turn(ctx, combat)


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
