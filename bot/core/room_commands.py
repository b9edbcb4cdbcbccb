"""The commands every room has (DESIGN.md 3.3)."""

from __future__ import annotations

import re

from bot.core import combat as rounds
from bot.core import floor
from bot.core.commands import command, commands_for
from bot.core.context import Context
from bot.core.rulebook import search_rules
from bot.core.state import ENFORCEMENT_MODES, MAX_NAME, Character, Combat, Exploration, name_key
from systems import SYSTEM_KEYS

MAX_COMBATANTS = 40
_USER_ID = re.compile(r"^@[^\s:]{1,100}:[^\s]{1,200}$")
_HIDDEN_WORDS = ("oculta", "oculto", "hidden")
_END_WORDS = ("fin", "end")


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= MAX_NAME and name.isprintable() and not name.startswith(("@", "!", "/"))


@command("ayuda", "help")
def help_command(ctx: Context, args: str) -> None:
    ctx.reply("help", commands=commands_for(ctx.system_key), system=ctx.system_key, is_gm=ctx.is_gm())


@command("tiro", "roll", usage="EXPRESIÓN [comentario] [oculta]", in_character=True, needs_args=True)
def roll_command(ctx: Context, args: str) -> None:
    words = args.split()
    hidden = words[-1].lower() in _HIDDEN_WORDS
    if hidden and not ctx.is_gm():
        ctx.reply("gm_only", command="tiro oculta")
        return
    text = args.rsplit(None, 1)[0] if hidden and len(words) > 1 else args
    result = ctx.system.roll(text, ctx.rng)
    if hidden:
        ctx.whisper(ctx.sender, "roll_by", who=ctx.speaker_name, r=result, hidden=True)
        ctx.reply("hidden_roll_notice", who=ctx.speaker_name)
    else:
        ctx.reply("roll_by", who=ctx.speaker_name, r=result, hidden=False)
    floor.consume_grant(ctx)


@command("sistema", "system", usage="CLAVE", gm_only=True, needs_args=True)
def system_command(ctx: Context, args: str) -> None:
    key = args.strip().lower()
    if key not in SYSTEM_KEYS:
        ctx.reply("dice_error", code="unknown_system", params={"key": key[:30], "known": SYSTEM_KEYS})
        return
    ctx.room.system = key
    ctx.reply("system_set", system=ctx.system)


@command("modo", "mode", usage="warn|redact|mute", gm_only=True, needs_args=True)
def mode_command(ctx: Context, args: str) -> None:
    mode = args.strip().lower()
    if mode not in ENFORCEMENT_MODES:
        ctx.reply("bad_mode", mode=mode[:20], modes=ENFORCEMENT_MODES)
        return
    ctx.room.enforcement = mode
    ctx.room.warned_no_power = False
    ctx.reply("mode_set", mode=mode)


@command("master", "gm", usage="@usuario", gm_only=True, needs_args=True)
def gm_command(ctx: Context, args: str) -> None:
    user = args.strip()
    if not _USER_ID.match(user):
        ctx.reply("bad_user", user=user[:60])
        return
    if user not in ctx.room.gms:
        ctx.room.gms.append(user)
        floor.refresh_mute(ctx)
    ctx.reply("gm_added", user=user)


@command("pj", "pc", usage="NOMBRE [@usuario]", needs_args=True)
def character_command(ctx: Context, args: str) -> None:
    name, owner = args, ctx.sender
    parts = args.rsplit(None, 1)
    if len(parts) == 2 and parts[1].startswith("@"):
        if not ctx.is_gm():
            ctx.reply("gm_only", command="pj NOMBRE @usuario")
            return
        name, owner = parts
        if not _USER_ID.match(owner):
            ctx.reply("bad_user", user=owner[:60])
            return
    name = " ".join(name.split())
    if not _valid_name(name):
        ctx.reply("bad_name", limit=MAX_NAME)
        return
    character = ctx.room.find_character(name)
    if character and not ctx.is_gm():
        if character.npc:
            ctx.reply("character_is_npc", name=character.name)
            return
        if character.owner and character.owner != owner:
            ctx.reply("character_taken", name=character.name, owner=character.owner)
            return
    if character is None:
        character = Character(name)
        ctx.room.characters[name_key(name)] = character
    if not ctx.is_gm(owner):
        _release_characters_of(ctx, owner)
    character.owner, character.npc = owner, False
    ctx.reply("character_claimed", name=character.name, owner=owner)


def _release_characters_of(ctx: Context, owner: str) -> None:
    """A player plays one character: claiming another frees the previous one."""
    for other in ctx.room.characters.values():
        if other.owner == owner:
            other.owner = None


@command("ficha", "sheet", usage="NOMBRE [campo valor]...", needs_args=True)
def sheet_command(ctx: Context, args: str) -> None:
    fields = rounds.rules_for(ctx).sheet_fields
    name, pairs = _split_sheet_args(args, ctx)
    character = ctx.room.find_character(name)
    if character is None:
        ctx.reply_unknown_character(name)
        return
    if pairs and not (ctx.is_gm() or character.owner == ctx.sender):
        ctx.reply("not_your_character", name=character.name)
        return
    updates = {}
    for key, value in pairs:
        field_type = fields.get(name_key(key))
        if field_type is None:
            ctx.reply("bad_sheet_field", field=key[:30], fields=sorted(fields))
            return
        try:
            updates[name_key(key)] = _coerce(value, field_type)
        except ValueError:
            ctx.reply("bad_sheet_value", field=key[:30], value=value[:30])
            return
    character.sheet.update(updates)
    ctx.reply("sheet", character=character, fields=sorted(fields))


def _split_sheet_args(args: str, ctx: Context) -> tuple[str, list[tuple[str, str]]]:
    """``!ficha Sir Ulric dureza 7 parada 6``: the longest known character name first, then pairs."""
    words = args.split()
    character, used = ctx.room.leading_character(words)
    if character is None:
        return args, []
    rest = words[used:]
    return " ".join(words[:used]), list(zip(rest[::2], rest[1::2] + [""] * (len(rest) % 2)))


def _coerce(value: str, field_type: type) -> object:
    if field_type is int:
        number = int(value)
        if abs(number) > 10_000:
            raise ValueError(value)
        return number
    if not value or len(value) > 40:
        raise ValueError(value)
    return value


@command("regla", "rule", usage="TEMA", needs_args=True)
def rule_command(ctx: Context, args: str) -> None:
    cards = search_rules(ctx.system_key, args[:200])
    ctx.reply("rule_cards", query=args[:60], cards=cards)


@command("combate", "combat", usage="[fin]", gm_only=True)
def combat_command(ctx: Context, args: str) -> None:
    if args.strip().lower() in _END_WORDS:
        if ctx.room.combat is None:
            ctx.reply("no_combat")
            return
        rounds_played = ctx.room.combat.round
        ctx.room.combat = None
        ctx.room.clear_grants()
        ctx.reply("combat_ended", rounds=rounds_played)
        return
    if ctx.room.combat is not None:
        ctx.reply("combat_running", round=ctx.room.combat.round)
        return
    ctx.room.combat = Combat()
    ctx.room.clear_grants()
    ctx.reply("combat_started", system=ctx.system)
    _end_exploration_for_combat(ctx)


def _end_exploration_for_combat(ctx: Context) -> None:
    """A combat ends the free exploration turn: players who had not acted lose their action."""
    exploration = ctx.room.exploration
    if exploration is None:
        return
    ctx.room.exploration = None
    lost = [c.name for c in floor.players(ctx) if c.owner not in exploration.acted]
    ctx.reply("exploration_interrupted", lost=lost)


@command("turnos", "turns", usage="NOMBRE NOMBRE...", gm_only=True, needs_args=True)
def turns_command(ctx: Context, args: str) -> None:
    combat = _require_combat(ctx)
    if combat is None:
        return
    names = _combatant_names(ctx, args)
    if not names:
        ctx.reply("bad_turns")
        return
    combat.order = [rounds.ensure_character(ctx, n).name for n in names]
    _end_exploration_for_combat(ctx)
    rounds.start_rounds(ctx, combat)


def _combatant_names(ctx: Context, args: str) -> list[str]:
    """Names split by commas, or by spaces with the longest known character names matched first."""
    args = re.sub(r"[\"«»]", " ", args)
    if "," in args:
        names = [" ".join(n.split()) for n in args.split(",") if n.strip()]
    else:
        words, names = args.split(), []
        while words:
            used = ctx.room.leading_character(words)[1] or 1
            names.append(" ".join(words[:used]))
            words = words[used:]
    if len(names) > MAX_COMBATANTS or not all(_valid_name(n) for n in names):
        return []
    return names if len({name_key(n) for n in names}) == len(names) else []


@command("iniciativa", "init", gm_only=True)
def initiative_command(ctx: Context, args: str) -> None:
    combat = _require_combat(ctx)
    if combat is None:
        return
    names = _combatant_names(ctx, args) if args.strip() else []
    if args.strip() and not names:
        ctx.reply("bad_turns")
        return
    if names:
        combat.order = [rounds.ensure_character(ctx, n).name for n in names]
    elif not combat.order:
        combat.order = ctx.room.character_names()
    if not combat.order:
        ctx.reply("no_combatants")
        return
    _end_exploration_for_combat(ctx)
    rounds.rules_for(ctx).initiative(ctx, combat)
    rounds.start_rounds(ctx, combat)


@command("siguiente", "next")
def next_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    if combat is None or not combat.started:
        ctx.reply("no_combat")
        return
    actor = ctx.room.find_character(combat.current or "")
    if not ctx.is_gm() and (actor is None or actor.owner != ctx.sender):
        ctx.reply("not_your_turn_to_end", actor=combat.current)
        return
    rounds.advance(ctx, combat)


@command("permite", "allow", usage="NOMBRE", gm_only=True, needs_args=True)
def allow_command(ctx: Context, args: str) -> None:
    character = ctx.room.find_character(args)
    if character is None or character.owner is None:
        ctx.reply_unknown_character(args)
        return
    if character.owner not in ctx.room.granted:
        ctx.room.granted.append(character.owner)
    ctx.room.grant_only.pop(character.owner, None)
    ctx.reply("roll_granted", name=character.name, owner=character.owner)


@command("estado", "status")
def status_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    ctx.reply("status", combat=combat, rows=rounds.board(ctx, combat) if combat else [],
              lock=ctx.room.lock, system=ctx.system)


@command("exploracion", "explore", usage="[fin]", gm_only=True)
def exploration_command(ctx: Context, args: str) -> None:
    if args.strip().lower() in _END_WORDS:
        ctx.room.exploration = None
        ctx.reply("exploration_ended")
        return
    ctx.room.exploration = Exploration()
    ctx.reply("exploration_started", players=floor.players(ctx))


def _require_combat(ctx: Context) -> Combat | None:
    if ctx.room.combat is None:
        ctx.reply("no_combat")
    return ctx.room.combat
