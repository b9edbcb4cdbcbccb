"""No class in ``bot/`` grows into a god object (issue 28, item 2): at most ``MAX_METHODS`` methods
(every ``def`` right in its body: properties and dunders count) and ``MAX_LINES`` lines, counted
from its ``class`` line to its last line. A class past either limit is split by concern into small
classes it composes, as ``bot/matrix/`` is."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_METHODS = 25
MAX_LINES = 400


def class_sizes(source: Path) -> list[tuple[str, int, int]]:
    """(name, methods, lines) of every class in ``source``, nested ones included."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    return [(node.name, sum(isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body),
             (node.end_lineno or node.lineno) - node.lineno + 1)
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]


def oversized(sources: list[Path]) -> list[str]:
    return [f"{source.relative_to(ROOT)}: {name} {methods} methods, {lines} lines"
            for source in sources for name, methods, lines in class_sizes(source)
            if methods > MAX_METHODS or lines > MAX_LINES]


def test_no_class_in_bot_over_the_limits() -> None:
    found = oversized(sorted((ROOT / "bot").rglob("*.py")))
    assert not found, (f"over {MAX_METHODS} methods or {MAX_LINES} lines (split them by concern):\n"
                       + "\n".join(found))


def test_the_limits_are_read_as_the_issue_says(tmp_path: Path) -> None:
    """Lines from ``class`` to the last line, decorators aside; methods right in the body."""
    methods = "".join(f"    def m{i}(self) -> None:\n        pass\n" for i in range(MAX_METHODS + 1))
    source = tmp_path / "big.py"
    source.write_text(f"@decorated\nclass Big:\n{methods}\n\nclass Small:\n    class Inner:\n        x = 1\n",
                      encoding="utf-8")
    assert class_sizes(source) == [("Big", MAX_METHODS + 1, 2 * (MAX_METHODS + 1) + 1), ("Small", 0, 3),
                                   ("Inner", 0, 2)]
