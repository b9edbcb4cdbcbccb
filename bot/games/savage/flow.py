"""Savage table mechanics shared by the combat hooks and the commands: rolls, deals, turn moves.

Every rule judgement goes through ``systems.savage.resolver*``; this module only builds the roll
texts from the sheets and moves names around ``combat.order``.
"""

from __future__ import annotations

from typing import Any

from bot.core.api import Character, Combat, Context, announce_turn, first_time, name_key
from bot.games.savage.bennies import bennies_or_pool
from bot.games.savage.sheet import edges_of, group_of, nerves_of, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat, turn_key
from systems.refusal import Refusal
from systems.savage.state import SavageCharacter, apply_incapacitation

DEFAULT_VIGOR = "d4"


def refuse(code: str, **params: object) -> Refusal:
    """A bad argument of the savage table's commands (``templates/savage/table_error.txt``)."""
    return Refusal("savage/table_error", code=code, **params)


def trait_roll(ctx: Context, verb: str, die: str, savage: SavageCharacter, joker: bool, extra: str = "", *,
               nerves: int) -> Any:
    """A trait roll of ``savage`` through the resolver, with its wounds (less the ``nerves`` Nervios de
    acero ignores, as in ``!tiro``), fatigue and joker."""
    wounds = max(0, savage.wounds - nerves)
    words = [verb, die, "" if savage.wild_card else "extra"]
    words += [f"heridas {wounds}" if wounds else "", f"fatiga {savage.fatigue}" if savage.fatigue else ""]
    words += ["comodin" if joker else "", extra]
    return ctx.system.roll(" ".join(w for w in words if w), ctx.rng)


def has_joker(ctx: Context, character: Character) -> bool:
    combat = ctx.room.combat
    if combat is None:
        return False
    card = SavageCombat.of(combat).card_of(character)
    return card is not None and card.joker


def _this_turn(combat: Combat) -> list[Any]:
    return [combat.round, name_key(combat.current or "")]


def recovery_rolled(ctx: Context, character: Character) -> bool:
    """Whether the character already made this turn's Spirit roll to end Shaken (000: one, «Al comenzar
    su turno»); out of combat there is no turn to count."""
    combat = ctx.room.combat
    if combat is None or not combat.started:
        return False
    return SavageCombat.of(combat).recovered.get(name_key(character.name)) == _this_turn(combat)


def mark_recovery(ctx: Context, character: Character) -> None:
    combat = ctx.room.combat
    if combat is None or not combat.started:
        return
    state = SavageCombat.of(combat)
    state.recovered[name_key(character.name)] = _this_turn(combat)
    state.save(combat)


def vigor_of(character: Character) -> tuple[str, bool]:
    """The sheet's Vigor die, or the default d4 (True when defaulted)."""
    die = sheet_die(character, "vigor")
    return (die, False) if die else (DEFAULT_VIGOR, True)


def roll_incapacitation(ctx: Context, character: Character, savage: SavageCharacter) -> tuple[SavageCharacter, dict[str, Any]]:
    """The Vigor roll of a Wild Card just incapacitated; announces it and returns the new state."""
    die, defaulted = vigor_of(character)
    roll = trait_roll(ctx, "incapacitado", die, savage, has_joker(ctx, character), nerves=nerves_of(character))
    ctx.announce("savage/table_vigor", name=character.name, roll=roll, defaulted=defaulted)
    result = roll.result
    report = {"dies": result.dies, "injury": result.injury, "bleeding": result.bleeding, "table": result.table}
    return apply_incapacitation(savage, result), report


def incapacitation_due(ctx: Context, hit: dict[str, Any]) -> None:
    """The Vigor roll a hit's soak held back, once the chance to soak it has passed: only if the hero
    is still incapacitated by it (000: «debiendo hacer una tirada de Vigor inmediatamente»)."""
    character = ctx.room.find_character(str(hit.get("name", "")))
    if not hit.get("incap_due") or character is None:
        return
    hit["incap_due"] = False
    savage = savage_of(character)
    if savage.incapacitated and not savage.dead:
        after, _ = roll_incapacitation(ctx, character, savage)
        store(character, after)


def close_soak(ctx: Context, state: SavageCombat, name: str | None = None) -> None:
    """The chance to soak a hit is over (answered ``no``, the GM's second ``!siguiente``, the round's
    end): ``name``'s hit, or every one. Only then comes the Vigor roll the soak held back."""
    keys = [name_key(name)] if name is not None else list(state.hits)
    for key in keys:
        hit = state.hits.pop(key, None)
        if hit is not None:
            incapacitation_due(ctx, hit)
    state.soak_warned = bool(state.hits) and state.soak_warned


def reroll_open(ctx: Context, hit: dict[str, Any]) -> bool:
    """A partial soak a benny may still reroll (000: «emplear un segundo beni en repetir la tirada de
    Vigor»): open until the victim's next damage, the next turn or ``!absorber NOMBRE no``."""
    character = ctx.room.find_character(str(hit.get("name", "")))
    wounds = int(hit["effect"][2])
    return (bool(hit.get("soaked")) and character is not None and int(hit.get("best", 0)) < wounds
            and bennies_or_pool(ctx, character) > 0)


def open_soaks(ctx: Context, state: SavageCombat) -> list[str]:
    """Who may still soak a hit now and has not answered (``!absorber`` or ``!absorber no``)."""
    return [str(hit["name"]) for hit in state.hits.values() if not hit.get("soaked")]


def close_rerolls(ctx: Context, state: SavageCombat, name: str | None = None) -> None:
    """The chance to reroll the answered soaks (``name``'s, or every one) is over."""
    answered = [k for k, hit in state.hits.items() if hit.get("soaked")]
    for key in answered:
        if name is None or key == name_key(name):
            close_soak(ctx, state, str(state.hits[key]["name"]))


def soak_state(ctx: Context, character: Character) -> str | None:
    """``open`` while the character may still soak its last hit and has not answered, ``reroll`` while a
    benny may reroll its soak, else None."""
    combat = ctx.room.combat
    hit = SavageCombat.of(combat).hits.get(name_key(character.name)) if combat else None
    if hit is None:
        return None
    if not hit.get("soaked"):
        return "open"
    return "reroll" if reroll_open(ctx, hit) else None


def roster(ctx: Context, state: SavageCombat) -> list[Character]:
    found = (ctx.room.find_character(n) for n in state.roster)
    return [c for c in found if c is not None]


def deal(ctx: Context, combat: Combat, state: SavageCombat, first: bool) -> None:
    """Deal the action cards of a round and order ``combat.order`` by them."""
    lost = {name_key(n) for n in state.surprise.get("lose_first_round", [])} if first else set()
    everyone = roster(ctx, state)
    acting = [c for c in everyone if savage_of(c).can_act and name_key(c.name) not in lost]
    held = {group_of(c) for c in acting if state.is_holding(c.name)}
    groups = list(dict.fromkeys(group_of(c) for c in acting if not (first and group_of(c) in held)))
    reshuffled = state.deck.joker_this_round
    edges = {group_of(c): edges_of(c) for c in acting if edges_of(c) != (0, False)}
    state.deck = state.deck.deal(groups, held, ctx.rng, edges)
    index = {name_key(c.name): i for i, c in enumerate(everyone)}
    acting.sort(key=lambda c: turn_key(state, c, index[name_key(c.name)]))
    if acting:
        combat.order = [c.name for c in acting]
    state.started = []
    rows = _deal_rows(state, acting)
    joker = next((row for row in rows if row["card"] is not None and row["card"].joker), None)
    if joker is not None:
        joker["explain"] = first_time(ctx, "joker")
    ctx.announce("savage/table_deal", rows=rows, reshuffled=reshuffled, left=len(state.deck.pile),
                 down=cannot_act(everyone), lost=[c.name for c in everyone if name_key(c.name) in lost])


def cannot_act(characters: list[Character]) -> dict[str, list[str]]:
    """Who of ``characters`` cannot act this round (000: the incapacitated «No pueden realizar acciones y no
    reciben cartas de acción»; an Extra out of the fight is «retirado del juego»), by why; not the dead,
    who have left the fight."""
    down: dict[str, list[str]] = {"incapacitated": [], "out": []}
    for character in characters:
        savage = savage_of(character)
        if not (savage.can_act or savage.dead):
            down["incapacitated" if savage.wild_card else "out"].append(character.name)
    return down


def _deal_rows(state: SavageCombat, acting: list[Character]) -> list[dict[str, Any]]:
    """One row per card dealt: the group sharing it named together, so its card (a joker) is said once."""
    rows: dict[str, dict[str, Any]] = {}
    for character in acting:
        row = rows.setdefault(group_of(character), {"names": [], "card": state.card_of(character), "holding": False})
        row["names"].append(character.name)
        row["holding"] = row["holding"] or state.is_holding(character.name)
    return list(rows.values())


def move_in_order(combat: Combat, name: str, after_current: bool) -> None:
    """Take ``name`` out of the order and put it at the current turn, or right after it."""
    keys = [name_key(n) for n in combat.order]
    if name_key(name) in keys:
        position = keys.index(name_key(name))
        del combat.order[position]
        if position < combat.turn:
            combat.turn -= 1
    combat.order.insert(combat.turn + (1 if after_current else 0), name)


def break_hold(combat: Combat, state: SavageCombat, name: str) -> dict[str, Any]:
    """000: a holder left Shaken «deja de estar en espera y debe actuar inmediatamente tras él»: out of the
    hold and the guard, its turn (which starts with its Spirit roll) right after the current one. What it
    had, for a soak that takes that Shaken away (``keep_hold``)."""
    key = name_key(name)
    held = {"order": list(combat.order), "turn": combat.turn, "watching": key in map(name_key, state.overwatch),
            "started": key in map(name_key, state.started)}
    state.stop_holding(name)
    state.overwatch = [n for n in state.overwatch if name_key(n) != key]
    state.started = [n for n in state.started if name_key(n) != key]
    move_in_order(combat, name, after_current=True)
    return held


def keep_hold(combat: Combat, state: SavageCombat, name: str, held: dict[str, Any]) -> None:
    """A soak took away the Shaken that broke the hold (000: «Si el personaje absorbe todas las heridas
    causadas por el ataque, también elimina el estado de aturdimiento»): not Shaken at the end of the
    action, it holds on as before, in its place (``held``: what ``break_hold`` kept)."""
    state.holding = [*state.holding, name]
    state.overwatch = [*state.overwatch, name] if held["watching"] else state.overwatch
    state.started = [*state.started, name] if held["started"] else state.started
    if sorted(map(name_key, held["order"])) == sorted(map(name_key, combat.order)):
        combat.order, combat.turn = list(held["order"]), int(held["turn"])


def take_turn_now(ctx: Context, combat: Combat, name: str) -> None:
    move_in_order(combat, name, after_current=False)
    announce_turn(ctx, combat)

