"""Combat: declaring it, the turn order and initiative, latecomers and leavers, turns, grants, the
state board, and the free exploration turn."""

from __future__ import annotations

import re
from functools import partial

from bot.core import combat as rounds
from bot.core import floor, moderation, tracker
from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, Parsed, Rest
from bot.core.combat import MAX_COMBATANTS
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.room_commands.characters import _require_name, _require_room_for
from bot.core.state import MAX_NAME, Combat, Exploration, clean_name, name_key
from systems.refusal import Refusal

COMMANDS = CommandGroup()
RESTART = Key(vocab.RESTART)
END = Key(vocab.END)


@COMMANDS.takes("combate", "combat", spec=(Opt(END),), gm_only=True, lenient=True)
def combat_command(ctx: Context, got: Parsed) -> None:
    if got.has(END):
        if ctx.room.combat is None:
            raise Refusal("no_combat")
        rounds_played = ctx.room.combat.round
        ctx.room.combat = None
        ctx.room.clear_grants()
        ctx.reply("combat_ended", rounds=rounds_played)
        return
    if ctx.room.combat is not None:
        raise Refusal("combat_running", round=ctx.room.combat.round)
    ctx.room.combat = Combat()
    ctx.room.clear_grants()
    ctx.reply("combat_started", system=ctx.system)
    if ctx.room.lock is not None:
        ctx.whisper(ctx.sender, "combat_during_lock", lock=ctx.room.lock)
    _end_exploration_for_combat(ctx)


def _end_exploration_for_combat(ctx: Context) -> None:
    """A combat ends the free exploration turn: players who had not acted lose their action."""
    exploration = ctx.room.exploration
    if exploration is None:
        return
    ctx.room.exploration = None
    lost = [c.name for c in floor.players(ctx) if c.owner not in exploration.acted]
    ctx.reply("exploration_interrupted", lost=lost)


@COMMANDS.takes("turnos", "turns", spec=(Arg("NOMBRE NOMBRE..."),), gm_only=True)
def turns_command(ctx: Context, got: Parsed) -> None:
    combat = _combat_without_order(ctx)
    names = _combatant_names(ctx, got.text("NOMBRE NOMBRE..."))
    _tell_new_npcs(ctx, combat, _enlist(ctx, combat, names))
    _end_exploration_for_combat(ctx)
    rounds.start_rounds(ctx, combat)


def _combatant_names(ctx: Context, args: str) -> list[str]:
    """Names split by commas, or by spaces with the longest known character names matched first;
    a refusal when the list is unusable (bad or repeated names, over a cap)."""
    args = re.sub(r"[\"«»]", " ", clean_name(args))
    if "," in args:
        names = [clean_name(n) for n in args.split(",") if n.strip()]
    else:
        words, names = args.split(), []
        while words:
            used = ctx.room.leading_character(words)[1] or 1
            names.append(" ".join(words[:used]))
            words = words[used:]
    if len(names) > MAX_COMBATANTS:
        raise Refusal("too_many_combatants", count=len(names), limit=MAX_COMBATANTS)
    for name in names:
        _require_name(name)
    if not names or len({name_key(n) for n in names}) != len(names):
        raise Refusal("bad_turns")
    _require_room_for(ctx, sum(1 for n in names if ctx.room.find_character(n) is None))
    return names


def _enlist(ctx: Context, combat: Combat, names: list[str]) -> list[str]:
    """Set the turn order to ``names``: players' characters stay theirs, unknown names become the
    GM's NPCs. Returns the new NPCs' names."""
    new = [n for n in names if ctx.room.find_character(n) is None]
    combat.order = [rounds.ensure_character(ctx, n).name for n in names]
    return new


def _tell_new_npcs(ctx: Context, combat: Combat, new: list[str]) -> None:
    """The GM hears which names became new NPCs and which stay players' characters, so a
    mistyped player's name never turns silently into an NPC."""
    if new:
        characters = map(ctx.room.find_character, combat.order)
        players = [c for c in characters if c and c.owner and not ctx.is_gm(c.owner)]
        ctx.reply("npcs_enlisted", names=new, players=players)


def _combat_without_order(ctx: Context) -> Combat:
    """The declared combat, refused once it has an order: a whole new order would re-deal everyone
    (and drop whoever was left out), so the GM edits it with ``!entra`` and ``!sale``."""
    combat = ctx.declared_combat()
    if combat.order:
        raise Refusal("combat_has_order", round=combat.round)
    return combat


@COMMANDS.takes("iniciativa", "init", spec=Either((Opt(Arg("NOMBRE...")),), (RESTART, Opt(Arg("NOMBRE...")))),
                gm_only=True)
def initiative_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.declared_combat() if got.has(RESTART) else _combat_without_order(ctx)
    names = _combatant_names(ctx, got.text("NOMBRE...")) if got.text("NOMBRE...") else []
    everyone = ctx.room.character_names()
    if not names and not combat.order and len(everyone) > MAX_COMBATANTS:
        raise Refusal("too_many_combatants", count=len(everyone), limit=MAX_COMBATANTS)
    new = _enlist(ctx, combat, names) if names else []
    if not combat.order:
        combat.order = everyone
    if not combat.order:
        raise Refusal("no_combatants")
    _end_exploration_for_combat(ctx)
    ctx.game.combat.initiative(ctx, combat)
    _tell_new_npcs(ctx, combat, new)
    rounds.start_rounds(ctx, combat)


@COMMANDS.takes("entra", "join", spec=(Arg("NOMBRE [NOMBRE...]"),), gm_only=True)
def join_command(ctx: Context, got: Parsed) -> None:
    """Latecomers take their place by the game's initiative among those still to act this round."""
    combat = _combat_with_order(ctx)
    names = _combatant_names(ctx, got.text("NOMBRE [NOMBRE...]"))
    inside = [p for p in map(partial(rounds.position_of, combat), names) if p is not None]
    if inside:
        raise Refusal("already_in_order", name=combat.order[inside[0]])
    if len(combat.order) + len(names) > MAX_COMBATANTS:
        raise Refusal("too_many_combatants", count=len(combat.order) + len(names), limit=MAX_COMBATANTS)
    new = [n for n in names if ctx.room.find_character(n) is None]
    rows = []
    for name in names:
        character = rounds.ensure_character(ctx, name)
        rows.append({"name": character.name, "initiative": ctx.game.combat.join(ctx, combat, character)})
    ctx.reply("combat_joined", rows=rows, round=combat.round, order=combat.order[combat.turn:])
    if new:
        ctx.reply("npcs_enlisted", names=new, players=[])


@COMMANDS.takes("sale", "leave", spec=(Arg("NOMBRE"),), gm_only=True)
def leave_command(ctx: Context, got: Parsed) -> None:
    combat = _combat_with_order(ctx)
    name = clean_name(got.text("NOMBRE"))
    position = rounds.position_of(combat, name)
    if position is None:
        raise Refusal("not_in_order", name=name[:MAX_NAME], order=combat.order)
    rounds.leave(ctx, combat, position)


def _combat_with_order(ctx: Context) -> Combat:
    """The declared combat once it has an order (``!iniciativa`` or ``!turnos`` gave it one)."""
    combat = ctx.declared_combat()
    if not combat.started:
        raise Refusal("combat_without_order")
    return combat


TIE_ORDER = Rest("NOMBRE antes de NOMBRE")


@COMMANDS.takes("orden", "order", spec=(TIE_ORDER,), gm_only=True)
def tie_order_command(ctx: Context, got: Parsed) -> None:
    """A tie in initiative broken by the GM: ``!orden Kira antes de Voss`` moves Kira right before Voss,
    only between combatants that tied and have not acted yet this round."""
    combat = _combat_with_order(ctx)
    first, second = _tie_pair(ctx, combat, got.text(TIE_ORDER.shown))
    ties = ctx.game.combat.ties(ctx, combat)
    if not any(first in group and second in group for group in ties):
        raise Refusal("order_not_tied", first=first, second=second, ties=ties)
    if min(combat.order.index(first), combat.order.index(second)) < combat.turn:
        raise Refusal("order_already_acted", first=first, second=second)
    current = combat.current
    combat.order.remove(first)
    combat.order.insert(combat.order.index(second), first)
    ctx.game.combat.settle_tie(ctx, combat, first)
    ctx.reply("order_set", first=first, second=second, turn=combat.current if combat.current != current else None,
              ties=ctx.game.combat.ties(ctx, combat))


def _tie_pair(ctx: Context, combat: Combat, text: str) -> tuple[str, str]:
    """The two combatants of ``A antes de B``, as the order names them."""
    words = text.split()
    folded = [name_key(w) for w in words]
    cut = next(((at, len(phrase.split())) for at in range(1, len(words)) for phrase in vocab.BEFORE
                if folded[at:at + len(phrase.split())] == phrase.split()), None)
    if cut is None or cut[0] + cut[1] >= len(words):
        raise ctx.usage("orden")
    names = []
    for part in (words[:cut[0]], words[cut[0] + cut[1]:]):
        name = clean_name(" ".join(part))
        position = rounds.position_of(combat, name)
        if position is None:
            raise Refusal("not_in_order", name=name[:MAX_NAME], order=combat.order)
        names.append(combat.order[position])
    if names[0] == names[1]:
        raise ctx.usage("orden")
    return names[0], names[1]


@COMMANDS.takes("siguiente", "next", spec=(), lenient=True)
def next_command(ctx: Context, got: Parsed) -> None:
    rounds.end_turn(ctx, ctx.running_combat())


@COMMANDS.takes("permite", "allow", spec=(Arg("NOMBRE"),), gm_only=True)
def allow_command(ctx: Context, got: Parsed) -> None:
    name = got.text("NOMBRE")
    character = ctx.room.find_character(name)
    if character is None or character.owner is None:
        raise ctx.unknown_character(name)
    floor.grant(ctx, character.owner)
    moderation.acknowledge(ctx, "roll_granted", name=character.name, owner=character.owner)


@COMMANDS.takes("estado", "status", spec=(), lenient=True)
def status_command(ctx: Context, got: Parsed) -> None:
    """The combat's tracker when the room has one to point to (``bot/core/tracker.py``), else the state."""
    if tracker.point(ctx):
        return
    combat = ctx.room.combat
    ctx.reply("status", combat=combat, rows=rounds.board(ctx, combat) if combat else [],
              lock=ctx.room.lock, system=ctx.system,
              ties=ctx.game.combat.ties(ctx, combat) if combat and combat.started else [])


@COMMANDS.takes("exploracion", "explore", spec=(Opt(END),), gm_only=True, lenient=True)
def exploration_command(ctx: Context, got: Parsed) -> None:
    if got.has(END):
        ctx.room.exploration = None
        ctx.reply("exploration_ended")
        return
    if ctx.room.combat is not None and ctx.room.combat.started:
        raise Refusal("exploration_in_combat")
    if ctx.room.exploration is not None:
        raise Refusal("exploration_running")
    ctx.room.exploration = Exploration()
    ctx.reply("exploration_started", players=floor.players(ctx))
