"""Nothing in ``bot/`` is defined for nobody: every module-level function, class and constant is named
somewhere besides its own definition (the code, its tests, the templates, the benchmarks). A handler
registered by its decorator is used by the registry."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READERS = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py"),
           *(ROOT / "templates").rglob("*.txt"), *(ROOT / "templates").rglob("*.html")]


def _defined(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.decorator_list:
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [name for name in names if not name.startswith("__")]


def test_every_module_level_name_of_bot_is_used() -> None:
    words = Counter(word for path in READERS for word in re.findall(r"\w+", path.read_text(encoding="utf-8")))
    unused = [f"{source.relative_to(ROOT)}: {name}" for source in sorted((ROOT / "bot").rglob("*.py"))
              for name in _defined(ast.parse(source.read_text(encoding="utf-8")))
              if words[name] < 2]
    assert unused == []
