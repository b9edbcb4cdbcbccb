"""Stormbringer / Elric (BRP d100) with the house rules of 002: the roll resolver.

The combat rules the table core calls live in ``stormbringer_rules`` (checks, targets,
defence effects) and ``stormbringer_combat`` (round counter, phases, surprise, damage,
experience, training); the result objects in ``stormbringer_outcomes``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from systems.base import DiceRoll, Outcome, roll_dice
from systems.dice import MAX_TEXT, DiceError, Rng, minus_signs
from systems.stormbringer.combat import (
    demon_object_breaks,
    experience_improves,
    initiative_surprise,
    intelligence_bonus,
    resolve_damage,
)
from systems.stormbringer.outcomes import (
    AmbushRoll,
    AttackRoll,
    DamageRoll,
    DemonObjectRoll,
    DodgeRoll,
    ExperienceRoll,
    InitiativeRoll,
    ParryRoll,
    SkillCheck,
    SurpriseRoll,
    TrainingRoll,
)
from systems.stormbringer.rules import (
    Target,
    attack_target,
    dodge_effect,
    dodge_target,
    is_success,
    parry_effect,
    parry_target,
    roll_check,
    roll_die,
)
from systems.stormbringer.syntax import (
    DamageRequest,
    ExperienceRequest,
    InitiativeRequest,
    PlainRequest,
    Request,
    SkillRequest,
    TrainingRequest,
    parse_check,
    parse_named,
    read_damage,
    read_skill,
)


def _target(req: SkillRequest) -> Target:
    mods = tuple(req.modifiers)
    if req.kind == "attack":
        return attack_target(req.base, mods, req.ordinal - 1, req.second_weapon, req.ambidextrous, req.factor)
    if req.kind == "parry":
        return parry_target(req.base, mods, req.ordinal - 1, bool(req.missile))
    if req.kind == "dodge":
        return dodge_target(req.base, mods, bool(req.missile))
    return Target(req.base, mods)


def resolve_attack(req: SkillRequest, rng: Rng) -> AttackRoll:
    target = _target(req)
    roll = roll_check(rng, target.value)
    fumble = roll_die(rng, 100) if roll.outcome == "fumble" else None
    return AttackRoll(target, roll, req.riposte, fumble, req.comment)


def resolve_parry(req: SkillRequest, rng: Rng) -> ParryRoll:
    target = _target(req)
    roll = roll_check(rng, target.value)
    effect = parry_effect("critical" if req.against_critical else "success", roll.outcome)
    return ParryRoll(target, roll, effect, req.against_critical, req.missile, req.comment)


def resolve_dodge(req: SkillRequest, rng: Rng) -> DodgeRoll:
    target = _target(req)
    roll = roll_check(rng, target.value)
    effect = dodge_effect("critical" if req.against_critical else "success", roll.outcome)
    return DodgeRoll(target, roll, effect, req.against_critical, req.missile, req.comment)


def resolve_ambush(req: SkillRequest, rng: Rng) -> AmbushRoll:
    target = _target(req)
    roll = roll_check(rng, target.value)
    rounds = roll_die(rng, 4) if is_success(roll.outcome) else None
    return AmbushRoll(target, roll, rounds, req.comment)


def resolve_check(req: SkillRequest, rng: Rng) -> SkillCheck:
    target = _target(req)
    return SkillCheck(target, roll_check(rng, target.value), req.comment)


_SKILL_RESOLVERS: dict[str, Callable[[SkillRequest, Rng], Outcome]] = {
    "attack": resolve_attack, "parry": resolve_parry, "dodge": resolve_dodge, "ambush": resolve_ambush,
}


def _resolve_skill(req: SkillRequest, rng: Rng) -> Outcome:
    return _SKILL_RESOLVERS.get(req.kind, resolve_check)(req, rng)


def resolve_damage_roll(req: DamageRequest, rng: Rng) -> DamageRoll:
    weapon = req.weapon.roll(rng)
    bonus = req.bonus.roll(rng) if req.bonus is not None else None
    armour = req.armour.roll(rng) if req.armour is not None and not req.critical else None
    rolled = weapon.total + (bonus.total if bonus is not None else 0)
    result = resolve_damage(rolled, armour.total if armour is not None else 0, req.critical, req.threshold)
    wound = roll_die(rng, 100) if result.wound_table else None
    return DamageRoll(weapon, bonus, armour, result, req.threshold, wound, req.comment)


def resolve_experience(req: ExperienceRequest, rng: Rng) -> ExperienceRoll:
    face = roll_die(rng, 100)
    gain = roll_die(rng, 10) if experience_improves(face, req.skill, req.intelligence) else None
    return ExperienceRoll(req.skill, req.intelligence, face, intelligence_bonus(req.intelligence), gain, req.comment)


def _resolve_training(req: TrainingRequest, rng: Rng) -> TrainingRoll:
    attack, parry = roll_die(rng, 6), roll_die(rng, 6)
    return TrainingRoll(attack, parry, req.attack, req.parry, req.comment)


def _resolve_initiative(req: InitiativeRequest, rng: Rng) -> InitiativeRoll:
    result = initiative_surprise(req.attacker_dex, req.defender_dex, rng)
    return InitiativeRoll(req.attacker_dex, req.defender_dex, result, req.comment)


def _resolve_plain(req: PlainRequest, rng: Rng) -> Outcome:
    if req.kind == "surprise":
        return SurpriseRoll(roll_die(rng, 4), req.comment)
    face = roll_die(rng, 100)
    return DemonObjectRoll(face, demon_object_breaks(face), req.comment)


def resolve(req: Request, rng: Rng) -> Outcome:
    if isinstance(req, SkillRequest):
        return _resolve_skill(req, rng)
    if isinstance(req, DamageRequest):
        return resolve_damage_roll(req, rng)
    if isinstance(req, ExperienceRequest):
        return resolve_experience(req, rng)
    if isinstance(req, TrainingRequest):
        return _resolve_training(req, rng)
    if isinstance(req, InitiativeRequest):
        return _resolve_initiative(req, rng)
    return _resolve_plain(req, rng)


def parse_request(text: str) -> Request | None:
    """The Stormbringer request in ``text``, or None for a plain generic expression."""
    text = _prepared(text)
    return parse_named(text) or parse_check(text)


def skill_request(kind: str, options: str, base: int | None = None) -> SkillRequest:
    """The table's roll of ``kind`` under ``base`` (a sheet's) or the percentage ``options`` starts with,
    with the options the player wrote (``read_skill``)."""
    return read_skill(kind, _prepared(options), base)


def damage_request(options: str) -> DamageRequest:
    """The damage the GM wrote (``read_damage``)."""
    return read_damage(_prepared(options))


def _prepared(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return minus_signs(text)


@dataclass(frozen=True)
class StormbringerSystem:
    key: str = "stormbringer"
    name: str = "Stormbringer / Elric (BRP d100)"

    def roll(self, text: str, rng: Rng) -> Outcome | DiceRoll:
        req = parse_request(text)
        if req is None:
            return roll_dice(minus_signs(text), rng, self.key)
        return resolve(req, rng)


SYSTEM = StormbringerSystem()
