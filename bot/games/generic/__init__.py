"""The generic game: plain dice, initiative 1d20 plus the sheet's ``iniciativa``, no conditions."""

from __future__ import annotations

from importlib.resources import files

from bot.core.context import Context
from bot.core.game import Game, Vitality
from bot.core.state import Character, Combat
from systems.dice import parse
from systems.generic import SYSTEM

__all__ = ["GAME"]


class GenericCombat:
    """Initiative 1d20 + the sheet's ``iniciativa``, highest first; no conditions."""

    def initiative(self, ctx: Context, combat: Combat) -> None:
        rolls = []
        for name in combat.order:
            character = ctx.room.find_character(name)
            bonus = int(character.sheet.get("iniciativa", 0)) if character else 0
            rolls.append((parse("1d20").roll(ctx.rng).total + bonus, bonus, name))
        rolls.sort(key=lambda r: (-r[0], -r[1]))
        combat.order = [name for _, _, name in rolls]
        ctx.announce("generic/initiative", rolls=rolls)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        return None

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        return None

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return []

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        return "up"


GAME = Game("generic", SYSTEM, GenericCombat(), {"iniciativa": int}, templates=files("templates") / "generic")
