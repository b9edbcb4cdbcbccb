"""Combat rounds: the part every game shares; each game fills in the hooks of ``CombatRules``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core import moderation, replies
from bot.core.context import Context
from bot.core.events import Send
from bot.core.state import Character, Combat, name_key
from systems.refusal import Refusal

MAX_COMBATANTS = 40


def ensure_character(ctx: Context, name: str) -> Character:
    """A known character, or a new non-player character run by the GM."""
    character = ctx.room.find_character(name)
    if character is None:
        character = Character(name, npc=True)
        ctx.room.characters[name_key(name)] = character
    return character


def first_time(ctx: Context, what: str) -> bool:
    """Whether the table reads the explanation ``what`` (a key the caller picks: ``joker``, ``shaken``)
    for the first time in this fight: True once per combat, then False (noted in the combat's state, so
    ``!deshacer`` and a restart agree with what was said); always True out of combat. A refused
    command's note is rolled back with the rest of it."""
    combat = ctx.room.combat
    if combat is None:
        return True
    if what in combat.explained:
        return False
    combat.explained.append(what)
    return True


def explainer(ctx: Context) -> Callable[[str], bool]:
    """``first_time`` for one message's template, as its ``first(KEY)``: each key is asked of the fight
    once, and the answer kept, so the room's view and the GMs' view of the message (rendered one after
    the other) say the same."""
    answers: dict[str, bool] = {}

    def first(what: str) -> bool:
        if what not in answers:
            answers[what] = first_time(ctx, what)
        return answers[what]

    return first


def turn_key(ctx: Context, name: str) -> str:
    """Combatants with the same key, side by side in the order, share one turn (``Game.turn_group``)."""
    character = ctx.room.find_character(name)
    group = ctx.game.turn_group
    return group(character) if group is not None and character is not None else name_key(name)


def can_act(ctx: Context, name: str) -> bool:
    """Whether the combatant ``name`` gets a turn: a character who cannot act (down or dead) gets none."""
    character = ctx.room.find_character(name)
    return character is None or ctx.game.combat.vitality(ctx, character) == "up"


def turn_members(ctx: Context, combat: Combat) -> list[Character]:
    """Who acts on the current turn: its actor and, beside it, whoever shares its turn and can act."""
    if combat.current is None:
        return []
    key, members = turn_key(ctx, combat.current), []
    for name in combat.order[combat.turn:]:
        if turn_key(ctx, name) != key:
            break
        character = ctx.room.find_character(name)
        if character is not None and can_act(ctx, name):
            members.append(character)
    return members


def gather_groups(ctx: Context, combat: Combat) -> None:
    """Whoever shares a turn moves next to the first of them in the order (``!turnos`` listing a group's
    members apart); nobody else moves."""
    keys = [turn_key(ctx, n) for n in combat.order]
    first = {key: keys.index(key) for key in keys}
    ranked = sorted(range(len(combat.order)), key=lambda i: (first[keys[i]], i))
    combat.order = [combat.order[i] for i in ranked]


def announce_turn(ctx: Context, combat: Combat, skipped: list[str] | None = None, round_said: bool = False,
                  first: bool = False) -> None:
    """The turn starts for each of its members (the game's hook), said in one line; ``skipped`` are
    those just passed over because they cannot act; ``round_said``: the line just before named the round;
    ``first``: the round's first turn.
    A turn that passes to GM-run combatants only, with nothing else to say (no new round, no other line
    of this event in the room), is a ✅ on the command (issue 30: the GM runs it, and the tracker,
    ``!estado`` and the screen show whose turn it is); so is a turn of a stage whose order the round's
    message named with its players (``turns_listed``: Stormbringer's declarations). Whoever it passed
    over (down or dead: the room read it when they fell) does not make it a message of its own; the
    GMs' view keeps them. Any other player's turn is one line that mentions them."""
    members = turn_members(ctx, combat)
    if not members:
        return
    actor = members[0]
    combat.warned.clear()
    for member in members:
        ctx.game.combat.turn_start(ctx, combat, member)
    owners = tuple(dict.fromkeys(m.owner for m in members if m.owner))
    explain = len(members) > 1 and first_time(ctx, "group_turn")
    context: dict[str, Any] = {"round": combat.round, "actor": actor.name, "owner": actor.owner,
                               "members": [m.name for m in members], "skipped": skipped or [], "explain": explain}
    listed = not first and ctx.game.combat.turns_listed(ctx, combat)
    quiet = listed or _gms_members(ctx, members)
    if quiet and not (first or round_said or explain or _room_heard(ctx)) and ctx.event.in_room:
        replies.note_said(ctx, "turn_start", **context)
        moderation.react(ctx, "done_key")
        return
    ctx.announce("turn_start", mentions=owners, **context)


def _gms_members(ctx: Context, members: list[Character]) -> bool:
    """Every one of ``members`` is the GMs' to play (an NPC, a GM's own character, nobody's)."""
    return all(not member.owner or ctx.sheet_is_gms(member) for member in members)


def gms_turn(ctx: Context) -> bool:
    """The combat's current turn is one the GM runs: its actor and whoever shares it are all the GMs'."""
    combat = ctx.room.combat
    members = turn_members(ctx, combat) if combat is not None and combat.started else []
    return bool(members) and _gms_members(ctx, members)


def _room_heard(ctx: Context) -> bool:
    """Whether the event already queued a message for the room (a recovery roll, the end of the last
    turn...): the next turn's line then joins that message instead of being a ✅."""
    return any(isinstance(action, Send) and action.private_to is None for action in ctx.work.actions)


def start_rounds(ctx: Context, combat: Combat) -> None:
    """The first order of a combat starts round 1, or round 0 when the game gives a surprise round. An
    order set again mid-combat stays in the round it was in while its first turn runs (the GM fixing
    the order), else starts the next one: the round count (``!combate fin``) and the acta's round
    headings never go back."""
    surprise_round = combat.surprise and combat.round == 0 and combat.turn == 0
    if not surprise_round and (combat.round == 0 or combat.turn > 0):
        combat.round += 1
    combat.turn = 0
    ctx.room.clear_grants()
    gather_groups(ctx, combat)
    drop_dead(ctx, combat)
    _first_turn(ctx, combat)


def advance(ctx: Context, combat: Combat) -> None:
    """The next turn, past the rest of the group whose turn ends; out-of-turn permissions last until
    the turn changes."""
    ctx.room.clear_grants()
    ended = turn_key(ctx, combat.current) if combat.current is not None else None
    combat.turn += 1
    while combat.turn < len(combat.order) and turn_key(ctx, combat.order[combat.turn]) == ended:
        combat.turn += 1
    _begin_turn(ctx, combat)


def end_turn(ctx: Context, combat: Combat) -> None:
    """``!siguiente``: the GM, or a player with a character in the turn, ends it and the next begins."""
    if not ctx.is_gm() and all(member.owner != ctx.sender for member in turn_members(ctx, combat)):
        raise Refusal("not_your_turn_to_end", actor=combat.current)
    if ctx.game.combat.turn_ending(ctx, combat):
        return
    advance(ctx, combat)


def _begin_turn(ctx: Context, combat: Combat) -> None:
    """Start the turn of the first from ``combat.turn`` on who can act, or a new round past the end of
    the order."""
    skipped = _pass_unable(ctx, combat)
    if combat.turn < len(combat.order):
        announce_turn(ctx, combat, skipped)
        return
    combat.round += 1
    combat.turn = 0
    combat.surprise = False
    ctx.game.combat.new_round(ctx, combat)
    drop_dead(ctx, combat)
    owners = _listed_owners(ctx, combat)
    ctx.announce("new_round", mentions=tuple(dict.fromkeys(owners.values())), round=combat.round,
                 order=list(combat.order), owners=owners)
    _first_turn(ctx, combat, [n for n in skipped if position_of(combat, n) is not None], round_said=True)


def _listed_owners(ctx: Context, combat: Combat) -> dict[str, str]:
    """The players of the order's combatants, named in the round's message when its turns will pass as
    ✅ (``turns_listed``): the one time the round mentions them; else none."""
    if not ctx.game.combat.turns_listed(ctx, combat):
        return {}
    characters = (ctx.room.find_character(name) for name in combat.order)
    return {c.name: c.owner for c in characters if c is not None and c.owner and not ctx.sheet_is_gms(c)}


def _first_turn(ctx: Context, combat: Combat, skipped: list[str] | None = None, round_said: bool = False) -> None:
    """The round's first turn (its line also names ``skipped``, passed over at the end of the last
    round); when nobody in the order can act, the turn rests on the first and the GM hears so (the
    next ``!siguiente`` plays the next round, with the rolls the states require)."""
    passed = _pass_unable(ctx, combat)
    if combat.turn < len(combat.order):
        announce_turn(ctx, combat, list(dict.fromkeys([*(skipped or []), *passed])), round_said, first=True)
        return
    _rest(ctx, combat)


def _rest(ctx: Context, combat: Combat) -> None:
    """Nobody in the order can act: the turn rests on the first until the GM's ``!siguiente``."""
    combat.turn = 0
    combat.warned.clear()
    ctx.announce("nobody_can_act", round=combat.round, order=list(combat.order),
                 explain=first_time(ctx, "nobody_can_act"))


def _pass_unable(ctx: Context, combat: Combat) -> list[str]:
    """Move ``combat.turn`` past whoever cannot act; returns their names."""
    skipped = []
    while combat.turn < len(combat.order) and not can_act(ctx, combat.order[combat.turn]):
        skipped.append(combat.order[combat.turn])
        combat.turn += 1
    return skipped


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
    moderation.acknowledge(ctx, "combat_left", name=name)
    if was_current and combat.order:
        ctx.room.clear_grants()
        _begin_turn(ctx, combat)


def acting(ctx: Context) -> tuple[int, int] | None:
    """The turn now (round, turn) if someone acts on it (taken before a command, for ``sweep_dead``)."""
    combat = ctx.room.combat
    if combat is None or not combat.started:
        return None
    if not turn_members(ctx, combat) and not ctx.game.combat.holds_turn(ctx, combat):
        return None
    return combat.round, combat.turn


def sweep_dead(ctx: Context, acted: tuple[int, int] | None) -> None:
    """After a command: whoever died leaves the order; if it was their turn, or nobody of the turn
    ``acted`` (the one someone acted on before the command, if the command left it) can act any more,
    the next one starts, unless the game waits for an answer first (``holds_turn``: a soak still open)."""
    combat = ctx.room.combat
    if combat is None or not combat.order:
        return
    fallen = acted == (combat.round, combat.turn) and not turn_members(ctx, combat)
    actor_left = drop_dead(ctx, combat)
    if not combat.order:
        return
    if (actor_left or fallen) and not ctx.game.combat.holds_turn(ctx, combat):
        ctx.room.granted.clear()
        if any(can_act(ctx, name) for name in combat.order):
            _begin_turn(ctx, combat)
        else:
            _rest(ctx, combat)


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
    acting = {name_key(c.name) for c in turn_members(ctx, combat)}
    rows = []
    for name in combat.order:
        character = ctx.room.find_character(name)
        rows.append({
            "name": name,
            "current": name_key(name) in acting,
            "owner": character.owner if character else None,
            "conditions": rules.conditions(ctx, combat, character) if character else [],
        })
    return rows

