"""Stormbringer / Elric (BRP d100) with the house rules of 002: the roll resolver.

The combat rules the table core calls live in ``stormbringer_rules`` (checks, targets,
defence effects) and ``stormbringer_combat`` (round counter, phases, surprise, damage,
experience, training); the result objects in ``stormbringer_outcomes``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from systems.base import DiceRoll, Outcome, roll_dice
from systems.dice import MAX_TEXT, DiceError, Rng
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


def _resolve_skill(req: SkillRequest, rng: Rng) -> Outcome:
    target = _target(req)
    roll = roll_check(rng, target.value)
    if req.kind == "attack":
        fumble = roll_die(rng, 100) if roll.outcome == "fumble" else None
        return AttackRoll(target, roll, req.riposte, fumble, req.comment)
    if req.kind in ("parry", "dodge"):
        blow = "critical" if req.against_critical else "success"
        effect = (parry_effect if req.kind == "parry" else dodge_effect)(blow, roll.outcome)
        cls = ParryRoll if req.kind == "parry" else DodgeRoll
        return cls(target, roll, effect, req.against_critical, req.missile, req.comment)
    if req.kind == "ambush":
        rounds = roll_die(rng, 4) if is_success(roll.outcome) else None
        return AmbushRoll(target, roll, rounds, req.comment)
    return SkillCheck(target, roll, req.comment)


def _resolve_damage(req: DamageRequest, rng: Rng) -> DamageRoll:
    weapon = req.weapon.roll(rng)
    bonus = req.bonus.roll(rng) if req.bonus is not None else None
    armour = req.armour.roll(rng) if req.armour is not None and not req.critical else None
    rolled = weapon.total + (bonus.total if bonus is not None else 0)
    result = resolve_damage(rolled, armour.total if armour is not None else 0, req.critical, req.threshold)
    wound = roll_die(rng, 100) if result.wound_table else None
    return DamageRoll(weapon, bonus, armour, result, req.threshold, wound, req.comment)


def _resolve_experience(req: ExperienceRequest, rng: Rng) -> ExperienceRoll:
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


_RESOLVERS: dict[type, Callable[[Request, Rng], Outcome]] = {
    SkillRequest: _resolve_skill,
    DamageRequest: _resolve_damage,
    ExperienceRequest: _resolve_experience,
    TrainingRequest: _resolve_training,
    InitiativeRequest: _resolve_initiative,
    PlainRequest: _resolve_plain,
}


def parse_request(text: str) -> Request | None:
    """The Stormbringer request in ``text``, or None for a plain generic expression."""
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return parse_named(text) or parse_check(text)


def resolve(req: Request, rng: Rng) -> Outcome:
    return _RESOLVERS[type(req)](req, rng)


@dataclass(frozen=True)
class StormbringerSystem:
    key: str = "stormbringer"
    name: str = "Stormbringer / Elric (BRP d100)"

    def roll(self, text: str, rng: Rng) -> Outcome | DiceRoll:
        req = parse_request(text)
        if req is None:
            return roll_dice(text, rng, self.key)
        return resolve(req, rng)


SYSTEM = StormbringerSystem()
