"""El Reino de la Sombra (simplified d20): tests, attacks, damage and wounds as pure functions.

Every function takes plain values or dataclasses and returns new ones; nothing here
keeps state or does I/O. State objects round-trip through ``to_dict``/``from_dict``
(JSON-able dicts) so the table core can store them.

Rounding: every halving or x1.5 rounds toward zero (4.5 -> 4, -1.5 -> -1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

from systems.dice import DiceError, Rng
from systems.record import Record

DEFAULT_DC = 15
CRITICAL_MARGIN = 10
STABLE_MARGIN = 10
SERIOUS_WOUND_BASE_DC = 10
DYING_BASE_DC = 10
RECOVERY_DC = 10
ROUNDS_PER_MINUTE = 10
STUN_DEFENSE_PENALTY = 2
WOUND_TABLE = "GDJ15"
MODIFIER_TABLE = "GDJ12"


class ReinoRuleError(DiceError):
    """A rule forbids what was asked; ``code`` is ``reino.<something>``."""


def roll_d20(rng: Rng) -> int:
    """One d20 with the dice engine's face formula, so scripted RNGs work."""
    return int(rng.random() * 20) + 1


def scale_toward_zero(value: int, numerator: int, denominator: int) -> int:
    """``value * numerator / denominator`` rounded toward zero."""
    magnitude = abs(value) * numerator // denominator
    return magnitude if value >= 0 else -magnitude


# --- tests -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckResult(Record):
    """A d20 test: natural 1 always fails, natural 20 always succeeds, else total >= DC.

    ``action_point`` marks a failure turned into a success by spending an Action Point:
    its total then counts as exactly the DC (the minimum that succeeds).
    """

    dice_sides: ClassVar[dict[str, int]] = {"natural": 20}
    natural: int
    modifier: int
    dc: int = DEFAULT_DC
    action_point: bool = False

    @property
    def total(self) -> int:
        return self.dc if self.action_point else self.natural + self.modifier

    @property
    def success(self) -> bool:
        if self.action_point or self.natural == 20:
            return True
        return self.natural != 1 and self.total >= self.dc

    @property
    def automatic(self) -> bool:
        """True when the natural die, not the total, decided."""
        return self.natural == 20 or self.natural == 1

    @property
    def margin(self) -> int:
        return self.total - self.dc


def roll_test(rng: Rng, modifier: int, dc: int = DEFAULT_DC) -> CheckResult:
    return CheckResult(roll_d20(rng), modifier, dc)


@dataclass(frozen=True, slots=True)
class OpposedResult(Record):
    """Two d20 tests against each other: the higher total wins; equal totals tie (GM decides)."""

    dice_sides: ClassVar[dict[str, int]] = {"first_natural": 20, "second_natural": 20}
    first_natural: int
    first_modifier: int
    second_natural: int
    second_modifier: int

    @property
    def first_total(self) -> int:
        return self.first_natural + self.first_modifier

    @property
    def second_total(self) -> int:
        return self.second_natural + self.second_modifier

    @property
    def winner(self) -> int:
        """1 or 2 for the winning side, 0 on a tie."""
        if self.first_total == self.second_total:
            return 0
        return 1 if self.first_total > self.second_total else 2


def roll_opposed(rng: Rng, first_modifier: int, second_modifier: int) -> OpposedResult:
    first = roll_d20(rng)
    return OpposedResult(first, first_modifier, roll_d20(rng), second_modifier)


# --- attacks and damage ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttackResult(Record):
    """An attack test against Defense.

    Critical: a natural 20, or a total at least Defense + DR + 10 ("supera por 10 o más").
    A minion never scores a critical against a character: it stays a plain hit.
    """

    dice_sides: ClassVar[dict[str, int]] = {"natural": 20}
    natural: int
    bonus: int
    defense: int
    damage_reduction: int = 0
    minion_attacker: bool = False

    @property
    def test(self) -> CheckResult:
        return CheckResult(self.natural, self.bonus, self.defense)

    @property
    def total(self) -> int:
        return self.natural + self.bonus

    @property
    def hit(self) -> bool:
        return self.test.success

    @property
    def critical(self) -> bool:
        if not self.hit or self.minion_attacker:
            return False
        return self.natural == 20 or self.total >= self.critical_threshold

    @property
    def critical_threshold(self) -> int:
        return self.defense + self.damage_reduction + CRITICAL_MARGIN


def roll_attack(
    rng: Rng, bonus: int, defense: int, damage_reduction: int = 0, minion_attacker: bool = False
) -> AttackResult:
    return AttackResult(roll_d20(rng), bonus, defense, damage_reduction, minion_attacker)


def effective_defense(defense: int, dodge: int, *, stunned: bool = False, surprised: bool = False) -> int:
    """Defense after losing the Dodge bonus (stunned or attacked by surprise) and the stun -2."""
    if stunned or surprised:
        defense -= dodge
    if stunned:
        defense -= STUN_DEFENSE_PENALTY
    return defense


class Grip(StrEnum):
    """How a weapon is wielded: decides the share of the Strength modifier added to damage."""

    ONE_HAND = "una_mano"
    TWO_HANDS = "dos_manos"
    OFF_HAND = "secundaria"
    THROWN = "arrojadiza"
    PROJECTILE = "proyectil"
    PREPARED_PROJECTILE = "proyectil_preparado"


STRENGTH_SHARE: dict[Grip, tuple[int, int]] = {
    Grip.ONE_HAND: (1, 1),
    Grip.TWO_HANDS: (3, 2),
    Grip.OFF_HAND: (1, 2),
    Grip.THROWN: (1, 2),
    Grip.PROJECTILE: (0, 1),
    Grip.PREPARED_PROJECTILE: (1, 1),
}


def strength_damage(strength_modifier: int, grip: Grip) -> int:
    """The Strength part of the damage for this grip, rounded toward zero."""
    numerator, denominator = STRENGTH_SHARE[grip]
    return scale_toward_zero(strength_modifier, numerator, denominator)


def damage_total(weapon: int, strength_modifier: int, grip: Grip, multiplier: int = 1) -> int:
    """Weapon roll plus Strength share, times the critical multiplier; never below 0."""
    return max(0, (weapon + strength_damage(strength_modifier, grip)) * multiplier)


def serious_wound_dc(damage: int) -> int:
    return SERIOUS_WOUND_BASE_DC + damage


def is_serious_wound(damage: int, threshold: int) -> bool:
    return damage >= threshold


# --- character state -------------------------------------------------------------------


class Condition(StrEnum):
    """The wound states, from the mildest to the most serious (the escalation order)."""

    ATURDIDO = "aturdido"
    MALHERIDO = "malherido"
    INCAPACITADO = "incapacitado"
    MORIBUNDO = "moribundo"


ESCALATION: tuple[Condition, ...] = tuple(Condition)
ACTION_PENALTY: dict[Condition, int] = {Condition.MALHERIDO: -2, Condition.INCAPACITADO: -5}
STUNS_NEXT_ROUND = frozenset({Condition.MALHERIDO, Condition.INCAPACITADO})


@dataclass(frozen=True, slots=True)
class ReinoCharacter(Record):
    """What the rules need to know about one combatant (PC or minion)."""

    name: str
    resistance: int
    max_resistance: int
    threshold: int
    defense: int = 10
    dodge: int = 0
    damage_reduction: int = 0
    initiative: int = 0
    fortitude: int = 0
    action_points: int = 0
    minion: bool = False
    conditions: tuple[str, ...] = ()
    stunned_round: int | None = None
    unconscious: bool = False
    dead: bool = False
    dying_saves: int = 0

    def has(self, condition: Condition) -> bool:
        return condition.value in self.conditions

    @property
    def dying(self) -> bool:
        return self.has(Condition.MORIBUNDO)

    @property
    def helpless(self) -> bool:
        """Unable to act at all: dying, unconscious or dead."""
        return self.dead or self.unconscious or self.dying

    def stunned(self, round_number: int) -> bool:
        return self.has(Condition.ATURDIDO) or self.stunned_round == round_number

    def defense_now(self, round_number: int, surprised: bool = False) -> int:
        return effective_defense(
            self.defense, self.dodge, stunned=self.stunned(round_number), surprised=surprised
        )

    @property
    def action_penalty(self) -> int:
        """The worst wound penalty to every action (penalties do not stack)."""
        return min((ACTION_PENALTY.get(Condition(c), 0) for c in self.conditions), default=0)


def _with_condition(char: ReinoCharacter, condition: Condition) -> ReinoCharacter:
    kept = tuple(c for c in char.conditions if c != condition.value)
    ordered = tuple(c.value for c in ESCALATION if c.value in kept or c == condition)
    return replace(char, conditions=ordered)


def _without_condition(char: ReinoCharacter, condition: Condition) -> ReinoCharacter:
    return replace(char, conditions=tuple(c for c in char.conditions if c != condition.value))


def apply_condition(char: ReinoCharacter, condition: Condition, round_number: int) -> ReinoCharacter:
    """Suffer a wound state in round ``round_number``.

    A state already held is replaced by the next more serious one; Moribundo is the last
    state listed, so a repeated Moribundo stays Moribundo.
    """
    while char.has(condition) and condition != ESCALATION[-1]:
        char = _without_condition(char, condition)
        condition = ESCALATION[ESCALATION.index(condition) + 1]
    if condition == Condition.MORIBUNDO and not char.dying:
        char = replace(char, dying_saves=0)
    char = _with_condition(char, condition)
    if condition in STUNS_NEXT_ROUND:
        char = replace(char, stunned_round=round_number + 1)
    return char


def clear_condition(char: ReinoCharacter, condition: Condition) -> ReinoCharacter:
    """The GM lifts a state (e.g. an Aturdido from the wound table whose duration ended)."""
    return _without_condition(char, condition)


@dataclass(frozen=True, slots=True)
class DamageReport(Record):
    """What one attack's damage did. ``fortitude_dc`` is set when a save on table GDJ15 is due."""

    damage: int
    halved: bool
    resistance_before: int
    resistance_after: int
    serious: bool
    fortitude_dc: int | None
    minion_down: bool
    dropped: bool


def spend_action_point(char: ReinoCharacter) -> ReinoCharacter:
    if char.action_points <= 0:
        raise ReinoRuleError("reino.no_action_points", name=char.name)
    return replace(char, action_points=char.action_points - 1)


def apply_damage(
    char: ReinoCharacter, damage: int, round_number: int, halve_with_action_point: bool = False
) -> tuple[ReinoCharacter, DamageReport]:
    """Subtract one attack's damage from Resistance Points and report its consequences.

    Spending an Action Point halves the damage (rounded down) before anything else.
    A minion hit at or over its threshold falls Moribundo at once (no save); a character
    hit at or over its threshold owes a Fortitude save DC 10 + damage (table GDJ15).
    Resistance at 0 or below: unconscious and Moribundo.
    """
    if halve_with_action_point:
        char = spend_action_point(char)
        damage //= 2
    before = char.resistance
    char = replace(char, resistance=before - damage)
    serious = is_serious_wound(damage, char.threshold)
    minion_down = serious and char.minion
    dropped = char.resistance <= 0
    if minion_down or dropped:
        char = apply_condition(char, Condition.MORIBUNDO, round_number)
    if dropped:
        char = replace(char, unconscious=True)
    fortitude_dc = serious_wound_dc(damage) if serious and not char.minion else None
    report = DamageReport(
        damage, halve_with_action_point, before, char.resistance, serious, fortitude_dc, minion_down, dropped
    )
    return char, report


def succeed_with_action_point(
    char: ReinoCharacter, test: CheckResult
) -> tuple[ReinoCharacter, CheckResult]:
    """Turn a failed test into a success whose total is exactly the DC."""
    if test.success:
        raise ReinoRuleError("reino.already_success", name=char.name)
    return spend_action_point(char), replace(test, action_point=True)


# --- dying, stabilising, waking up -----------------------------------------------------


class DyingFate(StrEnum):
    DEAD = "dead"
    DYING = "dying"
    STABLE = "stable"


def dying_save_dc(previous_saves: int) -> int:
    return DYING_BASE_DC + previous_saves


@dataclass(frozen=True, slots=True)
class DyingSaveResult(Record):
    """A Fortitude save while Moribundo: fail -> dead; pass -> still dying;
    pass by 10 or more, or a natural 20 -> stable (Incapacitado and unconscious)."""

    dice_sides: ClassVar[dict[str, int]] = {"natural": 20}
    natural: int
    modifier: int
    previous_saves: int

    @property
    def test(self) -> CheckResult:
        return CheckResult(self.natural, self.modifier, dying_save_dc(self.previous_saves))

    @property
    def fate(self) -> DyingFate:
        test = self.test
        if not test.success:
            return DyingFate.DEAD
        if self.natural == 20 or test.margin >= STABLE_MARGIN:
            return DyingFate.STABLE
        return DyingFate.DYING


def roll_dying_save(rng: Rng, modifier: int, previous_saves: int) -> DyingSaveResult:
    return DyingSaveResult(roll_d20(rng), modifier, previous_saves)


def stabilize(char: ReinoCharacter, round_number: int) -> ReinoCharacter:
    """No longer dying: Incapacitado and unconscious (by the save, Medicine/Wisdom DC 15 or an AP)."""
    if not char.dying:
        raise ReinoRuleError("reino.not_dying", name=char.name)
    char = _without_condition(char, Condition.MORIBUNDO)
    char = _with_condition(char, Condition.INCAPACITADO)
    return replace(char, unconscious=True, dying_saves=0, stunned_round=round_number + 1)


def apply_dying_save(
    char: ReinoCharacter, result: DyingSaveResult, round_number: int
) -> ReinoCharacter:
    if not char.dying:
        raise ReinoRuleError("reino.not_dying", name=char.name)
    fate = result.fate
    if fate == DyingFate.DEAD:
        return replace(char, dead=True, dying_saves=char.dying_saves + 1)
    if fate == DyingFate.STABLE:
        return stabilize(char, round_number)
    return replace(char, dying_saves=char.dying_saves + 1)


def recovery_test(natural: int, fortitude: int, minutes: int) -> CheckResult:
    """Waking up: Fortitude DC 10 once a minute, +1 for every minute past the first."""
    return CheckResult(natural, fortitude + max(minutes - 1, 0), RECOVERY_DC)


def recovery_due(fell: int, round_number: int) -> int | None:
    """The minute whose wake-up test is due at the start of ``round_number`` for a character who fell
    unconscious in round ``fell`` (one every 10 rounds after it), or None."""
    elapsed = round_number - fell
    if elapsed <= 0 or elapsed % ROUNDS_PER_MINUTE:
        return None
    return elapsed // ROUNDS_PER_MINUTE


def apply_recovery(char: ReinoCharacter, test: CheckResult) -> ReinoCharacter:
    """A successful recovery test wakes a (non-dying) unconscious character."""
    if test.success and not char.dying:
        return replace(char, unconscious=False)
    return char


# --- action economy --------------------------------------------------------------------


class Action(StrEnum):
    STANDARD = "estandar"
    MOVE = "movimiento"
    FULL = "completa"
    FREE = "gratuita"
    REACTION = "reaccion"


TIMED_ACTIONS = frozenset({Action.STANDARD, Action.MOVE, Action.FULL})
NORMAL_ROUND_OPTIONS: tuple[tuple[Action, ...], ...] = (
    (Action.STANDARD, Action.MOVE),
    (Action.MOVE, Action.MOVE),
    (Action.FULL,),
)
SURPRISE_ROUND_OPTIONS: tuple[tuple[Action, ...], ...] = ((Action.STANDARD,), (Action.MOVE,))


def _fits(taken: list[Action], option: tuple[Action, ...]) -> bool:
    left = list(option)
    for action in taken:
        if action not in left:
            return False
        left.remove(action)
    return True


@dataclass(slots=True)
class ActionBudget(Record):
    """What one combatant may still do this round.

    A normal round allows 1 standard + 1 move, or 2 moves, or 1 full action; the surprise
    round one standard or one move. Free actions and reactions are limited only by the GM
    (``free_limit``, None for no limit). Stunned: reactions only. Helpless: nothing.
    """

    surprise_round: bool = False
    stunned: bool = False
    helpless: bool = False
    free_limit: int | None = None
    taken: tuple[str, ...] = ()

    def _taken_timed(self) -> list[Action]:
        return [Action(a) for a in self.taken if Action(a) in TIMED_ACTIONS]

    def _free_used(self) -> int:
        return sum(1 for a in self.taken if Action(a) not in TIMED_ACTIONS)

    def refusal(self, action: Action) -> str | None:
        """Why ``action`` is not allowed now (a reason code), or None when it is."""
        if self.helpless:
            return "helpless"
        if self.stunned and action != Action.REACTION:
            return "stunned"
        if action not in TIMED_ACTIONS:
            over = self.free_limit is not None and self._free_used() >= self.free_limit
            return "gm_limit" if over else None
        options = SURPRISE_ROUND_OPTIONS if self.surprise_round else NORMAL_ROUND_OPTIONS
        wanted = [*self._taken_timed(), action]
        return None if any(_fits(wanted, option) for option in options) else "spent"

    def allows(self, action: Action) -> bool:
        return self.refusal(action) is None

    def take(self, action: Action) -> ActionBudget:
        """The budget after ``action``; raises ``reino.action_not_allowed`` if it does not fit."""
        reason = self.refusal(action)
        if reason is not None:
            raise ReinoRuleError("reino.action_not_allowed", action=action.value, reason=reason)
        return replace(self, taken=(*self.taken, action.value))

    def remaining(self) -> list[Action]:
        return [a for a in Action if self.allows(a)]


def budget_for(char: ReinoCharacter, round_number: int, surprise_round: bool = False) -> ActionBudget:
    return ActionBudget(
        surprise_round=surprise_round, stunned=char.stunned(round_number), helpless=char.helpless
    )


# --- initiative and the combat sequence ------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitiativeRoll(Record):
    dice_sides: ClassVar[dict[str, int]] = {"natural": 20}
    name: str
    bonus: int
    natural: int

    @property
    def total(self) -> int:
        return self.natural + self.bonus


def roll_initiative(rng: Rng, name: str, bonus: int) -> InitiativeRoll:
    return InitiativeRoll(name, bonus, roll_d20(rng))


def initiative_order(rolls: Iterable[InitiativeRoll]) -> list[InitiativeRoll]:
    """Highest total first; equal totals: higher bonus first, then the order given (stable)."""
    return sorted(rolls, key=lambda r: (-r.total, -r.bonus))


def needs_surprise_round(aware: Iterable[bool]) -> bool:
    """A surprise round happens only when some, but not all, combatants are aware."""
    flags = list(aware)
    return any(flags) and not all(flags)


@dataclass(frozen=True, slots=True)
class Combatant(Record):
    name: str
    initiative: int = 0
    aware: bool = True


@dataclass(frozen=True, slots=True)
class CombatSequence:
    """Round 0 is the surprise round (aware combatants only), normal rounds count from 1.

    ``rolls`` keeps every initiative roll made so far; ``turn`` indexes the current order.
    """

    combatants: tuple[Combatant, ...]
    rolls: tuple[InitiativeRoll, ...]
    round_number: int
    turn: int = 0

    @property
    def surprise_round(self) -> bool:
        return self.round_number == 0

    @property
    def order(self) -> list[InitiativeRoll]:
        return initiative_order(self.rolls)

    @property
    def current(self) -> str:
        return self.order[self.turn].name

    def to_dict(self) -> dict[str, Any]:
        return {
            "combatants": [c.to_dict() for c in self.combatants],
            "rolls": [r.to_dict() for r in self.rolls],
            "round_number": self.round_number,
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CombatSequence:
        return cls(
            tuple(Combatant.from_dict(c) for c in data["combatants"]),
            tuple(InitiativeRoll.from_dict(r) for r in data["rolls"]),
            data["round_number"],
            data.get("turn", 0),
        )


def _roll_missing(rng: Rng, seq_rolls: tuple[InitiativeRoll, ...], who: Iterable[Combatant]) -> tuple[InitiativeRoll, ...]:
    rolled = {r.name for r in seq_rolls}
    new = tuple(roll_initiative(rng, c.name, c.initiative) for c in who if c.name not in rolled)
    return seq_rolls + new


def start_combat(rng: Rng, combatants: Iterable[Combatant]) -> CombatSequence:
    """Step 1-2 of the sequence: a surprise round for the aware if needed, else round 1 for all."""
    people = tuple(combatants)
    if not people:
        raise ReinoRuleError("reino.no_combatants")
    if needs_surprise_round(c.aware for c in people):
        return CombatSequence(people, _roll_missing(rng, (), (c for c in people if c.aware)), 0)
    return CombatSequence(people, _roll_missing(rng, (), people), 1)


def join_combat(rng: Rng, seq: CombatSequence, combatant: Combatant) -> CombatSequence:
    """A latecomer rolls initiative now and joins the order; everyone else keeps their roll."""
    return replace(seq, combatants=(*seq.combatants, combatant), rolls=_roll_missing(rng, seq.rolls, (combatant,)))


def leave_combat(seq: CombatSequence, name: str) -> CombatSequence:
    """``name`` leaves the sequence with its roll; the others keep theirs."""
    return replace(seq, combatants=tuple(c for c in seq.combatants if c.name != name),
                   rolls=tuple(r for r in seq.rolls if r.name != name))


def next_turn(rng: Rng, seq: CombatSequence) -> CombatSequence:
    """Step 3-4: the next combatant, or a new round from the top when everybody has acted.

    Leaving the surprise round, whoever has not rolled initiative yet rolls now.
    """
    if seq.turn + 1 < len(seq.rolls):
        return replace(seq, turn=seq.turn + 1)
    rolls = _roll_missing(rng, seq.rolls, seq.combatants)
    return replace(seq, rolls=rolls, round_number=seq.round_number + 1, turn=0)
