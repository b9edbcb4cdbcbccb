"""The database holds the table's state (sheets, secret rolls, the acta): owner-only on disk (issue 19, item 3)."""

from __future__ import annotations

import os
from pathlib import Path

from bot.core.store import Store


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_new_database_and_its_journal_are_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a usual login umask: files come out 0644 unless the store says otherwise
    try:
        store = Store(str(tmp_path / "rolbot.sqlite3"))
        store.meta.set("clave", "valor")
        made = sorted(tmp_path.iterdir())
        assert [p.name for p in made] == ["rolbot.sqlite3", "rolbot.sqlite3-shm", "rolbot.sqlite3-wal"]
        assert {p.name: mode(p) for p in made} == {p.name: 0o600 for p in made}
        store.close()
    finally:
        os.umask(old)


def test_an_existing_readable_database_is_made_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "rolbot.sqlite3"
    Store(str(path)).close()
    path.chmod(0o644)
    Store(str(path)).close()
    assert mode(path) == 0o600
