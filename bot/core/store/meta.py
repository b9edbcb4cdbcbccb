"""The ``meta`` table: small values by key (a seeded run's RNG, each part's schema version)."""

from __future__ import annotations

import sqlite3


class Meta:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])

    def forget(self, key: str) -> None:
        self.conn.execute("DELETE FROM meta WHERE key = ?", [key])

    def with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        rows = self.conn.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", [len(prefix), prefix])
        return [(r[0], r[1]) for r in rows]
