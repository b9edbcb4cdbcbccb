"""Rolls: ``!tiro`` from the sheet, secret rolls revealed, the roll history, dice statistics, macros."""

from __future__ import annotations

import json

from bot.core import floor, moderation, privacy, rolls
from bot.core import words_es as vocab
from bot.core.args import Arg, Opt, Parsed, Rest
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.replies import Addressing, ShownRoll, render_send
from bot.core.room_commands.characters import _sheet_message
from bot.core.sheets import MACROS
from bot.core.state import name_key
from bot.core.text import clean_json
from systems.refusal import Refusal
from systems.stats import counted_die_stats

COMMANDS = CommandGroup()
HISTORY_LENGTH = 10
ROLL = Rest("HABILIDAD|EXPRESIÓN [vs N] [contra NOMBRE] [sin estado] [oculta]")
"""A roll, read by the roll's own grammar (``rolls.read_request``): a leading character's name, vs,
contra, sin estado, oculta."""
MACRO = Rest("[NOMBRE] ALIAS = EXPRESIÓN | [NOMBRE] ALIAS borrar")
"""A macro, read by its own grammar: the character named first (``Context.own_or_named``), ``=``."""


@COMMANDS.takes("tiro", "roll", spec=(ROLL,), in_character=True)
def roll_command(ctx: Context, got: Parsed) -> None:
    actor, text = rolls.roller(ctx, got.text(ROLL.shown))
    request = rolls.read_request(rolls.expand_macro(actor, text), actor)
    if not ctx.is_gm():
        rolls.require_up(ctx, request, ctx.character)
    made = rolls.resolve_request(ctx, request)
    rolls.answer(ctx, actor, made, secret=request.secret, target=rolls.against(ctx, request.text))
    if made.follow is not None:
        made.follow()
    floor.consume_grant(ctx)


@COMMANDS.takes("revelar", "reveal", spec=(Opt(Arg("NOMBRE")),), gm_only=True)
def reveal_command(ctx: Context, got: Parsed) -> None:
    """The last secret roll (of NOMBRE's, if given) not yet revealed, posted to the room."""
    hidden = ctx.store.rolls.hidden(ctx.event.room_id) if ctx.store is not None else []
    if got.text("NOMBRE"):
        key = name_key(ctx.character_named(got.text("NOMBRE")).name)
        hidden = [r for r in hidden if r["actor"] == key]
    hidden = [r for r in hidden if r["roll_id"] not in ctx.work.reveals]
    if not hidden:
        raise Refusal("no_hidden_roll")
    row = hidden[0]
    ctx.work.reveals.append(row["roll_id"])
    record = rolls.record_row(row)
    render_send(ctx, "roll_revealed", shown=ShownRoll(clean_json(record["roll"]), row["roll_id"]), who=record["who"],
                target=record["target"], body=json.loads(row["message"])["body"], applied=record["applied"])


@COMMANDS.takes("historial", "history", spec=(Opt(Arg("NOMBRE")),))
def history_command(ctx: Context, got: Parsed) -> None:
    character = ctx.character_named(got.text("NOMBRE")) if got.text("NOMBRE") else None
    actor = name_key(character.name) if character else None
    rows = ctx.store.rolls.history(ctx.event.room_id, actor=actor, limit=HISTORY_LENGTH) if ctx.store is not None else []
    ctx.reply("roll_history", name=character.name if character else None, rows=[rolls.record_row(r) for r in rows])


@COMMANDS.takes("detalle", "detail", spec=(), lenient=True, question=True)
def detail_command(ctx: Context, got: Parsed) -> None:
    """The room's last roll in full, privately, as the asker may see it: a GM with the numbers of a
    GM-owned sheet, anyone else without them (``bot/core/privacy.py``)."""
    rows = ctx.store.rolls.history(ctx.event.room_id, limit=1) if ctx.store is not None else []
    if not rows:
        raise Refusal("no_roll_yet").privately()
    record = rolls.record_row(rows[0])
    views = privacy.render_views(ctx, "roll_detail", {**record, "body": json.loads(rows[0]["message"])["body"],
                                                      "hidden_keys": sorted(privacy.PRIVATE_ROLL_KEYS | privacy.GM_ROLL_KEYS)})
    shown = views.gm if views.gm is not None and ctx.is_gm() else views.public
    render_send(ctx, "roll_detail", Addressing(private_to=ctx.sender), rendered=privacy.Views(shown, None))


@COMMANDS.takes("dados", "dice", spec=(), lenient=True)
def dice_command(ctx: Context, got: Parsed) -> None:
    total, counted = ctx.store.rolls.dice_counts(ctx.event.room_id) if ctx.store is not None else (0, [])
    ctx.reply("dice_stats", stats=counted_die_stats(counted), rolls=total)


@COMMANDS.takes("macro", "alias", spec=(MACRO,))
def macro_command(ctx: Context, got: Parsed) -> None:
    head, equals, expression = got.text(MACRO.shown).partition("=")
    character, words = ctx.own_or_named(head)
    ctx.may_manage(character)
    macros = rolls.macros_of(character)
    if not equals:
        if len(words) != 2 or name_key(words[1]) not in vocab.DELETE or name_key(words[0]) not in macros:
            raise ctx.usage("macro")
        del macros[name_key(words[0])]
        character.sheet[MACROS] = macros
        moderation.acknowledge(ctx, "macro_set", name=character.name, macro=words[0], expression=None)
        return
    if len(words) != 1:
        raise Refusal("bad_macro", code="name", limit=rolls.MAX_MACRO_NAME)
    key, text = rolls.check_macro(words[0], expression)
    if key not in macros and len(macros) >= rolls.MAX_MACROS:
        raise Refusal("bad_macro", code="too_many", limit=rolls.MAX_MACROS)
    macros[key] = text
    character.sheet[MACROS] = macros
    _sheet_message(ctx, character)
    moderation.acknowledge(ctx, "macro_set", name=character.name, macro=key, expression=text)
