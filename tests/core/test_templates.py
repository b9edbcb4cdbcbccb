"""Every message kind the code names exists, every template compiles, and none is left unused."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from jinja2 import meta

from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import play

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
RENDER_CALLS = {"reply", "announce", "whisper", "render_send", "render", "Refusal"}
"""Calls whose string arguments name a message kind."""
KIND = re.compile(r"[a-z][a-z_]*(/[a-z_]+)?")
DYNAMIC_PARTIALS = ("errors", "syntax", "named", "help_main", "help_combat", "help_sheet", "sheet_valid", "acta_labels",
                    "screen_attack", "screen_controls", "screen_notes")
"""Included by name built from the game's key (``core/dice_error.txt``, ``core/help.txt``, the topics, the acta's
roll words ``Renderer.games_template``; the screen's attack options and the game's own controls,
``web/screen_board.html``; the game's notes on the screen, ``bot/web/view.py``)."""
HELP_TOPIC = "topic_"
"""``!ayuda TEMA`` finds its topics by this prefix (``bot/core/room_commands/``)."""
PENDING_KIND = "pending_"
"""The GM's screen renders each ``CombatRules.pending`` item by this prefix and the item's kind
(``bot/web/screen_page.py``)."""


def _python_trees() -> list[tuple[Path, ast.AST]]:
    paths = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "systems").rglob("*.py")])
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in paths]


def kinds_in_code() -> dict[str, str]:
    """Message kinds named in ``bot/`` and ``systems/``: string arguments of the rendering calls
    and each outcome's ``template``."""
    found: dict[str, str] = {}
    for path, tree in _python_trees():
        for node in ast.walk(tree):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in RENDER_CALLS:
                values = list(node.args)
            elif isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "template" and node.value:
                values = [node.value]
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and KIND.fullmatch(value.value):
                    found.setdefault(value.value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def strings_in_code() -> set[str]:
    return {node.value for _, tree in _python_trees() for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def template_files() -> list[str]:
    """Every shipped template, by the name the loader knows it by."""
    names = [p.relative_to(TEMPLATES / "core").as_posix() for p in (TEMPLATES / "core").glob("*.*")]
    for folder in sorted(p for p in TEMPLATES.iterdir() if p.is_dir() and p.name not in ("core", "__pycache__")):
        names += [f"{folder.name}/{p.name}" for p in folder.glob("*.*")]
    return sorted(n for n in names if n.endswith((".txt", ".html")))


RENDERER = Table(Store(), games=GAMES).renderer


def test_every_kind_the_code_names_has_a_plain_template() -> None:
    kinds = kinds_in_code()
    assert len(kinds) > 100
    missing = {kind: where for kind, where in kinds.items() if f"{kind}.txt" not in template_files()}
    assert missing == {}


@pytest.mark.parametrize("name", template_files())
def test_every_template_compiles_and_its_includes_exist(name: str) -> None:
    env = RENDERER.env
    source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
    env.get_template(name)
    for referenced in meta.find_referenced_templates(env.parse(source)):
        if referenced is not None:
            assert referenced in template_files(), f"{name} includes {referenced}"


def test_no_template_is_left_unused() -> None:
    env = RENDERER.env
    used = {f"{kind}.{ext}" for kind in strings_in_code() for ext in ("txt", "html")}
    for name in template_files():
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        used.update(r for r in meta.find_referenced_templates(env.parse(source)) if r is not None)
    used.update(n for n in template_files() if n.split("/")[-1].split(".")[0] in DYNAMIC_PARTIALS)
    used.update(n for n in template_files() if n.split("/")[-1].startswith((HELP_TOPIC, PENDING_KIND)))
    assert sorted(set(template_files()) - used) == []


def test_a_group_folder_overrides_a_core_and_a_game_message(tmp_path: Path) -> None:
    (tmp_path / "unknown_command.txt").write_text("🙃 «{{ name }}» no existe aquí.", encoding="utf-8")
    (tmp_path / "savage").mkdir()
    (tmp_path / "savage" / "syntax.txt").write_text("Savage de la casa: !tiro d8.", encoding="utf-8")
    table = Table(Store(), TableSettings(RoomSettings(system="savage")), templates_dir=str(tmp_path), games=GAMES)
    t = play("@ana:local: !nada\n@ana:local: !ayuda sintaxis\n@ana:local: !estado", table=table)
    assert t.text(1) == "🙃 «nada» no existe aquí."
    assert "Savage de la casa: !tiro d8." in t.text(2) and "rof 3 d8" not in t.text(2)
    assert t.text(3) == play("@ana:local: !estado", system="savage").text(1)
