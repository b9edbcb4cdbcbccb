"""The results of Reino rolls: plain data with a template name and the JSON contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from systems.base import modifier_list
from systems.dice import Die, RollResult
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


def _base(kind: str, total: int, dice: list[int], outcome: str, comment: str) -> dict:
    return {"system": SYSTEM_KEY, "kind": kind, "total": total, "dice": dice, "outcome": outcome, "comment": comment}


class _TestOutcome:
    """What every d20-against-a-DC outcome shows; subclasses hold ``test`` and ``comment``."""

    __slots__ = ()
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

    def _test_json(self, kind: str) -> dict:
        t = self.test
        return {
            **_base(kind, t.total, [t.natural], self.outcome, self.comment),
            "natural": t.natural,
            "modifier": t.modifier,
            "modifiers": modifiers_json(t.modifier, self.named),
            "dc": t.dc,
            "margin": t.margin,
        }


@dataclass(slots=True)
class ReinoCheck(_TestOutcome):
    """A test against a DC: a plain check, a save, stabilising or waking up (``purpose``)."""

    template: ClassVar[str] = "reino/check"
    test: CheckResult
    purpose: str = "prueba"
    comment: str = ""
    minutes: int = 0
    named: tuple[tuple[str, int], ...] = ()

    def as_json(self) -> dict:
        return {**self._test_json("check"), "purpose": self.purpose}


@dataclass(slots=True)
class ReinoOpposed:
    """Two sides roll 1d20 + modifier; ``outcome`` is seen from the first side."""

    template: ClassVar[str] = "reino/opposed"
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

    def as_json(self) -> dict:
        r = self.result
        return {
            **_base("opposed", r.first_total, [r.first_natural, r.second_natural], self.outcome, self.comment),
            "natural": r.first_natural,
            "modifier": r.first_modifier,
            "modifiers": modifiers_json(r.first_modifier, self.named),
            "opponent_modifier": r.second_modifier,
            "totals": [r.first_total, r.second_total],
        }


@dataclass(slots=True)
class ReinoAttack:
    template: ClassVar[str] = "reino/attack"
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

    def as_json(self) -> dict:
        r = self.result
        return {
            **_base("attack", r.total, [r.natural], self.outcome, self.comment),
            "natural": r.natural,
            "modifier": r.bonus,
            "modifiers": modifiers_json(r.bonus, self.named),
            "defense": r.defense,
            "damage_reduction": r.damage_reduction,
            "critical_threshold": r.critical_threshold,
            "minion": r.minion_attacker,
        }


@dataclass(slots=True)
class ReinoDamage:
    """Weapon dice + the Strength share for the grip, times a critical multiplier.

    With ``threshold`` it also says whether the hit is a serious wound (or drops a minion).
    """

    template: ClassVar[str] = "reino/damage"
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

    def as_json(self) -> dict:
        return {
            **_base("damage", self.total, self.roll.faces, self.outcome, self.comment),
            "weapon": self.roll.total,
            "strength": self.strength,
            "strength_bonus": self.strength_bonus,
            "grip": self.grip.value,
            "multiplier": self.multiplier,
            "threshold": self.threshold,
            "fortitude_dc": self.fortitude_dc,
        }


@dataclass(slots=True)
class ReinoInitiative:
    template: ClassVar[str] = "reino/initiative"
    natural: int
    bonus: int
    comment: str = ""

    @property
    def total(self) -> int:
        return self.natural + self.bonus

    @property
    def d20(self) -> Die:
        return d20_die(self.natural)

    def as_json(self) -> dict:
        return {
            **_base("initiative", self.total, [self.natural], "initiative", self.comment),
            "natural": self.natural,
            "modifier": self.bonus,
            "modifiers": modifiers_json(self.bonus, ()),
        }


@dataclass(slots=True)
class ReinoWoundSave(_TestOutcome):
    """Fortitude DC 10 + damage after a serious wound; the state comes from table GDJ15."""

    template: ClassVar[str] = "reino/wound"
    table: ClassVar[str] = WOUND_TABLE
    test: CheckResult
    damage: int
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()

    def as_json(self) -> dict:
        return {**self._test_json("wound_save"), "damage": self.damage, "table": self.table}


@dataclass(slots=True)
class ReinoDyingSave(_TestOutcome):
    """A Moribundo's Fortitude save: ``dead``, ``dying`` (one more round) or ``stable``."""

    template: ClassVar[str] = "reino/dying"
    result: DyingSaveResult
    comment: str = ""
    named: tuple[tuple[str, int], ...] = ()

    @property
    def test(self) -> CheckResult:  # type: ignore[override]
        return self.result.test

    @property
    def outcome(self) -> str:
        return self.result.fate.value

    def as_json(self) -> dict:
        return {**self._test_json("dying_save"), "previous_saves": self.result.previous_saves}
