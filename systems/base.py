"""What every game system offers the table and the CLI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from systems.dice import Rng, RollResult, parse


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
class DiceRoll:
    """A plain dice expression, valid in every system."""

    template: ClassVar[str] = "roll"
    result: RollResult
    system: str = "generic"

    @property
    def total(self) -> int:
        return self.result.total

    def as_json(self) -> dict:
        return {"system": self.system, "kind": "dice", **self.result.as_json()}


def roll_dice(text: str, rng: Rng, system: str = "generic") -> DiceRoll:
    return DiceRoll(parse(text).roll(rng), system)
