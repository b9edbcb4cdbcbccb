"""A transport's messages live in its own folder of ``templates/`` (issue 23, item 2): no message only a
transport renders is in ``templates/core/``, and each transport's folder holds only what that transport
renders. Same words: the tests of each message check them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jinja2 import meta

from bot.core.render import Renderer

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
TRANSPORTS = ("matrix", "irc")
STARTUP_CODE = re.compile(r'code == "([a-z_]+)"')


def _strings(paths: list[Path]) -> set[str]:
    out: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


def _transport_files(name: str) -> list[Path]:
    return sorted((ROOT / "bot" / name).rglob("*.py"))


def _other_files() -> list[Path]:
    inside = {p for name in TRANSPORTS for p in _transport_files(name)}
    return sorted(p for p in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "systems").rglob("*.py")] if p not in inside)


def _named(strings: set[str], kind: str) -> bool:
    return bool({kind, f"{kind}.txt", f"{kind}.html"} & strings)


def _includes(folder: Path) -> dict[str, set[str]]:
    """Each template of ``folder`` (by its loader name) -> the templates it includes."""
    env = Renderer().env
    out = {}
    for path in folder.glob("*.*"):
        source = path.read_text(encoding="utf-8")
        out[path.name] = {r for r in meta.find_referenced_templates(env.parse(source)) if r is not None}
    return out


def test_no_core_template_is_rendered_only_by_a_transport() -> None:
    elsewhere = _strings(_other_files())
    by_transport = {name: _strings(_transport_files(name)) for name in TRANSPORTS}
    includes = _includes(TEMPLATES / "core")
    only = {f.split(".")[0] for f in includes
            if not _named(elsewhere, f.split(".")[0]) and any(_named(s, f.split(".")[0]) for s in by_transport.values())}
    included_only_by_those = {r.split(".")[0] for f, refs in includes.items() for r in refs if f.split(".")[0] in only}
    included_elsewhere = {r.split(".")[0] for f, refs in includes.items() for r in refs if f.split(".")[0] not in only}
    assert sorted(only | (included_only_by_those - included_elsewhere)) == []


def test_each_transport_folder_holds_what_that_transport_renders() -> None:
    for name in TRANSPORTS:
        folder = TEMPLATES / name
        assert folder.is_dir(), f"templates/{name}/"
        strings = _strings(_transport_files(name))
        includes = _includes(folder)
        included = {r for refs in includes.values() for r in refs}
        for file in includes:
            kind = f"{name}/{file.split('.')[0]}"
            assert _named(strings, kind) or f"{name}/{file}" in included, f"templates/{name}/{file}"


def test_the_startup_errors_of_a_transport_are_in_its_folder() -> None:
    core = set(STARTUP_CODE.findall((TEMPLATES / "core" / "startup_error.txt").read_text(encoding="utf-8")))
    matrix = set(STARTUP_CODE.findall((TEMPLATES / "matrix" / "startup_error.txt").read_text(encoding="utf-8")))
    raised = set()
    for path in _transport_files("matrix"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "MatrixStartupError" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                raised.add(node.args[0].value)
    assert raised and raised == matrix and not core & matrix
    assert not core & _strings(_transport_files("matrix"))


def test_a_group_folder_overrides_a_transport_message(tmp_path: Path) -> None:
    (tmp_path / "matrix").mkdir()
    (tmp_path / "matrix" / "undecryptable.txt").write_text("🔐 {{ who }}: no te leo.", encoding="utf-8")
    assert Renderer(override_dir=str(tmp_path)).render("matrix/undecryptable", who="ana").body == "🔐 ana: no te leo."
    assert "no he podido leer" in Renderer().render("matrix/undecryptable", who="ana").body
