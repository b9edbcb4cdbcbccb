"""Rule cards (each game's ``cards.toml``, see docs/rule-cards.md) indexed with SQLite FTS5 for ``!regla``.

Each card cites its rules document by the document's title (``source``), never by a file name.

The index is built once per registry in memory; the ``unicode61`` tokenizer with
``remove_diacritics 2`` makes the search case- and accent-insensitive. A game without cards of its
own (the generic one) searches every game's cards.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib.resources.abc import Traversable
from typing import Any

import sqlite_utils

from bot.core.game import GameRegistry

_WORD = re.compile(r"\w+")
MAX_QUERY_WORDS = 12


def load_cards(key: str, path: Traversable | None) -> list[dict[str, Any]]:
    """The cards of game ``key`` from its TOML file (none if it has no file)."""
    if path is None or not path.is_file():
        return []
    cards = tomllib.loads(path.read_text(encoding="utf-8")).get("card", [])
    return [{**card, "system": key, "keywords": " ".join(card.get("keywords", []))} for card in cards]


class Rulebook:
    """Every card of the registry's games, searchable by game."""

    def __init__(self, games: GameRegistry) -> None:
        self.db = sqlite_utils.Database(memory=True)
        rows = [card for game in games for card in load_cards(game.key, game.cards)]
        self.with_cards = {row["system"] for row in rows}
        self.db.table("cards").insert_all(rows, pk="id", alter=True, replace=True)
        if rows:
            self.db.table("cards").enable_fts(
                ["title", "keywords", "text"], tokenize="unicode61 remove_diacritics 2", create_triggers=False
            )

    @staticmethod
    @lru_cache(maxsize=4)
    def of(games: GameRegistry) -> Rulebook:
        """The rulebook of a registry, built on first use."""
        return Rulebook(games)

    def search(self, system: str, query: str, limit: int = 3) -> list[dict[str, Any]]:
        """The best cards of ``system`` for ``query`` (any word may match; prefixes count)."""
        words = _WORD.findall(query.casefold())[:MAX_QUERY_WORDS]
        if not words or not self.with_cards:
            return []
        everything = system not in self.with_cards
        match = " OR ".join(f'"{w}"*' for w in words)
        sql = (
            "SELECT cards.id, cards.title, cards.text, cards.source FROM cards_fts "
            "JOIN cards ON cards.rowid = cards_fts.rowid "
            "WHERE cards_fts MATCH ? AND (? OR cards.system = ?) "
            "ORDER BY bm25(cards_fts, 10.0, 5.0, 1.0) LIMIT ?"
        )
        cursor = self.db.execute(sql, [match, everything, system, limit])
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row)) for row in cursor]
