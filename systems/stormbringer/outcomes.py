"""The results of Stormbringer rolls: data for the templates and the ``--json`` contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from systems.dice import RollResult
from systems.stormbringer.combat import DamageResult, InitiativeSurprise
from systems.stormbringer.rules import D100Check, DefenceEffect, Target

SYSTEM_KEY = "stormbringer"


def _target_json(target: Target) -> dict:
    return {
        "skill": target.base,
        "target": target.value,
        "critical_max": target.critical_max,
        "modifiers": [m.to_dict() for m in target.modifiers],
        "factor": target.factor,
    }


def _check_json(kind: str, target: Target, roll: D100Check, comment: str) -> dict:
    return {
        "system": SYSTEM_KEY,
        "kind": kind,
        "total": roll.face,
        "dice": [roll.face],
        "outcome": roll.outcome,
        **_target_json(target),
        "comment": comment,
    }


def _faces(result: RollResult | None) -> list[int]:
    return result.faces if result is not None else []


@dataclass(slots=True)
class SkillCheck:
    """``d100 vs 46``: the basic check."""

    template: ClassVar[str] = "stormbringer/check"
    target: Target
    roll: D100Check
    comment: str = ""

    @property
    def total(self) -> int:
        return self.roll.face

    def as_json(self) -> dict:
        return _check_json("check", self.target, self.roll, self.comment)


@dataclass(slots=True)
class AttackRoll:
    """An attack; a fumble rolls 1d100 for the GM's combat-fumble table."""

    template: ClassVar[str] = "stormbringer/attack"
    target: Target
    roll: D100Check
    riposte: bool = False
    fumble_table: int | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.roll.face

    def as_json(self) -> dict:
        out = _check_json("attack", self.target, self.roll, self.comment)
        if self.fumble_table is not None:
            out["dice"].append(self.fumble_table)
        return {**out, "riposte": self.riposte, "fumble_table": self.fumble_table}


@dataclass(slots=True)
class DefenceRoll:
    """A parry or a dodge against one blow (``against_critical``: the blow was a critical)."""

    template: ClassVar[str] = "stormbringer/parry"
    target: Target
    roll: D100Check
    effect: DefenceEffect
    against_critical: bool = False
    missile: str = ""  # "", "missile", "thrown" or "arrow"
    comment: str = ""

    kind: ClassVar[str] = "parry"

    @property
    def total(self) -> int:
        return self.roll.face

    def as_json(self) -> dict:
        out = _check_json(self.kind, self.target, self.roll, self.comment)
        return {
            **out,
            "against_critical": self.against_critical,
            "missile": self.missile,
            "stops_blow": self.effect.stops_blow,
            "attacker_weapon_breaks": self.effect.attacker_weapon_breaks,
            "both_weapons_destroyed": self.effect.both_weapons_destroyed,
        }


@dataclass(slots=True)
class ParryRoll(DefenceRoll):
    template: ClassVar[str] = "stormbringer/parry"
    kind: ClassVar[str] = "parry"


@dataclass(slots=True)
class DodgeRoll(DefenceRoll):
    template: ClassVar[str] = "stormbringer/dodge"
    kind: ClassVar[str] = "dodge"


@dataclass(slots=True)
class DamageRoll:
    """Weapon dice, STR bonus and armour rolled, then resolved; a wound-table d100 when due."""

    template: ClassVar[str] = "stormbringer/damage"
    weapon: RollResult
    bonus: RollResult | None
    armour: RollResult | None
    result: DamageResult
    threshold: int | None = None
    wound_table: int | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.result.hp_lost

    @property
    def outcome(self) -> str:
        if self.result.hp_lost == 0:
            return "absorbed"
        return "major_wound" if self.result.major_wound else "wound"

    def as_json(self) -> dict:
        r = self.result
        dice = _faces(self.weapon) + _faces(self.bonus) + _faces(self.armour)
        if self.wound_table is not None:
            dice.append(self.wound_table)
        return {
            "system": SYSTEM_KEY,
            "kind": "damage",
            "total": r.hp_lost,
            "dice": dice,
            "outcome": self.outcome,
            "rolled": r.rolled,
            "critical": r.critical,
            "inflicted": r.inflicted,
            "armour": self.armour.total if self.armour is not None else 0,
            "absorbed": r.absorbed,
            "hp_lost": r.hp_lost,
            "major_wound": r.major_wound,
            "threshold": self.threshold,
            "stunned": r.stunned,
            "wound_table": self.wound_table,
            "comment": self.comment,
        }


@dataclass(slots=True)
class ExperienceRoll:
    """1d100 plus the INT bonus over the skill; on a win, 1d10 more points."""

    template: ClassVar[str] = "stormbringer/experience"
    skill: int
    intelligence: int
    face: int
    bonus: int
    gain: int | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.face + self.bonus

    @property
    def improved(self) -> bool:
        return self.gain is not None

    @property
    def new_skill(self) -> int:
        return self.skill + (self.gain or 0)

    def as_json(self) -> dict:
        return {
            "system": SYSTEM_KEY,
            "kind": "experience",
            "total": self.total,
            "dice": [self.face] + ([self.gain] if self.gain is not None else []),
            "outcome": "improved" if self.improved else "not_improved",
            "skill": self.skill,
            "intelligence": self.intelligence,
            "bonus": self.bonus,
            "gain": self.gain or 0,
            "new_skill": self.new_skill,
            "comment": self.comment,
        }


@dataclass(slots=True)
class TrainingRoll:
    """A week with a master: 1d6-2 to attack and 1d6-2 to parry."""

    template: ClassVar[str] = "stormbringer/training"
    attack_face: int
    parry_face: int
    attack_skill: int | None = None
    parry_skill: int | None = None
    comment: str = ""

    @property
    def attack_gain(self) -> int:
        return self.attack_face - 2

    @property
    def parry_gain(self) -> int:
        return self.parry_face - 2

    @property
    def total(self) -> int:
        return self.attack_gain + self.parry_gain

    @property
    def outcome(self) -> str:
        if self.total > 0:
            return "improved"
        return "worsened" if self.total < 0 else "unchanged"

    def as_json(self) -> dict:
        return {
            "system": SYSTEM_KEY,
            "kind": "training",
            "total": self.total,
            "dice": [self.attack_face, self.parry_face],
            "outcome": self.outcome,
            "attack_gain": self.attack_gain,
            "parry_gain": self.parry_gain,
            "attack_skill": self.attack_skill,
            "parry_skill": self.parry_skill,
            "comment": self.comment,
        }


@dataclass(slots=True)
class AmbushRoll:
    """The Emboscada check; on a success, the GM's 1d4-1 rounds of surprise."""

    template: ClassVar[str] = "stormbringer/ambush"
    target: Target
    roll: D100Check
    rounds_face: int | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.roll.face

    @property
    def rounds(self) -> int:
        return 0 if self.rounds_face is None else self.rounds_face - 1

    def as_json(self) -> dict:
        out = _check_json("ambush", self.target, self.roll, self.comment)
        if self.rounds_face is not None:
            out["dice"].append(self.rounds_face)
        return {**out, "surprise_rounds": self.rounds}


@dataclass(slots=True)
class SurpriseRoll:
    """Just the 1d4-1 rounds of ambush surprise."""

    template: ClassVar[str] = "stormbringer/surprise"
    face: int
    comment: str = ""

    @property
    def total(self) -> int:
        return self.face - 1

    def as_json(self) -> dict:
        return {
            "system": SYSTEM_KEY,
            "kind": "surprise",
            "total": self.total,
            "dice": [self.face],
            "outcome": "surprise" if self.total > 0 else "no_surprise",
            "surprise_rounds": self.total,
            "comment": self.comment,
        }


@dataclass(slots=True)
class InitiativeRoll:
    """Surprise by initiative: 1d10 + DEX each; the attacker needs the higher total."""

    template: ClassVar[str] = "stormbringer/initiative"
    attacker_dex: int
    defender_dex: int
    result: InitiativeSurprise
    comment: str = ""

    @property
    def total(self) -> int:
        return self.result.attacker_total

    def as_json(self) -> dict:
        r = self.result
        return {
            "system": SYSTEM_KEY,
            "kind": "initiative",
            "total": r.attacker_total,
            "dice": [r.attacker_die, r.defender_die],
            "outcome": "attacker" if r.attacker_wins else "defender",
            "attacker_dex": self.attacker_dex,
            "defender_dex": self.defender_dex,
            "attacker_total": r.attacker_total,
            "defender_total": r.defender_total,
            "comment": self.comment,
        }


@dataclass(slots=True)
class DemonObjectRoll:
    """Striking a demon object: 1d100, above 50 the weapon breaks."""

    template: ClassVar[str] = "stormbringer/demon"
    face: int
    breaks: bool
    comment: str = ""

    @property
    def total(self) -> int:
        return self.face

    def as_json(self) -> dict:
        return {
            "system": SYSTEM_KEY,
            "kind": "demon_object",
            "total": self.face,
            "dice": [self.face],
            "outcome": "weapon_breaks" if self.breaks else "weapon_holds",
            "comment": self.comment,
        }
