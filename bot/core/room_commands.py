"""The commands every room has (DESIGN.md 3.3)."""

from __future__ import annotations

import json
import re
import secrets
from functools import partial
from typing import Any

from bot.core import acta, floor, privacy, rolls, sheets, undo
from bot.core import combat as rounds
from bot.core import words_es as vocab
from bot.core.commands import MAX_COMMAND_ARGS, CommandGroup
from bot.core.context import CommandSpec, Context
from bot.core.render import Renderer
from bot.core.replies import ShownRoll, render_send
from bot.core.rulebook import Rulebook
from bot.core.sheets import MACROS
from bot.core.state import (
    ENFORCEMENT_MODES,
    MAX_NAME,
    Character,
    Combat,
    Exploration,
    clean_name,
    has_visible_letter,
    name_key,
)
from systems.refusal import Refusal
from systems.stats import counted_die_stats

COMMANDS = CommandGroup()
MAX_COMBATANTS = 40
MAX_CHARACTERS = 200
"""Characters in one room, NPCs included."""
MAX_CHARACTERS_PER_PLAYER = 5
"""Characters a player (not a GM) may add to a room with ``!pj``."""
_USER_ID = re.compile(r"^@[^\s:]{1,100}:[^\s]{1,200}$")
HISTORY_LENGTH = 10
HELP_LINES = 2
"""Lines of the topics that name a command, shown by ``!ayuda COMANDO``."""
_COUNT = re.compile(r"[x×]([+-]?\d{1,6})", re.IGNORECASE)


def _name_problem(name: str) -> str | None:
    """Why ``name`` (already ``clean_name``d) cannot be a character's name, or None."""
    if not (0 < len(name) <= MAX_NAME and name.isprintable()) or name.startswith(("@", "!", "/")):
        return "shape"
    if not has_visible_letter(name):
        return "no_letter"
    return None


def _require_name(name: str) -> None:
    """Refuse ``name`` (already ``clean_name``d) if it cannot be a character's name."""
    problem = _name_problem(name)
    if problem is not None:
        raise Refusal("bad_name", code=problem, limit=MAX_NAME)


def _require_room_for(ctx: Context, count: int) -> None:
    """Refuse ``count`` more characters when they would break a cap."""
    characters = ctx.room.characters.values()
    if len(characters) + count > MAX_CHARACTERS:
        raise Refusal("too_many_characters", limit=MAX_CHARACTERS)
    own = sum(1 for c in characters if c.creator == ctx.sender)
    if not ctx.is_gm() and own + count > MAX_CHARACTERS_PER_PLAYER:
        raise Refusal("too_many_own_characters", limit=MAX_CHARACTERS_PER_PLAYER)


HELP_TOPIC = "topic_"
"""``!ayuda TEMA``: message kinds ``topic_TEMA`` of the core and ``<game>/topic_TEMA`` of the room's game."""
_COMMAND_MARK = re.compile(r"!([^\W_]+)")


def help_topics(renderer: Renderer, game: str) -> dict[str, str]:
    """The ``!ayuda`` topics of a room playing ``game``: name -> message kind. A game's topic replaces
    the core's of the same name."""
    topics = {kind.removeprefix(HELP_TOPIC): kind for kind in renderer.kinds(HELP_TOPIC)}
    prefix = f"{game}/{HELP_TOPIC}"
    topics.update({kind.removeprefix(prefix): kind for kind in renderer.kinds(prefix)})
    return dict(sorted(topics.items()))


@COMMANDS.command("ayuda", "help", usage="[TEMA|COMANDO]", question=True)
def help_command(ctx: Context, args: str) -> None:
    """The common commands and the topics; one topic; or one command, with what the topics say of it."""
    topics = help_topics(ctx.renderer, ctx.system_key)
    asked = name_key(args.strip().lstrip("!/"))[:MAX_NAME]
    if not asked:
        ctx.reply("help", system=ctx.system_key, topics=list(topics),
                  game_commands=[command.names[0] for command in ctx.game.commands])
    elif asked in topics:
        ctx.reply(topics[asked], system=ctx.system_key)
    elif (command := ctx.find_command(asked)) is not None:
        said = sorted(_lines_naming(ctx, command, topics))
        ctx.reply("help_command", command=command, lines=[line for _, _, line in said[:HELP_LINES]],
                  topics=list(dict.fromkeys(topic for _, topic, _ in said)) or list(topics))
    else:
        raise Refusal("help_unknown", asked=args.strip()[:MAX_NAME], topics=list(topics))


def _lines_naming(ctx: Context, command: CommandSpec, topics: dict[str, str]) -> list[tuple[int, str, str]]:
    """The topics' lines that name ``command`` (``!name``), each with where in it the name comes first
    (a line that starts with it explains it) and its topic."""
    keys = {name_key(name) for name in command.names}
    found = []
    for topic, kind in topics.items():
        for line in ctx.renderer.text(kind, system=ctx.system_key).split("\n")[1:]:
            marks = [m.start() for m in _COMMAND_MARK.finditer(name_key(line)) if m[1] in keys]
            if marks:
                found.append((marks[0], topic, line))
    return found


@COMMANDS.command("tiro", "roll", usage="HABILIDAD|EXPRESIÓN [vs N] [contra NOMBRE] [sin estado] [oculta]",
                  in_character=True, needs_args=True)
def roll_command(ctx: Context, args: str) -> None:
    actor, text = rolls.roller(ctx, args)
    request = rolls.read_request(rolls.expand_macro(actor, text))
    if not ctx.is_gm():
        rounds.require_up(ctx, ctx.character)
    made = rolls.resolve(ctx, actor, request.text, request.auto)
    rolls.answer(ctx, actor, made, secret=request.secret, target=rolls.against(ctx, request.text))
    floor.consume_grant(ctx)


@COMMANDS.command("revelar", "reveal", usage="[NOMBRE]", gm_only=True)
def reveal_command(ctx: Context, args: str) -> None:
    """The last secret roll (of NOMBRE's, if given) not yet revealed, posted to the room."""
    hidden = ctx.store.hidden_rolls(ctx.event.room_id) if ctx.store is not None else []
    if args.strip():
        key = name_key(ctx.character_named(args.strip()).name)
        hidden = [r for r in hidden if r["actor"] == key]
    hidden = [r for r in hidden if r["roll_id"] not in ctx.work.reveals]
    if not hidden:
        raise Refusal("no_hidden_roll")
    row = hidden[0]
    ctx.work.reveals.append(row["roll_id"])
    record = rolls.record_row(row)
    render_send(ctx, "roll_revealed", shown=ShownRoll(record["roll"], row["roll_id"]), who=record["who"],
                target=record["target"], body=json.loads(row["message"])["body"], applied=record["applied"])


@COMMANDS.command("historial", "history", usage="[NOMBRE]")
def history_command(ctx: Context, args: str) -> None:
    character = ctx.character_named(args.strip()) if args.strip() else None
    actor = name_key(character.name) if character else None
    rows = ctx.store.rolls(ctx.event.room_id, actor=actor, limit=HISTORY_LENGTH) if ctx.store is not None else []
    ctx.reply("roll_history", name=character.name if character else None, rows=[rolls.record_row(r) for r in rows])


@COMMANDS.command("dados", "dice")
def dice_command(ctx: Context, args: str) -> None:
    total, counted = ctx.store.dice_counts(ctx.event.room_id) if ctx.store is not None else (0, [])
    ctx.reply("dice_stats", stats=counted_die_stats(counted), rolls=total)


@COMMANDS.command("macro", "alias", usage="[NOMBRE] ALIAS = EXPRESIÓN | [NOMBRE] ALIAS borrar", needs_args=True)
def macro_command(ctx: Context, args: str) -> None:
    head, equals, expression = args.partition("=")
    character, words = ctx.own_or_named(head)
    ctx.may_manage(character)
    macros = rolls.macros_of(character)
    if not equals:
        if len(words) != 2 or name_key(words[1]) not in vocab.DELETE or name_key(words[0]) not in macros:
            raise ctx.usage("macro")
        del macros[name_key(words[0])]
        character.sheet[MACROS] = macros
        ctx.reply("macro_set", name=character.name, macro=words[0], expression=None)
        return
    if len(words) != 1:
        raise Refusal("bad_macro", code="name", limit=rolls.MAX_MACRO_NAME)
    key, text = rolls.check_macro(words[0], expression)
    if key not in macros and len(macros) >= rolls.MAX_MACROS:
        raise Refusal("bad_macro", code="too_many", limit=rolls.MAX_MACROS)
    macros[key] = text
    character.sheet[MACROS] = macros
    _sheet_message(ctx, character)
    ctx.reply("macro_set", name=character.name, macro=key, expression=text)


@COMMANDS.command("sistema", "system", usage="CLAVE", gm_only=True, needs_args=True)
def system_command(ctx: Context, args: str) -> None:
    key = args.strip().lower()
    if key not in ctx.games:
        raise Refusal("dice_error", code="unknown_system", params={"key": key[:30], "known": ctx.games.keys()})
    ctx.room.system = key
    sheets.play_in(ctx.room, ctx.game, ctx.games)
    ctx.reply("system_set", system=ctx.system)


@COMMANDS.command("modo", "mode", usage="warn|redact|mute", gm_only=True, needs_args=True)
def mode_command(ctx: Context, args: str) -> None:
    mode = args.strip().lower()
    if mode not in ENFORCEMENT_MODES:
        raise Refusal("bad_mode", mode=mode[:20], modes=ENFORCEMENT_MODES)
    ctx.room.enforcement = mode
    ctx.room.warned_no_power = False
    ctx.reply("mode_set", mode=mode)


@COMMANDS.command("master", "gm", usage="@usuario", gm_only=True, needs_args=True)
def gm_command(ctx: Context, args: str) -> None:
    user = args.strip()
    if not _USER_ID.match(user):
        raise Refusal("bad_user", user=user[:60])
    if user not in ctx.room.gms:
        ctx.room.gms.append(user)
        floor.refresh_mute(ctx)
    ctx.reply("gm_added", user=user)


@COMMANDS.command("pj", "pc", usage="NOMBRE [@usuario]", needs_args=True)
def character_command(ctx: Context, args: str) -> None:
    name, owner = args, ctx.sender
    parts = args.rsplit(None, 1)
    if len(parts) == 2 and parts[1].startswith("@"):
        if not ctx.is_gm():
            raise Refusal("gm_only", command="pj NOMBRE @usuario")
        name, owner = parts
        if not _USER_ID.match(owner):
            raise Refusal("bad_user", user=owner[:60])
    name = clean_name(name)
    _require_name(name)
    character = ctx.room.find_character(name)
    if character and not ctx.is_gm():
        if character.npc:
            raise Refusal("character_is_npc", name=character.name)
        if character.owner and character.owner != owner:
            raise Refusal("character_taken", name=character.name, owner=character.owner)
    if character is None:
        _require_room_for(ctx, 1)
        character = Character(name, creator=ctx.sender)
        ctx.room.characters[name_key(name)] = character
    if not ctx.is_gm(owner):
        _release_characters_of(ctx, owner)
        character.lent = character.lent or character.npc
    character.owner, character.npc = owner, False
    ctx.reply("character_claimed", name=character.name, owner=owner)


def _release_characters_of(ctx: Context, owner: str) -> None:
    """A player plays one character: claiming another frees the previous one (an NPC the GM lent them
    goes back to the GMs)."""
    for other in ctx.room.characters.values():
        if other.owner == owner:
            other.owner = None
            other.npc, other.lent = other.npc or other.lent, False


@COMMANDS.command("ficha", "sheet", usage="NOMBRE [campo valor]... | NOMBRE Campo valor, Campo valor...",
                  needs_args=True)
def sheet_command(ctx: Context, args: str) -> None:
    words = args.split()
    character, used = ctx.room.leading_character(words)
    if character is None:
        raise ctx.unknown_character(args.strip())
    rest = _after_words(args, used)
    if rest.strip() and not (ctx.is_gm() or character.owner == ctx.sender):
        raise Refusal("not_your_character", name=character.name)
    if not ctx.is_gm() and ctx.sheet_is_gms(character):
        raise Refusal("npc_sheet_private", name=character.name)
    kept: list[str] = []
    changes: list[tuple[str, Any, Any]] = []
    rejected: tuple[sheets.Rejected, ...] = ()
    if rest.strip():
        edit = sheets.read_edit(ctx.game, rest)
        rejected = edit.rejected
        if rejected and not edit.values and not edit.macros:
            raise Refusal("sheet_rejected", name=character.name, rejected=rejected, kept=False,
                          fields=[sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields])
        if not ctx.is_gm():
            edit, kept = sheets.players_part(ctx.game, character, edit)
            changes = sheets.derived_changes(ctx.game, character, edit.values)
        character.sheet.update(edit.values)
        if edit.macros:
            macros = {**rolls.macros_of(character), **edit.macros}
            if len(macros) > rolls.MAX_MACROS:
                raise Refusal("bad_macro", code="too_many", limit=rolls.MAX_MACROS)
            character.sheet[MACROS] = macros
    ctx.reply("sheet", rendered=_sheet_message(ctx, character))
    if rejected:
        ctx.reply("sheet_rejected", name=character.name, rejected=rejected, kept=True,
                  fields=[sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields])
    if kept:
        ctx.reply("sheet_fields_kept", name=character.name, fields=[sheets.shown_name(ctx.game, k) for k in kept])
    if changes:
        ctx.tell_gms("sheet_change_report", name=character.name, player=ctx.sender, changes=changes)


def _sheet_message(ctx: Context, character: Character) -> privacy.Views:
    """The sheet as ``!ficha`` shows it, or a refusal when pasting it back (``!ficha NOMBRE`` and the
    message) would not fit in one command."""
    line, macro_lines = sheets.export(ctx.game, character)
    views = privacy.render_views(ctx, "sheet", {
        "character": character, "name": character.name, "line": line, "macros": macro_lines,
        "state": sheets.kept_state(ctx.game, character),
        "fields": [sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields]})
    if len(character.name) + 1 + len((views.gm or views.public).body) > MAX_COMMAND_ARGS:
        raise Refusal("bad_macro", code="too_long", limit=MAX_COMMAND_ARGS)
    return views


def _after_words(text: str, count: int) -> str:
    """``text`` after its first ``count`` words, its line breaks kept (a pasted sheet)."""
    rest = text
    for _ in range(count):
        rest = rest.lstrip()
        cut = next((i for i, c in enumerate(rest) if c.isspace()), len(rest))
        rest = rest[cut:]
    return rest


@COMMANDS.command("regla", "rule", usage="TEMA", needs_args=True, question=True)
def rule_command(ctx: Context, args: str) -> None:
    cards = Rulebook.of(ctx.games).search(ctx.system_key, args[:200])
    ctx.reply("rule_cards", query=args[:60], cards=cards)


@COMMANDS.command("combate", "combat", usage="[fin]", gm_only=True)
def combat_command(ctx: Context, args: str) -> None:
    if args.strip().lower() in vocab.END:
        if ctx.room.combat is None:
            raise Refusal("no_combat")
        rounds_played = ctx.room.combat.round
        ctx.room.combat = None
        ctx.room.clear_grants()
        acta.record(ctx, "combat_end", rounds=rounds_played)
        ctx.reply("combat_ended", rounds=rounds_played)
        return
    if ctx.room.combat is not None:
        raise Refusal("combat_running", round=ctx.room.combat.round)
    ctx.room.combat = Combat()
    ctx.room.clear_grants()
    acta.record(ctx, "combat")
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


@COMMANDS.command("turnos", "turns", usage="NOMBRE NOMBRE...", gm_only=True, needs_args=True)
def turns_command(ctx: Context, args: str) -> None:
    combat = _combat_without_order(ctx)
    names = _combatant_names(ctx, args)
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


@COMMANDS.command("iniciativa", "init", usage="[NOMBRE...] | reiniciar [NOMBRE...]", gm_only=True)
def initiative_command(ctx: Context, args: str) -> None:
    first, _, rest = args.strip().partition(" ")
    if name_key(first) in vocab.RESTART:
        combat, args = ctx.declared_combat(), rest
    else:
        combat = _combat_without_order(ctx)
    names = _combatant_names(ctx, args) if args.strip() else []
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


@COMMANDS.command("entra", "join", usage="NOMBRE [NOMBRE...]", gm_only=True, needs_args=True)
def join_command(ctx: Context, args: str) -> None:
    """Latecomers take their place by the game's initiative among those still to act this round."""
    combat = _combat_with_order(ctx)
    names = _combatant_names(ctx, args)
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


@COMMANDS.command("sale", "leave", usage="NOMBRE", gm_only=True, needs_args=True)
def leave_command(ctx: Context, args: str) -> None:
    combat = _combat_with_order(ctx)
    position = rounds.position_of(combat, clean_name(args))
    if position is None:
        raise Refusal("not_in_order", name=clean_name(args)[:MAX_NAME], order=combat.order)
    rounds.leave(ctx, combat, position)


def _combat_with_order(ctx: Context) -> Combat:
    """The declared combat once it has an order (``!iniciativa`` or ``!turnos`` gave it one)."""
    combat = ctx.declared_combat()
    if not combat.started:
        raise Refusal("combat_without_order")
    return combat


@COMMANDS.command("siguiente", "next")
def next_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    if not ctx.is_gm() and all(member.owner != ctx.sender for member in rounds.turn_members(ctx, combat)):
        raise Refusal("not_your_turn_to_end", actor=combat.current)
    rounds.advance(ctx, combat)


@COMMANDS.command("deshacer", "undo", gm_only=True)
def undo_command(ctx: Context, args: str) -> None:
    """The last command that changed the play (anyone's), back through the last ``UNDO_DEPTH``."""
    if args.strip():
        raise ctx.usage("deshacer")
    step = ctx.store.last_undo(ctx.event.room_id) if ctx.store is not None else None
    if step is None:
        raise Refusal("nothing_to_undo", limit=undo.UNDO_DEPTH)
    undo.take_back(ctx, step)


@COMMANDS.command("permite", "allow", usage="NOMBRE", gm_only=True, needs_args=True)
def allow_command(ctx: Context, args: str) -> None:
    character = ctx.room.find_character(args)
    if character is None or character.owner is None:
        raise ctx.unknown_character(args)
    floor.grant(ctx, character.owner)
    ctx.reply("roll_granted", name=character.name, owner=character.owner)


@COMMANDS.command("estado", "status")
def status_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    ctx.reply("status", combat=combat, rows=rounds.board(ctx, combat) if combat else [],
              lock=ctx.room.lock, system=ctx.system)


@COMMANDS.command("exploracion", "explore", usage="[fin]", gm_only=True)
def exploration_command(ctx: Context, args: str) -> None:
    if args.strip().lower() in vocab.END:
        ctx.room.exploration = None
        ctx.reply("exploration_ended")
        return
    if ctx.room.combat is not None and ctx.room.combat.started:
        raise Refusal("exploration_in_combat")
    if ctx.room.exploration is not None:
        raise Refusal("exploration_running")
    ctx.room.exploration = Exploration()
    ctx.reply("exploration_started", players=floor.players(ctx))


@COMMANDS.command("pnj", "npc", usage="NOMBRE [xN] [grupo G]", gm_only=True, needs_args=True)
def npc_command(ctx: Context, args: str) -> None:
    """NPCs set up before the fight: ``!pnj Orco x3 grupo orcos`` makes Orco 1 to Orco 3, Extras
    sharing a card where the system has groups; they join the next ``!iniciativa``."""
    name_words: list[str] = []
    group_words: list[str] | None = None
    counts = []
    settings: dict[str, str] = {}
    for word in clean_name(args).split():
        if name_key(word) in ctx.game.npc_words and name_words:
            key, value = ctx.game.npc_words[name_key(word)]
            settings[key] = value
        elif name_key(word) in vocab.GROUP and group_words is None and name_words:
            group_words = []
        elif (count_match := _COUNT.fullmatch(word)) and name_words:
            counts.append(int(count_match[1]))
        else:
            (name_words if group_words is None else group_words).append(word)
    name, group = " ".join(name_words), None if group_words is None else " ".join(group_words)
    _require_name(name)
    if len(counts) > 1 or any(not 1 <= c <= MAX_COMBATANTS for c in counts):
        raise Refusal("bad_npc_count", limit=MAX_COMBATANTS)
    count = counts[0] if counts else None
    if group is not None and "grupo" not in ctx.game.sheet_fields:
        raise Refusal("npc_no_groups", system=ctx.system)
    if group is not None and not 0 < len(group) <= MAX_NAME:
        raise Refusal("bad_sheet_value", field=sheets.shown_name(ctx.game, "grupo"), value=group[:30])
    if ctx.room.combat is not None and ctx.room.combat.started:
        raise Refusal("npc_combat_started")
    names = _numbered(ctx, name, count) if count is not None else [name]
    for n in names:
        _require_name(n)
    taken = next((c for c in map(ctx.room.find_character, names) if c and not c.npc), None)
    if taken is not None:
        raise Refusal("npc_name_taken", name=taken.name, owner=taken.owner)
    _require_room_for(ctx, sum(1 for n in names if ctx.room.find_character(n) is None))
    npcs = [rounds.ensure_character(ctx, n) for n in names]
    for npc in npcs:
        npc.sheet.update(settings)
        if group is not None:
            npc.sheet["grupo"] = group
    ctx.reply("npcs_ready", names=[c.name for c in npcs], group=group, combat=ctx.room.combat is not None)


def _numbered(ctx: Context, name: str, count: int) -> list[str]:
    """``count`` names ``NAME 1``, ``NAME 2``... skipping numbers already in the room."""
    numbers = (i for i in range(1, count + len(ctx.room.characters) + 1)
               if ctx.room.find_character(f"{name} {i}") is None)
    return [f"{name} {i}" for _, i in zip(range(count), numbers)]


_SESSION_NUMBER = re.compile(r"[0-9]{1,6}")
PAGE_TOKEN_BYTES = 24
"""The table page's token: 192 random bits."""


@COMMANDS.command("acta", "log", usage="[N] | activar | desactivar | borrar N|todo")
def acta_command(ctx: Context, args: str) -> None:
    words = args.lower().split()
    word = words[0] if words else ""
    if word in (*vocab.ON, *vocab.OFF, *vocab.DELETE) and not ctx.is_gm():
        raise Refusal("gm_only", command=f"acta {word}")
    record = ctx.room.acta
    if word in vocab.ON:
        record.on = True
        ctx.announce("acta_on")
    elif word in vocab.OFF:
        record.on, record.open = False, False
        ctx.announce("acta_off")
    elif word in vocab.DELETE:
        _erase_sessions(ctx, words[1:])
    elif len(words) <= 1 and (not word or _SESSION_NUMBER.fullmatch(word)):
        _acta_links(ctx, int(word) if word else None)
    else:
        raise ctx.usage("acta")


def _erase_sessions(ctx: Context, words: list[str]) -> None:
    every = len(words) == 1 and words[0] in vocab.ALL
    if not every and (not words or len(words) > 20 or not all(_SESSION_NUMBER.fullmatch(w) for w in words)):
        raise ctx.usage("acta")
    sessions = None if every else tuple(sorted({int(w) for w in words}))
    _known_sessions(ctx, sessions or ())
    acta.erase(ctx, sessions)
    ctx.reply("acta_erased", sessions=sessions)


def _known_sessions(ctx: Context, asked: tuple[int, ...]) -> None:
    """Refuse when the acta holds no session, or not every one ``asked`` (an empty or erased
    session has no document)."""
    known = ctx.recorded_sessions()
    if not known:
        raise Refusal("acta_empty", on=ctx.room.acta.on)
    missing = [n for n in asked if n not in known]
    if missing:
        raise Refusal("acta_no_session", missing=missing, known=known)


def _acta_links(ctx: Context, session: int | None) -> None:
    _known_sessions(ctx, () if session is None else (session,))
    if ctx.room.page_token is None and not ctx.is_gm():
        raise Refusal("acta_no_page")
    ctx.reply("acta_links", url=_page_url(ctx), session=session, on=ctx.room.acta.on)


def _page_url(ctx: Context, renew: bool = False) -> str:
    """The room's table page address (a new token if it has none or ``renew``: only the GM's commands
    ask for it then); a refusal without ``[web] public_url``."""
    base = ctx.settings.public_url
    if not base:
        raise Refusal("no_public_url")
    if renew or ctx.room.page_token is None:
        ctx.room.page_token = secrets.token_urlsafe(PAGE_TOKEN_BYTES)
    return f"{base.rstrip('/')}/mesa/{ctx.room.page_token}"


@COMMANDS.command("mesa", "table", usage="[nueva]", gm_only=True)
def table_page_command(ctx: Context, args: str) -> None:
    word = args.strip().lower()
    if word and word not in vocab.NEW:
        raise ctx.usage("mesa")
    renew = bool(word)
    ctx.reply("table_page_link", url=_page_url(ctx, renew=renew), renewed=renew)


@COMMANDS.command("sesion", "session", usage="[fin]", gm_only=True)
def session_command(ctx: Context, args: str) -> None:
    record = ctx.room.acta
    if not record.on:
        raise Refusal("acta_empty", on=False)
    if args.strip().lower() in vocab.END:
        if not record.open:
            raise Refusal("session_not_open")
        record.open = False
        ctx.announce("session_ended", session=record.session)
        return
    if args.strip():
        raise ctx.usage("sesion")
    record.session += 1
    record.open, record.last_ts = True, ctx.event.ts
    ctx.announce("session_started", session=record.session)
