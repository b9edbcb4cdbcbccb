"""The Matrix transport's state, on the table's database (``bot.core.store.Store``), in tables of its own
with their own schema version (``Store.open_part("matrix", ...)``): power levels saved while a room is
muted, each user's private room, what the bot knows of each room's power, encrypted events waiting
for their key, and the sync token. Its writes share the table's connection, so one made inside an event's transaction
commits with it.

The tables kept their names from when the core's schema made them (its versions 2 to 4), so a database
of an earlier rolbot opens with its rows as they were.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from bot.core.store import Migration, Store

if TYPE_CHECKING:
    import sqlite_utils


def _migrate_1(db: sqlite_utils.Database) -> None:
    """Power levels saved while a room is muted, and each user's private room. (The transport created
    these tables itself before the core's schema did; the names stay for existing databases.)"""
    db.table("matrix_saved_power").create({"room_id": str, "content": str}, pk="room_id", if_not_exists=True)
    db.table("matrix_dm").create({"user_id": str, "room_id": str}, pk="user_id", if_not_exists=True)


def _migrate_2(db: sqlite_utils.Database) -> None:
    """Encrypted rooms: messages waiting for their room key (the event as it came, ciphertext
    only), and the players already told once in a room that the bot could not read them."""
    db.table("matrix_undecrypted").create(
        {"event_id": str, "room_id": str, "sender": str, "raw": str, "seen": float, "noticed": int,
         "sender_key": str, "session_id": str, "epoch": str},
        pk="event_id", if_not_exists=True)
    db.table("matrix_undecrypted").create_index(["room_id", "sender"], if_not_exists=True)
    db.table("matrix_undecrypted_notice").create({"room_id": str, "user_id": str},
                                                 pk=("room_id", "user_id"), if_not_exists=True)


def _migrate_3(db: sqlite_utils.Database) -> None:
    """What the transport knows of each room's power (creators, room version, power
    levels, encryption, joined members), so a restart need not read every room again."""
    db.table("matrix_room_auth").create({"room_id": str, "data": str}, pk="room_id", if_not_exists=True)


_OLD_SYNC_TOKEN = "matrix_sync_token"


def _migrate_4(db: sqlite_utils.Database) -> None:
    """The sync token (where the next sync starts), moved out of the core's ``meta``, where an earlier
    rolbot kept it as ``matrix_sync_token``."""
    db.execute("CREATE TABLE IF NOT EXISTS matrix_sync (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL)")
    db.execute("INSERT OR REPLACE INTO matrix_sync (id, token) SELECT 1, value FROM meta WHERE key = ?", [_OLD_SYNC_TOKEN])
    db.execute("DELETE FROM meta WHERE key = ?", [_OLD_SYNC_TOKEN])


_OLD_COALESCED, _OLD_NOTICED = "coalesced/", "rate_limit_noticed/"


def _migrate_5(db: sqlite_utils.Database) -> None:
    """The coalesced message being sent under a rate limit, and the rooms already told the bot is limited,
    moved out of the core's ``meta``, where an earlier rolbot kept them as ``coalesced/<room>`` and
    ``rate_limit_noticed/<room>``."""
    db.execute("CREATE TABLE IF NOT EXISTS matrix_coalesced (room_id TEXT PRIMARY KEY, data TEXT NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS matrix_rate_noticed (room_id TEXT PRIMARY KEY)")
    db.execute("INSERT OR REPLACE INTO matrix_coalesced (room_id, data) SELECT substr(key, ?), value FROM meta"
               " WHERE substr(key, 1, ?) = ?", [len(_OLD_COALESCED) + 1, len(_OLD_COALESCED), _OLD_COALESCED])
    db.execute("INSERT OR REPLACE INTO matrix_rate_noticed (room_id) SELECT substr(key, ?) FROM meta"
               " WHERE substr(key, 1, ?) = ?", [len(_OLD_NOTICED) + 1, len(_OLD_NOTICED), _OLD_NOTICED])
    for prefix in (_OLD_COALESCED, _OLD_NOTICED):
        db.execute("DELETE FROM meta WHERE substr(key, 1, ?) = ?", [len(prefix), prefix])


def _migrate_6(db: sqlite_utils.Database) -> None:
    """The bot's messages it may edit (``Send.ref`` -> event id) and each room's combat tracker
    (``bot/matrix/tracker.py``)."""
    db.execute("CREATE TABLE IF NOT EXISTS matrix_sent (ref TEXT PRIMARY KEY, room_id TEXT NOT NULL,"
               " event_id TEXT NOT NULL)")
    db.execute("CREATE INDEX IF NOT EXISTS matrix_sent_room ON matrix_sent (room_id)")
    db.execute("CREATE TABLE IF NOT EXISTS matrix_tracker (room_id TEXT PRIMARY KEY, event_id TEXT NOT NULL,"
               " pinned INTEGER NOT NULL)")


MIGRATIONS: list[Migration] = [_migrate_1, _migrate_2, _migrate_3, _migrate_4, _migrate_5, _migrate_6]


class MatrixStore:
    """The Matrix transport's tables in ``store``'s database (made or migrated when opened)."""

    def __init__(self, store: Store) -> None:
        store.open_part("matrix", MIGRATIONS)
        self.core = store
        self.conn = store.conn
        self.transaction = store.transaction

    def keep_coalesced(self, room_id: str, data: str) -> None:
        """The coalesced message about to be sent (``Coalesced.to_json``): sent again, the same, after a crash."""
        self.conn.execute("INSERT OR REPLACE INTO matrix_coalesced (room_id, data) VALUES (?, ?)", [room_id, data])

    def coalesced_in_flight(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT data FROM matrix_coalesced ORDER BY room_id")]

    def coalesced_sent(self, room_id: str, action_ids: list[str], noticed: bool) -> None:
        """In one transaction: the replies it holds are done, it is forgotten, and (``noticed``) the room
        was told the bot is rate-limited."""
        with self.transaction():
            self.core.outbox.mark_done(action_ids)
            self.conn.execute("DELETE FROM matrix_coalesced WHERE room_id = ?", [room_id])
            if noticed:
                self.conn.execute("INSERT OR REPLACE INTO matrix_rate_noticed (room_id) VALUES (?)", [room_id])

    def rate_limit_noticed(self, room_id: str, note: bool = False) -> bool:
        """Whether the room's GMs were told the bot is rate-limited; ``note``: they are being told now (so
        never again)."""
        told = self.conn.execute("SELECT 1 FROM matrix_rate_noticed WHERE room_id = ?", [room_id]).fetchone() is not None
        if note and not told:
            self.conn.execute("INSERT INTO matrix_rate_noticed (room_id) VALUES (?)", [room_id])
        return told

    def sync_token(self) -> str | None:
        """Where the next sync starts: saved once every event of the batches before it was handled."""
        row = self.conn.execute("SELECT token FROM matrix_sync WHERE id = 1").fetchone()
        return row[0] if row else None

    def save_sync_token(self, token: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO matrix_sync (id, token) VALUES (1, ?)", [token])

    def saved_power_levels(self, room_id: str) -> dict[str, Any] | None:
        """The room's power levels as they were before a mute, while the mute lasts."""
        row = self.conn.execute("SELECT content FROM matrix_saved_power WHERE room_id = ?", [room_id]).fetchone()
        return json.loads(row[0]) if row else None

    def save_power_levels(self, room_id: str, content: dict[str, Any]) -> None:
        self.conn.execute("INSERT OR REPLACE INTO matrix_saved_power (room_id, content) VALUES (?, ?)",
                        [room_id, json.dumps(content)])

    def forget_power_levels(self, room_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_saved_power WHERE room_id = ?", [room_id])

    def rooms_with_saved_power_levels(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT room_id FROM matrix_saved_power")]

    def private_room(self, user_id: str) -> str | None:
        """The room the bot made for private messages to ``user_id``."""
        row = self.conn.execute("SELECT room_id FROM matrix_dm WHERE user_id = ?", [user_id]).fetchone()
        return row[0] if row else None

    def set_private_room(self, user_id: str, room_id: str | None) -> None:
        """The room the bot made for private messages to ``user_id`` (None: it has none now, it left it)."""
        if room_id is None:
            self.conn.execute("DELETE FROM matrix_dm WHERE user_id = ?", [user_id])
        else:
            self.conn.execute("INSERT OR REPLACE INTO matrix_dm (user_id, room_id) VALUES (?, ?)", [user_id, room_id])

    def private_rooms(self) -> list[str]:
        """Every room the bot made for private messages."""
        return [r[0] for r in self.conn.execute("SELECT room_id FROM matrix_dm ORDER BY user_id")]

    # -- each room's auth-relevant state

    def room_auths(self) -> dict[str, dict[str, Any]]:
        """Every stored room's auth state (as ``save_room_auths`` took it), by room id."""
        out: dict[str, dict[str, Any]] = {}
        for room_id, data in self.conn.execute("SELECT room_id, data FROM matrix_room_auth"):
            try:
                value = json.loads(data)
            except ValueError:
                continue  # unreadable: as if lost (the room is read again on first use)
            if isinstance(value, dict):
                out[room_id] = value
        return out

    def save_room_auths(self, rooms: dict[str, dict[str, Any]]) -> None:
        """Store (replace) the auth state of these rooms in one transaction."""
        if not rooms:
            return
        with self.transaction():
            self.conn.executemany("INSERT OR REPLACE INTO matrix_room_auth (room_id, data) VALUES (?, ?)",
                                     [(r, json.dumps(d, ensure_ascii=False)) for r, d in rooms.items()])

    def forget_room_auth(self, room_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_room_auth WHERE room_id = ?", [room_id])

    # -- encrypted messages waiting for their key

    def park_undecrypted(self, event_id: str, room_id: str, sender: str, raw: str, seen: float,
                         session: tuple[str, str], epoch: str) -> bool:
        """Keep an event the bot cannot decrypt yet, with its megolm ``session`` (sender key, session
        id) and the room's floor ``epoch`` when it came; False when it was already kept."""
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO matrix_undecrypted"
            " (event_id, room_id, sender, raw, seen, noticed, sender_key, session_id, epoch)"
            " VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)", [event_id, room_id, sender, raw, seen, *session, epoch])
        return cur.rowcount > 0

    def kept_undecrypted(self, room_id: str, sender: str) -> int:
        """How many of ``sender``'s events in ``room_id`` wait for their key."""
        row = self.conn.execute("SELECT count(*) FROM matrix_undecrypted WHERE room_id = ? AND sender = ?",
                              [room_id, sender]).fetchone()
        return int(row[0])

    def undecrypted_sessions(self) -> list[tuple[str, str, str, str]]:
        """(event_id, room_id, sender_key, session_id) of every kept event, oldest first."""
        rows = self.conn.execute("SELECT event_id, room_id, sender_key, session_id FROM matrix_undecrypted ORDER BY seen")
        return [(r[0], r[1], r[2] or "", r[3] or "") for r in rows]

    def undecrypted_event(self, event_id: str) -> tuple[str, str] | None:
        """(raw event, floor epoch when it came) of one kept event."""
        row = self.conn.execute("SELECT raw, epoch FROM matrix_undecrypted WHERE event_id = ?", [event_id]).fetchone()
        return (row[0], row[1] or "") if row else None

    def unpark_undecrypted(self, event_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_undecrypted WHERE event_id = ?", [event_id])

    def undecrypted(self) -> list[tuple[str, str, str, float, bool]]:
        """(event_id, room_id, sender, seen, noticed) of every kept event, oldest first (no ciphertext)."""
        rows = self.conn.execute("SELECT event_id, room_id, sender, seen, noticed FROM matrix_undecrypted ORDER BY seen")
        return [(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def undecrypted_noticed(self, room_id: str, user_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM matrix_undecrypted_notice WHERE room_id = ? AND user_id = ?",
                               [room_id, user_id]).fetchone() is not None

    def set_undecrypted_noticed(self, room_id: str, user_id: str) -> None:
        with self.transaction():
            self.conn.execute("INSERT OR IGNORE INTO matrix_undecrypted_notice (room_id, user_id) VALUES (?, ?)",
                            [room_id, user_id])
            self.conn.execute("UPDATE matrix_undecrypted SET noticed = 1 WHERE room_id = ? AND sender = ?",
                            [room_id, user_id])
