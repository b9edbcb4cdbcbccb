"""``systems/`` is pure: no chat, no network, no storage, nothing from the table (``bot``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SYSTEMS = Path(__file__).resolve().parents[2] / "systems"
FORBIDDEN = ("bot", "nio", "aiohttp", "jinja2", "sqlite3", "sqlite_utils", "socket", "asyncio", "urllib")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "__import__", "import_module"):
            names.add("<dynamic import>")
    return names


@pytest.mark.parametrize("path", sorted(SYSTEMS.rglob("*.py")), ids=lambda p: str(p.relative_to(SYSTEMS)))
def test_systems_import_nothing_impure(path: Path) -> None:
    bad = {m for m in imported_modules(path) if m == "<dynamic import>" or m.split(".")[0] in FORBIDDEN}
    assert bad == set()


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom bot.core.state import name_key\nimport nio.api\n", encoding="utf-8")
    assert {m for m in imported_modules(sample) if m.split(".")[0] in FORBIDDEN} == {"bot.core.state", "nio.api"}
