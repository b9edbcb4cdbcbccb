"""Rule cards: well-formed, and found by an accent- and case-insensitive FTS5 search."""

from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

from bot.core.rulebook import Rulebook, load_cards
from bot.games import GAMES
from tests.transcript import play

SYSTEMS = ["savage", "stormbringer", "reino", "sombra"]
RULEBOOK = Rulebook.of(GAMES)


def cards_of(system: str) -> list[dict]:
    return load_cards(system, GAMES[system].cards)


def search_rules(system: str, query: str, limit: int = 3) -> list[dict]:
    return RULEBOOK.search(system, query, limit)


def _shout_without_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


RULES_FILES = {
    "Savage Worlds, reglas de la casa": "000_bafd3d4b8a0f1c8d.txt",
    "Suplemento de Savage Worlds": "001_39746d727614e035.txt",
    "Stormbringer, reglas de la casa": "002_fbc80469e67b6799.txt",
    "El Reino de la Sombra, reglas de la casa": "003_a2259ea339c0de0f.txt",
    "Sistema Sombra / Comandos de Guerra, reglas de la casa": "004_ba09264dd169f9d1.txt",
}
"""Each rules document's title (what cards cite) and its file in ``shared/rules``."""
SOURCES = {
    "savage": {"Savage Worlds, reglas de la casa", "Suplemento de Savage Worlds"},
    "stormbringer": {"Stormbringer, reglas de la casa"},
    "reino": {"El Reino de la Sombra, reglas de la casa"},
    "sombra": {"Sistema Sombra / Comandos de Guerra, reglas de la casa"},
}
SHINGLE = 8
"""A card sharing a run of this many words with a rules document has pasted from it."""


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text.casefold()).split()


REQUIRE_RULES = "ROLBOT_REQUIRE_RULES"
"""Set to 1 by .ci/run, which has ``shared/`` beside the clone: there a missing folder is a failure."""


def _rules_dir() -> Path:
    """``shared/rules`` next to the checkout or one of its parents (worktrees sit deeper). A fresh
    clone has none: the checks that read the rules skip and say so (they fail under REQUIRE_RULES)."""
    root = Path(__file__).resolve().parents[2]
    found = next((p / "shared" / "rules" for p in root.parents if (p / "shared" / "rules").is_dir()), None)
    if found is None:
        reason = f"the house rules (shared/rules) are not beside this checkout ({root})"
        if os.environ.get(REQUIRE_RULES) == "1":
            pytest.fail(f"{reason}, and {REQUIRE_RULES}=1 requires them")
        pytest.skip(f"{reason}: the checks against them run in .ci/run")
    return found


@lru_cache(maxsize=1)
def _rules_shingles() -> frozenset[tuple[str, ...]]:
    shingles: set[tuple[str, ...]] = set()
    for name in RULES_FILES.values():
        words = _words((_rules_dir() / name).read_text(encoding="utf-8"))
        shingles.update(tuple(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))
    return frozenset(shingles)


@pytest.mark.parametrize("system", SYSTEMS)
def test_cards_are_well_formed_cite_titles_and_paste_nothing(system: str) -> None:
    cards = cards_of(system)
    assert 12 <= len(cards) <= 40
    assert len({c["id"] for c in cards}) == len(cards)
    pasted = []
    for card in cards:
        assert card["id"].isascii() and card["title"] and card["text"] and card["keywords"]
        assert len(card["text"]) < 900
        assert card["source"] in SOURCES[system], (card["id"], card["source"])
        words = _words(card["text"])
        pasted += [(card["id"], run) for i in range(len(words) - SHINGLE + 1)
                   if (run := tuple(words[i:i + SHINGLE])) in _rules_shingles()]
    assert pasted == []


def test_the_paste_check_catches_a_pasted_sentence() -> None:
    sentence = (_rules_dir() / RULES_FILES["Savage Worlds, reglas de la casa"]).read_text(encoding="utf-8")
    words = _words(sentence)[100:100 + SHINGLE]
    assert tuple(words) in _rules_shingles()


@pytest.mark.parametrize("system", SYSTEMS)
def test_rule_command_shows_the_document_title(system: str) -> None:
    card = cards_of(system)[0]
    t = play(f"@ana:local: !regla {card['title']}", system=system)
    assert f"({card['source']})" in t.texts(1)[0]
    assert ".txt" not in t.texts(1)[0]


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


def test_rule_answer_is_the_best_card_whole_then_at_most_two_titles() -> None:
    t = play("@ana:local: !regla que pasa con las heridas", system="savage")
    lines = t.text(1).split("\n")
    best = next(c for c in cards_of("savage") if c["id"] == "savage-wounds")
    assert lines[0] == f"📘 {best['title']}: {best['text']} ({best['source']})"
    assert len(lines) == 2 and lines[1].startswith("Más: ")
    more = lines[1].removeprefix("Más: ").split(" · ")
    titles = {c["title"]: c for c in cards_of("savage")}
    assert len(more) == 2 and all(title in titles for title in more)
    assert all(titles[title]["text"] not in t.text(1) for title in more)


def test_a_card_that_stands_alone_is_shown_without_more() -> None:
    t = play("@ana:local: !regla cobertura", system="savage")
    assert t.text(1).startswith("📘 Cobertura e iluminación: ") and "\n" not in t.text(1)


@pytest.mark.parametrize("system", SYSTEMS)
def test_rules_that_have_no_weapons_table_say_so(system: str) -> None:
    body = play("@ana:local: !regla hay una tabla de armas", system=system).text(1)
    assert body.startswith("📘 Armas") and "no trae" in body.split("\n")[0]


def test_a_question_the_rules_do_not_touch_says_so() -> None:
    body = play("@ana:local: !regla como se hace una tortilla de patatas", system="sombra").text(1)
    assert body == ("📘 No encuentro nada sobre «como se hace una tortilla de patatas» en las reglas de la casa: "
                    "puede que no lo traten. Prueba con otras palabras.")


def test_question_words_are_not_searched() -> None:
    assert search_rules("savage", "como que cuando donde puedo hacer funciona") == []
    assert search_rules("sombra", "como funciona el aturdimiento") == search_rules("sombra", "aturdimiento")


def test_a_word_is_found_by_its_stem_and_its_synonyms() -> None:
    assert search_rules("reino", "estabilizacion", 1) == search_rules("reino", "estabilizar", 1)
    assert search_rules("savage", "sanar heridos", 1)[0]["id"] == search_rules("savage", "curacion", 1)[0]["id"]
