"""Savage Worlds (SWADE house rules + XCOM variant): roll resolution for ``/tiro``.

Dice are rolled in a fixed order so a scripted RNG can choose faces: the trait
die (or the RoF trait dice, in order) first, then the wild die; damage rolls its
expression left to right and then the raise d6.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from systems.base import Outcome, modifier_list, roll_dice
from systems.dice import MAX_EXPLOSIONS, DiceExpr, DiceTerm, Die, Rng, RollResult
from systems.jsonable import Jsonable, JsonShape
from systems.savage.rules import (
    CRITICAL_FAILURE,
    FAILURE,
    RAISE,
    SUCCESS,
    CalledShot,
    DamageEffect,
    IncapacitationResult,
    SoakResult,
    ammo_for_rof,
    bleeding_out,
    damage_effect,
    incapacitation,
    resolve,
    soak,
    spirit_recovery,
    support_bonus,
)
from systems.savage.syntax import SavageRequest, Target, parse_savage

SYSTEM_KEY = "savage"
ROLL = JsonShape("system", "kind", "expr", "total", "dice", "outcome", "raises", "wild", const={"system": SYSTEM_KEY},
                 derived={"wild": lambda outcome: outcome.wild.value if outcome.wild else None})
"""What every Savage roll shows first (``wild``: the wild die's value, None without one)."""
WILD_SIDES = 6
RAISE_DAMAGE_SIDES = 6


@dataclass(slots=True)
class SavageTraitRoll(Jsonable):
    """A Wild Card's (or an Extra's) trait roll against a TN."""

    template: ClassVar[str] = "savage/trait"
    kind: ClassVar[str] = "trait"
    json_shape: ClassVar[JsonShape] = JsonShape(ROLL, "trait=trait.value", "tn", "modifiers", "comment",
                                                derived={"modifiers": lambda roll: modifier_list(roll.modifiers)})
    expr: str
    trait: Die
    wild: Die | None
    constant: int
    modifiers: list[tuple[str, int]]
    tn: int
    total: int
    outcome: str
    raises: int
    comment: str = ""
    called_shot: CalledShot | None = None

    @property
    def dice(self) -> list[int]:
        return list(self.trait.faces) + (list(self.wild.faces) if self.wild else [])

    @property
    def wild_used(self) -> bool:
        """True when the wild die gave the total."""
        return self.wild is not None and self.wild.value > self.trait.value


TRAIT_PURPOSE = JsonShape(SavageTraitRoll.json_shape.through("roll"), "kind")
"""A trait roll's keys, its ``kind`` the purpose's; each purpose adds its consequence."""


@dataclass(slots=True)
class _TraitPurpose(Jsonable):
    """Shared shape of the rolls that are a trait roll with a rules consequence."""

    roll: SavageTraitRoll

    @property
    def total(self) -> int:
        return self.roll.total

    @property
    def outcome(self) -> str:
        return self.roll.outcome


@dataclass(slots=True)
class SavageSupportRoll(_TraitPurpose):
    template: ClassVar[str] = "savage/support"
    kind: ClassVar[str] = "support"
    json_shape: ClassVar[JsonShape] = JsonShape(TRAIT_PURPOSE, "bonus")
    bonus: int = 0


@dataclass(slots=True)
class SavageSoakRoll(_TraitPurpose):
    template: ClassVar[str] = "savage/soak"
    kind: ClassVar[str] = "soak"
    json_shape: ClassVar[JsonShape] = JsonShape(TRAIT_PURPOSE, "incoming=result.incoming", "soaked=result.soaked",
                                                "remaining=result.remaining", "clears_shaken=result.clears_shaken")
    result: SoakResult = SoakResult(1, 0)


@dataclass(slots=True)
class SavageRecoveryRoll(_TraitPurpose):
    template: ClassVar[str] = "savage/recovery"
    kind: ClassVar[str] = "recovery"
    json_shape: ClassVar[JsonShape] = JsonShape(TRAIT_PURPOSE, "recovered")
    recovered: bool = False


@dataclass(slots=True)
class SavageIncapacitationRoll(_TraitPurpose):
    template: ClassVar[str] = "savage/incapacitation"
    kind: ClassVar[str] = "incapacitation"
    json_shape: ClassVar[JsonShape] = JsonShape(TRAIT_PURPOSE, "dies=result.dies", "injury=result.injury",
                                                "bleeding=result.bleeding", "table",
                                                derived={"table": lambda roll: roll.result.table or None})
    result: IncapacitationResult = IncapacitationResult(False, "", False)


@dataclass(slots=True)
class SavageBleedingRoll(_TraitPurpose):
    template: ClassVar[str] = "savage/bleeding"
    kind: ClassVar[str] = "bleeding"
    json_shape: ClassVar[JsonShape] = JsonShape(TRAIT_PURPOSE, "verdict")
    verdict: str = "continues"


@dataclass(slots=True)
class RofShot:
    """One trait die of a rate-of-fire attack, and the target it went to (None: declared order)."""

    die: Die
    total: int
    hit: bool
    raises: int
    target: str | None
    by_wild: bool = False


@dataclass(slots=True)
class SavageRateOfFire(Jsonable):
    """RoF N: N trait dice and one wild die that replaces the first failed die if it hits."""

    template: ClassVar[str] = "savage/rof"
    kind: ClassVar[str] = "rof"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "rof", "hits", "tn", "ammo", "replaced", "shots", "targets", "modifiers", "comment",
        derived={"raises": lambda rof: max((s.raises for s in rof.shots if s.hit), default=0),
                 "shots": lambda rof: [{"value": s.die.value, "total": s.total, "hit": s.hit, "raises": s.raises,
                                        "target": s.target, "by_wild": s.by_wild} for s in rof.shots],
                 "modifiers": lambda rof: modifier_list(rof.modifiers)})
    expr: str
    rof: int
    shots: list[RofShot]
    wild: Die | None
    wild_total: int | None
    replaced: int | None
    modifiers: list[tuple[str, int]]
    tn: int
    outcome: str
    targets: list[str]
    ammo: int
    comment: str = ""

    @property
    def hits(self) -> int:
        return sum(s.hit for s in self.shots)

    @property
    def total(self) -> int:
        return self.hits

    @property
    def dice(self) -> list[int]:
        faces = [f for s in self.shots for f in s.die.faces]
        return faces + (list(self.wild.faces) if self.wild else [])


@dataclass(slots=True)
class SavageDamageRoll(Jsonable):
    """Damage: every die explodes, no wild die, +1d6 on a raise; optionally against Toughness."""

    template: ClassVar[str] = "savage/damage"
    kind: ClassVar[str] = "damage"
    json_shape: ClassVar[JsonShape] = JsonShape(
        ROLL, "expr=result.expr.text", "dice=result.faces", "toughness", "shaken", "wounds", "modifiers", "comment",
        const={"wild": None},
        derived={"raises": lambda roll: roll.effect.wounds if roll.effect else 0,
                 "shaken": lambda roll: roll.effect.shaken if roll.effect else None,
                 "wounds": lambda roll: roll.effect.wounds if roll.effect else None,
                 "modifiers": lambda roll: modifier_list(roll.modifiers)})
    result: RollResult
    with_raise: bool
    modifiers: list[tuple[str, int]]
    total: int
    toughness: int | None
    effect: DamageEffect | None
    target_shaken: bool
    called_shot: CalledShot | None = None
    armor: int = 0

    @property
    def armor_ignored(self) -> bool:
        """A called shot to an unarmoured spot (001: «ignora la bonificación que otorga la Armadura»)."""
        return bool(self.armor) and self.called_shot is not None and self.called_shot.effect == "ignore_armor"

    @property
    def outcome(self) -> str:
        return self.effect.outcome if self.effect else "damage"

    @property
    def comment(self) -> str:
        return self.result.comment


@lru_cache(maxsize=64)
def _exploding_die(sides: int) -> DiceTerm:
    return DiceTerm(1, 1, sides, sides)


def _roll_die(sides: int, rng: Rng, budget: list[int]) -> Die:
    """One acing die (the hot path of every trait roll)."""
    faces = _exploding_die(sides).roll_chain(rng.random, budget)
    return Die(sides, faces, sum(faces), len(faces) > 1)


def roll_trait(request: SavageRequest, rng: Rng) -> SavageTraitRoll:
    plan = request.plan()
    budget = [MAX_EXPLOSIONS]
    trait = _roll_die(plan.trait_sides, rng, budget)
    wild = _roll_die(WILD_SIDES, rng, budget) if request.wild else None
    total = max(trait.value, wild.value if wild else 0) + plan.bonus
    snake_eyes = wild is not None and trait.is_min and wild.is_min
    outcome, raises = resolve(total, request.tn, snake_eyes)
    return SavageTraitRoll(
        plan.text, trait, wild, request.constant, plan.modifiers, request.tn,
        total, outcome, raises, request.comment, request.modifiers.called_shot,
    )


def roll_support(request: SavageRequest, rng: Rng) -> SavageSupportRoll:
    roll = roll_trait(request, rng)
    return SavageSupportRoll(roll, support_bonus(roll.outcome, roll.raises))


def roll_soak(request: SavageRequest, rng: Rng) -> SavageSoakRoll:
    roll = roll_trait(request, rng)
    return SavageSoakRoll(roll, soak(request.incoming, roll.outcome, roll.raises))


def roll_recovery(request: SavageRequest, rng: Rng) -> SavageRecoveryRoll:
    roll = roll_trait(request, rng)
    return SavageRecoveryRoll(roll, spirit_recovery(roll.outcome))


def roll_incapacitation(request: SavageRequest, rng: Rng) -> SavageIncapacitationRoll:
    roll = roll_trait(request, rng)
    return SavageIncapacitationRoll(roll, incapacitation(roll.total, roll.outcome))


def roll_bleeding(request: SavageRequest, rng: Rng) -> SavageBleedingRoll:
    roll = roll_trait(request, rng)
    return SavageBleedingRoll(roll, bleeding_out(roll.outcome))


def _shot_targets(targets: tuple[Target, ...], rof: int) -> list[str | None]:
    if not targets or targets[0].dice is None:
        return [None] * rof
    return [t.name for t in targets for _ in range(t.dice or 0)]


def roll_rate_of_fire(request: SavageRequest, rng: Rng) -> SavageRateOfFire:
    budget = [MAX_EXPLOSIONS]
    rof, tn = request.rof, request.tn
    dice = [_roll_die(request.trait_sides, rng, budget) for _ in range(rof)]
    wild = _roll_die(WILD_SIDES, rng, budget) if request.wild else None
    modifiers = request.modifiers.items()
    bonus = request.constant + sum(v for _, v in modifiers)
    shots = [
        RofShot(die, die.value + bonus, die.value + bonus >= tn, resolve(die.value + bonus, tn, False)[1], target)
        for die, target in zip(dice, _shot_targets(request.targets, rof))
    ]
    wild_total = wild.value + bonus if wild else None
    replaced = _replace_first_miss(shots, wild_total, tn)
    ones = sum(d.is_min for d in dice)
    fumble = wild is not None and wild.is_min and 2 * ones >= rof
    return SavageRateOfFire(
        request.expr.text, rof, shots, wild, wild_total, replaced, modifiers, tn,
        _rof_outcome(shots, fumble), [t.name for t in request.targets], ammo_for_rof(rof), request.comment,
    )


def _replace_first_miss(shots: list[RofShot], wild_total: int | None, tn: int) -> int | None:
    """The wild die takes the place of the first failed die, if the wild die hits."""
    if wild_total is None or wild_total < tn:
        return None
    for i, shot in enumerate(shots):
        if not shot.hit:
            shot.total, shot.hit, shot.by_wild = wild_total, True, True
            shot.raises = resolve(wild_total, tn, False)[1]
            return i
    return None


def _rof_outcome(shots: list[RofShot], fumble: bool) -> str:
    if fumble:
        return CRITICAL_FAILURE
    hits = [s for s in shots if s.hit]
    if not hits:
        return FAILURE
    return RAISE if any(s.raises for s in hits) else SUCCESS


def _exploding(expr: DiceExpr, with_raise: bool) -> DiceExpr:
    terms = tuple(
        DiceTerm(t.sign, t.count, t.sides, t.explode_at or (t.sides if t.sides > 1 else 0), t.keep, t.keep_n, t.percent)
        if isinstance(t, DiceTerm) else t
        for t in expr.terms
    )
    if with_raise:
        terms += (DiceTerm(1, 1, RAISE_DAMAGE_SIDES, RAISE_DAMAGE_SIDES),)
    return DiceExpr(terms, expr.comment)


def roll_damage(request: SavageRequest, rng: Rng) -> SavageDamageRoll:
    expr = _exploding(DiceExpr(request.expr.terms, request.comment), request.with_raise)
    result = expr.roll(rng)
    called = request.modifiers.called_shot
    bonuses = (("comodin", 2 if request.modifiers.joker else 0), ("apuntado", called.damage_bonus if called else 0))
    modifiers = [(n, v) for n, v in bonuses if v]
    total = result.total + sum(v for _, v in modifiers)
    ignored = request.armor if called is not None and called.effect == "ignore_armor" else 0
    effect = (damage_effect(total, request.toughness - ignored, request.target_shaken)
              if request.toughness is not None else None)
    return SavageDamageRoll(result, request.with_raise, modifiers, total, request.toughness, effect, request.target_shaken,
                            called, request.armor)


ROLLERS: dict[str, Callable[[SavageRequest, Rng], Outcome]] = {
    "trait": roll_trait,
    "support": roll_support,
    "soak": roll_soak,
    "recovery": roll_recovery,
    "incapacitation": roll_incapacitation,
    "bleeding": roll_bleeding,
    "rof": roll_rate_of_fire,
    "damage": roll_damage,
}


@dataclass(frozen=True)
class SavageSystem:
    key: str = SYSTEM_KEY
    name: str = "Savage Worlds"

    def roll(self, asked: str | SavageRequest, rng: Rng) -> Outcome:
        """Roll ``asked``: a text as typed, or a request already parsed (with what the table adds set on
        it, ``systems.savage.table``: the table never glues words to a text for it to read again)."""
        request = asked if isinstance(asked, SavageRequest) else parse_savage(asked)
        if request is None:
            return roll_dice(str(asked), rng, self.key)
        return ROLLERS[request.kind](request, rng)


SYSTEM = SavageSystem()
