"""Each room's acta (bot/core/acta.py): its in-character record, entries kept by session."""

from __future__ import annotations

import json
import sqlite3

from bot.core.records import SPOKEN, Change, Entry, Record


class Acta:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def write(self, room_id: str, records: list[Record]) -> None:
        """Apply what one event adds to or changes in the room's acta (inside its transaction)."""
        conn = self.conn
        for item in records:
            if isinstance(item, Entry):
                conn.execute("INSERT INTO acta (room_id, session, event_id, ts, kind, actor, text, data, sender)"
                             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             [room_id, item.session, item.source, item.ts, item.kind, item.actor, item.text,
                              json.dumps(item.data, ensure_ascii=False), item.sender])
            else:
                self._change(room_id, item)

    def _change(self, room_id: str, change: Change) -> None:
        spoken = "(" + ", ".join(f"'{kind}'" for kind in SPOKEN) + ")"
        whose = "" if change.any_sender else " AND sender = ?"
        mine = [] if change.any_sender else [change.by]
        if change.op == "edit":
            self.conn.execute(f"UPDATE acta SET kind = ?, text = ? WHERE room_id = ? AND event_id = ? AND kind IN {spoken}"
                            f"{whose}", [change.kind, change.text, room_id, change.source, *mine])
        elif change.op == "undo":
            self.conn.execute("DELETE FROM acta WHERE room_id = ? AND event_id = ?", [room_id, change.source])
        elif change.op == "forget":
            self.conn.execute(f"DELETE FROM acta WHERE room_id = ? AND event_id = ? AND kind IN {spoken}{whose}",
                            [room_id, change.source, *mine])
        elif change.sessions is None:
            self.conn.execute("DELETE FROM acta WHERE room_id = ?", [room_id])
        else:
            self.conn.executemany("DELETE FROM acta WHERE room_id = ? AND session = ?",
                                     [(room_id, n) for n in change.sessions])

    def sessions(self, room_id: str) -> list[int]:
        """The room's recorded session numbers, in order."""
        rows = self.conn.execute("SELECT DISTINCT session FROM acta WHERE room_id = ? ORDER BY session", [room_id])
        return [r[0] for r in rows]

    def entries(self, room_id: str, sessions: list[int]) -> list[Entry]:
        """The entries of these sessions, in the order they were recorded."""
        out: list[Entry] = []
        for session in sessions:
            rows = self.conn.execute("SELECT session, kind, actor, text, event_id, ts, data, sender FROM acta"
                                   " WHERE room_id = ? AND session = ? ORDER BY id", [room_id, session])
            out += [Entry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7]) for r in rows]
        return out
