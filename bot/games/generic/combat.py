"""The generic game's combat hooks: initiative 1d20 + the sheet's ``iniciativa``, highest first; no conditions."""

from __future__ import annotations

from typing import Any

from bot.core.api import Character, Combat, CombatRules, Context, Vitality, place_late
from bot.games.generic.state import GenericState, InitiativeRoll
from systems.dice import parse


class GenericCombat(CombatRules):
    """Initiative 1d20 + the sheet's ``iniciativa``, highest first; no conditions."""

    def initiative(self, ctx: Context, combat: Combat) -> None:
        rolls = [_roll(ctx, name) for name in combat.order]
        rolls.sort(key=_rank)
        combat.order = [name for _, _, name in rolls]
        GenericState.of(combat).rolls = rolls
        ctx.announce("generic/initiative", rolls=rolls)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        return None

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        return None

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return []

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        return "up"

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """1d20 + ``iniciativa`` rolled now, placed among the rolls already made (with no rolls, the
        order was set by hand: last)."""
        state = GenericState.of(combat)
        made = state.rolls
        if made is None:
            place_late(combat, character.name, [*combat.order, character.name])
            return None
        roll = _roll(ctx, character.name)
        rolls = sorted([*made, roll], key=_rank)
        state.rolls = rolls
        place_late(combat, character.name, [name for _, _, name in rolls])
        return None if ctx.sheet_is_gms(character) else ctx.renderer.text("generic/join", total=roll[0])

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        state = GenericState.of(combat)
        made = state.rolls
        if made is not None:
            state.rolls = [r for r in made if r[2] != name]


def _roll(ctx: Context, name: str) -> InitiativeRoll:
    """(total, bonus, name): 1d20 plus the sheet's ``iniciativa``."""
    character = ctx.room.find_character(name)
    bonus = int(character.sheet.get("iniciativa", 0)) if character else 0
    return parse("1d20").roll(ctx.rng).total + bonus, bonus, name


def _rank(roll: tuple[Any, ...]) -> tuple[int, int]:
    """Highest total first, then highest bonus."""
    return -roll[0], -roll[1]
