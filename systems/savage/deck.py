"""Action-card initiative (000 "Iniciativa"): a 54-card French deck with two jokers.

Cards are dealt to *groups*: a Wild Card and the allies they control, one group
of Extras, or a whole side when the GM deals one card per side. The table core
maps characters to groups; this module only knows group names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from systems.dice import DiceError, Rng
from systems.savage.rules import opposed

SUITS = ("♠", "♥", "♦", "♣")  # tie-break order: spades act first
RANKS = tuple(range(14, 1, -1))  # ace (14) down to two
RANK_NAMES = {14: "A", 13: "K", 12: "Q", 11: "J"}
JOKERS = ("🃏1", "🃏2")
QUICK_REDRAW = 5
"""Rápido (Savage Worlds): a card of this rank or lower is drawn again."""


@dataclass(frozen=True, slots=True)
class Card:
    """A card as text: ``"A♠"``, ``"10♦"``, ``"🃏1"`` (jokers)."""

    code: str

    @property
    def joker(self) -> bool:
        return self.code in JOKERS

    @property
    def rank(self) -> int:
        if self.joker:
            return 15
        head = self.code[:-1]
        return next((r for r, n in RANK_NAMES.items() if n == head), 0) or int(head)

    @property
    def suit(self) -> str:
        return "" if self.joker else self.code[-1]

    @property
    def order_key(self) -> tuple[int, int]:
        """Sort key, smallest acts first: jokers, then rank down, ties by suit."""
        if self.joker:
            return (0, JOKERS.index(self.code))
        return (15 - self.rank, 1 + SUITS.index(self.suit))


def full_deck() -> list[str]:
    cards = [f"{RANK_NAMES.get(r, r)}{s}" for r in RANKS for s in SUITS]
    return cards + list(JOKERS)


def _shuffled(cards: list[str], rng: Rng) -> list[str]:
    """Fisher-Yates with the injected RNG, so a seed or FaceRng decides the order."""
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


@dataclass(slots=True)
class ActionDeck:
    """Draw pile, discards, cards in play and whether this round saw a joker.

    The draw pile's end is its top. Held cards stay in play across deals.
    """

    pile: list[str] = field(default_factory=full_deck)
    discards: list[str] = field(default_factory=list)
    in_play: dict[str, str] = field(default_factory=dict)
    joker_this_round: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "pile": list(self.pile),
            "discards": list(self.discards),
            "in_play": dict(self.in_play),
            "joker_this_round": self.joker_this_round,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ActionDeck:
        return cls(list(data["pile"]), list(data["discards"]), dict(data["in_play"]), bool(data["joker_this_round"]))

    @classmethod
    def new(cls, rng: Rng) -> ActionDeck:
        return cls(pile=_shuffled(full_deck(), rng))

    def deal(self, groups: list[str], held: frozenset[str] | set[str] = frozenset(), rng: Rng | None = None,
             edges: dict[str, tuple[int, bool]] | None = None) -> ActionDeck:
        """Start a round: discard last round's cards (except held ones), reshuffle if a joker
        came out last round, then deal one card to each group that is not holding. ``edges``: a group's
        Temple (extra cards to keep the best of) and Rápido (draw again a card of 5 or lower).
        """
        deck = self._end_round(set(held), rng)
        for group in groups:
            if group in held and group in deck.in_play:
                continue
            deck = deck._draw_for(group, rng, *(edges or {}).get(group, (0, False)))
        return deck

    def deal_late(self, group: str, rng: Rng | None = None, edge: tuple[int, bool] = (0, False)) -> ActionDeck:
        """One card now for a group joining mid-round; the cards in play stay."""
        return self._draw_for(group, rng, *edge)

    def _end_round(self, held: set[str], rng: Rng | None) -> ActionDeck:
        keep = {g: c for g, c in self.in_play.items() if g in held}
        spent = [c for g, c in self.in_play.items() if g not in held]
        discards = self.discards + spent
        pile = list(self.pile)
        if self.joker_this_round:
            pile = _shuffled(pile + discards, _require(rng))
            discards = []
        return ActionDeck(pile, discards, keep, False)

    def _take(self, rng: Rng | None) -> tuple[ActionDeck, str]:
        pile, discards = self.pile, self.discards
        if not pile:
            pile, discards = _shuffled(discards, _require(rng)), []
        if not pile:
            raise DiceError("savage.deck_empty")
        return ActionDeck(pile[:-1], discards, self.in_play, self.joker_this_round), pile[-1]

    def _draw_for(self, group: str, rng: Rng | None, extra: int = 0, quick: bool = False) -> ActionDeck:
        """The group's card: the best of ``1 + extra`` drawn (Temple), drawn again while it is 5 or lower
        (Rápido); the others go to the discards."""
        deck, best = self._take(rng)
        drawn = [best]
        for _ in range(extra):
            deck, card = deck._take(rng)
            drawn.append(card)
            best = min(best, card, key=lambda c: Card(c).order_key)
        for _ in range(len(full_deck())):
            if not quick or Card(best).joker or Card(best).rank > QUICK_REDRAW:
                break
            deck, best = deck._take(rng)
            drawn.append(best)
        spent = list(drawn)
        spent.remove(best)
        return ActionDeck(deck.pile, [*deck.discards, *spent], {**deck.in_play, group: best},
                          deck.joker_this_round or Card(best).joker)

    def drop(self, group: str) -> ActionDeck:
        """A group leaves the fight (or stops holding without a card): its card goes to the discards."""
        if group not in self.in_play:
            return self
        in_play = {g: c for g, c in self.in_play.items() if g != group}
        return replace(self, in_play=in_play, discards=[*self.discards, self.in_play[group]])

    def order(self) -> list[str]:
        return initiative_order(self.in_play)


def _require(rng: Rng | None) -> Rng:
    if rng is None:
        raise DiceError("savage.deck_needs_rng")
    return rng


def initiative_order(cards: dict[str, str]) -> list[str]:
    """Groups in acting order: jokers first (they may act at any time), then ace down, ties by suit."""
    return sorted(cards, key=lambda g: Card(cards[g]).order_key)


def joker_groups(cards: dict[str, str]) -> list[str]:
    """Groups with a joker: they add +2 to trait and damage rolls this round."""
    return [g for g, c in cards.items() if Card(c).joker]


@dataclass(slots=True)
class HoldState:
    """Who is on hold. A held group keeps its card into the next round."""

    holding: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"holding": list(self.holding)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HoldState:
        return cls(list(data["holding"]))

    def hold(self, group: str) -> HoldState:
        return self if group in self.holding else HoldState([*self.holding, group])

    def act(self, group: str) -> HoldState:
        return HoldState([g for g in self.holding if g != group])

    def shaken(self, group: str) -> HoldState:
        """Shaken at the end of another's action: the hold ends, the group acts right after."""
        return self.act(group)


def interrupt(holder_athletics: int, other_athletics: int) -> str:
    """Opposed Athletics to interrupt: ``holder`` or ``other`` acts first, or ``simultaneous``."""
    verdict = opposed(holder_athletics, other_athletics)
    return {"first": "holder", "second": "other", "tie": "simultaneous"}[verdict]


@dataclass(frozen=True, slots=True)
class SurpriseSetup:
    """Ambush: attackers start on hold without cards; victims who fail Notice get no card
    and cannot act in the first round.
    """

    on_hold: tuple[str, ...]
    dealt: tuple[str, ...]
    lose_first_round: tuple[str, ...]


def surprise(attackers: list[str], victims_notice: dict[str, bool]) -> SurpriseSetup:
    return SurpriseSetup(
        tuple(attackers),
        tuple(v for v, noticed in victims_notice.items() if noticed),
        tuple(v for v, noticed in victims_notice.items() if not noticed),
    )
