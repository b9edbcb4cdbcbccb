"""The savage table's combat state: the deck, roster, holds, hits and dramatic task in ``combat.data``.

A character's Savage Worlds condition lives in ``character.sheet`` (JSON values; ``sheet.py``).
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from bot.core.api import Character, Combat, name_key
from bot.games.savage.sheet import group_of
from systems.savage.deck import ActionDeck, Card
from systems.savage.state import DramaticTask, Overwatch


@dataclass
class SavageCombat:
    """What this system keeps in ``combat.data``, typed: ``of`` reads a copy, ``save`` writes it back
    (plain JSON)."""

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
    soak_warned: bool = False
    """A ``!siguiente`` was refused because of the soaks open now: the next one closes them."""
    burst: dict[str, Any] | None = None
    """The rest of a burst a soak stopped (``burst.py``): attacker, damage, hits left, declared order."""

    @classmethod
    def of(cls, combat: Combat) -> SavageCombat:
        data = combat.data
        deck = ActionDeck.from_dict(data["deck"]) if "deck" in data else ActionDeck(pile=[])
        return cls(
            deck, list(data.get("roster", [])), list(data.get("holding", [])), list(data.get("started", [])),
            dict(data.get("hits", {})), dict(data.get("surprise", {})), data.get("task"), list(data.get("overwatch", [])),
            dict(data.get("recovered", {})), bool(data.get("soak_warned", False)),
            data.get("burst") if isinstance(data.get("burst"), dict) else None,
        )

    def save(self, combat: Combat) -> None:
        combat.data = {
            "deck": self.deck.to_dict(), "roster": self.roster, "holding": self.holding, "started": self.started,
            "hits": self.hits, "surprise": self.surprise, "task": self.task, "overwatch": self.overwatch,
            "recovered": self.recovered, "soak_warned": self.soak_warned,
            "burst": self.burst,
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


def combat_snapshot(combat: Combat | None) -> dict[str, Any] | None:
    """The combat's order, turn and data as they are now, for ``restore_combat``."""
    return {"order": list(combat.order), "turn": combat.turn, "data": deepcopy(combat.data)} if combat else None


def restore_combat(combat: Combat, before: dict[str, Any]) -> None:
    combat.order, combat.turn, combat.data = list(before["order"]), int(before["turn"]), deepcopy(before["data"])
