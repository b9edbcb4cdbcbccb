"""The savage table's stored state: sheets <-> resolver characters, and ``combat.data``.

A character's Savage Worlds condition lives in ``character.sheet`` (JSON values);
the combat's deck, roster, holds, hits and dramatic task live in ``combat.data``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.core.sheets import Flag, YesNo
from bot.core.state import Character, Combat, name_key
from systems.savage.deck import ActionDeck, Card
from systems.savage.state import DramaticTask, Overwatch, SavageCharacter
from systems.savage.syntax import fold

_DIE = re.compile(r"^d(4|6|8|10|12|20)([+-]\d{1,2})?$")


class TraitDie(str):
    """A trait's die as the sheet keeps it (``d8``, ``d12+1``); anything else is a bad value."""

    __slots__ = ()
    valid = "savage.trait_die"

    def __new__(cls, value: str) -> TraitDie:
        die = value.strip().lower()
        if not _DIE.match(die):
            raise ValueError(value)
        return super().__new__(cls, die)


class Toughness(int):
    """Dureza, a number; pasted as ``Dureza 7 (2)`` the number in parentheses is its armour (Armadura)."""

    valid = "savage.toughness"
    inner = "armadura"


ATTRIBUTES = ("agilidad", "astucia", "espiritu", "fuerza", "vigor")
SKILLS = (
    "atletismo", "conocimientos_generales", "notar", "persuadir", "sigilo", "academicas", "apostar", "batalla",
    "cabalgar", "ciencia", "conducir", "disparar", "electronica", "fe", "hechiceria", "idiomas", "interpretar",
    "intimidar", "investigar", "latrocinio", "navegar", "ocultismo", "pelear", "pilotar", "provocar", "psionica",
    "reparar", "sanar", "supervivencia", "concentracion", "ciencia_extrana", "informatica",
)
SHEET_FIELDS: dict[str, type] = {
    **dict.fromkeys(ATTRIBUTES, TraitDie), **dict.fromkeys(SKILLS, TraitDie),
    "parada": int, "dureza": Toughness, "armadura": int, "paso": int, "municion": int, "cargador": int,
    "bennies": int, "heridas": int, "fatiga": int,
    "nervios_de_acero": int, "arma": str, "arma_tipo": str, "arma_dano": str,
    "comodin": YesNo, "grupo": str, "rapido": str, "temple": str,
    **dict.fromkeys(("aturdido", "incapacitado", "desangrando", "muerto", "fuera"), Flag),
}
_FLAGS = {"aturdido": "shaken", "incapacitado": "incapacitated", "desangrando": "bleeding", "muerto": "dead", "fuera": "out"}
_NO = ("no", "0", "n", "false", "extra")


def savage_of(character: Character) -> SavageCharacter:
    """The resolver's view of a character's sheet (missing fields take the resolver's defaults)."""
    sheet = character.sheet
    base = SavageCharacter(character.name)
    return SavageCharacter(
        character.name,
        wild_card=is_wild_card(character),
        parry=int(sheet.get("parada", base.parry)),
        toughness=int(sheet.get("dureza", base.toughness)),
        bennies=max(0, int(sheet.get("bennies", 0))),
        wounds=min(max(0, int(sheet.get("heridas", 0))), 3),
        fatigue=min(max(0, int(sheet.get("fatiga", 0))), 2),
        **{attr: bool(sheet.get(key, 0)) for key, attr in _FLAGS.items()},
    )


def is_wild_card(character: Character) -> bool:
    """``Comodín`` on the sheet decides; without it, a player's character is a Wild Card and an NPC the
    GM created (``!pnj``, ``!turnos``, ``!iniciativa``, even one lent to a player) an Extra."""
    default = "no" if character.npc or character.lent else "si"
    return fold(str(character.sheet.get("comodin") or default).strip()) not in _NO


def nerves_of(character: Character) -> int:
    """How many wounds Nervios de acero lets the character ignore in its rolls (0 without the edge)."""
    try:
        return max(0, int(str(character.sheet.get("nervios_de_acero", 0))))
    except ValueError:
        return 0


def store(character: Character, savage: SavageCharacter) -> None:
    """Write the resolver's state back: counters always, condition flags only while set."""
    sheet = character.sheet
    sheet.update(bennies=savage.bennies, heridas=savage.wounds, fatiga=savage.fatigue)
    for key, attr in _FLAGS.items():
        if getattr(savage, attr):
            sheet[key] = 1
        else:
            sheet.pop(key, None)


def sheet_die(character: Character, key: str) -> str | None:
    """A trait die from the sheet (``d8``, ``d6+1``), or None when missing or malformed."""
    return normal_die(str(character.sheet.get(key, "")))


def normal_die(text: str) -> str | None:
    die = text.strip().lower()
    return die if _DIE.match(die) else None


def edges_of(character: Character) -> tuple[int, bool]:
    """The initiative edges on the sheet: Temple's extra cards (``sí`` 1, ``mejorado`` 2) and Rápido."""
    temple = str(character.sheet.get("temple", "no")).strip().lower()
    extra = 0 if temple in _NO else 2 if temple in ("mejorado", "2") else 1
    return extra, str(character.sheet.get("rapido", "no")).strip().lower() not in _NO


def group_of(character: Character) -> str:
    """Extras sharing a card have the same ``grupo``; anyone else is their own group."""
    return str(character.sheet.get("grupo") or character.name)


@dataclass
class SavageCombat:
    """What this system keeps in ``combat.data`` (plain JSON through ``to_data``)."""

    deck: ActionDeck
    roster: list[str] = field(default_factory=list)
    holding: list[str] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    hits: dict[str, dict[str, Any]] = field(default_factory=dict)
    surprise: dict[str, list[str]] = field(default_factory=dict)
    task: dict[str, Any] | None = None
    overwatch: list[str] = field(default_factory=list)
    recovered: dict[str, list[Any]] = field(default_factory=dict)
    """Who made the Spirit roll to end Shaken, by name key: the turn it was made in (round, actor)."""

    @classmethod
    def load(cls, combat: Combat) -> SavageCombat:
        data = combat.data
        deck = ActionDeck.from_dict(data["deck"]) if "deck" in data else ActionDeck(pile=[])
        return cls(
            deck, list(data.get("roster", [])), list(data.get("holding", [])), list(data.get("started", [])),
            dict(data.get("hits", {})), dict(data.get("surprise", {})), data.get("task"), list(data.get("overwatch", [])),
            dict(data.get("recovered", {})),
        )

    def save(self, combat: Combat) -> None:
        combat.data = {
            "deck": self.deck.to_dict(), "roster": self.roster, "holding": self.holding, "started": self.started,
            "hits": self.hits, "surprise": self.surprise, "task": self.task, "overwatch": self.overwatch,
            "recovered": self.recovered,
        }

    @property
    def dealt(self) -> bool:
        return bool(self.roster)

    def card_of(self, character: Character) -> Card | None:
        code = self.deck.in_play.get(group_of(character))
        return Card(code) if code else None

    def is_holding(self, name: str) -> bool:
        return name_key(name) in map(name_key, self.holding)

    def stop_holding(self, name: str) -> None:
        self.holding = [n for n in self.holding if name_key(n) != name_key(name)]

    def dramatic_task(self) -> DramaticTask | None:
        return DramaticTask.from_dict(self.task["state"]) if self.task else None

    def watch(self) -> Overwatch:
        return Overwatch(list(self.overwatch))


def turn_key(combat_state: SavageCombat, character: Character, index: int) -> tuple[int, int, int]:
    """Acting order: holders without a card (ambushers) first, then by card, then roster order."""
    card = combat_state.card_of(character)
    if card is None:
        return (-1, 0, index)
    rank, suit = card.order_key
    return (rank, suit, index)
