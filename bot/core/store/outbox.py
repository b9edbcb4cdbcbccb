"""What became of each event: the record that it was handled (``handled``) and the actions it left to
carry out (``outbox``), each owned by the transport of its room."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from bot.core.events import Action, action_from_dict, action_to_dict
from bot.core.text import json_encoder

Transaction = Callable[[], AbstractContextManager[None]]
"""``Store.transaction``: the one connection's ``BEGIN IMMEDIATE`` ... ``COMMIT``."""
DONE_PER_STATEMENT = 500
"""Actions deleted as carried out by one statement (SQLite bounds the parameters of one)."""
_encode = json_encoder()
"""An action's JSON as ``json.dumps(..., ensure_ascii=False)`` writes it, in about half its time."""


class HandledEvents:
    def __init__(self, conn: sqlite3.Connection, transaction: Transaction) -> None:
        self.conn = conn
        self.transaction = transaction

    def seen(self, event_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM handled WHERE event_id = ?", [event_id]).fetchone() is not None

    def claim(self, event_id: str, room_id: str, ts: int) -> bool:
        """Record the event as handled (inside its transaction): False when it was handled before.
        One statement, where asking first and recording after took two."""
        cur = self.conn.execute("INSERT OR IGNORE INTO handled (event_id, room_id, ts) VALUES (?, ?, ?)",
                                   (event_id, room_id, ts))
        return cur.rowcount > 0

    def skip(self, event_id: str, room_id: str, ts: int) -> None:
        """Record an event the table never saw (unreadable) as handled, so it is never tried again."""
        with self.transaction():
            self.conn.execute("INSERT OR IGNORE INTO handled (event_id, room_id, ts) VALUES (?, ?, ?)",
                            [event_id, room_id, ts])


class Outbox:
    """The actions still to carry out, in the order they were queued (``seq``, the rowid), each deleted once
    marked done: the table holds only what is pending, so it has no index to write (schema version 14)."""

    def __init__(self, conn: sqlite3.Connection, transaction: Transaction) -> None:
        self.conn = conn
        self.transaction = transaction
        self._seq: int = conn.execute("SELECT max(seq) FROM outbox").fetchone()[0] or 0

    def queue(self, event_id: str, actions: list[Action], owner: str = "") -> None:
        """``owner``: the name of the transport that owns the event's room."""
        if not actions:
            return
        rows = []
        for action in actions:
            self._seq += 1
            rows.append((action.action_id, event_id, self._seq, _encode(action_to_dict(action)),
                         owner))
        self.conn.executemany(
            "INSERT INTO outbox (action_id, event_id, seq, data, transport) VALUES (?, ?, ?, ?, ?)", rows
        )

    def pending(self) -> list[Action]:
        rows = self.conn.execute("SELECT data FROM outbox ORDER BY seq")
        return [action_from_dict(json.loads(r[0])) for r in rows]

    def pending_owned(self, owner: str) -> list[tuple[str, Action]]:
        """The pending actions ``owner`` has, and those of no owner (queued before owners were kept), with
        the owner each has (``owner`` or empty), in their order."""
        rows = self.conn.execute("SELECT transport, data FROM outbox WHERE transport IN (?, '') ORDER BY seq",
                               [owner])
        return [(r[0], action_from_dict(json.loads(r[1]))) for r in rows]

    def claim(self, action_ids: list[str], owner: str) -> None:
        """Record ``owner`` as the owner of these actions of no owner."""
        with self.transaction():
            self.conn.executemany("UPDATE outbox SET transport = ? WHERE action_id = ? AND transport = ''",
                                     [[owner, a] for a in action_ids])

    def done(self, action_ids: list[str]) -> None:
        """One statement, its own transaction (none for no actions); a long list in one transaction."""
        if len(action_ids) > DONE_PER_STATEMENT:
            with self.transaction():
                self.mark_done(action_ids)
        else:
            self.mark_done(action_ids)

    def mark_done(self, action_ids: list[str]) -> None:
        """In the caller's transaction (or, for up to ``DONE_PER_STATEMENT`` ids, in one statement of its
        own): one ``DELETE`` per ``DONE_PER_STATEMENT`` ids."""
        for start in range(0, len(action_ids), DONE_PER_STATEMENT):
            chunk = action_ids[start:start + DONE_PER_STATEMENT]
            marks = ", ".join("?" * len(chunk))
            self.conn.execute(f"DELETE FROM outbox WHERE action_id IN ({marks})", chunk)
