"""The core store knows no network (issue 23, item 2): a transport's tables, their columns, meta keys and
methods live in the transport's own package, which opens its part of the database through
``Store.open_part``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bot.core.store
from bot.core.errors import StartupError
from bot.core.store import Store

NETWORK_WORDS = ("power", "private_room", "auth", "undecrypt", "irc", "matrix", "nio", "megolm")


def _names_and_strings(path: Path) -> set[str]:
    """Every identifier (functions, classes, attributes, variables, arguments) and string of a module:
    its SQL, its method names and its docstrings."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(node.value)
    return out


def test_the_core_store_names_no_network() -> None:
    found = {(module.name, word, text[:60]) for module in Path(bot.core.store.__file__).parent.glob("*.py")
             for text in _names_and_strings(module) for word in NETWORK_WORDS if word in text.lower()}
    assert found == set()


def test_a_part_migrates_once_and_keeps_its_version_apart(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.sqlite3")
    runs: list[str] = []

    def first(db: object) -> None:
        runs.append("first")
        store.db.execute("CREATE TABLE toy_notes (id INTEGER PRIMARY KEY, text TEXT)")

    def second(db: object) -> None:
        runs.append("second")
        store.db.execute("ALTER TABLE toy_notes ADD COLUMN seen INTEGER NOT NULL DEFAULT 0")

    store = Store(path)
    store.open_part("toy", [first])
    store.db.execute("INSERT INTO toy_notes (text) VALUES ('hola')")
    store.close()
    store = Store(path)
    store.open_part("toy", [first, second])
    store.close()
    store = Store(path)
    store.open_part("toy", [first, second])
    assert runs == ["first", "second"]
    assert store.meta.get("schema:toy") == "2"
    assert store.db.execute("SELECT text, seen FROM toy_notes").fetchall() == [("hola", 0)]
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == bot.core.store.SCHEMA_VERSION


def test_a_part_written_by_a_newer_rolbot_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.sqlite3")
    store = Store(path)
    store.meta.set("schema:toy", "3")
    ran: list[int] = []
    with pytest.raises(StartupError) as err:
        store.open_part("toy", [lambda db: ran.append(1)])
    assert err.value.code == "db_newer_schema" and err.value.params["found"] == 3
    assert err.value.params["supported"] == 1 and ran == [] and store.meta.get("schema:toy") == "3"


def test_an_unreadable_part_version_is_one_clear_error(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "rolbot.sqlite3"))
    store.meta.set("schema:toy", "dos")
    with pytest.raises(StartupError) as err:
        store.open_part("toy", [])
    assert err.value.code == "db_corrupt"
