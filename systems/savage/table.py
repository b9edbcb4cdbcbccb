"""What the table adds to a roll a player typed, as fields of the parsed request (never as words).

The bot knows the roller's state (wounds, fatigue, the joker in hand, the actions declared, the supports
waiting) and a damage roll's target (its Toughness, armour, whether it is Shaken). The resolver gets them
here, set on the ``SavageRequest`` parsed from what the player typed, as the same keywords written after
it would set them (the last word of a kind wins; supports add up). ``words`` writes them for the record
``!repetir`` rolls again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from systems.savage.syntax import MAX_SUPPORT_STEP, MAX_TN, SavageRequest, bounded


@dataclass(frozen=True, slots=True)
class TableState:
    """The roller's state the roll did not give itself; each field at its default adds nothing."""

    unskilled: bool = False
    extra: bool = False
    wounds: int = 0
    fatigue: int = 0
    actions: int = 0
    """Actions declared this turn, when more than one (the multi-action penalty)."""
    joker: bool = False
    supports: tuple[int, ...] = ()
    strength: bool = False
    """The supports are to a Strength roll (their cap does not apply)."""

    def words(self) -> list[str]:
        """The keywords that say the same, in the order the record has always had them."""
        return [*(["sin entrenar"] if self.unskilled else []), *(["extra"] if self.extra else []),
                *([f"heridas {self.wounds}"] if self.wounds else []),
                *([f"fatiga {self.fatigue}"] if self.fatigue else []),
                *([f"multi {self.actions}"] if self.actions else []), *(["comodin"] if self.joker else []),
                *(f"apoyo {bonus:+d}" for bonus in self.supports), *(["fuerza"] if self.strength else [])]

    def reasons(self) -> set[str]:
        """The names of the modifiers the table gave (as a result's ``modifiers`` name them)."""
        given = {"sin_entrenar": self.unskilled, "extra": self.extra, "heridas": self.wounds,
                 "fatiga": self.fatigue, "multi": self.actions, "comodin": self.joker,
                 "apoyo": self.supports, "fuerza": self.strength}
        return {reason for reason, there in given.items() if there}


@dataclass(frozen=True, slots=True)
class Toughness:
    """What a damage roll is judged by: the target's Toughness, the armour in it (0: none said), Shaken."""

    value: int
    armor: int = 0
    shaken: bool = False

    def words(self) -> list[str]:
        return ["vs", str(self.value), *([f"armadura {self.armor}"] if self.armor else []),
                *(["aturdido"] if self.shaken else [])]


def with_table(request: SavageRequest, table: TableState) -> SavageRequest:
    """``request`` with the table's state on it (a new request: a parsed one is shared by its cache)."""
    mods = replace(request.modifiers, support=[
        *request.modifiers.support,
        *(bounded(f"{b:+d}", -MAX_SUPPORT_STEP, MAX_SUPPORT_STEP, "savage.bad_support") for b in table.supports)])
    mods.unskilled = mods.unskilled or table.unskilled
    mods.joker = mods.joker or table.joker
    mods.strength = mods.strength or table.strength
    if table.wounds:
        mods.wounds = bounded(str(table.wounds), 0, 3, "savage.bad_wounds")
    if table.fatigue:
        mods.fatigue = bounded(str(table.fatigue), 0, 2, "savage.bad_fatigue")
    if table.actions:
        mods.actions = bounded(str(table.actions), 1, 3, "savage.bad_multi_action")
    given = {"unskilled": table.unskilled, "extra": table.extra, "wounds": table.wounds, "fatigue": table.fatigue,
             "multi": table.actions, "joker": table.joker, "support": table.supports, "strength": table.strength}
    keywords = request.keywords | {name for name, there in given.items() if there}
    return replace(request, modifiers=mods, wild=request.wild and not table.extra, keywords=keywords, _plan=None)


def against(request: SavageRequest, toughness: Toughness, joker: bool) -> SavageRequest:
    """A damage ``request`` judged by ``toughness`` (and the roller's joker: +2)."""
    mods = replace(request.modifiers, joker=request.modifiers.joker or joker)
    given = {"tn": True, "armor": toughness.armor, "shaken": toughness.shaken, "joker": joker}
    return replace(request, modifiers=mods, toughness=bounded(str(toughness.value), -MAX_TN, MAX_TN, "savage.bad_tn"),
                   armor=bounded(str(toughness.armor), 0, MAX_TN, "savage.bad_armor") if toughness.armor else request.armor,
                    target_shaken=request.target_shaken or toughness.shaken,
                   keywords=request.keywords | {name for name, there in given.items() if there}, _plan=None)
