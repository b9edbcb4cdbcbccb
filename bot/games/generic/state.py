"""The generic game's data in ``combat.data``, read and written through ``GenericState``."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.api import Combat

ROLLS = "rolls"
"""In ``combat.data``: each initiative roll as ``[total, bonus, name]``."""
InitiativeRoll = tuple[int, int, str]
"""(total, bonus, name): 1d20 plus the sheet's ``iniciativa``."""


@dataclass
class GenericState:
    """The generic game's key in ``combat.data``, typed. A view over the combat's own dict: what it
    reads and writes is the stored JSON as it always was."""

    combat: Combat

    @classmethod
    def of(cls, combat: Combat) -> GenericState:
        return cls(combat)

    @property
    def rolls(self) -> list[InitiativeRoll] | None:
        """The initiative rolls made, in the order's order; None when the GM set the order by hand."""
        stored = self.combat.data.get(ROLLS)
        return None if stored is None else [(int(total), int(bonus), str(name)) for total, bonus, name in stored]

    @rolls.setter
    def rolls(self, rolls: list[InitiativeRoll]) -> None:
        self.combat.data[ROLLS] = [list(roll) for roll in rolls]
