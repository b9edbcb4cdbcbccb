"""A constant's docstring is the string right under it: two strings in a row mean one of them sits under
the wrong name (issue 23: ``RNG_KEY``'s docstring was under ``ROOMS_IN_MEMORY``)."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "systems").rglob("*.py")])


def _is_string(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def test_no_docstring_follows_another() -> None:
    stray = []
    for source in SOURCES:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        stray += [f"{source.relative_to(ROOT)}:{second.lineno}" for node in ast.walk(tree)
                  if isinstance(body := getattr(node, "body", None), list)
                  for first, second in pairwise(body) if _is_string(first) and _is_string(second)]
    assert stray == []
