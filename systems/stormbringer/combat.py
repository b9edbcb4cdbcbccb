"""Stormbringer combat state and procedures over plain, JSON-round-trippable dataclasses.

The table core keeps these in SQLite through ``to_dict()`` / ``from_dict()``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from systems.dice import Rng
from systems.stormbringer.rules import (
    EXTRA_ATTACK_PENALTY,
    EXTRA_PARRY_PENALTY,
    is_master,
    is_success,
    roll_die,
)

WEAPON_CHANGE_DEX_PENALTY = 5
SIDES = ("players", "gm")
WEAPON_HIT_POINTS = 20
INTELLIGENCE_BASE = 12
DEMON_OBJECT_BREAK_ABOVE = 50


@dataclass(slots=True)
class RoundCounter:
    """One combatant's actions in the current round; the table calls ``reset()`` each round."""

    attacks: int = 0
    parries: int = 0
    parry_failed: bool = False
    ripostes_earned: int = 0
    shield_used: bool = False
    """A shield as second weapon gives one extra attack (-25%) or one extra parry (no penalty)
    per round: this one is spent."""
    main_used: bool = False
    """The round's one attack with the weapon in hand is made (a riposte is not it)."""
    second_used: bool = False
    """The second weapon's extra attack is made."""

    def attack_penalty(self) -> int:
        """-20% per attack (normal or riposte) already made this round."""
        return -EXTRA_ATTACK_PENALTY * self.attacks

    def parry_penalty(self) -> int:
        """-20% per parry already tried this round."""
        return -EXTRA_PARRY_PENALTY * self.parries

    def can_parry(self) -> bool:
        """After a failed parry there are no more parries this round."""
        return not self.parry_failed

    def attack_refusal(self, slot: str, shield: bool = False) -> str | None:
        """Why an attack in ``slot`` ("main", "second" or "riposte") is not allowed now, or None: one
        attack a round with one weapon, one more with a second weapon (a shield's is its extra attack
        or its extra parry), one riposte per parry a master won."""
        if slot == "riposte":
            return None if self.ripostes_earned else "no_riposte"
        if slot == "second":
            if shield and self.shield_used:
                return "shield_spent"
            return "second_spent" if self.second_used else None
        return "one_attack" if self.main_used else None

    def record_attack(self, riposte: bool = False, slot: str = "main", shield: bool = False) -> None:
        """``slot``: "main", "second" or "riposte" (``riposte`` True is the same as the last)."""
        self.attacks += 1
        if riposte or slot == "riposte":
            if self.ripostes_earned:
                self.ripostes_earned -= 1
        elif slot == "second":
            self.second_used = True
            self.shield_used = self.shield_used or shield
        else:
            self.main_used = True

    def record_parry(self, succeeded: bool, master: bool = False, free: bool = False) -> None:
        """``free``: the shield's extra parry of a two-weapon fighter, with no penalty."""
        if not free:
            self.parries += 1
        if not succeeded:
            self.parry_failed = True
        elif master:
            self.ripostes_earned += 1

    def reset(self) -> None:
        self.attacks = self.parries = self.ripostes_earned = 0
        self.parry_failed = self.shield_used = self.main_used = self.second_used = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RoundCounter:
        return cls(**{k: data[k] for k in ("attacks", "parries", "parry_failed", "ripostes_earned", "shield_used",
                                           "main_used", "second_used") if k in data})


@dataclass(slots=True)
class Combatant:
    """What the round order needs: DEX, weapon kind ("melee", "missile" or "none"), side."""

    name: str
    dex: int
    weapon: str = "melee"
    side: str = "players"
    changing_weapon: bool = False
    tie_rank: int = 0
    """Among those of one side who tie on DES, lower goes first (the GM's ``!orden``); equal keeps the order."""

    @property
    def acting_dex(self) -> int:
        """Drawing or picking up a new weapon at the start of the round costs 5 DEX."""
        return self.dex - (WEAPON_CHANGE_DEX_PENALTY if self.changing_weapon else 0)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Combatant:
        return cls(
            str(data["name"]), int(data["dex"]), str(data.get("weapon", "melee")),
            str(data.get("side", "players")), bool(data.get("changing_weapon", False)), int(data.get("tie_rank", 0)),
        )


@dataclass(slots=True)
class RoundPhases:
    """Names in the order they act in each phase of a 12-second round."""

    intent: list[str] = field(default_factory=list)
    missile: list[str] = field(default_factory=list)
    melee: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RoundPhases:
        return cls(list(data["intent"]), list(data["missile"]), list(data["melee"]))


def tied(combatants: list[Combatant], declaring: bool) -> list[list[str]]:
    """Who ties in the declarations (DEX and side) or in the attacks (DEX after a change of weapon, side and
    phase) with no order the rules give: each group of two or more, in the order given."""
    groups: dict[tuple[int, str, str], list[str]] = {}
    for c in combatants:
        key = (c.dex, c.side, "") if declaring else (c.acting_dex, c.side, c.weapon)
        groups.setdefault(key, []).append(c.name)
    return [names for names in groups.values() if len(names) > 1]


def side_first(first_round_side: str, round_number: int) -> str:
    """The GM picks who goes first in round 1 (GM or players); later rounds alternate."""
    other = SIDES[1 - SIDES.index(first_round_side)]
    return first_round_side if round_number % 2 == 1 else other


def round_phases(
    combatants: list[Combatant], round_number: int = 1, first_round_side: str = "players"
) -> RoundPhases:
    """Intent from the lowest DEX up; missile attacks, then melee attacks, from the highest DEX down.

    Equal DEX: the side whose turn it is to go first this round goes first, in the declarations as in the
    attacks; within one side, the GM's ``tie_rank``, else the order given.
    """
    lead = side_first(first_round_side, round_number)

    def tie(c: Combatant) -> tuple[int, int]:
        return 0 if c.side == lead else 1, c.tie_rank

    intent = sorted(combatants, key=lambda c: (c.dex, *tie(c)))
    attackers = sorted(combatants, key=lambda c: (-c.acting_dex, *tie(c)))
    return RoundPhases(
        [c.name for c in intent],
        [c.name for c in attackers if c.weapon == "missile"],
        [c.name for c in attackers if c.weapon == "melee"],
    )


@dataclass(frozen=True, slots=True)
class ActionLimits:
    attack: bool = True
    parry: bool = True
    dodge: bool = True


NORMAL = ActionLimits()
HELPLESS = ActionLimits(False, False, False)


@dataclass(slots=True)
class SurpriseState:
    """How surprise limits a victim, by the combat round (1 = the first round).

    ``kind``: "ambush" (the ambush roll succeeded: ``rounds`` of 1d4-1 with no defence),
    "spotted" (ambush failed, the victim made its Ver roll), "unaware" (ambush failed,
    Ver failed), "helpless_saved" (made the POD save against a helpless-victim attack),
    "initiative" (the attacker won the 1d10+DEX surprise initiative).
    """

    kind: str
    rounds: int = 0
    master: bool = False

    def limits(self, round_number: int) -> ActionLimits:
        return _SURPRISE_LIMITS[self.kind](self, round_number)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SurpriseState:
        return cls(str(data["kind"]), int(data.get("rounds", 0)), bool(data.get("master", False)))


def _ambush(s: SurpriseState, n: int) -> ActionLimits:
    return HELPLESS if n <= s.rounds else NORMAL


def _spotted(s: SurpriseState, n: int) -> ActionLimits:
    return ActionLimits(attack=s.master) if n == 1 else NORMAL


def _unaware(s: SurpriseState, n: int) -> ActionLimits:
    if n == 1:
        return HELPLESS
    return ActionLimits(attack=False) if n == 2 else NORMAL


def _helpless_saved(s: SurpriseState, n: int) -> ActionLimits:
    if n == 1:
        return HELPLESS
    return ActionLimits(attack=False) if n == 2 else NORMAL


def _initiative(s: SurpriseState, n: int) -> ActionLimits:
    return ActionLimits(attack=False, parry=False) if n == 1 else NORMAL


_SURPRISE_LIMITS = {
    "ambush": _ambush,
    "spotted": _spotted,
    "unaware": _unaware,
    "helpless_saved": _helpless_saved,
    "initiative": _initiative,
}


def ambush_succeeds(outcomes: list[str]) -> bool:
    """Every ambusher rolls Emboscada; the rules are silent on a mixed result: one seen ambusher gives
    the ambush away, so it works only when all succeed."""
    return bool(outcomes) and all(is_success(o) for o in outcomes)


def ambush_surprise_rounds(rng: Rng) -> int:
    """1d4-1 rounds of surprise after a successful ambush roll."""
    return roll_die(rng, 4) - 1


@dataclass(frozen=True, slots=True)
class InitiativeSurprise:
    attacker_die: int
    defender_die: int
    attacker_total: int
    defender_total: int

    @property
    def attacker_wins(self) -> bool:
        """Only a strictly higher total gives the attacker the initiative."""
        return self.attacker_total > self.defender_total


def initiative_surprise(attacker_dex: int, defender_dex: int, rng: Rng) -> InitiativeSurprise:
    """An unexpected attack: each side rolls 1d10 + DEX."""
    a, d = roll_die(rng, 10), roll_die(rng, 10)
    return InitiativeSurprise(a, d, a + attacker_dex, d + defender_dex)


@dataclass(frozen=True, slots=True)
class DamageResult:
    """One blow's damage. ``major_wound`` is None when no threshold is known."""

    rolled: int
    critical: bool
    inflicted: int
    absorbed: int
    hp_lost: int
    major_wound: bool | None
    stunned: bool

    @property
    def wound_table(self) -> bool:
        """A critical that wounds, or a major wound, sends the GM to the Heridas graves table."""
        return self.hp_lost > 0 and (self.critical or bool(self.major_wound))


def resolve_damage(
    rolled: int, armour: int, critical: bool = False, major_threshold: int | None = None
) -> DamageResult:
    """``rolled``: weapon dice plus STR bonus. A critical doubles it and ignores all armour."""
    rolled = max(0, rolled)
    inflicted = rolled * 2 if critical else rolled
    absorbed = 0 if critical else min(max(0, armour), inflicted)
    hp_lost = inflicted - absorbed
    major = None if major_threshold is None else hp_lost >= major_threshold
    if critical and hp_lost > 0:
        major = True
    return DamageResult(rolled, critical, inflicted, absorbed, hp_lost, major, critical and hp_lost > 0)


def weapon_survives_critical(damage: int, weapon_hp: int = WEAPON_HIT_POINTS) -> bool:
    """Optional rule: a weapon parrying a critical breaks if the doubled damage exceeds its
    remaining hit points (20 at most)."""
    return damage * 2 <= min(WEAPON_HIT_POINTS, weapon_hp)


def demon_object_breaks(face: int) -> bool:
    """Striking a demon object: the weapon breaks on a d100 above 50."""
    return face > DEMON_OBJECT_BREAK_ABOVE


def intelligence_bonus(intelligence: int) -> int:
    """+1% per INT point above 12; no penalty below."""
    return max(0, intelligence - INTELLIGENCE_BASE)


def experience_improves(face: int, skill: int, intelligence: int = INTELLIGENCE_BASE) -> bool:
    """The experience roll improves the skill when the modified d100 exceeds the current skill."""
    return face + intelligence_bonus(intelligence) > skill


def training_gain(face: int) -> int:
    """1d6-2 points, possibly negative, from a week with a master."""
    return face - 2


@dataclass(slots=True)
class TrainingLog:
    """A student's training record: weeks used and (master, weapon) pairs awaiting experience."""

    weeks: list[int] = field(default_factory=list)
    awaiting_experience: list[list[str]] = field(default_factory=list)

    def refusal(self, master: str, weapon: str, week: int, attack: int, parry: int) -> str | None:
        """Why this training is not allowed (a code), or None when it is."""
        if not is_master(attack, parry):
            return "not_a_master"
        if week in self.weeks:
            return "one_master_per_week"
        if [master, weapon] in self.awaiting_experience:
            return "needs_experience"
        return None

    def record_training(self, master: str, weapon: str, week: int) -> None:
        self.weeks.append(week)
        self.awaiting_experience.append([master, weapon])

    def record_experience_success(self, weapon: str) -> None:
        """A combat with the weapon and a won experience roll free the masters of that weapon."""
        self.awaiting_experience = [p for p in self.awaiting_experience if p[1] != weapon]

    def to_dict(self) -> dict:
        return {"weeks": list(self.weeks), "awaiting_experience": [list(p) for p in self.awaiting_experience]}

    @classmethod
    def from_dict(cls, data: dict) -> TrainingLog:
        return cls(list(data.get("weeks", [])), [list(p) for p in data.get("awaiting_experience", [])])
