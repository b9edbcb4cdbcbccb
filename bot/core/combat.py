"""Combat rounds: the part every game shares; each game fills in the hooks of ``CombatRules``."""

from __future__ import annotations

from typing import Any

from bot.core import acta
from bot.core.context import Context
from bot.core.state import Character, Combat, name_key
from systems.refusal import Refusal


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
    acta.record(ctx, "turn", actor.name, round=combat.round)
    ctx.game.combat.turn_start(ctx, combat, actor)
    mentions = (actor.owner,) if actor.owner else ()
    ctx.announce("turn_start", mentions=mentions, round=combat.round, actor=actor.name, owner=actor.owner)


def start_rounds(ctx: Context, combat: Combat) -> None:
    combat.round, combat.turn = 0 if combat.surprise else 1, 0
    ctx.room.clear_grants()
    acta.record(ctx, "round", round=combat.round)
    drop_dead(ctx, combat)
    announce_turn(ctx, combat)


def advance(ctx: Context, combat: Combat) -> None:
    """The next turn; out-of-turn permissions last until the turn changes."""
    ctx.room.clear_grants()
    combat.turn += 1
    _begin_turn(ctx, combat)


def _begin_turn(ctx: Context, combat: Combat) -> None:
    """Start the turn ``combat.turn`` points at, or a new round past the end of the order."""
    if combat.turn >= len(combat.order):
        combat.round += 1
        combat.turn = 0
        combat.surprise = False
        acta.record(ctx, "round", round=combat.round)
        ctx.game.combat.new_round(ctx, combat)
        drop_dead(ctx, combat)
        ctx.announce("new_round", round=combat.round, order=list(combat.order))
    announce_turn(ctx, combat)


def drop_dead(ctx: Context, combat: Combat) -> bool:
    """The dead leave the turn order, each with a notice; True when the actor of the turn left."""
    rules = ctx.game.combat
    actor_left = False
    for name in list(combat.order):
        character = ctx.room.find_character(name)
        if character is None or rules.vitality(ctx, character) != "dead":
            continue
        actor_left = _take_out(combat, combat.order.index(name)) or actor_left
        ctx.announce("combatant_dead", name=name)
    return actor_left


def _take_out(combat: Combat, position: int) -> bool:
    """Remove the combatant at ``position``, keeping the turn on the same actor (or, if it was theirs,
    on the next one); True when it was their turn."""
    current = combat.started and position == combat.turn
    del combat.order[position]
    if position < combat.turn:
        combat.turn -= 1
    return current


def place_late(combat: Combat, name: str, ideal: list[str]) -> None:
    """Put ``name`` in the order among those still to act, before the first who comes after it in
    ``ideal`` (the game's initiative order with ``name`` in it); when its place has passed, right
    after the current turn. Nobody else moves."""
    rank = {name_key(n): i for i, n in enumerate(ideal)}
    mine = rank[name_key(name)]
    later = (i for i in range(combat.turn + 1, len(combat.order))
             if rank.get(name_key(combat.order[i]), len(ideal)) > mine)
    combat.order.insert(next(later, len(combat.order)), name)


def position_of(combat: Combat, name: str) -> int | None:
    """Where ``name`` is in the order (case- and accent-insensitive), or None."""
    keys = [name_key(n) for n in combat.order]
    return keys.index(name_key(name)) if name_key(name) in keys else None


def leave(ctx: Context, combat: Combat, position: int) -> None:
    """The combatant at ``position`` leaves the order (not the room); on their own turn the next
    one starts (a new round past the end)."""
    name = combat.order[position]
    was_current = _take_out(combat, position)
    ctx.game.combat.leave(ctx, combat, name)
    ctx.reply("combat_left", name=name)
    if was_current and combat.order:
        ctx.room.clear_grants()
        _begin_turn(ctx, combat)


def sweep_dead(ctx: Context) -> None:
    """After a command: whoever died leaves the order; if it was their turn, the next one starts."""
    combat = ctx.room.combat
    if combat is None or not combat.order:
        return
    if drop_dead(ctx, combat) and combat.order:
        ctx.room.granted.clear()
        _begin_turn(ctx, combat)


def require_up(ctx: Context, character: Character | None) -> None:
    """Refuse any in-character roll by or for a ``character`` who is down or dead.

    Whatever their state requires (a dying save, a bleeding-out Vigor roll) their game rolls for them."""
    if character is None:
        return
    vitality = ctx.game.combat.vitality(ctx, character)
    if vitality != "up":
        raise Refusal("character_down", name=character.name, dead=vitality == "dead",
                      conditions=ctx.game.combat.conditions(ctx, ctx.room.combat, character) if ctx.room.combat else [])


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
