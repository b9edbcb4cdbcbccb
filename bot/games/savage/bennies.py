"""Savage bennies by the published rule (the house rules are silent): a player's Wild Card starts each
session with 3; the GM has a pool of one benny per player character, set at each new session, for the
NPC Wild Cards that have none left."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core.api import Character, Context
from bot.games.savage.sheet import is_wild_card, savage_of
from systems.savage.state import SavageCharacter

SESSION_BENNIES = 3
GAME_KEY = "savage"
POOL_KEY = "gm_bennies"


def new_character(character: Character) -> None:
    """A player's new Wild Card has its session's 3 bennies (``Game.new_character``)."""
    if is_wild_card(character) and "bennies" not in character.sheet:
        character.sheet["bennies"] = SESSION_BENNIES


def players_wild_cards(ctx: Context) -> list[Character]:
    return [c for c in ctx.room.characters.values() if c.owner and not ctx.sheet_is_gms(c) and is_wild_card(c)]


def session_start(ctx: Context) -> None:
    """A new session (``Game.session_start``): every player's Wild Card back to 3 bennies, the GM's pool
    to one per player character."""
    players = players_wild_cards(ctx)
    for character in players:
        character.sheet["bennies"] = SESSION_BENNIES
    set_pool(ctx, len(players))
    ctx.reply("savage/table_bennies", rows=[], name=None, change="session", bennies=SESSION_BENNIES,
              pool=len(players), names=[c.name for c in players])


def pool(ctx: Context) -> int:
    try:
        return max(0, int(ctx.room.game_data.get(GAME_KEY, {}).get(POOL_KEY, 0)))
    except (TypeError, ValueError):
        return 0


def screen_notes(ctx: Context) -> dict[str, Any]:
    """What the GM's screen shows of the bennies (``Game.screen_notes``): the GM's pool, as ``!beni master``."""
    return {"pool": pool(ctx)}


def set_pool(ctx: Context, count: int) -> None:
    ctx.room.game_data[GAME_KEY] = {**ctx.room.game_data.get(GAME_KEY, {}), POOL_KEY: max(0, count)}


def can_borrow(ctx: Context, character: Character) -> bool:
    """An NPC Wild Card of the GMs with no bennies of its own may use the GM's pool."""
    return ctx.sheet_is_gms(character) and is_wild_card(character) and pool(ctx) > 0


def with_pool(ctx: Context, character: Character, savage: SavageCharacter) -> SavageCharacter:
    """``savage`` with one benny to spend: when it has none of its own and may use the GM's pool, the
    pool pays it (one less there)."""
    if savage.bennies > 0 or not can_borrow(ctx, character):
        return savage
    set_pool(ctx, pool(ctx) - 1)
    return replace(savage, bennies=1)


def bennies_or_pool(ctx: Context, character: Character) -> int:
    """The bennies the character may spend now: its own, or the GM's pool for an NPC Wild Card."""
    own = savage_of(character).bennies
    return own or (pool(ctx) if can_borrow(ctx, character) else 0)
