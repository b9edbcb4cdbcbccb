"""Stormbringer / Elric (BRP d100) checks: the pure arithmetic of the house rules in 002.

A check is one d100 rolled under a percentage. The face 100 is the "00".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from systems.dice import DiceError, Rng

MIN_SKILL = 5
MAX_SKILL = 999
MAX_MODIFIER = 999
FUMBLE_99_LIMIT = 100
EXTRA_ATTACK_PENALTY = 20
EXTRA_PARRY_PENALTY = 20
SECOND_WEAPON_PENALTY = 25
LOWER_GROUND_PENALTY = 25
MASTER_SKILL = 90
MAX_ACTIONS_IN_ROUND = 10

GRADES = ("fumble", "failure", "success", "critical")


def roll_die(rng: Rng, sides: int) -> int:
    """One face, by the dice engine's own formula (so FaceRng can script it)."""
    return int(rng.random() * sides) + 1


def bounded(value: int, limit: int, code: str) -> int:
    """Refuse user numbers beyond ``limit`` in absolute value."""
    if abs(value) > limit:
        raise DiceError(f"stormbringer.{code}", limit=limit)
    return value


def effective_skill(percent: int) -> int:
    """A percentage never counts for less than 5."""
    return max(MIN_SKILL, percent)


def critical_max(target: int) -> int:
    """Highest critical face: a tenth of the target, rounded down (46 -> 04)."""
    return target // 10


def is_fumble(face: int, target: int) -> bool:
    """00 always fumbles; 99 too while the target is 100 or less (the Elric reading)."""
    return face == 100 or (face == 99 and target <= FUMBLE_99_LIMIT)


def grade(face: int, target: int) -> str:
    """The outcome of a d100 face (1-100) against an effective target."""
    if is_fumble(face, target):
        return "fumble"
    if face <= critical_max(target):
        return "critical"
    if face <= target:
        return "success"
    return "failure"


def is_success(outcome: str) -> bool:
    return outcome in ("success", "critical")


@dataclass(frozen=True, slots=True)
class Modifier:
    """One change to a percentage: ``reason`` is a code the templates name."""

    reason: str
    value: int

    def to_dict(self) -> dict:
        return {"reason": self.reason, "value": self.value}

    @classmethod
    def from_dict(cls, data: dict) -> Modifier:
        return cls(str(data["reason"]), int(data["value"]))


@dataclass(frozen=True, slots=True)
class Target:
    """How a percentage was reached: base, additive modifiers, then halved or doubled, floor 5."""

    base: int
    modifiers: tuple[Modifier, ...] = ()
    factor: str = ""  # "", "half" or "double"

    @property
    def value(self) -> int:
        raw = self.base + sum(m.value for m in self.modifiers)
        if self.factor == "half":
            raw //= 2
        elif self.factor == "double":
            raw *= 2
        return effective_skill(raw)

    @property
    def critical_max(self) -> int:
        return critical_max(self.value)

    def to_dict(self) -> dict:
        return {
            "base": self.base,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "factor": self.factor,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Target:
        mods = tuple(Modifier.from_dict(m) for m in data.get("modifiers", ()))
        return cls(int(data["base"]), mods, str(data.get("factor", "")))


@dataclass(frozen=True, slots=True)
class D100Check:
    """A rolled check: the face (1-100), the target and the grade."""

    dice_sides: ClassVar[dict[str, int]] = {"face": 100}
    face: int
    target: int
    outcome: str

    @property
    def succeeded(self) -> bool:
        return is_success(self.outcome)


def check(face: int, target: int) -> D100Check:
    return D100Check(face, target, grade(face, target))


def roll_check(rng: Rng, target: int) -> D100Check:
    return check(roll_die(rng, 100), target)


def attack_target(
    skill: int,
    extra: tuple[Modifier, ...] = (),
    attacks_before: int = 0,
    second_weapon: bool = False,
    ambidextrous: bool = False,
    factor: str = "",
) -> Target:
    """Attack %: each earlier attack this round -20%, a second weapon -25% unless ambidextrous.

    ``factor`` "half" behind a fortification, "double" against an enemy caught unawares.
    """
    mods = list(extra)
    if attacks_before:
        mods.append(Modifier("extra_attack", -EXTRA_ATTACK_PENALTY * attacks_before))
    if second_weapon and not ambidextrous:
        mods.append(Modifier("second_weapon", -SECOND_WEAPON_PENALTY))
    return Target(skill, tuple(mods), factor)


def parry_target(
    skill: int,
    extra: tuple[Modifier, ...] = (),
    parries_before: int = 0,
    missile: bool = False,
) -> Target:
    """Parry %: -20% per parry already tried this round; the result is halved against missiles."""
    mods = list(extra)
    if parries_before:
        mods.append(Modifier("extra_parry", -EXTRA_PARRY_PENALTY * parries_before))
    return Target(skill, tuple(mods), "half" if missile else "")


def dodge_target(skill: int, extra: tuple[Modifier, ...] = (), thrown: bool = False) -> Target:
    """Dodge %: halved against a thrown weapon (arrows and sling stones cannot be dodged)."""
    return Target(skill, tuple(extra), "half" if thrown else "")


@dataclass(frozen=True, slots=True)
class DefenceEffect:
    """What a parry or a dodge does against one blow."""

    stops_blow: bool
    attacker_weapon_breaks: bool = False
    both_weapons_destroyed: bool = False


def parry_effect(attack: str, parry: str) -> DefenceEffect:
    """A critical blow is parried only by a critical parry, and then both weapons are destroyed;
    a critical parry of an ordinary blow breaks the attacking weapon."""
    if attack == "critical":
        stops = parry == "critical"
        return DefenceEffect(stops, both_weapons_destroyed=stops)
    if not is_success(attack):
        return DefenceEffect(True)
    return DefenceEffect(is_success(parry), attacker_weapon_breaks=parry == "critical")


def dodge_effect(attack: str, dodge: str) -> DefenceEffect:
    """A critical blow is dodged only by a critical dodge."""
    if attack == "critical":
        return DefenceEffect(dodge == "critical")
    return DefenceEffect(not is_success(attack) or is_success(dodge))


def unfit_modifier(base: int) -> Modifier:
    """A weapon used without the FUE and DES it needs attacks and parries at 5%: the change that brings
    ``base`` there."""
    return Modifier("unfit", MIN_SKILL - base)


def is_master(attack_skill: int, parry_skill: int) -> bool:
    """A weapon master has 90% or more in both attack and parry with that weapon."""
    return attack_skill >= MASTER_SKILL and parry_skill >= MASTER_SKILL
