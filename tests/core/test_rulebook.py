"""Rule cards: well-formed, and found by an accent- and case-insensitive FTS5 search."""

from __future__ import annotations

import unicodedata

import pytest

from bot.core.rulebook import Rulebook, load_cards
from bot.games import GAMES

SYSTEMS = ["savage", "stormbringer", "reino", "sombra"]
RULEBOOK = Rulebook.of(GAMES)


def cards_of(system: str) -> list[dict]:
    return load_cards(system, GAMES[system].cards)


def search_rules(system: str, query: str, limit: int = 3) -> list[dict]:
    return RULEBOOK.search(system, query, limit)


def _shout_without_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


@pytest.mark.parametrize("system", SYSTEMS)
def test_cards_are_well_formed(system: str) -> None:
    cards = cards_of(system)
    assert len(cards) >= 12
    assert len({c["id"] for c in cards}) == len(cards)
    for card in cards:
        assert card["title"] and card["text"] and card["keywords"]
        assert card["source"].endswith(".txt")
        assert len(card["text"]) < 900


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_card_is_the_best_match_for_its_own_title(system: str) -> None:
    misses = []
    for card in cards_of(system):
        found = search_rules(system, _shout_without_accents(card["title"]), limit=3)
        if card["id"] not in [f["id"] for f in found]:
            misses.append(card["title"])
    assert misses == []


def test_search_stays_within_the_room_system() -> None:
    for system in SYSTEMS:
        ids = {c["id"] for c in cards_of(system)}
        for card in search_rules(system, "daño herida ataque", limit=10):
            assert card["id"] in ids


def test_queries_with_operators_or_nothing_searchable_are_harmless() -> None:
    assert search_rules("savage", '"; DROP TABLE cards; -- OR AND NOT *') is not None
    assert search_rules("savage", "¿?¡!") == []
    assert search_rules("savage", "") == []
