"""Rule cards (each game's ``cards.toml``, see docs/rule-cards.md) indexed with SQLite FTS5 for ``!regla``.

Each card cites its rules document by the document's title (``source``), never by a file name.

Cards and questions go through the same analysis (``terms``): case and accents folded, question words
and other empty words dropped, each word reduced to its Spanish stem (Snowball) and synonyms to one
stem, so "como se cura un herido" meets a card about "curación" and "heridas". The index is built
once per registry in memory. A game without cards of its own (the generic one) searches every
game's cards.

The stemmer (``snowballstemmer`` imports its thirty-odd languages) and sqlite-utils are imported
on the first analysis and index, not with this module: a run that never answers ``!regla`` never loads it
(docs/performance.md, memory).
"""

from __future__ import annotations

import math
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache, lru_cache
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from bot.core.context import GameBook

if TYPE_CHECKING:
    import sqlite_utils

_WORD = re.compile(r"[^\W_]+")
_COUNTED_ONES = re.compile(r"\b(dos|tres)\s+unos\b")
"""«tres unos» names dice showing 1 (``unos`` is otherwise an article, a question word)."""
MAX_QUERY_WORDS = 12
MORE_TITLES = 2
"""Cards after the best one shown by title only."""
MORE_SHARE = 0.4
"""A further card is offered when its score is at least this share of the best card's."""
_COLUMNS = {"title_terms": 3.0, "keywords_terms": 2.0, "text_terms": 1.0}
"""A card's searched columns and the weight of a term found in each (a term in several adds them up)."""

QUESTION_WORDS = frozenset([
    "a", "al", "algo", "alguien", "algun", "alguna", "alguno", "algunos", "ante", "antes", "asi", "aun", "cada",
    "como", "con", "contra", "cual", "cuales", "cualquier", "cuando", "cuanta", "cuantas", "cuanto", "cuantos",
    "de", "del", "donde", "el", "ella", "ellos", "en", "entre", "era", "es", "esa", "ese", "eso", "esta", "estan",
    "estar", "estas", "este", "esto", "estoy", "explica", "explicame", "funciona", "funcionan", "funcionar", "ha",
    "hace", "hacen", "hacer", "hago", "hay", "he", "la", "las", "le", "les", "lo", "los", "mas", "me", "mi", "mis",
    "mucha", "muchas", "mucho", "muchos", "muy", "no", "nos", "o", "os", "otra", "otro", "para", "pasa", "pasar",
    "pero", "podemos", "poder", "por", "porque", "puede", "pueden", "puedo", "que", "quien", "quienes", "quiere",
    "quiero", "regla", "reglas", "saca", "sacar", "sacas", "saco", "sale", "sales", "salga", "se", "sea", "ser",
    "si", "sin", "sirve", "sirven", "sobre", "son", "su", "sus", "te", "tener", "tengo", "tiene", "tienen", "tu",
    "tus", "un", "una", "unas", "unos", "va", "van", "vez", "y", "ya", "yo",
])
"""Words that ask rather than say what about: never searched."""

SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("curar", "curo", "curarse", "cura", "curacion", "sanar", "sano", "sanacion", "sanarse"),
    ("atacar", "ataque", "ataques", "ataca", "atacan", "atacas"),
    ("acertar", "acierto", "acierta", "aciertas", "impactar", "impacta", "darle"),
    ("disparar", "disparo", "dispara", "disparos", "disparas"),
    ("morir", "muere", "muero", "muriendo", "muerte", "muerto", "mata", "matar"),
    ("esquivar", "esquiva", "esquivo", "evitar", "evito"),
    ("beni", "benis", "benny", "bennies", "benni"),
    ("arma", "armas"),
    ("1", "uno"),
    ("10", "diez", "dieces"),
    ("despertar", "despierto", "despierta", "consciencia", "conciencia"),
    ("aturdido", "aturdimiento", "aturdir", "aturde"),
    ("apresurarse", "prisa", "apresuro", "apresura"),
    ("derribar", "derribo", "tumbar"),
)
"""Words that mean the same at the table: each group is searched as its first word."""


@cache
def _stemmer() -> Callable[[str], str]:
    """Snowball's Spanish stemmer, imported on first use."""
    import snowballstemmer

    stem_word: Callable[[str], str] = snowballstemmer.stemmer("spanish").stemWord
    return stem_word


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _stem(word: str) -> str:
    """The Snowball stem, without a plural ``s`` the stemmer keeps on short words (``armas``)."""
    stem = _stemmer()(word)
    return stem[:-1] if len(stem) > 3 and stem.endswith("s") else stem


@cache
def _canonical() -> dict[str, str]:
    """Each synonym's stem -> its group's stem (made with the stemmer, on first use)."""
    return {_stem(_fold(word)): _stem(_fold(group[0])) for group in SYNONYMS for word in group}


def terms(text: str) -> list[str]:
    """What a text is about, as searchable stems (question words dropped, synonyms joined)."""
    canonical = _canonical()
    folded = _COUNTED_ONES.sub(r"\1 uno", _fold(text))
    stems = (_stem(word) for word in _WORD.findall(folded) if word not in QUESTION_WORDS)
    return [canonical.get(stem, stem) for stem in map(_number, stems)]


def _number(word: str) -> str:
    """A number without leading zeros (a percentile ``04`` is a 4), but ``00`` (a percentile's 100) kept."""
    return word.lstrip("0") or word if word.isdigit() else word


def load_cards(key: str, path: Traversable | None) -> list[dict[str, Any]]:
    """The cards of game ``key`` from its TOML file (none if it has no file)."""
    if path is None or not path.is_file():
        return []
    cards = tomllib.loads(path.read_text(encoding="utf-8")).get("card", [])
    return [{**card, "system": key, "keywords": " ".join(card.get("keywords", []))} for card in cards]


def _indexed(card: dict[str, Any]) -> dict[str, Any]:
    return {**card, **{f"{column}_terms": " ".join(terms(card[column])) for column in ("title", "keywords", "text")}}


class Rulebook:
    """Every card of the registry's games, searchable by game."""

    def __init__(self, games: GameBook) -> None:
        import sqlite_utils  # with the index, on the first ``!regla`` (the store may not need it)

        self.db: sqlite_utils.Database = sqlite_utils.Database(memory=True)
        rows = [_indexed(card) for game in games for card in load_cards(game.key, game.cards)]
        self.with_cards = {row["system"] for row in rows}
        self.db.table("cards").insert_all(rows, pk="id", alter=True, replace=True)
        if rows:
            self.db.table("cards").enable_fts(list(_COLUMNS), tokenize="unicode61", create_triggers=False)
        self._spread: dict[str | None, tuple[int, Counter[str]]] = {}
        for scope in [None, *self.with_cards]:
            chosen = [row for row in rows if scope in (None, row["system"])]
            self._spread[scope] = (len(chosen), Counter(t for row in chosen for t in set(_all_terms(row))))

    @staticmethod
    @lru_cache(maxsize=4)
    def of(games: GameBook) -> Rulebook:
        """The rulebook of a registry, built on first use."""
        return Rulebook(games)

    def search(self, system: str, query: str, limit: int = 1 + MORE_TITLES) -> list[dict[str, Any]]:
        """The best cards of ``system`` for ``query``, best first; after the first, only cards scoring at
        least ``MORE_SHARE`` of it. FTS5 finds the cards that hold any of the query's terms; each is
        scored by the terms it holds, a rarer term counting more and one in the title or keywords
        more than one in the text."""
        words = list(dict.fromkeys(terms(query)))[:MAX_QUERY_WORDS]
        if not words or not self.with_cards:
            return []
        scope = system if system in self.with_cards else None
        match = " OR ".join(f'"{w}"' for w in words)
        sql = (
            f"SELECT cards.id, cards.title, cards.text, cards.source, {', '.join(f'cards.{c}' for c in _COLUMNS)} "
            "FROM cards_fts JOIN cards ON cards.rowid = cards_fts.rowid "
            "WHERE cards_fts MATCH ? AND (? OR cards.system = ?) ORDER BY cards.rowid"
        )
        cursor = self.db.execute(sql, [match, scope is None, system])
        columns = [c[0] for c in cursor.description]
        rows = [dict(zip(columns, row)) for row in cursor]
        scored = sorted(((self._score(row, words, scope), i) for i, row in enumerate(rows)), key=lambda s: -s[0])
        if not scored:
            return []
        best = scored[0][0]
        return [{k: rows[i][k] for k in ("id", "title", "text", "source")}
                for n, (score, i) in enumerate(scored[:limit]) if n == 0 or score >= best * MORE_SHARE]

    def _score(self, row: dict[str, Any], words: list[str], scope: str | None) -> float:
        cards, spread = self._spread[scope]
        fields = [(weight, set(row[column].split())) for column, weight in _COLUMNS.items()]
        found = {word: sum(weight for weight, held in fields if word in held) for word in words}
        held = [word for word, weight in found.items() if weight]
        return len(held) / len(words) * sum(found[w] * math.log(1 + cards / max(spread[w], 1)) for w in held)


def _all_terms(row: dict[str, Any]) -> list[str]:
    return [t for column in _COLUMNS for t in row[column].split()]
