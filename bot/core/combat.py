"""Combat rounds: the part every game shares; each game fills in the hooks of ``CombatRules``."""

from __future__ import annotations

from typing import Any

from bot.core.context import Context
from bot.core.state import Character, Combat, name_key


def ensure_character(ctx: Context, name: str) -> Character:
    """A known character, or a new non-player character run by the GM."""
    character = ctx.room.find_character(name)
    if character is None:
        character = Character(name, npc=True, creator=ctx.sender)
        ctx.room.characters[name_key(name)] = character
    return character


def announce_turn(ctx: Context, combat: Combat) -> None:
    actor = ctx.room.find_character(combat.current or "")
    if actor is None:
        return
    combat.warned.clear()
    ctx.game.combat.turn_start(ctx, combat, actor)
    mentions = (actor.owner,) if actor.owner else ()
    ctx.announce("turn_start", mentions=mentions, round=combat.round, actor=actor.name, owner=actor.owner)


def start_rounds(ctx: Context, combat: Combat) -> None:
    combat.round, combat.turn = 1, 0
    ctx.room.granted.clear()
    announce_turn(ctx, combat)


def advance(ctx: Context, combat: Combat) -> None:
    """The next turn; out-of-turn permissions last until the turn changes."""
    ctx.room.granted.clear()
    combat.turn += 1
    if combat.turn >= len(combat.order):
        combat.round += 1
        combat.turn = 0
        ctx.game.combat.new_round(ctx, combat)
        ctx.announce("new_round", round=combat.round, order=list(combat.order))
    announce_turn(ctx, combat)


def board(ctx: Context, combat: Combat) -> list[dict[str, Any]]:
    rules = ctx.game.combat
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
