"""Sistema Sombra core rules: the 3d10 roll-under check, modifiers, capacities, initiative.

Pure functions over plain dataclasses. Every state object round-trips through
``to_dict()`` / ``from_dict()`` so the table core can keep it in SQLite as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from systems.dice import DiceError
from systems.record import Record

SIDES = 10
TARGET_MIN, TARGET_MAX = 0, 30
ATTRIBUTE_MIN, ATTRIBUTE_MAX = 1, 10

LEVELS: tuple[str, ...] = ("fumble", "failure", "low_failure", "low_success", "success", "critical")
SUCCESS_LEVELS = frozenset({"low_success", "success", "critical"})

DIFFICULTY: dict[str, int] = {
    "muy_facil": -10,
    "facil": -5,
    "normal": 0,
    "dificil": 5,
    "muy_dificil": 10,
}
HURRY = 5
AIMED_LOCATION = 2
CALLED_BLOW = 5
TOOK_AIM = -5
SECOND_SHOT = 5
EXTRA_TARGET = 5
PARRY = -4
OPPORTUNITY_INITIATIVE = 5

# Attack skills and what the rules say of each: which are firearms (rate of fire), which fire
# bursts, which are melee (an opposed fight), which need both arms.
FIREARM_SKILLS = frozenset({"disparo", "pistola", "fusil", "ametralladora"})
BURST_SKILLS = frozenset({"disparo", "fusil", "ametralladora"})
MELEE_SKILLS = frozenset({"pelea", "cuchillo", "bayoneta"})
TWO_HANDED_SKILLS = frozenset({"disparo", "fusil", "ametralladora", "bayoneta"})
BAYONET_FALLBACK = ("cuchillo", "fusil")
"""Without the bayonet's own skill, a bayonet fixed on a rifle is used with «armas blancas» (``cuchillo``) or
«fusil», one point harder (004: «se tira la habilidad con un penalizador de -1»)."""
PISTOL_SHOTS, RIFLE_SHOTS = 1, 2
MAX_BURST = 10


def shot_limit(skill: str, covering: bool) -> int:
    """Aimed shots a turn: a pistol one, rifles and machine guns two; covering fire doubles it
    ("se dispara el doble de la cadencia de fuego")."""
    base = PISTOL_SHOTS if skill == "pistola" else RIFLE_SHOTS
    return 2 * base if covering else base


def shot_penalty(shot: int) -> int:
    """The second shot of a turn (and any after it) goes at +5; the first at nothing."""
    return SECOND_SHOT if shot > 1 else 0

# Mando (2xVOL+INV) -> modifier to the rolls of those under command: (low, high, modifier).
COMMAND_TABLE: tuple[tuple[int, int, int], ...] = (
    (3, 6, 3), (7, 10, 2), (11, 14, 1), (15, 18, 0), (19, 22, -1), (23, 26, -2), (27, 30, -3),
)
# Rival's Esquivar -> difficulty of an unarmed action against them: (low, high, modifier).
UNARMED_TABLE: tuple[tuple[int, int, int], ...] = ((0, 0, -10), (1, 10, -5), (11, 20, 0), (21, 30, 5))


@dataclass(frozen=True, slots=True)
class SombraDice(Record):
    """The three d10 of a roll, as rolled; read as high, location and low dice."""

    dice_sides: ClassVar[dict[str, int]] = {"faces": 10}
    faces: tuple[int, int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "faces", tuple(self.faces))

    @property
    def high(self) -> int:
        return max(self.faces)

    @property
    def middle(self) -> int:
        return sorted(self.faces)[1]

    @property
    def low(self) -> int:
        return min(self.faces)

    @property
    def location(self) -> int:
        """The middle die as a location digit: a 10 reads 0."""
        return self.middle % SIDES

    @property
    def total(self) -> int:
        return sum(self.faces)

    @property
    def is_triple(self) -> bool:
        return self.faces[0] == self.faces[1] == self.faces[2]

    @property
    def damage_pair_low(self) -> bool:
        """High plus low die under 5: the mark of a low success or low failure."""
        return self.high + self.low < 5

    def to_dict(self) -> dict[str, Any]:
        return {"faces": list(self.faces)}


def roll_sombra_dice(rng: Any) -> SombraDice:
    """Roll 3d10 with the engine's face formula, so scripted RNGs drive it."""
    rnd = rng.random
    return SombraDice((int(rnd() * SIDES) + 1, int(rnd() * SIDES) + 1, int(rnd() * SIDES) + 1))


def success_level(dice: SombraDice, target: int, modifier: int = 0) -> str:
    """One of LEVELS. Success when the sum plus the modifier is at most the target."""
    if dice.faces == (1, 1, 1):
        return "critical"
    if dice.faces == (SIDES,) * 3:
        return "fumble"
    success = dice.total + modifier <= target
    if dice.is_triple:
        return "critical" if success else "fumble"
    if success:
        return "low_success" if dice.damage_pair_low else "success"
    return "low_failure" if dice.damage_pair_low else "failure"


@dataclass(frozen=True, slots=True)
class CheckResult(Record):
    """A resolved check, storable as JSON."""

    dice: SombraDice
    target: int
    modifier: int
    level: str

    @property
    def succeeded(self) -> bool:
        return self.level in SUCCESS_LEVELS

    @property
    def effective(self) -> int:
        return self.dice.total + self.modifier

    @property
    def margin(self) -> int:
        """How far under (positive) or over (negative) the target the roll landed."""
        return self.target - self.effective

    def to_dict(self) -> dict[str, Any]:
        return {"faces": list(self.dice.faces), "target": self.target, "modifier": self.modifier, "level": self.level}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CheckResult:
        return cls(SombraDice(tuple(data["faces"])), data["target"], data["modifier"], data["level"])


def check_target(target: int) -> int:
    if not TARGET_MIN <= target <= TARGET_MAX:
        raise DiceError("sombra.target_range", value=target, low=TARGET_MIN, high=TARGET_MAX)
    return target


def resolve_check(dice: SombraDice, target: int, modifier: int = 0) -> CheckResult:
    return CheckResult(dice, check_target(target), modifier, success_level(dice, target, modifier))


def opposed_winner(a: CheckResult, b: CheckResult) -> int:
    """Unarmed fights: 0 if ``a`` wins, 1 if ``b`` wins, -1 on a tie.

    The better success level wins; on equal levels the wider margin under the target.
    """
    key_a = (LEVELS.index(a.level), a.margin)
    key_b = (LEVELS.index(b.level), b.margin)
    if key_a == key_b:
        return -1
    return 0 if key_a > key_b else 1


def fight_winner(a: CheckResult, b: CheckResult | None) -> int:
    """A melee fight ("el mejor resultado, da el golpe"): 0 if ``a`` strikes, 1 if ``b`` does, -1 if
    nobody does. The better roll wins only with a success; without ``b`` (a rival who cannot defend)
    ``a`` strikes on any success."""
    if b is None:
        return 0 if a.succeeded else -1
    winner = opposed_winner(a, b)
    return winner if winner >= 0 and (a, b)[winner].succeeded else -1


def knockdown_penalty(winner: CheckResult) -> int:
    """Derribar: the loser's Coordinación roll gets the winner's low die as a penalty."""
    return winner.dice.low


def capsizes(level: str) -> bool:
    """A boat turning against high waves overturns on a failure or a fumble, not a low failure."""
    return level in ("failure", "fumble")


def _table_lookup(table: Sequence[tuple[int, int, int]], value: int, code: str) -> int:
    for low, high, modifier in table:
        if low <= value <= high:
            return modifier
    raise DiceError(code, value=value, low=table[0][0], high=table[-1][1])


def command_modifier(mando: int) -> int:
    """Modifier to subordinates' rolls from their officer's Mando (3-30)."""
    return _table_lookup(COMMAND_TABLE, mando, "sombra.mando_range")


def unarmed_difficulty(rival_dodge: int) -> int:
    """Unarmed difficulty from the rival's Esquivar (the rules' "12 a 30" read as 21-30)."""
    return _table_lookup(UNARMED_TABLE, rival_dodge, "sombra.dodge_range")


def burst_penalty(bullet: int, step: int = 5, target: int = 1) -> int:
    """Penalty of one bullet of a burst: ``step`` (1-5) per bullet after the first, cumulative,
    plus 5 for every extra target after the first one."""
    return step * (bullet - 1) + EXTRA_TARGET * (target - 1)


@dataclass(frozen=True, slots=True)
class Attributes(Record):
    """The fifteen attributes of a sheet, each 1-10 (``intu`` is Intuición, INT's first)."""

    fue: int = 5
    res: int = 5
    vit: int = 5
    agi: int = 5
    coo: int = 5
    vel: int = 5
    con: int = 5
    intu: int = 5
    per: int = 5
    inv: int = 5
    log: int = 5
    mem: int = 5
    apa: int = 5
    car: int = 5
    vol: int = 5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not ATTRIBUTE_MIN <= value <= ATTRIBUTE_MAX:
                raise DiceError("sombra.attribute_range", name=f.name, value=value,
                                low=ATTRIBUTE_MIN, high=ATTRIBUTE_MAX)


@dataclass(frozen=True, slots=True)
class Capacities(Record):
    """Derived capacities; distances in metres, loads in kilos, durations as the rules say."""

    strength_bonus: int
    alertness: int
    walk: int
    throw_object: int
    carry: int
    run: int
    run_rounds: int
    dodge: int
    initiative: tuple[int, int]
    throw_skill: int
    lift: int
    command: int
    pain_resistance: int
    jump_running: float
    jump_up: float
    jump_down: float
    sprint: int
    sprint_turns: int
    death_threshold: int

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["initiative"] = list(self.initiative)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Capacities:
        return cls(**{**data, "initiative": tuple(data["initiative"])})


def capacities(a: Attributes) -> Capacities:
    """Every capacity from the attributes. "fue+vel/5" is read as (fue+vel)/5."""
    return Capacities(
        strength_bonus=a.fue - 5,
        alertness=3 * a.per,
        walk=a.agi,
        throw_object=4 * a.fue,
        carry=7 * a.fue,
        run=a.agi + 2 * a.vel,
        run_rounds=10 * a.vit,
        dodge=2 * a.agi + a.vel,
        initiative=(a.vel, a.agi),
        throw_skill=9 * a.fue,
        lift=9 * a.fue,
        command=2 * a.vol + a.inv,
        pain_resistance=a.vol // 2,
        jump_running=round((a.fue + a.vel) / 5, 1),
        jump_up=round(a.fue / 10, 1),
        jump_down=round(a.agi / 3, 1),
        sprint=a.agi + 3 * a.vel,
        sprint_turns=a.vit,
        death_threshold=a.vit,
    )


BOAT_INITIATIVE = (5, 5)


@dataclass(frozen=True, slots=True)
class Combatant(Record):
    """Who acts in a round: primary initiative VEL, AGI breaks ties. ``bonus`` adds to VEL
    (opportunity fire: +5 against what appears in the watched spot, -5 for anything else)."""

    name: str
    vel: int
    agi: int
    bonus: int = 0

    @property
    def primary(self) -> int:
        return self.vel + self.bonus

    @classmethod
    def boat(cls, name: str, bonus: int = 0) -> Combatant:
        """A boat against air or land vehicles: initiative 5,5 (read as VEL 5, AGI 5)."""
        return cls(name, *BOAT_INITIATIVE, bonus)


@dataclass(frozen=True, slots=True)
class InitiativeSlot(Record):
    """One place in the order; ``tied`` when VEL and AGI both equal a neighbour's (GM decides)."""

    rank: int
    combatant: Combatant
    tied: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "combatant": self.combatant.to_dict(), "tied": self.tied}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InitiativeSlot:
        return cls(data["rank"], Combatant.from_dict(data["combatant"]), data["tied"])


def initiative_order(combatants: Iterable[Combatant]) -> list[InitiativeSlot]:
    """Highest VEL (plus bonus) first, then highest AGI; full ties keep input order and share a rank."""
    ordered = sorted(combatants, key=lambda c: (-c.primary, -c.agi))
    slots: list[InitiativeSlot] = []
    for i, c in enumerate(ordered):
        key = (c.primary, c.agi)
        prev_same = i > 0 and (ordered[i - 1].primary, ordered[i - 1].agi) == key
        next_same = i + 1 < len(ordered) and (ordered[i + 1].primary, ordered[i + 1].agi) == key
        rank = slots[-1].rank if prev_same else i + 1
        slots.append(InitiativeSlot(rank, c, prev_same or next_same))
    return slots


@dataclass(frozen=True, slots=True)
class Modifier(Record):
    """A named modifier to the roll (positive is harder); ``param`` is the number it came from."""

    name: str
    value: int
    param: int | None = None


def total_modifier(modifiers: Iterable[Modifier]) -> int:
    return sum(m.value for m in modifiers)

