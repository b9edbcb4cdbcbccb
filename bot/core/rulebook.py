"""Rule cards (``systems/<key>/cards.toml``) indexed with SQLite FTS5 for ``!regla``.

Each card cites its rules document by the document's title (``source``), never by a file name.

The index is built once per process in memory; the ``unicode61`` tokenizer with
``remove_diacritics 2`` makes the search case- and accent-insensitive.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib.resources import files
from typing import Any

import sqlite_utils

_WORD = re.compile(r"\w+")
MAX_QUERY_WORDS = 12


def load_cards(system: str) -> list[dict[str, Any]]:
    resource = files("systems").joinpath(system, "cards.toml")
    if not resource.is_file():
        return []
    cards = tomllib.loads(resource.read_text(encoding="utf-8")).get("card", [])
    return [{**card, "system": system, "keywords": " ".join(card.get("keywords", []))} for card in cards]


@lru_cache(maxsize=1)
def _index() -> sqlite_utils.Database:
    from systems import SYSTEM_KEYS

    db = sqlite_utils.Database(memory=True)
    rows = [card for key in SYSTEM_KEYS for card in load_cards(key)]
    db["cards"].insert_all(rows, pk="id", alter=True, replace=True)
    if rows:
        db["cards"].enable_fts(
            ["title", "keywords", "text"], tokenize="unicode61 remove_diacritics 2", create_triggers=False
        )
    return db


def search_rules(system: str, query: str, limit: int = 3) -> list[dict[str, Any]]:
    """The best cards of ``system`` for ``query`` (any word may match; prefixes count)."""
    words = _WORD.findall(query.casefold())[:MAX_QUERY_WORDS]
    db = _index()
    if not words or not db["cards"].exists() or not db["cards_fts"].exists():
        return []
    match = " OR ".join(f'"{w}"*' for w in words)
    sql = (
        "SELECT cards.id, cards.title, cards.text, cards.source FROM cards_fts "
        "JOIN cards ON cards.rowid = cards_fts.rowid "
        "WHERE cards_fts MATCH ? AND (? = 'generic' OR cards.system = ?) "
        "ORDER BY bm25(cards_fts, 10.0, 5.0, 1.0) LIMIT ?"
    )
    cursor = db.execute(sql, [match, system, system, limit])
    columns = [c[0] for c in cursor.description]
    return [dict(zip(columns, row)) for row in cursor]
