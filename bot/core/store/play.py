"""The play a room keeps besides its state: every roll the table answered (``rolls``) and the steps
``!deshacer`` can take back (``undo``)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bot.core.records import UndoStep
from bot.core.store.meta import Meta
from bot.core.text import json_encoder

_json = json_encoder()
"""An undo step's parts as ``json.dumps(..., ensure_ascii=False)`` writes them."""


class Rolls:
    """Each room's rolls (``bot/core/rolls.py``), for ``!historial``, ``!dados`` and ``!revelar``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def add(self, rolls: list[dict[str, Any]]) -> None:
        """Store roll records (``RollRecord.to_row``); ``seq`` keeps their order within a room."""
        for row in rolls:
            names = list(row)
            self.conn.execute(
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
        return _dicts(self.conn.execute(sql, params))

    def dice_counts(self, room_id: str) -> tuple[int, list[tuple[int, int, int]]]:
        """For ``!dados``: how many rolls everyone may see, and how often each ``(sides, face)`` came up
        in them (``(sides, face, count)``), counted by SQLite from the ``dice`` column alone."""
        visible = "room_id = ? AND (secret = 0 OR revealed = 1)"
        total = self.conn.execute(f"SELECT count(*) FROM rolls WHERE {visible}", [room_id]).fetchone()[0]
        rows = self.conn.execute(
            "SELECT json_extract(d.value, '$[0]'), json_extract(d.value, '$[1]'), count(*)"
            f" FROM rolls, json_each(CASE WHEN json_valid(dice) THEN dice ELSE '[]' END) AS d WHERE {visible}"
            " GROUP BY 1, 2", [room_id]).fetchall()
        return int(total), [(s, f, n) for s, f, n in rows if isinstance(s, int) and isinstance(f, int)]

    def hidden(self, room_id: str) -> list[dict[str, Any]]:
        """The room's secret rolls not revealed yet, newest first."""
        return _dicts(self.conn.execute(
            "SELECT * FROM rolls WHERE room_id = ? AND secret = 1 AND revealed = 0 ORDER BY seq DESC", [room_id]))

    def reveal(self, roll_id: str) -> None:
        self.conn.execute("UPDATE rolls SET revealed = 1 WHERE roll_id = ?", [roll_id])


def _dicts(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    """The rows of ``cursor``, each as a dict by column name."""
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


class UndoSteps:
    """What ``!deshacer`` can take back (bot/core/undo.py): each room's last steps, newest last. A step
    undone keeps the state it left (``after``) for ``!rehacer`` until a new step is kept: the undone ones
    are always the newest, and the last one undone is the oldest of them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._meta = Meta(conn)
        self._nothing_undone: set[str] = set()
        """Rooms the database holds no undone step of (a step was kept since, and none undone): a new step
        has none to drop. Forgotten on every rollback (``forget_known``)."""
        self._no_refusal: set[str] = set()
        """The refusal keys the database holds no value for: a command that is no refusal has none to drop.
        Forgotten on every rollback (``forget_known``)."""

    def forget_known(self) -> None:
        """What this store knew of the database may have been rolled back: ask it again."""
        self._nothing_undone.clear()
        self._no_refusal.clear()

    def push(self, room_id: str, step: UndoStep, keep: int) -> None:
        """Keep ``step`` as the room's newest, and only the ``keep`` newest (inside the event's transaction);
        the steps undone before it can no longer be redone."""
        if room_id not in self._nothing_undone:
            self.conn.execute("DELETE FROM undo WHERE room_id = ? AND after IS NOT NULL", [room_id])
            self._nothing_undone.add(room_id)
        self.conn.execute("INSERT INTO undo (room_id, event_id, label, state, parts, sender) VALUES (?, ?, ?, ?, ?, ?)",
                        [room_id, step.event_id, step.label, step.state, _json(step.parts),
                         step.sender])
        # The oldest beyond ``keep``, found through the (room_id, id) index: deletes nothing while the room
        # has ``keep`` steps or fewer (``NOT IN`` the newest ``keep`` built that list on every push).
        self.conn.execute("DELETE FROM undo WHERE room_id = ? AND id <= (SELECT id FROM undo WHERE room_id = ?"
                        " ORDER BY id DESC LIMIT 1 OFFSET ?)", [room_id, room_id, keep])

    def last(self, room_id: str) -> UndoStep | None:
        """The room's newest step that is not undone yet."""
        steps = self.recent(room_id, 1)
        return steps[0] if steps else None

    def recent(self, room_id: str, count: int) -> list[UndoStep]:
        """The room's ``count`` newest steps not undone, newest first."""
        rows = self.conn.execute(f"SELECT {_STEP} FROM undo WHERE room_id = ? AND after IS NULL ORDER BY id DESC"
                               " LIMIT ?", [room_id, count]).fetchall()
        return [_step(row) for row in rows]

    def redoable(self, room_id: str) -> tuple[UndoStep, str] | None:
        """The step undone last and the state it left, or None."""
        row = self.conn.execute(f"SELECT {_STEP}, after FROM undo WHERE room_id = ? AND after IS NOT NULL"
                              " ORDER BY id LIMIT 1", [room_id]).fetchone()
        return (_step(row), row[5]) if row else None

    def mark(self, room_id: str, event_id: str, after: str | None) -> None:
        """The step undone, leaving ``after``; with None, redone."""
        self.conn.execute("UPDATE undo SET after = ? WHERE room_id = ? AND event_id = ?", [after, room_id, event_id])
        self._nothing_undone.discard(room_id)

    def refusal(self, room_id: str, user_id: str) -> str | None:
        """The command of ``user_id`` (a GM) refused last, when it was their last command."""
        return self._meta.get(_refusal_key(room_id, user_id))

    def note_refusal(self, room_id: str, user_id: str, command: str | None) -> None:
        """``user_id``'s last command was refused (``command``, as typed) or, with None, was not."""
        key = _refusal_key(room_id, user_id)
        if command is not None:
            self._meta.set(key, command)
            self._no_refusal.discard(key)
        elif key not in self._no_refusal:
            if self._meta.get(key) is not None:
                self._meta.forget(key)
            self._no_refusal.add(key)


def _refusal_key(room_id: str, user_id: str) -> str:
    return f"undo_refused:{room_id} {user_id}"


_STEP = "event_id, label, state, parts, sender"


def _step(row: Any) -> UndoStep:
    return UndoStep(row[0], row[1], row[2], [(p[0], p[1]) for p in json.loads(row[3])], row[4])
