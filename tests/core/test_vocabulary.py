"""The keywords commands read are defined once, in the vocabulary (``bot/core/words_es.py``), and read
from there by the core and every game: no module keeps its own ``("contra", "vs")``."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.core import words_es

BOT = Path(__file__).resolve().parents[2] / "bot"
VOCABULARY = {frozenset(value) for name, value in vars(words_es).items()
              if name.isupper() and isinstance(value, tuple) and all(isinstance(v, str) for v in value)}


def keyword_tuples(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Tuple) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            words = tuple(e.value for e in node.elts if isinstance(e, ast.Constant))
            if frozenset(words) in VOCABULARY:
                found.append((node.lineno, words))
    return found


def test_the_vocabulary_has_the_keywords() -> None:
    assert words_es.AGAINST == ("contra", "vs") and "oculta" in words_es.HIDDEN and "nueva" in words_es.NEW


def test_no_module_defines_a_keyword_list_of_its_own() -> None:
    again = {f"{path.relative_to(BOT)}:{line}": words for path in sorted(BOT.rglob("*.py"))
             if path.name != "words_es.py" for line, words in keyword_tuples(path)}
    assert again == {}
