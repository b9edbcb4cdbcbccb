"""The play a room keeps besides its state: every roll the table answered (``rolls``) and the steps
``!deshacer`` can take back (``undo``)."""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from bot.core.records import UndoStep


class Rolls:
    """Each room's rolls (``bot/core/rolls.py``), for ``!historial``, ``!dados`` and ``!revelar``."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def add(self, rolls: list[dict[str, Any]]) -> None:
        """Store roll records (``RollRecord.to_row``); ``seq`` keeps their order within a room."""
        for row in rolls:
            names = list(row)
            self.db.execute(
                f"INSERT INTO rolls ({', '.join(names)}, seq) VALUES ({', '.join('?' * len(names))},"
                " (SELECT coalesce(max(seq), 0) + 1 FROM rolls WHERE room_id = ?))",
                [*row.values(), row["room_id"]])

    def history(self, room_id: str, *, actor: str | None = None, visible: bool = True,
                limit: int | None = None) -> list[dict[str, Any]]:
        """A room's rolls, newest first: only those everyone may see (not secret, or revealed) when
        ``visible``; only one actor's (its name key) when ``actor`` is given."""
        where, params = ["room_id = ?"], [room_id]
        if visible:
            where.append("(secret = 0 OR revealed = 1)")
        if actor is not None:
            where.append("actor = ?")
            params.append(actor)
        sql = f"SELECT * FROM rolls WHERE {' AND '.join(where)} ORDER BY seq DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [dict(r) for r in self.db.query(sql, params)]

    def dice_counts(self, room_id: str) -> tuple[int, list[tuple[int, int, int]]]:
        """For ``!dados``: how many rolls everyone may see, and how often each ``(sides, face)`` came up
        in them (``(sides, face, count)``), counted by SQLite from the ``dice`` column alone."""
        visible = "room_id = ? AND (secret = 0 OR revealed = 1)"
        total = self.db.execute(f"SELECT count(*) FROM rolls WHERE {visible}", [room_id]).fetchone()[0]
        rows = self.db.execute(
            "SELECT json_extract(d.value, '$[0]'), json_extract(d.value, '$[1]'), count(*)"
            f" FROM rolls, json_each(CASE WHEN json_valid(dice) THEN dice ELSE '[]' END) AS d WHERE {visible}"
            " GROUP BY 1, 2", [room_id]).fetchall()
        return int(total), [(s, f, n) for s, f, n in rows if isinstance(s, int) and isinstance(f, int)]

    def hidden(self, room_id: str) -> list[dict[str, Any]]:
        """The room's secret rolls not revealed yet, newest first."""
        return [dict(r) for r in self.db.query(
            "SELECT * FROM rolls WHERE room_id = ? AND secret = 1 AND revealed = 0 ORDER BY seq DESC", [room_id])]

    def reveal(self, roll_id: str) -> None:
        self.db.execute("UPDATE rolls SET revealed = 1 WHERE roll_id = ?", [roll_id])


class UndoSteps:
    """What ``!deshacer`` can take back (bot/core/undo.py): each room's last steps, newest last."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def push(self, room_id: str, step: UndoStep, keep: int) -> None:
        """Keep ``step`` as the room's newest, and only the ``keep`` newest (inside the event's transaction)."""
        self.db.execute("INSERT INTO undo (room_id, event_id, label, state, parts) VALUES (?, ?, ?, ?, ?)",
                        [room_id, step.event_id, step.label, step.state, json.dumps(step.parts, ensure_ascii=False)])
        self.db.execute("DELETE FROM undo WHERE room_id = ? AND id NOT IN"
                        " (SELECT id FROM undo WHERE room_id = ? ORDER BY id DESC LIMIT ?)", [room_id, room_id, keep])

    def last(self, room_id: str) -> UndoStep | None:
        """The room's newest step that is not undone yet."""
        row = self.db.execute("SELECT event_id, label, state, parts FROM undo WHERE room_id = ? ORDER BY id DESC"
                              " LIMIT 1", [room_id]).fetchone()
        return UndoStep(row[0], row[1], row[2], [(p[0], p[1]) for p in json.loads(row[3])]) if row else None

    def drop(self, room_id: str, event_id: str) -> None:
        self.db.execute("DELETE FROM undo WHERE room_id = ? AND event_id = ?", [room_id, event_id])
