"""The table core is layered: its modules import each other without a circle.

Every import counts, wherever it is written: at the top of a module, under ``TYPE_CHECKING``, or
inside a function (a lazy import still ties the two modules together)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "bot" / "core"
PACKAGE = "bot.core"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_imports(path: Path, known: set[str], root: Path = ROOT) -> set[str]:
    """The core modules ``path`` imports (``from bot.core import acta`` names ``bot.core.acta``)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in found if m in known and m != name}


def import_graph(core: Path = CORE, root: Path = ROOT) -> dict[str, set[str]]:
    paths = sorted(core.rglob("*.py"))
    known = {module_name(p, root) for p in paths}
    return {module_name(p, root): core_imports(p, known, root) for p in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_core_imports_without_a_circle() -> None:
    graph = import_graph()
    assert len(graph) > 10
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Top-level, ``TYPE_CHECKING`` and function-level imports all make edges, and a circle is found."""
    package = tmp_path / "bot" / "core"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from bot.core.b import B\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from bot.core import c\n", encoding="utf-8")
    (package / "c.py").write_text("from . import a\n", encoding="utf-8")
    graph = import_graph(package, tmp_path)
    assert graph["bot.core.a"] == {"bot.core.b"}
    assert graph["bot.core.b"] == {"bot.core.c"}
    assert graph["bot.core.c"] == {"bot.core.a"}
    assert find_cycle(graph) == ["bot.core.a", "bot.core.b", "bot.core.c", "bot.core.a"]
    (package / "c.py").write_text("import json\n", encoding="utf-8")
    assert find_cycle(import_graph(package, tmp_path)) is None


GAMES = ROOT / "bot" / "games"
GAME_API = "bot.core.api"


def imported_names(node: ast.AST) -> list[str]:
    """The modules an absolute import names (``from bot.core import rolls`` names ``bot.core.rolls``;
    a relative import stays inside its package and names none)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom) or node.level or node.module is None:
        return []
    if node.module in ("bot", PACKAGE):
        return [f"{node.module}.{alias.name}" for alias in node.names]
    return [node.module]


def core_reach(games: Path = GAMES, root: Path = ROOT) -> list[str]:
    """Each import of a core module other than ``bot.core.api`` written in a game package, as
    ``file: module`` (any kind of import: top level, ``TYPE_CHECKING``, in a function)."""
    found: list[str] = []
    for path in sorted(games.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            found += [f"{path.relative_to(root).as_posix()}: {name}" for name in imported_names(node)
                      if (name == PACKAGE or name.startswith(PACKAGE + ".")) and name != GAME_API]
    return found


def test_games_reach_the_core_only_through_its_api() -> None:
    """A game imports what it may use of the core from ``bot.core.api``: its hooks, records, refusal and
    helpers, never a core command or another core module (which may then move without touching a game)."""
    reach = core_reach()
    assert reach == [], "games importing the core past bot.core.api:\n" + "\n".join(reach)


def test_the_game_check_names_each_planted_import(tmp_path: Path) -> None:
    games = tmp_path / "bot" / "games"
    (games / "toy").mkdir(parents=True)
    (games / "toy" / "ok.py").write_text("from bot.core.api import Context\nfrom systems.dice import parse\n",
                                         encoding="utf-8")
    (games / "toy" / "commands.py").write_text(
        "from bot.core.room_commands.combat import COMMANDS\n"
        "def f():\n    import bot.core.floor\n    from bot.core import rolls\n    from bot import core\n",
        encoding="utf-8")
    assert core_reach(games, tmp_path) == [
        "bot/games/toy/commands.py: bot.core.room_commands.combat", "bot/games/toy/commands.py: bot.core.floor",
        "bot/games/toy/commands.py: bot.core.rolls", "bot/games/toy/commands.py: bot.core"]
