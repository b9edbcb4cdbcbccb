"""Stormbringer rolls from the sheet and the table's state.

``/tiro Ver`` or ``/tiro Espada vs 40`` rolls d100 under the sheet's percentage (``contra`` keeps
meaning ``vs`` here). In a running combat, unless the roll says ``sin estado``, an attack skill gets
-20% per attack the character already made this round and a parry -20% per parry already tried (the
counters ``!ataque`` and ``!parada`` keep); a stunned combatant may not roll. A skill missing from
the sheet has no base chance the bot could know: it asks for it.
"""

from __future__ import annotations

from typing import Any

from bot.core.api import (
    Character,
    Combat,
    Context,
    RollRequest,
    SheetRoll,
    find_field,
    name_key,
    require_roller_up,
    shown_name,
    vocab,
)
from bot.games.stormbringer import sheet as sh
from bot.games.stormbringer import state as st
from bot.games.stormbringer.actions import (
    Weapon,
    able,
    add_blow,
    attack_weapon,
    check_slot,
    check_weapon,
    missed,
    refuse,
)
from bot.games.stormbringer.sheet import ATTACK_SKILLS, CHARACTERISTICS, PARRY_SKILLS, SKILL_KEYS
from systems.refusal import Refusal
from systems.stormbringer.combat import RoundCounter
from systems.stormbringer.outcomes import AmbushRoll, SkillCheck
from systems.stormbringer.resolver import resolve_check, skill_request
from systems.stormbringer.rules import unfit_modifier

_SUCCESSES = ("success", "critical")
SKILL_FIELDS = ("ataque", "parada", "esquiva", "emboscada", "ver")
MAX_CHANCE_DIGITS = 3


class StormbringerSheetRules:
    def roll(self, ctx: Context, request: RollRequest) -> SheetRoll | None:
        actor, text, auto = request.actor, request.text, request.auto
        words = text.split()
        key, used = _leading_skill(ctx, words)
        if key is None or actor is None or (len(words) > used and words[used].rstrip("%").isdigit()):
            return None  # ``ataque 55 x2``: the system's own syntax, with the percentage given
        given, rest_words = _given_chance(words[used:])
        value = given if given is not None else actor.sheet.get(key)
        if not isinstance(value, int):
            raise Refusal("stormbringer/table_refused", code="no_skill", name=actor.name, skill=key)
        rest = " ".join(rest_words)
        require_roller_up(ctx, request, actor)
        combat = ctx.room.combat
        verb = f"d100 vs {value}"
        count = None
        if combat is not None and combat.started:
            if st.stunned(combat, actor.name):
                raise Refusal("stormbringer/table_refused", code="stunned", name=actor.name)
            count = st.counter(combat, actor.name)
            if auto and key in ATTACK_SKILLS and count.attacks:
                verb = f"ataque {value} x{count.attacks + 1}"
            elif auto and key in PARRY_SKILLS and count.parries:
                verb = f"parada {value} x{count.parries + 1}"
        weapon = None
        if combat is not None and count is not None and key in ATTACK_SKILLS:
            weapon = _attack_checks(combat, actor, count, key)
            if sh.unfit(actor, weapon.field):
                rest = f"{unfit_modifier(value).value:+d} {rest}"
        full = f"{verb} {rest}".strip()
        outcome = ctx.system.roll(full, ctx.rng)
        result = outcome.as_json()
        if combat is not None and count is not None and key in ATTACK_SKILLS | PARRY_SKILLS:
            _count_action(actor, combat, count, key, result)
        if combat is not None and weapon is not None:
            if result.get("outcome") in _SUCCESSES:
                add_blow(combat, actor, None, key, result["outcome"] == "critical", weapon)
            else:
                missed(combat)
        applied = [(m["reason"], m["value"]) for m in result.get("modifiers", [])
                   if m["reason"] in ("extra_attack", "extra_parry")]
        return SheetRoll(outcome, applied, f"{shown_name(ctx.game, key)} {value}%", full, shown=result)


def _given_chance(words: list[str]) -> tuple[int | None, list[str]]:
    """``vs N`` / ``contra N`` after the skill: the chance to use instead of the sheet's, and the rest."""
    for i, word in enumerate(words[:-1]):
        number = words[i + 1].rstrip("%")
        if name_key(word) in vocab.AGAINST and number.isdigit() and len(number) <= MAX_CHANCE_DIGITS:
            return int(number), [*words[:i], *words[i + 2:]]
    return None, words


def _attack_checks(combat: Combat, actor: Character, count: RoundCounter, key: str) -> Weapon:
    """A named attack in a running combat is the round's attack with the weapon in hand: refused as
    ``!ataque`` would refuse it."""
    able(combat, actor, "attack")
    weapon = attack_weapon(actor, key, False, False, False)
    check_weapon(combat, actor, weapon)
    check_slot(count, actor, weapon)
    return weapon


def _count_action(actor: Character, combat: Combat, count: RoundCounter, key: str, roll: dict[str, Any]) -> None:
    """A named attack or parry in a running combat counts towards the round's later ones (-20% each)."""
    if key in ATTACK_SKILLS:
        count.record_attack()
    else:
        count.record_parry(roll.get("outcome") in _SUCCESSES, sh.master(actor))
    st.save_counter(combat, actor.name, count)


def _leading_skill(ctx: Context, words: list[str]) -> tuple[str | None, int]:
    for cut in range(min(len(words), 4), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in SKILL_KEYS or key in CHARACTERISTICS:
            return (key, cut) if key in SKILL_KEYS else (None, 0)
    return None, 0


def skill_value(character: Character, words: list[str], default: str,
                accepted: tuple[str, ...] = SKILL_FIELDS) -> tuple[int | None, str | None, list[str]]:
    """The sheet's percentage (of a skill among ``accepted``, else ``default``), the skill used and the
    words after it; None and all the words when they start with a percentage of their own."""
    if words and words[0].rstrip("%").isdigit():
        return None, None, words
    skill = default
    if words and name_key(words[0]) in accepted:
        skill, words = name_key(words[0]), words[1:]
    if not isinstance(character.sheet.get(skill), int):
        raise refuse("no_skill", name=character.name, skill=skill)
    return character.sheet[skill], skill, words


def ambush_check(ctx: Context, typed: str, base: int | None) -> AmbushRoll:
    """An ambusher's roll under ``base`` (the sheet's Emboscada) or the percentage ``typed``."""
    check = resolve_check(skill_request("check", typed, base), ctx.rng)
    return AmbushRoll(check.target, check.roll)


def sheet_check(ctx: Context, character: Character, field: str, given: int | None = None) -> SkillCheck:
    """1D100 under the sheet's ``field`` (Ver, POD) as a percentage, or under ``given`` (the percentage the
    GM typed, as the refusal of a missing field suggests)."""
    if given is None and not isinstance(character.sheet.get(field), int):
        raise refuse("no_skill", name=character.name, skill=field)
    return resolve_check(skill_request("check", "", character.sheet[field] if given is None else given), ctx.rng)
