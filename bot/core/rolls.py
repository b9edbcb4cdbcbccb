"""Rolls at the table: who rolls, the sheet and state a game applies, secret rolls, the record.

``!tiro`` reads its own words (``oculta``, ``sin estado``, a macro name), asks the room's game to
resolve it from the actor's sheet and the table's state (``Game.sheet_rules``), answers, and keeps a
record of every roll (the ``rolls`` table, see ``Store.rolls.add``) for ``!historial``, ``!dados``
and ``!revelar``. A secret roll's record and its messages carry ``secret``: nothing players can see
shows it until the GM reveals it.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core import combat as rounds
from bot.core import privacy
from bot.core import words_es as vocab
from bot.core.context import Context
from bot.core.records import RollRequest, SheetRoll
from bot.core.replies import Addressing, ShownRoll, record_roll, render_send
from bot.core.state import Character, name_key
from bot.core.text import clean_json
from systems.dice import minus_signs
from systems.refusal import Refusal

MAX_MACROS = 20
MAX_MACRO_NAME = 20
MAX_MACRO_TEXT = 200


def read_request(args: str, actor: Character | None = None) -> RollRequest:
    """``oculta`` (or ``secreto``, ``en secreto``...) and ``sin estado`` anywhere after the first word,
    outside a ``(comment)``, and a parenthesis that is only such a word; the rest is the roll, its phone
    dashes before a number read as minus signs. Read after a macro is expanded, so a macro can make its
    roll secret. One pass over the words (the text is bounded by the command's length)."""
    words = minus_signs(args).split()
    kept: list[str] = []
    secret, auto, i = False, True, 0
    while i < len(words):
        word = words[i]
        folded = name_key(word)
        if word.startswith("("):
            end = next((j for j in range(i, len(words)) if words[j].endswith(")")), len(words) - 1)
            inner = name_key(" ".join(words[i:end + 1]).strip("()"))
            if kept and inner in vocab.HIDDEN:
                secret = True
            else:
                kept += words[i:end + 1]
            i = end + 1
            continue
        if kept and i + 1 < len(words) and f"{folded} {name_key(words[i + 1])}" in vocab.HIDDEN:
            secret, i = True, i + 2
            continue
        if kept and folded in vocab.HIDDEN:
            secret, i = True, i + 1
            continue
        if i + 1 < len(words) and (folded, name_key(words[i + 1])) in vocab.NO_STATE:
            auto, i = False, i + 2
            continue
        kept.append(word)
        i += 1
    return RollRequest(" ".join(kept), secret, auto, actor)


def macros_of(character: Character) -> dict[str, str]:
    value = character.sheet.get("macros")
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def check_macro(name: str, expression: str) -> tuple[str, str]:
    """A macro's key and expression, or a refusal: one word of letters (and digits), and an
    expression of one line that is no command."""
    key = name_key(name)
    text = " ".join(expression.split())
    if not (0 < len(key) <= MAX_MACRO_NAME and key.replace("_", "").isalnum() and " " not in key):
        raise Refusal("bad_macro", code="name", limit=MAX_MACRO_NAME)
    if not (0 < len(text) <= MAX_MACRO_TEXT and text.isprintable()) or text.startswith(("!", "/")):
        raise Refusal("bad_macro", code="expression", limit=MAX_MACRO_TEXT)
    return key, text


def expand_macro(character: Character | None, text: str) -> str:
    """A macro name as the first word becomes its expression (the rest of the words follow it)."""
    if character is None:
        return text
    words = text.split(None, 1)
    macro = macros_of(character).get(name_key(words[0])) if words else None
    if macro is None:
        return text
    return f"{macro} {words[1]}" if len(words) > 1 else macro


def roller(ctx: Context, text: str) -> tuple[Character | None, str]:
    """Who rolls and the roll's text: a character named at the start (the GM's or the sender's own),
    else, for a GM on the turn of a character the GM plays (an NPC, or one the GM took over), that one,
    else the sender's character (a GM without one rolls for nobody)."""
    named, rest = ctx.split_name(text)
    if named is not None and rest:
        ctx.may_manage(named)
        return named, " ".join(rest)
    return gms_turn_character(ctx) or ctx.character, text


def gms_turn_character(ctx: Context) -> Character | None:
    """The character whose turn it is, when the sender is a GM and plays it (an NPC, or the GM's own)."""
    combat = ctx.room.combat
    if not ctx.is_gm() or combat is None or not combat.started:
        return None
    current = ctx.room.find_character(combat.current or "")
    return current if current is not None and current.owner in (None, ctx.sender) else None


def resolve(ctx: Context, actor: Character | None, text: str, auto: bool) -> SheetRoll:
    """The room's game resolves ``text`` for ``actor`` from its sheet and state, or the system rolls it."""
    return resolve_request(ctx, RollRequest(text, auto=auto, actor=actor))


def resolve_request(ctx: Context, request: RollRequest) -> SheetRoll:
    """The room's game resolves the request from the actor's sheet and state, or the system rolls it. A
    GM's secret roll changes no play: whatever the game counted for it (an NPC's action, its attack of
    the round) is put back, so neither it nor its ``!revelar`` uses the NPC's turn."""
    if not (request.secret and ctx.is_gm()):
        return _resolved(ctx, request)
    snapshot, play = ctx.room.to_json(), ctx.room.play_json()
    made = _resolved(ctx, request)
    now = ctx.room.play_json()
    if now != play:
        ctx.room.undo_to(snapshot, ctx.room.changed_since(snapshot, now))
    return made


def _resolved(ctx: Context, request: RollRequest) -> SheetRoll:
    rules = ctx.game.sheet_rules
    if rules is not None:
        made = rules.roll(ctx, request)
        if made is not None:
            return made
    return SheetRoll(ctx.system.roll(request.text, ctx.rng))


def require_up(ctx: Context, request: RollRequest, character: Character | None) -> None:
    """``bot.core.combat.require_up`` for the request's roll, once per character."""
    if character is None or name_key(character.name) in request.up:
        return
    rounds.require_up(ctx, character)
    request.up.add(name_key(character.name))



def against(ctx: Context, text: str) -> Character | None:
    """The character after ``contra`` in a roll's text, or None."""
    words = text.split()
    for i, word in enumerate(words[:-1]):
        if name_key(word) in vocab.AGAINST:
            target, _ = ctx.room.leading_character(words[i + 1:])
            if target is not None:
                return target
    return None


def opponent(ctx: Context, words: list[str]) -> tuple[Character | None, int]:
    """The character named at the start of ``words`` (after ``contra``) and how many words it takes;
    None when ``words`` starts with a number (a plain TN); a refusal for an unknown name."""
    target, used = ctx.room.leading_character(words)
    if target is None and words and not words[0].lstrip("+-").rstrip("%").isdigit():
        raise ctx.unknown_character(words[0])
    return target, used


def stamp(ctx: Context) -> list[int | str] | None:
    """The combat turn now (round and whose turn it is), or None out of combat. By name, not position:
    someone leaving the order before the current turn does not start another one."""
    combat = ctx.room.combat
    return [combat.round, name_key(combat.current or "")] if combat is not None and combat.started else None


def answer(ctx: Context, actor: Character | None, made: SheetRoll, secret: bool = False,
           kind: str = "roll_by", target: Character | None = None, **context: Any) -> str:
    """Answer a roll (privately to the roller and the GMs when ``secret``), record it, remember it as
    the actor's last roll; returns its roll id. ``target``: whom it is rolled against (what the room
    sees of a GM-owned sheet follows ``bot/core/privacy.py``)."""
    if secret and made.changes_state:
        raise Refusal("secret_changes_state")
    who = actor.name if actor is not None else ctx.speaker_name
    roll_json = clean_json(made.json)
    fields = {"who": who, "r": made.outcome, "applied": made.applied, "label": made.label,
              "target": target.name if target is not None else None, **context}
    views = privacy.render_views(ctx, kind, {**fields, "hidden": secret})
    roll_id = record_roll(ctx, made.outcome, roll_json, who, made.label, made.applied, secret, views.public,
                          target=fields["target"])
    if secret:
        gms = tuple(g for g in privacy.recipients(ctx) if g != ctx.sender)
        render_send(ctx, kind, Addressing(private_to=ctx.sender, private_also=gms, to_room_gms=True),
                    shown=ShownRoll(roll_json, roll_id, secret=True), rendered=views, hidden=True, **fields)
        ctx.reply("hidden_roll_notice", who=who)
    else:
        render_send(ctx, kind, shown=ShownRoll(roll_json, roll_id), rendered=views, hidden=False, **fields)
    if actor is not None and made.replay:
        ctx.room.rerolls[name_key(actor.name)] = {
            "text": made.replay, "label": made.label, "stamp": stamp(ctx), "applied": made.applied,
            "outcome": roll_json.get("outcome"), "kind": roll_json.get("kind"), "total": roll_json.get("total"),
            "secret": secret, "by": ctx.sender, "target": fields["target"],
        }
    return roll_id


def last_roll(ctx: Context, actor: Character) -> dict[str, Any]:
    """The actor's last roll of this turn (of any time out of combat), or a refusal. A secret roll is
    only for the one who made it and the GMs: to anyone else there is none."""
    last = ctx.room.rerolls.get(name_key(actor.name))
    if not last or last.get("stamp") != stamp(ctx):
        raise Refusal("no_last_roll", name=actor.name)
    if last.get("secret") and last.get("by") != ctx.sender and not ctx.is_gm():
        raise Refusal("no_last_roll", name=actor.name)
    return last


def record_row(row: dict[str, Any]) -> dict[str, Any]:
    """A stored roll as the templates show it."""
    data = json.loads(row["data"])
    return {"who": data.get("who", ""), "target": data.get("target"), "label": row.get("label") or "",
            "roll": data.get("roll", {}), "full": data.get("gm_roll") or data.get("roll", {}),
            "applied": data.get("applied", []), "secret": bool(row["secret"]), "revealed": bool(row["revealed"])}
