"""What a transport package says of itself is true: its docstring names each of its modules and points
into ``docs/`` (the README was split, issue 23 item 4), and a package re-exports only names something
imports from it (a name kept for importers that are gone is dead code)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRANSPORTS = ["bot/matrix", "bot/irc"]


@pytest.mark.parametrize("package", TRANSPORTS)
def test_a_transports_docstring_names_each_of_its_modules(package: str) -> None:
    folder = ROOT / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    assert [m for m in modules if not re.search(rf"^- ``{m}``:", doc, re.MULTILINE)] == []
    assert "README" not in doc


def _reexported(init: Path) -> list[str]:
    """The names of ``__all__`` that the package imports from its modules and does not use itself."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    listed = [elt.value for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
              for elt in getattr(node.value, "elts", []) if isinstance(elt, ast.Constant)]
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return [name for name in listed if name in imported and name not in used]


def test_a_package_re_exports_only_what_is_imported_from_it() -> None:
    sources = [p.read_text(encoding="utf-8") for folder in ("bot", "tests") for p in (ROOT / folder).rglob("*.py")]
    unimported = []
    for init in sorted((ROOT / "bot").rglob("__init__.py")):
        package = ".".join(init.parent.relative_to(ROOT).parts)
        importing = re.compile(rf"from {re.escape(package)} import (\([^)]*\)|[^\n]*)")
        wanted = {name for text in sources for names in importing.findall(text) for name in re.findall(r"\w+", names)}
        unimported += [f"{package}.{name}" for name in _reexported(init) if name not in wanted]
    assert unimported == []
