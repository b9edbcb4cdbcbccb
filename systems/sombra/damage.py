"""Sistema Sombra hit locations, damage types 0-VIII, wounds, vehicle armour and boat flotation.

Damage is read from the same 3d10 as the attack: the high and low dice are the
"damage dice" (faces 1-10), the middle die picks the location (a 10 reads 0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from systems.dice import DiceError
from systems.record import Record
from systems.sombra.rules import SIDES, SombraDice

# Location digit (0-9) -> location key, per target kind. Keys are ids; templates name them.
LOCATION_TABLES: dict[str, tuple[str, ...]] = {
    "persona": ("cabeza", "pecho", "pecho", "pecho", "brazo_derecho", "brazo_izquierdo",
                "abdomen", "abdomen", "piernas", "piernas"),
    "vehiculo": ("techo", "chasis_frontal", "chasis_frontal", "chasis_lateral", "chasis_lateral",
                 "cadenas", "torreta_lateral", "torreta_lateral", "torreta_frontal", "bajos"),
    "barco": ("puente", "proa", "amura_estribor", "amura_babor", "traves", "traves", "traves",
              "aleta_estribor", "aleta_babor", "popa"),
}
TABLE_KINDS: tuple[str, ...] = tuple(LOCATION_TABLES)
AREAS: dict[str, tuple[str, ...]] = {"brazos": ("brazo_derecho", "brazo_izquierdo")}
"""Names covering several locations: ``brazo`` is either arm (4 right, 5 left: the rules say only
"Brazos (4, 5)", the bot reads the lower digit as the right arm)."""

ROMAN: tuple[str, ...] = ("0", "I", "II", "III", "IV", "V", "VI", "VII", "VIII")
DAMAGE_TYPES = range(len(ROMAN))
MELEE_TYPES = frozenset({0, 1})  # the strength adjustment adds to unarmed and melee damage


def location_key(table: str, digit: int) -> str:
    return LOCATION_TABLES[table][digit % SIDES]


def location_digits(table: str, key: str) -> tuple[int, ...]:
    keys = AREAS.get(key, (key,))
    return tuple(d for d, k in enumerate(LOCATION_TABLES[table]) if k in keys)


def aimed_digit(table: str, key: str, rolled: int) -> int:
    """The digit hit by an aimed attack: the rolled one if it falls in the aimed area, else its first."""
    digits = location_digits(table, key)
    return rolled if rolled in digits else digits[0]


@dataclass(frozen=True, slots=True)
class LocationHit(Record):
    digit: int
    key: str
    damage: int


@dataclass(frozen=True, slots=True)
class DamageResult(Record):
    """Damage of one attack: one hit per location struck (several for types IV and V)."""

    damage_type: int
    table: str
    bonus: int
    maximum: bool
    hits: tuple[LocationHit, ...]
    below_waterline: bool = False
    """A torpedo, or a bomb from a plane: counts double against a boat's flotation."""

    @property
    def roman(self) -> str:
        return ROMAN[self.damage_type]

    @property
    def total(self) -> int:
        return sum(h.damage for h in self.hits)

    def to_dict(self) -> dict[str, Any]:
        return {"damage_type": self.damage_type, "table": self.table, "bonus": self.bonus,
                "maximum": self.maximum, "hits": [h.to_dict() for h in self.hits],
                "below_waterline": self.below_waterline}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DamageResult:
        hits = tuple(LocationHit.from_dict(h) for h in data["hits"])
        return cls(data["damage_type"], data["table"], data["bonus"], data["maximum"], hits,
                   bool(data.get("below_waterline")))


def area_digits(first: int, count: int) -> list[int]:
    """Type IV: the first location, then alternately one above and one below, moving outwards
    (first, +1, -1, +2, -2, ...), wrapping round 0-9; at most the ten locations."""
    offsets = [0]
    step = 1
    while len(offsets) < min(count, SIDES):
        offsets.append(step)
        if len(offsets) < min(count, SIDES):
            offsets.append(-step)
        step += 1
    return [(first + o) % SIDES for o in offsets]


def _amounts(damage_type: int, high: int, low: int, count: int) -> list[int]:
    """Damage per location before the bonus, from the damage dice."""
    single = {
        0: low, 1: high, 2: high + low, 3: 2 * (high + low), 6: high * low,
        7: 100 * low + 10 * high, 8: 100 * high + 10 * low,
    }
    if damage_type in single:
        return [single[damage_type]]
    if damage_type == 4:
        return [high + low, high, high, *([low] * max(count - 3, 0))][:count]
    return [high + low] * 3


def damage_from_dice(damage_type: int, dice: SombraDice, table: str = "persona", bonus: int = 0,
                     *, maximum: bool = False, first_digit: int | None = None,
                     below_waterline: bool = False) -> DamageResult:
    """Damage of a hit. ``maximum`` (a critical) reads both damage dice as 10;
    ``first_digit`` overrides the location die (aimed attacks); ``below_waterline`` marks a torpedo
    or a bomb, only against boats."""
    if damage_type not in DAMAGE_TYPES:
        raise DiceError("sombra.damage_type", text=str(damage_type))
    if below_waterline and table != "barco":
        raise DiceError("sombra.torpedo_table", table=table)
    high, low = (SIDES, SIDES) if maximum else (dice.high, dice.low)
    first = dice.location if first_digit is None else first_digit
    if damage_type == 4:
        digits = area_digits(first, low)
    elif damage_type == 5:
        digits = [first, *(f % SIDES for f in _others(dice))]
    else:
        digits = [first]
    amounts = _amounts(damage_type, high, low, len(digits))
    hits = tuple(LocationHit(d, location_key(table, d), max(a + bonus, 0)) for d, a in zip(digits, amounts))
    return DamageResult(damage_type, table, bonus, maximum, hits, below_waterline)


def _others(dice: SombraDice) -> tuple[int, int]:
    """Type V: the high and low dice, also read as locations."""
    return dice.high, dice.low


def wound_severity(damage: int, resistance: int) -> str:
    """People: ``light`` when the damage exceeds RES, ``serious`` when it exceeds twice RES."""
    if damage > 2 * resistance:
        return "serious"
    return "light" if damage > resistance else "none"


def armour_loss(armour: int, damage: int, table: str) -> int:
    """Armour points a zone loses to one hit, once the damage exceeds half its armour.

    The rules give two rates with one example each: a tank loses half the damage,
    a boat a quarter (rounded down). Read as: vehicles a half, boats a quarter.
    """
    if 2 * damage <= armour:
        return 0
    lost = damage // 4 if table == "barco" else damage // 2
    return min(lost, armour)


def interior_damage(armour: int, damage: int) -> int:
    """Points that go through the zone's armour to the inside."""
    return max(damage - armour, 0)


# Share of the interior damage that reaches the crew, per boat zone: (numerator, denominator).
BOAT_CREW_SHARE: dict[str, tuple[int, int]] = {
    "puente": (1, 4), "proa": (1, 3), "popa": (1, 4),
    "amura_estribor": (1, 3), "amura_babor": (1, 3), "traves": (1, 3),
    "aleta_estribor": (1, 3), "aleta_babor": (1, 3),
}


def boat_interior_split(zone: str, excess: int) -> tuple[int, int]:
    """(damage to the crew, damage to weapons/instruments/engine) of the points inside.
    On the bridge each crew member present takes the crew share."""
    num, den = BOAT_CREW_SHARE[zone]
    crew = excess * num // den
    return crew, excess - crew


@dataclass(frozen=True, slots=True)
class BoatState(Record):
    """Armour per boat zone and flotation. ``lost`` counts flotation lost so far."""

    armour: dict[str, int]
    flotation: int
    lost: int = 0

    @property
    def sunk(self) -> bool:
        return self.flotation <= 0

    @property
    def sinking(self) -> bool:
        return self.lost > 10 and not self.sunk

    def to_dict(self) -> dict[str, Any]:
        return {"armour": dict(self.armour), "flotation": self.flotation, "lost": self.lost}


@dataclass(frozen=True, slots=True)
class BoatHit(Record):
    """What one hit did: armour lost, points inside, their split and flotation lost."""

    zone: str
    armour_lost: int
    interior: int
    crew: int
    equipment: int
    flotation_lost: int


def hit_boat(state: BoatState, zone: str, damage: int, *, below_waterline: bool = False) -> tuple[BoatState, BoatHit]:
    """Apply one hit. Torpedoes and bombs below the waterline count double against flotation."""
    armour = state.armour.get(zone, 0)
    excess = interior_damage(armour, damage)
    crew, equipment = boat_interior_split(zone, excess)
    flotation_lost = excess * (2 if below_waterline else 1)
    lost_armour = armour_loss(armour, damage, "barco")
    new_state = replace(state, armour={**state.armour, zone: armour - lost_armour},
                        flotation=state.flotation - flotation_lost, lost=state.lost + flotation_lost)
    return new_state, BoatHit(zone, lost_armour, excess, crew, equipment, flotation_lost)


ENGINE_ZONES = frozenset({"popa"})
"""Where a boat's engine is: the stern ("el resto afecta a armas, motor o instrumental")."""


def engine_hit(zone: str, equipment: int, engine: int) -> int:
    """The engine points left after a hit whose ``equipment`` share (past the armour, less the crew's)
    lands in ``zone``: at the stern it all goes to the engine; at 0 the boat is adrift."""
    return max(engine - equipment, 0) if zone in ENGINE_ZONES else engine


def sinking_round(state: BoatState) -> BoatState:
    """A boat that lost more than 10 flotation to hits loses a tenth of that loss (at least 1)
    every round; this drop does not count as a new loss."""
    if not state.sinking:
        return state
    return replace(state, flotation=state.flotation - max(state.lost // 10, 1))


KNOT_KMH = 1.8


def boat_metres_per_round(knots: float) -> float:
    """A boat moves as many metres per round as its speed in km/h (a knot is 1.8 km/h)."""
    return round(knots * KNOT_KMH, 1)


def max_deceleration(max_acceleration: float) -> float:
    return 3 * max_acceleration


MAX_TURN_DEGREES = 60
