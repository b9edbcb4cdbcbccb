"""Every game is laid out the same way, so a new one follows it (docs/architecture.md, "Adding a game").

``bot/games/<game>/``: ``commands.py`` (its ``COMMANDS``), ``combat.py`` (its ``CombatRules`` hooks),
``sheet.py`` (``SHEET_FIELDS`` and how fields are shown), ``state.py`` (its combat data, behind one
typed accessor ``of(combat)``) and an ``__init__.py`` holding only the ``GAME`` entry the registry
lists; a game that rolls from the sheet keeps those rules in ``rolls.py``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import typing
from pathlib import Path
from types import ModuleType

import pytest

import bot.games
from bot.core.state import Combat
from bot.games import GAMES

MODULES = ("commands", "combat", "sheet", "state")
PACKAGES = sorted(info.name for info in pkgutil.iter_modules(bot.games.__path__) if info.ispkg)


def module(game: str, name: str) -> ModuleType:
    return importlib.import_module(f"bot.games.{game}.{name}")


def test_every_game_package_is_in_the_registry_and_every_registered_game_has_a_package() -> None:
    assert sorted(game.key for game in GAMES) == PACKAGES


@pytest.mark.parametrize("game", PACKAGES)
def test_the_four_modules(game: str) -> None:
    missing = [name for name in MODULES if importlib.util.find_spec(f"bot.games.{game}.{name}") is None]
    assert not missing, f"bot/games/{game}/ lacks {missing}"


@pytest.mark.parametrize("game", PACKAGES)
def test_init_holds_only_the_registry_entry(game: str) -> None:
    package = importlib.import_module(f"bot.games.{game}")
    assert package.__all__ == ["GAME"]
    assert GAMES[game] is package.GAME
    assert package.__file__ is not None
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    defined = [ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node)[:40] for node in tree.body
               if not isinstance(node, ast.Import | ast.ImportFrom)
               and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    assert defined == ["__all__", "GAME"], f"bot/games/{game}/__init__.py defines {defined}"


@pytest.mark.parametrize("game", PACKAGES)
def test_each_part_of_the_entry_comes_from_its_module(game: str) -> None:
    entry = GAMES[game]
    assert entry.commands is module(game, "commands").COMMANDS
    assert type(entry.combat).__module__ == f"bot.games.{game}.combat"
    sheet = module(game, "sheet")
    assert entry.sheet_fields is sheet.SHEET_FIELDS
    assert entry.sheet_names == getattr(sheet, "NAMES", {})
    assert entry.sheet_aliases == getattr(sheet, "ALIASES", {})
    if entry.sheet_rules is not None:
        assert type(entry.sheet_rules).__module__ == f"bot.games.{game}.rolls"


@pytest.mark.parametrize("game", PACKAGES)
def test_only_state_reaches_into_the_combat_data(game: str) -> None:
    """A game's keys in ``combat.data`` are read and written in ``state.py`` only, through its one typed
    accessor: no other module of the game touches a ``.data``."""
    folder = Path(importlib.import_module(f"bot.games.{game}").__path__[0])
    touching = {path.name: lines for path in sorted(folder.glob("*.py")) if path.name != "state.py"
                if (lines := [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                              if isinstance(node, ast.Attribute) and node.attr == "data"])}
    assert not touching, f"bot/games/{game}/: .data outside state.py at {touching}"


@pytest.mark.parametrize("game", PACKAGES)
def test_state_has_one_typed_accessor_of_the_combat(game: str) -> None:
    state = module(game, "state")
    accessors = [value for value in vars(state).values()
                 if isinstance(value, type) and value.__module__ == state.__name__
                 and isinstance(inspect.getattr_static(value, "of", None), classmethod)]
    assert len(accessors) == 1, f"bot/games/{game}/state.py: {accessors}"
    (accessor,) = accessors
    assert typing.get_type_hints(accessor.of)["return"] is accessor
    assert isinstance(accessor.of(Combat(order=["Ana"], data={})), accessor)


TABLE_MODULES = ("bot", "tests.transcript", "tests.games")
"""What a test of the table imports (directly, or through the transcripts and the other game tests)."""
HERE = Path(__file__).parent


@pytest.mark.parametrize("path", sorted(HERE.rglob("test_*.py")), ids=lambda path: path.relative_to(HERE).as_posix())
def test_a_test_of_systems_alone_lives_in_tests_systems(path: Path) -> None:
    """A test module under tests/games/ plays or renders at the table; one that needs only ``systems``
    belongs in tests/systems/ beside the pure rules it tests."""
    imported = [name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                for name in ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                             else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])]
    assert any(name == root or name.startswith(f"{root}.") for name in imported for root in TABLE_MODULES), \
        f"{path} imports only {sorted(set(imported))}"
