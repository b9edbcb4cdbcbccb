"""Sistema Sombra rolls from the sheet and the table's state.

``/tiro Pistola`` or ``/tiro Pelea dificil`` rolls 3d10 under the sheet's skill (0-30), with the
clauses of the system after it. Unless the roll says ``sin estado``, the character's wounds add their
penalty to the roll (roll-under: positive is harder), a light wound on an arm an attack uses adds its
own (a serious one leaves that arm useless: no attack that needs it; ``systems/sombra/wounds.py``), and a
stunned character (light head wound) rolls at half the skill; the reply names each one. A character
unconscious or helpless from a wound may not roll.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.core.api import (
    Character,
    Context,
    RollRequest,
    SheetRoll,
    find_field,
    require_roller_up,
    shown_name,
)
from bot.games.sombra.sheet import ATTACK_SKILLS, GENERIC_FIRE, SKILLS, fire_skill, sheet_int, wound_effect
from bot.games.sombra.state import DISADVANTAGE, STATE_PENALTY, UNBALANCED, SombraState
from systems.refusal import Refusal
from systems.sombra.resolver import SombraCheck, SombraSystem, check_request, check_roll
from systems.sombra.rules import TWO_HANDED_SKILLS, Modifier
from systems.sombra.syntax import Clauses
from systems.sombra.wounds import combined_effect


class SombraSheetRules:
    def roll(self, ctx: Context, request: RollRequest) -> SheetRoll | None:
        actor, text, auto = request.actor, request.text, request.auto
        words = text.split()
        key, used = leading_skill(ctx, words)
        if actor is None:
            return None
        if key is None:
            return _plain_check(ctx, actor, text) if auto else None
        if key == GENERIC_FIRE and sheet_int(actor, key) is None:
            key = fire_skill(actor, None)  # 004 names each firearm's skill: «disparo» is the sheet's firearm
        value = actor.sheet.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise Refusal("sombra/table_missing", name=actor.name, fields=[key])
        require_roller_up(ctx, request, actor)
        effect = combined_effect(dict(actor.sheet.get("heridas") or {}))
        applied: list[tuple[str, Any]] = []
        if auto:
            arms = effect.arm_penalty(key in TWO_HANDED_SKILLS) if key in ATTACK_SKILLS else 0
            if arms is None:
                raise Refusal("sombra/table_cannot_act", name=actor.name, effect=effect,
                              two_handed=key in TWO_HANDED_SKILLS)
            if effect.penalty:
                applied.append(("heridas", effect.penalty))
            if arms:
                applied.append(("herida_brazo", arms))
            combat = ctx.room.combat
            if combat is not None and SombraState.of(combat).stunned(actor.name):
                applied.append(("aturdimiento", value - value // 2))
            state = SombraState.of(combat).manoeuvre(actor.name) if combat is not None else None
            if state and state["kind"] in (UNBALANCED, DISADVANTAGE):
                applied.append((state["kind"], STATE_PENALTY))
        outcome = check_roll(check_request(value, " ".join(words[used:]), extra=_modifiers(applied)), ctx.rng)
        replay = " ".join(["3d10", "vs", str(value), *words[used:]])
        return SheetRoll(outcome, applied, f"{shown_name(ctx.game, key)} {value}", replay)


def _plain_check(ctx: Context, actor: Character, text: str) -> SheetRoll | None:
    """``3d10 vs 14`` by a wounded character: the wounds' penalty added (a check only)."""
    effect = combined_effect(dict(actor.sheet.get("heridas") or {}))
    if not effect.penalty:
        return None
    system = ctx.system
    assert isinstance(system, SombraSystem)
    applied = [("heridas", effect.penalty)]
    outcome = system.roll_with(text, ctx.rng, tuple(applied))
    return SheetRoll(outcome, applied if isinstance(outcome, SombraCheck) else [], "", text)


def leading_skill(ctx: Context, words: list[str], among: tuple[str, ...] = SKILLS) -> tuple[str | None, int]:
    """The skill (one of ``among``) the first words name, aliases and accents allowed, and how many words."""
    for cut in range(min(len(words), 3), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in among:
            return key, cut
    return None, 0


def _modifiers(applied: Iterable[tuple[str, int]]) -> tuple[Modifier, ...]:
    return tuple(Modifier(name, value) for name, value in applied)


def roll_check(ctx: Context, who: Character, value: int, options: str = "", *, arms: bool | None,
               clauses: Clauses | None = None, extra: tuple[tuple[str, int], ...] = ()) -> tuple[SombraCheck, int, bool]:
    """``who`` rolls 3d10 under ``value`` with the ``clauses`` the table sets and the ones the player wrote
    (``options``); the wounds' penalty added, the arms' too when the action uses them (``arms``: two-handed
    or not; None: no arm), halved when stunned. Returns the roll, the number aimed at and whether stunned."""
    combat = ctx.room.combat
    effect = wound_effect(who)
    hands = effect.arm_penalty(arms) if arms is not None else 0
    if hands is None:
        raise Refusal("sombra/table_cannot_act", name=who.name, effect=effect, two_handed=bool(arms))
    stunned = bool(combat and SombraState.of(combat).stunned(who.name))
    aim = value // 2 if stunned else value
    request = check_request(aim, options, modifier=effect.penalty + hands, clauses=clauses, extra=_modifiers(extra))
    return check_roll(request, ctx.rng), aim, stunned
