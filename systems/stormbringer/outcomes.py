"""The results of Stormbringer rolls: data for the templates and the ``--json`` contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from systems.dice import RollResult
from systems.jsonable import Jsonable, JsonShape
from systems.stormbringer.combat import DamageResult, InitiativeSurprise
from systems.stormbringer.rules import D100Check, DefenceEffect, Target

SYSTEM_KEY = "stormbringer"


ROLL = JsonShape("system", "kind", "total", "dice", "outcome", const={"system": SYSTEM_KEY})
"""What every Stormbringer roll shows first."""
CHECK = JsonShape(
    ROLL, "outcome=roll.outcome", "skill=target.base", "target=target.value", "critical_max=target.critical_max",
    "modifiers", "factor=target.factor", "comment",
    derived={"dice": lambda check: [check.roll.face], "modifiers": lambda check: [m.to_dict() for m in check.target.modifiers]})
"""A d100 check against a target (the skill, its modifiers and the critical range)."""


def _faces(result: RollResult | None) -> list[int]:
    return result.faces if result is not None else []


def _and_face(dice: list[int], face: int | None) -> list[int]:
    """``dice`` and one more d100 (a fumble's or a wound's table), when it was rolled."""
    return dice if face is None else [*dice, face]


@dataclass(slots=True)
class SkillCheck(Jsonable):
    """``d100 vs 46``: the basic check."""

    template: ClassVar[str] = "stormbringer/check"
    kind: ClassVar[str] = "check"
    json_shape: ClassVar[JsonShape] = CHECK
    target: Target
    roll: D100Check
    comment: str = ""

    @property
    def total(self) -> int:
        return self.roll.face



@dataclass(slots=True)
class AttackRoll(Jsonable):
    """An attack; a fumble rolls 1d100 for the GM's combat-fumble table."""

    template: ClassVar[str] = "stormbringer/attack"
    kind: ClassVar[str] = "attack"
    json_shape: ClassVar[JsonShape] = JsonShape(CHECK, "riposte", "fumble_table",
                                                derived={"dice": lambda a: _and_face([a.roll.face], a.fumble_table)})
    target: Target
    roll: D100Check
    riposte: bool = False
    fumble_table: int | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.roll.face



@dataclass(slots=True)
class DefenceRoll(Jsonable):
    """A parry or a dodge against one blow (``against_critical``: the blow was a critical)."""

    template: ClassVar[str] = "stormbringer/parry"
    json_shape: ClassVar[JsonShape] = JsonShape(
        CHECK, "against_critical", "missile", "stops_blow=effect.stops_blow",
        "attacker_weapon_breaks=effect.attacker_weapon_breaks", "both_weapons_destroyed=effect.both_weapons_destroyed")
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



@dataclass(slots=True)
class ParryRoll(DefenceRoll):
    template: ClassVar[str] = "stormbringer/parry"
    kind: ClassVar[str] = "parry"


@dataclass(slots=True)
class DodgeRoll(DefenceRoll):
    template: ClassVar[str] = "stormbringer/dodge"
    kind: ClassVar[str] = "dodge"


@dataclass(slots=True)
class DamageRoll(Jsonable):
    """Weapon dice, STR bonus and armour rolled, then resolved; a wound-table d100 when due."""

    template: ClassVar[str] = "stormbringer/damage"
    kind: ClassVar[str] = "damage"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "rolled=result.rolled", "critical=result.critical", "inflicted=result.inflicted", "armour",
        "absorbed=result.absorbed", "hp_lost=result.hp_lost", "major_wound=result.major_wound", "threshold",
        "stunned=result.stunned", "wound_table", "comment",
        derived={"dice": lambda d: _and_face(_faces(d.weapon) + _faces(d.bonus) + _faces(d.armour), d.wound_table),
                 "armour": lambda d: d.armour.total if d.armour is not None else 0})
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



@dataclass(slots=True)
class ExperienceRoll(Jsonable):
    """1d100 plus the INT bonus over the skill; on a win, 1d10 more points."""

    template: ClassVar[str] = "stormbringer/experience"
    kind: ClassVar[str] = "experience"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "skill", "intelligence", "bonus", "gain", "new_skill", "comment",
        derived={"dice": lambda e: _and_face([e.face], e.gain),
                 "outcome": lambda e: "improved" if e.improved else "not_improved", "gain": lambda e: e.gain or 0})
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



@dataclass(slots=True)
class TrainingRoll(Jsonable):
    """A week with a master: 1d6-2 to attack and 1d6-2 to parry."""

    template: ClassVar[str] = "stormbringer/training"
    kind: ClassVar[str] = "training"
    json_shape: ClassVar[JsonShape] = JsonShape(ROLL, "attack_gain", "parry_gain", "attack_skill", "parry_skill", "comment",
                                                derived={"dice": lambda t: [t.attack_face, t.parry_face]})
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



@dataclass(slots=True)
class AmbushRoll(Jsonable):
    """The Emboscada check; on a success, the GM's 1d4-1 rounds of surprise."""

    template: ClassVar[str] = "stormbringer/ambush"
    kind: ClassVar[str] = "ambush"
    json_shape: ClassVar[JsonShape] = JsonShape(CHECK, "surprise_rounds=rounds",
                                                derived={"dice": lambda a: _and_face([a.roll.face], a.rounds_face)})
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



@dataclass(slots=True)
class SurpriseRoll(Jsonable):
    """Just the 1d4-1 rounds of ambush surprise."""

    template: ClassVar[str] = "stormbringer/surprise"
    kind: ClassVar[str] = "surprise"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "surprise_rounds=total", "comment",
        derived={"dice": lambda r: [r.face], "outcome": lambda r: "surprise" if r.total > 0 else "no_surprise"})
    face: int
    comment: str = ""

    @property
    def total(self) -> int:
        return self.face - 1



@dataclass(slots=True)
class InitiativeRoll(Jsonable):
    """Surprise by initiative: 1d10 + DEX each; the attacker needs the higher total."""

    template: ClassVar[str] = "stormbringer/initiative"
    kind: ClassVar[str] = "initiative"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "attacker_dex", "defender_dex", "attacker_total=result.attacker_total",
        "defender_total=result.defender_total", "comment",
        derived={"dice": lambda i: [i.result.attacker_die, i.result.defender_die],
                 "outcome": lambda i: "attacker" if i.result.attacker_wins else "defender"})
    attacker_dex: int
    defender_dex: int
    result: InitiativeSurprise
    comment: str = ""

    @property
    def total(self) -> int:
        return self.result.attacker_total



@dataclass(slots=True)
class DemonObjectRoll(Jsonable):
    """Striking a demon object: 1d100, above 50 the weapon breaks."""

    template: ClassVar[str] = "stormbringer/demon"
    kind: ClassVar[str] = "demon_object"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "comment",
        derived={"dice": lambda d: [d.face], "outcome": lambda d: "weapon_breaks" if d.breaks else "weapon_holds"})
    face: int
    breaks: bool
    comment: str = ""

    @property
    def total(self) -> int:
        return self.face
