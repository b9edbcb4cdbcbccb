"""The results of Reino rolls: plain data with a template name and the JSON contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from systems.base import modifier_list
from systems.dice import Die, RollResult
from systems.jsonable import Jsonable, JsonShape
from systems.reino.rules import (
    WOUND_TABLE,
    AttackResult,
    CheckResult,
    DyingSaveResult,
    Grip,
    OpposedResult,
    damage_total,
    is_serious_wound,
    serious_wound_dc,
    strength_damage,
)

SYSTEM_KEY = "reino"


def d20_die(natural: int) -> Die:
    """A d20 face as a ``Die`` so templates can reuse the shared dice macros."""
    return Die(20, (natural,), natural)


def modifiers_json(total: int, named: tuple[tuple[str, int], ...]) -> list[dict]:
    """The roll's modifiers by name (docs/contracts.md#3.2): the named ones the table added, and the rest of
    the total modifier as the roller's own (``modificador``)."""
    rest = total - sum(value for _, value in named)
    return modifier_list([*named, *([("modificador", rest)] if rest else [])])


ROLL = JsonShape("system", "kind", "total", "dice", "outcome", "comment", const={"system": SYSTEM_KEY},
                 derived={"dice": lambda outcome: [outcome.natural]})
"""What every Reino roll shows first; ``dice`` is its one d20 (``natural``) unless a shape says otherwise."""


class _TestOutcome(Jsonable):
    """What every d20-against-a-DC outcome shows; subclasses hold ``test`` and ``comment``."""

    __slots__ = ()
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "natural=test.natural", "modifier=test.modifier", "modifiers", "dc=test.dc", "margin=test.margin",
        derived={"dice": lambda outcome: [outcome.test.natural],
                 "modifiers": lambda outcome: modifiers_json(outcome.test.modifier, outcome.named)})
    test: CheckResult
    comment: str
    named: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return self.test.total

    @property
    def outcome(self) -> str:
        return "success" if self.test.success else "failure"

    @property
    def d20(self) -> Die:
        return d20_die(self.test.natural)


@dataclass(slots=True)
class ReinoCheck(_TestOutcome):
    """A test against a DC: a plain check, a save, stabilising or waking up (``purpose``)."""

    template: ClassVar[str] = "reino/check"
    kind: ClassVar[str] = "check"
    json_shape: ClassVar[JsonShape] = JsonShape(_TestOutcome.json_shape, "purpose")
    test: CheckResult
    purpose: str = "prueba"
    comment: str = ""
    minutes: int = 0
    named: tuple[tuple[str, int], ...] = ()


@dataclass(slots=True)
class ReinoOpposed(Jsonable):
    """Two sides roll 1d20 + modifier; ``outcome`` is seen from the first side."""

    template: ClassVar[str] = "reino/opposed"
    kind: ClassVar[str] = "opposed"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "natural=result.first_natural", "modifier=result.first_modifier", "modifiers",
        "opponent_modifier=result.second_modifier", "totals",
        derived={"dice": lambda o: [o.result.first_natural, o.result.second_natural],
                 "modifiers": lambda o: modifiers_json(o.result.first_modifier, o.named),
                 "totals": lambda o: [o.result.first_total, o.result.second_total]})
    result: OpposedResult
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()

    @property
    def total(self) -> int:
        return self.result.first_total

    @property
    def outcome(self) -> str:
        return {0: "tie", 1: "win", 2: "loss"}[self.result.winner]

    @property
    def first_d20(self) -> Die:
        return d20_die(self.result.first_natural)

    @property
    def second_d20(self) -> Die:
        return d20_die(self.result.second_natural)



@dataclass(slots=True)
class ReinoAttack(Jsonable):
    template: ClassVar[str] = "reino/attack"
    kind: ClassVar[str] = "attack"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "natural=result.natural", "modifier=result.bonus", "modifiers", "defense=result.defense",
        "damage_reduction=result.damage_reduction", "critical_threshold=result.critical_threshold",
        "minion=result.minion_attacker",
        derived={"dice": lambda o: [o.result.natural], "modifiers": lambda o: modifiers_json(o.result.bonus, o.named)})
    result: AttackResult
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()

    @property
    def total(self) -> int:
        return self.result.total

    @property
    def outcome(self) -> str:
        if self.result.critical:
            return "critical"
        return "hit" if self.result.hit else "miss"

    @property
    def d20(self) -> Die:
        return d20_die(self.result.natural)



@dataclass(slots=True)
class ReinoDamage(Jsonable):
    """Weapon dice + the Strength share for the grip, times a critical multiplier.

    With ``threshold`` it also says whether the hit is a serious wound (or drops a minion).
    """

    template: ClassVar[str] = "reino/damage"
    kind: ClassVar[str] = "damage"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "dice=roll.faces", "weapon=roll.total", "strength", "strength_bonus", "grip=grip.value", "multiplier",
        "threshold", "fortitude_dc")
    roll: RollResult
    strength: int = 0
    grip: Grip = Grip.ONE_HAND
    multiplier: int = 1
    threshold: int | None = None
    minion_target: bool = False

    @property
    def comment(self) -> str:
        return self.roll.comment

    @property
    def strength_bonus(self) -> int:
        return strength_damage(self.strength, self.grip)

    @property
    def total(self) -> int:
        return damage_total(self.roll.total, self.strength, self.grip, self.multiplier)

    @property
    def serious(self) -> bool:
        return self.threshold is not None and is_serious_wound(self.total, self.threshold)

    @property
    def fortitude_dc(self) -> int | None:
        return serious_wound_dc(self.total) if self.serious and not self.minion_target else None

    @property
    def outcome(self) -> str:
        if not self.serious:
            return "damage"
        return "minion_down" if self.minion_target else "serious_wound"



@dataclass(slots=True)
class ReinoInitiative(Jsonable):
    template: ClassVar[str] = "reino/initiative"
    kind: ClassVar[str] = "initiative"
    json_shape: ClassVar[JsonShape] = JsonShape(ROLL, "natural", "modifier=bonus", "modifiers", const={"outcome": "initiative"},
                                                derived={"modifiers": lambda o: modifiers_json(o.bonus, ())})
    natural: int
    bonus: int
    comment: str = ""

    @property
    def total(self) -> int:
        return self.natural + self.bonus

    @property
    def d20(self) -> Die:
        return d20_die(self.natural)



@dataclass(slots=True)
class ReinoWoundSave(_TestOutcome):
    """Fortitude DC 10 + damage after a serious wound; the state comes from table GDJ15."""

    template: ClassVar[str] = "reino/wound"
    kind: ClassVar[str] = "wound_save"
    table: ClassVar[str] = WOUND_TABLE
    json_shape: ClassVar[JsonShape] = JsonShape(_TestOutcome.json_shape, "damage", "table")
    test: CheckResult
    damage: int
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()


@dataclass(slots=True)
class ReinoDyingSave(_TestOutcome):
    """A Moribundo's Fortitude save: ``dead``, ``dying`` (one more round) or ``stable``."""

    template: ClassVar[str] = "reino/dying"
    kind: ClassVar[str] = "dying_save"
    json_shape: ClassVar[JsonShape] = JsonShape(_TestOutcome.json_shape, "previous_saves=result.previous_saves")
    result: DyingSaveResult
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()

    @property
    def test(self) -> CheckResult:  # type: ignore[override]
        return self.result.test

    @property
    def outcome(self) -> str:
        return self.result.fate.value
