"""The web package's layering: the pages read the table through ``bot/web/view.py`` only, and no
module of the package imports another in a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "bot" / "web"
PAGES = ("table_page", "screen_page")
PAGES_MAY_IMPORT = ("bot.web.", "bot.screen")


def imports_of(module: str) -> set[str]:
    """Every ``bot`` module ``bot/web/<module>.py`` imports, at the top, in a function or for types."""
    tree = ast.parse((WEB / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("bot"))
    return found


def test_the_pages_read_the_table_through_the_view_only() -> None:
    for page in PAGES:
        assert {m for m in imports_of(page) if not m.startswith(PAGES_MAY_IMPORT)} == set(), page
        assert "bot.web.view" in imports_of(page)


def test_no_cycle_between_the_web_modules() -> None:
    modules = [p.stem for p in WEB.glob("*.py") if p.stem != "__init__"]
    edges = {m: {i.removeprefix("bot.web.") for i in imports_of(m) if i.startswith("bot.web.")} for m in modules}

    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in edges.get(start, ()))

    assert [m for m in modules if reaches(m, m)] == []
    assert not any("bot.web.app" in imports_of(m) or "bot.web" in imports_of(m) for m in modules if m != "app")
