"""The generic system: plain dice expressions, no house rules."""

from __future__ import annotations

from dataclasses import dataclass

from systems.base import DiceRoll, roll_dice
from systems.dice import Rng


@dataclass(frozen=True)
class GenericSystem:
    key: str = "generic"
    name: str = "Genérico"

    def roll(self, text: str, rng: Rng) -> DiceRoll:
        return roll_dice(text, rng, self.key)


SYSTEM = GenericSystem()
