"""What every game system offers the table and the CLI."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, ClassVar, Protocol

from systems.dice import Die, Rng, RollResult, parse
from systems.jsonable import Jsonable, JsonShape

MAX_WALK_DEPTH = 6


class Outcome(Protocol):
    """A resolved roll. ``template`` names its message kind in ``templates/``."""

    template: ClassVar[str]

    def as_json(self) -> dict: ...


class GameSystem(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...

    def roll(self, text: str, rng: Rng) -> Outcome:
        """Resolve one roll text (without the ``/tiro`` command); raise DiceError if bad."""
        ...


@dataclass(slots=True)
class DiceRoll(Jsonable):
    """A plain dice expression, valid in every system."""

    template: ClassVar[str] = "roll"
    kind: ClassVar[str] = "dice"
    json_shape: ClassVar[JsonShape] = JsonShape("system", "kind", RollResult.json_shape.through("result"), "modifiers",
                                                derived={"modifiers": lambda _: []})
    result: RollResult
    system: str = "generic"

    @property
    def total(self) -> int:
        return self.result.total


def roll_dice(text: str, rng: Rng, system: str = "generic") -> DiceRoll:
    return DiceRoll(parse(text).roll(rng), system)


def modifier_list(pairs: Iterable[tuple[str, int]]) -> list[dict[str, Any]]:
    """Named modifiers as the roll JSON lists them (docs/contracts.md#3.2): ``{"reason", "value"}`` objects."""
    return [{"reason": reason, "value": value} for reason, value in pairs]


def sized_dice(outcome: object, depth: int = 0) -> list[tuple[int, int]]:
    """Every die an outcome rolled, as ``(sides, face)`` pairs (an exploding die gives each face of its
    chain), for the room's dice statistics. It walks the outcome's dataclass fields: ``Die`` and
    ``RollResult`` carry their sizes; a result class whose dice are plain integers names them in a
    ``dice_sides`` class attribute (field name -> sides; a tuple field holds several dice)."""
    if depth > MAX_WALK_DEPTH or outcome is None or isinstance(outcome, (str, int, float, bool)):
        return []
    if isinstance(outcome, Die):
        return [(outcome.sides, face) for face in outcome.faces]
    if isinstance(outcome, RollResult):
        return [(die.sides, face) for die in outcome.dice for face in die.faces]
    if isinstance(outcome, (list, tuple)):
        return [pair for item in outcome for pair in sized_dice(item, depth + 1)]
    if not is_dataclass(outcome):
        return []
    named: dict[str, int] = getattr(outcome, "dice_sides", {})
    found: list[tuple[int, int]] = []
    for f in fields(outcome):
        value = getattr(outcome, f.name)
        if f.name in named:
            faces = value if isinstance(value, (list, tuple)) else (value,)
            found += [(named[f.name], int(face)) for face in faces]
        else:
            found += sized_dice(value, depth + 1)
    return found
