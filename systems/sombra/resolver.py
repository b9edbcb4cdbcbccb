"""Sistema Sombra / Comandos de Guerra: 3d10 roll-under resolver (docs/contracts.md#3.1).

``SYSTEM.roll`` resolves checks (``3d10+M vs K`` with Spanish clauses), damage rolls,
hit-location rolls and initiative orders; anything else falls back to the generic
dice grammar. The table builds its requests from values instead (``check_request``, ``damage_request``)
and rolls them (``check_roll``, ``damage_roll``). The combat rules themselves live in ``sombra_rules``
and ``sombra_damage``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter
from typing import Any, ClassVar

from systems.base import Outcome, modifier_list, roll_dice
from systems.dice import MAX_TEXT, DiceError, Die, Rng, minus_signs, parse_prefix
from systems.jsonable import Jsonable, JsonShape
from systems.sombra.damage import DamageResult, aimed_digit, damage_from_dice, location_key
from systems.sombra.rules import (
    CheckResult,
    InitiativeSlot,
    Modifier,
    SombraDice,
    initiative_order,
    resolve_check,
    roll_sombra_dice,
    total_modifier,
)
from systems.sombra.syntax import (
    AIM_MODIFIERS,
    CheckRequest,
    Clauses,
    parse_check,
    parse_keyword_roll,
    read_check,
    read_damage,
)

SYSTEM_KEY = "sombra"


def _rolled(path: str) -> JsonShape:
    """What every Sombra roll shows first: its kind and the 3d10 in the outcome's ``path``."""
    return JsonShape("system", "kind", "total", "outcome", "dice", f"high={path}.high", f"location={path}.location",
                     f"low={path}.low", const={"system": SYSTEM_KEY},
                     derived={"dice": lambda outcome: list(attrgetter(path)(outcome).faces)})


def _damage_json(damage: DamageResult | None) -> dict | None:
    if damage is None:
        return None
    return {**damage.to_dict(), "roman": damage.roman, "total": damage.total}


def _die_objects(dice: SombraDice) -> list[Die]:
    """The faces as engine dice, for the shared ``macros`` dice lists."""
    return [Die(10, (f,), f) for f in dice.faces]


@dataclass(slots=True)
class SombraCheck(Jsonable):
    """A 3d10 roll-under check, with the hit location and damage when it is an attack."""

    template: ClassVar[str] = "sombra/check"
    kind: ClassVar[str] = "check"
    json_shape: ClassVar[JsonShape] = JsonShape(
        _rolled("check.dice"), "target=check.target", "modifier=check.modifier", "effective=check.effective",
        "margin=check.margin", "success=check.succeeded", "roll_modifier", "modifiers", "table", "aimed",
        "hit_location", "damage", "comment",
        derived={"modifiers": lambda o: modifier_list((m.name, m.value) for m in o.modifiers),
                 "hit_location": lambda o: None if o.hit_digit is None else {"digit": o.hit_digit, "key": o.hit_key},
                 "damage": lambda o: _damage_json(o.damage)})
    expr_text: str
    check: CheckResult
    roll_modifier: int
    modifiers: tuple[Modifier, ...]
    table: str | None = None
    aimed: str | None = None
    hit_digit: int | None = None
    damage: DamageResult | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.check.dice.total

    @property
    def outcome(self) -> str:
        return self.check.level

    @property
    def dice(self) -> list[Die]:
        return _die_objects(self.check.dice)

    @property
    def hit_key(self) -> str | None:
        return None if self.hit_digit is None else location_key(self.table or "persona", self.hit_digit)



@dataclass(slots=True)
class SombraDamageRoll(Jsonable):
    """Damage read straight from a fresh 3d10 (no check)."""

    template: ClassVar[str] = "sombra/damage"
    kind: ClassVar[str] = "damage"
    json_shape: ClassVar[JsonShape] = JsonShape(_rolled("sombra_dice"), "aimed", "damage", "comment",
                                                const={"outcome": "damage"},
                                                derived={"damage": lambda o: _damage_json(o.damage)})
    sombra_dice: SombraDice
    damage: DamageResult
    aimed: str | None = None
    comment: str = ""

    @property
    def total(self) -> int:
        return self.damage.total

    @property
    def dice(self) -> list[Die]:
        return _die_objects(self.sombra_dice)


@dataclass(slots=True)
class SombraLocationRoll(Jsonable):
    """A hit location: the middle die of 3d10 (a 10 reads 0) on a table."""

    template: ClassVar[str] = "sombra/location"
    kind: ClassVar[str] = "location"
    json_shape: ClassVar[JsonShape] = JsonShape(_rolled("sombra_dice"), "table", "key", "comment",
                                                const={"outcome": "location"})
    sombra_dice: SombraDice
    table: str
    comment: str = ""

    @property
    def total(self) -> int:
        return self.sombra_dice.location

    @property
    def key(self) -> str:
        return location_key(self.table, self.sombra_dice.location)

    @property
    def dice(self) -> list[Die]:
        return _die_objects(self.sombra_dice)


@dataclass(slots=True)
class SombraInitiative(Jsonable):
    """The acting order by VEL then AGI: nothing is rolled."""

    template: ClassVar[str] = "sombra/initiative"
    kind: ClassVar[str] = "initiative"
    json_shape: ClassVar[JsonShape] = JsonShape(
        "system", "kind", "total", "dice", "outcome", "order",
        const={"system": SYSTEM_KEY, "total": 0, "outcome": "initiative"},
        derived={"dice": lambda _: [],
                 "order": lambda o: [{"rank": s.rank, **s.combatant.to_dict(), "tied": s.tied} for s in o.order]})
    order: list[InitiativeSlot]


def _hit_digit(clauses: Clauses, dice: SombraDice) -> int:
    table = clauses.table or "persona"
    return aimed_digit(table, clauses.aimed, dice.location) if clauses.aimed else dice.location


def _checked(request: CheckRequest, dice: SombraDice) -> SombraCheck:
    c = request.clauses
    modifiers = tuple(c.modifiers)
    check = resolve_check(dice, request.target, request.roll_modifier + total_modifier(modifiers))
    outcome = SombraCheck(f"{request.expr_text} vs {request.target}", check, request.roll_modifier,
                          modifiers, c.table, c.aimed, comment=c.comment)
    if check.succeeded and (c.table or c.aimed or c.damage):
        outcome.hit_digit = _hit_digit(c, dice)
        if c.damage:
            outcome.damage = damage_from_dice(
                c.damage.damage_type, dice, c.table or "persona", c.damage.total_bonus,
                maximum=check.level == "critical", first_digit=outcome.hit_digit, below_waterline=c.torpedo)
    return outcome


def _only_aim(clauses: Clauses) -> None:
    """Damage and location rolls are no checks: only an aimed location makes sense there."""
    extra = [m.name for m in clauses.modifiers if m.name not in AIM_MODIFIERS]
    if extra:
        raise DiceError("sombra.modifier_without_check", name=extra[0])


def _damaged(clauses: Clauses, dice: SombraDice) -> SombraDamageRoll:
    _only_aim(clauses)
    request = clauses.damage
    assert request is not None
    damage = damage_from_dice(request.damage_type, dice, clauses.table or "persona",
                              request.total_bonus, first_digit=_hit_digit(clauses, dice),
                              below_waterline=clauses.torpedo)
    return SombraDamageRoll(dice, damage, clauses.aimed, clauses.comment)


def _location_roll(clauses: Clauses, dice: SombraDice) -> SombraLocationRoll:
    if clauses.modifiers:
        raise DiceError("sombra.modifier_without_check", name=clauses.modifiers[0].name)
    return SombraLocationRoll(dice, clauses.table or "persona", clauses.comment)


def check_roll(request: CheckRequest, rng: Rng) -> SombraCheck:
    """Roll the table's check (``check_request``)."""
    return _checked(request, roll_sombra_dice(rng))


def damage_roll(clauses: Clauses, rng: Rng) -> SombraDamageRoll:
    """Roll the damage the GM asked for (``damage_request``)."""
    return _damaged(clauses, roll_sombra_dice(rng))


def check_request(target: int, options: str = "", *, modifier: int = 0, clauses: Clauses | None = None,
                  extra: tuple[Modifier, ...] = ()) -> CheckRequest:
    """The table's 3d10 under ``target`` (``read_check``): ``modifier`` added to the roll, the ``clauses``
    the game sets, the ones the player wrote (``options``), then the ``extra`` modifiers from the table's state."""
    return read_check(target, _prepared(options), modifier, clauses, extra)


def damage_request(damage: str, table: str, options: str = "") -> Clauses:
    """The damage of type ``damage`` on ``table`` the GM wrote, with its clauses (``read_damage``)."""
    return read_damage(_prepared(damage), table, _prepared(options))


def _prepared(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return minus_signs(text)


@dataclass(frozen=True)
class SombraSystem:
    key: str = SYSTEM_KEY
    name: str = "Sistema Sombra (Comandos de Guerra)"

    def roll(self, text: str, rng: Rng) -> Outcome:
        return self.roll_with(text, rng)

    def roll_with(self, text: str, rng: Rng, extra: tuple[tuple[str, int], ...] = ()) -> Outcome:
        """``roll``, with ``extra`` named modifiers added to a check (positive is harder): what the
        table adds from a character's state (wounds, stun)."""
        text = minus_signs(text)
        kind, data = _plan(text)
        if extra and kind == "check":
            clauses = replace(data.clauses, modifiers=[*data.clauses.modifiers, *(Modifier(n, v) for n, v in extra)])
            data = replace(data, clauses=clauses)
        if kind == "generic":
            return roll_dice(text, rng, self.key)
        if kind == "initiative":
            return SombraInitiative(initiative_order(data))
        dice = roll_sombra_dice(rng)
        if kind == "check":
            return _checked(data, dice)
        return _damaged(data, dice) if kind == "damage" else _location_roll(data, dice)


@lru_cache(maxsize=1024)
def _plan(text: str) -> tuple[str, Any]:
    """What a text asks for, parsed once: the parse is read-only afterwards."""
    keyword = parse_keyword_roll(text)
    if keyword is not None:
        return keyword
    expr, rest = parse_prefix(text.strip())
    request = parse_check(expr, rest)
    return ("generic", None) if request is None else ("check", request)


SYSTEM = SombraSystem()
