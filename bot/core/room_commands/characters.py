"""Characters: claiming one (``!pj``), their sheets (``!ficha``) and the GM's NPCs (``!pnj``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.core import combat as rounds
from bot.core import moderation, privacy, replies, rolls, sheets
from bot.core import words_es as vocab
from bot.core.args import Arg, Opt, Parsed, Rest, User
from bot.core.combat import MAX_COMBATANTS
from bot.core.commands import MAX_COMMAND_ARGS, CommandGroup
from bot.core.context import Context
from bot.core.replies import Addressing
from bot.core.sheets import MACROS
from bot.core.state import MAX_NAME, MAX_NAME_WORDS, Character, clean_name, has_visible_letter, name_key
from systems.refusal import Refusal

COMMANDS = CommandGroup()
MAX_CHARACTERS = 200
"""Characters in one room, NPCs included."""
MAX_CHARACTERS_PER_PLAYER = 5
"""Characters a player (not a GM) may add to a room with ``!pj``."""
_USER_ID = re.compile(r"^@[^\s:]{1,100}:[^\s]{1,200}$")
_COUNT = re.compile(r"[x×]([+-]?\d{1,6})", re.IGNORECASE)
SHEET = Rest("NOMBRE [campo valor]... | NOMBRE Campo valor, Campo valor...")
"""A sheet's edit, read by its own grammar: the longest known name first, then the game's fields
(``sheets.read_edit``; a pasted sheet keeps its line breaks)."""
NPCS = Rest("NOMBRE [xN] [grupo G] [Campo valor, ...]")
"""NPCs, read by their own grammar: the name, a count, a group and the game's own words anywhere after it."""


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


@COMMANDS.takes("pj", "pc", spec=(Arg("NOMBRE"), Opt(User("@usuario"))), changes=True)
def character_command(ctx: Context, got: Parsed) -> None:
    owner = got.text("@usuario") or ctx.sender
    if got.text("@usuario"):
        if not ctx.is_gm():
            raise Refusal("gm_only", command="pj NOMBRE @usuario")
        if not _USER_ID.match(owner):
            raise Refusal("bad_user", user=owner[:60])
    name = clean_name(got.text("NOMBRE"))
    _require_name(name)
    character = ctx.room.find_character(name)
    if character and not ctx.is_gm():
        if character.npc:
            raise Refusal("character_is_npc", name=character.name)
        if character.owner and character.owner != owner:
            raise Refusal("character_taken", name=character.name, owner=character.owner)
    created = character is None
    if character is None:
        _require_room_for(ctx, 1)
        character = Character(name, creator=ctx.sender)
        ctx.room.characters[name_key(name)] = character
    if not ctx.is_gm(owner):
        _release_characters_of(ctx, owner)
        character.lent = character.lent or character.npc
    character.owner, character.npc = owner, False
    if created and ctx.game.new_character is not None:
        ctx.game.new_character(character)
    moderation.acknowledge(ctx, "character_claimed", name=character.name, owner=owner)


def _release_characters_of(ctx: Context, owner: str) -> None:
    """A player plays one character: claiming another frees the previous one (an NPC the GM lent them
    goes back to the GMs)."""
    for other in ctx.room.characters.values():
        if other.owner == owner:
            other.owner = None
            other.npc, other.lent = other.npc or other.lent, False


@COMMANDS.takes("ficha", "sheet", spec=(SHEET,))
def sheet_command(ctx: Context, got: Parsed) -> None:
    args = got.text(SHEET.shown)
    words = args.split()
    character, used = ctx.room.leading_character(words)
    if character is None:
        character, used = _new_character(ctx, args)
    rest = _after_words(args, used)
    if rest.strip() and not (ctx.is_gm() or character.owner == ctx.sender):
        raise Refusal("not_your_character", name=character.name)
    if not ctx.is_gm() and ctx.sheet_is_gms(character):
        raise Refusal("npc_sheet_private", name=character.name)
    ctx.work.changing = bool(rest.strip())  # an edit is an undo step, also one that changes no value
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
        if edit.values:
            ctx.game.combat.sheet_edited(ctx, character, edit.values)
        if edit.macros:
            macros = {**rolls.macros_of(character), **edit.macros}
            if len(macros) > rolls.MAX_MACROS:
                raise Refusal("bad_macro", code="too_many", limit=rolls.MAX_MACROS)
            character.sheet[MACROS] = macros
    shown = _sheet_message(ctx, character)
    gms_sheet = ctx.sheet_is_gms(character)  # its numbers go to the GM who asked, and nothing to the room
    if not rest.strip():
        if gms_sheet:
            replies.render_send(ctx, "sheet", Addressing(private_to=ctx.sender), rendered=shown)
        else:
            ctx.reply("sheet", rendered=shown)
    elif not rejected and not kept and moderation.acknowledge(ctx, "sheet", rendered=shown) and gms_sheet:
        replies.render_send(ctx, "sheet", Addressing(private_to=ctx.sender), rendered=shown)
    if rejected:  # what was refused goes to the one who typed it
        ctx.whisper(ctx.sender, "sheet_rejected", name=character.name, rejected=rejected, kept=True,
                    fields=[sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields])
    if kept:
        ctx.whisper(ctx.sender, "sheet_fields_kept", name=character.name,
                    fields=[sheets.shown_name(ctx.game, k) for k in kept])
    if changes:
        ctx.tell_gms("sheet_change_report", name=character.name, player=ctx.sender, changes=changes)


def _new_character(ctx: Context, args: str) -> tuple[Character, int]:
    """The character a ``!ficha`` of a free name makes, and how many words its name takes: the name runs
    to the first sheet field. A GM's is an NPC; a player's is their own, if they have none yet (else
    ``!pj`` is how they take another). A name followed by no field stays an unknown character."""
    words = args.split()
    used = sheets.fields_start(ctx.game, words)
    if used is None or used > MAX_NAME_WORDS:
        raise ctx.unknown_character(args.strip())
    name = clean_name(" ".join(words[:used]))
    _require_name(name)
    if ctx.is_gm():
        _require_room_for(ctx, 1)
        npc = rounds.ensure_character(ctx, name)
        npc.creator = ctx.sender
        return npc, used
    own = ctx.room.character_of(ctx.sender)
    if own is not None:
        raise Refusal("sheet_new_has_character", name=name, own=own.name)
    _require_room_for(ctx, 1)
    character = Character(name, owner=ctx.sender, creator=ctx.sender)
    ctx.room.characters[name_key(name)] = character
    if ctx.game.new_character is not None:
        ctx.game.new_character(character)
    return character, used


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


@dataclass
class NpcLine:
    """What ``!pnj`` read: the name, a count, a group, the game's own words (as sheet values) and the
    stat block after them (the text from the first field on, for the game's sheet parser)."""

    name: str
    counts: list[int] = field(default_factory=list)
    group: str | None = None
    settings: dict[str, str] = field(default_factory=dict)
    stats: str = ""


def read_npc_line(ctx: Context, text: str) -> NpcLine:
    """``!pnj``'s words: the name first; a count (``x3``), ``grupo G`` and the game's words anywhere
    after it; a stat block from the first word that starts a sheet field with its value (the group's
    name ends there too), so its words are never part of a name."""
    name_words: list[str] = []
    group_words: list[str] | None = None
    line = NpcLine("")
    words = text.split()
    named_at = -1
    for at, word in enumerate(words):
        folded = name_key(word)
        if folded in ctx.game.npc_words and name_words:
            key, value = ctx.game.npc_words[folded]
            line.settings[key] = value
        elif folded in vocab.GROUP and group_words is None and name_words:
            group_words = []
        elif (count_match := _COUNT.fullmatch(word)) and name_words:
            line.counts.append(int(count_match[1]))
        elif name_words and group_words != [] and sheets.starts_fields(ctx.game, words[at:]):
            line.stats = _after_words(text, at)
            break
        elif name_words and sheets.has_separator(word):
            last = group_words or name_words
            start = at - 1 if len(last) > 1 and named_at == at - 1 else at
            del last[len(last) - (at - start):]
            line.stats = _after_words(text, start)
            break
        else:
            (name_words if group_words is None else group_words).append(word)
            named_at = at
    line.name = clean_name(" ".join(name_words))
    line.group = None if group_words is None else clean_name(" ".join(group_words))
    return line


@COMMANDS.takes("pnj", "npc", spec=(NPCS,), gm_only=True)
def npc_command(ctx: Context, got: Parsed) -> None:
    """NPCs set up before the fight: ``!pnj Orco x3 grupo orcos Pelear d8, Parada 6`` makes Orco 1 to
    Orco 3 with that sheet, Extras sharing a card where the system has groups; they join the next
    ``!iniciativa``."""
    line = read_npc_line(ctx, got.text(NPCS.shown))
    name, group, counts = line.name, line.group, line.counts
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
    edit = _stat_block(ctx, name, line.stats)
    names = _numbered(ctx, name, count) if count is not None else [name]
    for n in names:
        _require_name(n)
    taken = next((c for c in map(ctx.room.find_character, names) if c and not c.npc), None)
    if taken is not None:
        raise Refusal("npc_name_taken", name=taken.name, owner=taken.owner)
    _require_room_for(ctx, sum(1 for n in names if ctx.room.find_character(n) is None))
    npcs = [rounds.ensure_character(ctx, n) for n in names]
    for npc in npcs:
        npc.sheet.update(line.settings)
        npc.sheet.update(edit.values)
        if edit.macros:
            npc.sheet[MACROS] = {**rolls.macros_of(npc), **edit.macros}
        if group is not None:
            npc.sheet["grupo"] = group
    ctx.reply("npcs_ready", names=[c.name for c in npcs], group=group, combat=ctx.room.combat is not None,
              sheet=bool(edit.values or edit.macros))
    if edit.rejected:
        ctx.whisper(ctx.sender, "sheet_rejected", name=name, rejected=edit.rejected, kept=True,
                    fields=[sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields])


def _stat_block(ctx: Context, name: str, text: str) -> sheets.SheetEdit:
    """The sheet every copy gets, read as ``!ficha`` reads a paste; a block of nothing valid is refused."""
    if not text.strip():
        return sheets.SheetEdit({}, {})
    edit = sheets.read_edit(ctx.game, text)
    if edit.rejected and not edit.values and not edit.macros:
        raise Refusal("sheet_rejected", name=name, rejected=edit.rejected, kept=False,
                      fields=[sheets.shown_name(ctx.game, k) for k in ctx.game.sheet_fields])
    if len(edit.macros) > rolls.MAX_MACROS:
        raise Refusal("bad_macro", code="too_many", limit=rolls.MAX_MACROS)
    return edit


def _numbered(ctx: Context, name: str, count: int) -> list[str]:
    """``count`` names ``NAME 1``, ``NAME 2``... skipping numbers already in the room."""
    numbers = (i for i in range(1, count + len(ctx.room.characters) + 1)
               if ctx.room.find_character(f"{name} {i}") is None)
    return [f"{name} {i}" for _, i in zip(range(count), numbers)]
