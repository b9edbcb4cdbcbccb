"""SQLite persistence through sqlite-utils (WAL).

Every handled event is one transaction: the state it changed, the actions it
produced (the outbox) and the record that it was handled commit together, so a
crash either loses the whole event (it is handled again) or none of it.

The schema version is SQLite's ``PRAGMA user_version``: a database written by a newer rolbot
is refused, never migrated backwards. A file that is not a usable SQLite database raises
``StartupError`` with one of the ``db_*`` codes.

The core's tables are the table's own. Another package keeps its state in tables of its own in the
same file (``open_part``: its migrations, its version), written through the same connection, so
inside an event's transaction when it writes there.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import EllipsisType
from typing import Any

import sqlite_utils

from bot.core.errors import StartupError
from bot.core.events import Action, action_from_dict, action_to_dict
from bot.core.records import SPOKEN, Change, Entry, Record, UndoStep

ROOMS_REMEMBERED = 256
"""Rooms whose stored state the store keeps in memory to skip rewriting it unchanged (as many as
``Table`` keeps loaded)."""
DONE_PER_STATEMENT = 500
"""Actions marked sent by one statement (SQLite bounds the parameters of one)."""
_ERROR_CODES = {
    "SQLITE_NOTADB": "db_not_sqlite",
    "SQLITE_CORRUPT": "db_corrupt",
    "SQLITE_READONLY": "db_readonly",
    "SQLITE_CANTOPEN": "db_cannot_open",
    "SQLITE_BUSY": "db_busy",
    "SQLITE_LOCKED": "db_busy",
}


def _migrate_1(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db.table("handled").create({"event_id": str, "room_id": str, "ts": int}, pk="event_id", if_not_exists=True)
    db.table("outbox").create(
        {"action_id": str, "event_id": str, "seq": int, "data": str, "done": int},
        pk="action_id",
        if_not_exists=True,
    )
    db.table("outbox").create_index(["done", "seq"], if_not_exists=True)
    db.table("rooms").create({"room_id": str, "data": str}, pk="room_id", if_not_exists=True)


_PAGE_TOKEN = "(CASE WHEN json_valid(data) THEN json_extract(data, '$.page_token') END)"
"""A room's table page token, from its state (``rooms.page_token`` keeps it since version 11)."""


def _migrate_5(db: sqlite_utils.Database) -> None:
    """Each room's acta (its in-character record, kept while recording is on), and the lookup of a
    room by its table page token (kept in the room's state)."""
    db.execute("CREATE TABLE IF NOT EXISTS acta (id INTEGER PRIMARY KEY AUTOINCREMENT, room_id TEXT NOT NULL,"
               " session INTEGER NOT NULL, event_id TEXT NOT NULL, ts INTEGER NOT NULL, kind TEXT NOT NULL,"
               " actor TEXT NOT NULL, text TEXT NOT NULL, data TEXT NOT NULL)")
    db.execute("CREATE INDEX IF NOT EXISTS acta_room_session ON acta (room_id, session, id)")
    db.execute("CREATE INDEX IF NOT EXISTS acta_room_event ON acta (room_id, event_id)")
    db.execute(f"CREATE INDEX IF NOT EXISTS rooms_page_token ON rooms ({_PAGE_TOKEN})")


def _migrate_6(db: sqlite_utils.Database) -> None:
    """Every roll the table answered, for ``!historial``, ``!dados`` and ``!revelar``. ``secret`` rolls
    (``!tiro ... oculta``) stay out of what players can see until ``revealed``."""
    db.table("rolls").create(
        {"roll_id": str, "room_id": str, "event_id": str, "seq": int, "ts": int, "actor": str, "sender": str,
         "system": str, "label": str, "secret": int, "revealed": int, "data": str, "dice": str, "message": str},
        pk="roll_id", if_not_exists=True)
    db.table("rolls").create_index(["room_id", "seq"], if_not_exists=True)


def _migrate_7(db: sqlite_utils.Database) -> None:
    """Who sent each acta entry: only they may edit it. Entries recorded before have none (no one's
    edit applies to them; the GM may still delete them)."""
    if "sender" not in db.table("acta").columns_dict:
        db.execute("ALTER TABLE acta ADD COLUMN sender TEXT NOT NULL DEFAULT ''")


def _migrate_8(db: sqlite_utils.Database) -> None:
    """Each room's last commands that changed its play, with the room's state before each (``!deshacer``)."""
    db.execute("CREATE TABLE IF NOT EXISTS undo (id INTEGER PRIMARY KEY AUTOINCREMENT, room_id TEXT NOT NULL,"
               " event_id TEXT NOT NULL, label TEXT NOT NULL, state TEXT NOT NULL, parts TEXT NOT NULL)")
    db.execute("CREATE INDEX IF NOT EXISTS undo_room ON undo (room_id, id)")


def _migrate_9(db: sqlite_utils.Database) -> None:
    """Which transport owns each action (its ``Transport.name``): the one that carries it out after a
    restart. Actions queued before have none: a transport that owns their room claims them
    (``bot.transport.pending_of``)."""
    if "transport" not in db.table("outbox").columns_dict:
        db.execute("ALTER TABLE outbox ADD COLUMN transport TEXT NOT NULL DEFAULT ''")


def _migrate_screen_links(db: sqlite_utils.Database) -> None:
    """Each GM's private screen link of a room (``!pantalla``): one token per (room, GM), replaced by
    ``!pantalla nueva``, looked up by the token on each request to ``/master/<token>``."""
    db.execute("CREATE TABLE IF NOT EXISTS screen_links (room_id TEXT NOT NULL, user_id TEXT NOT NULL,"
               " token TEXT NOT NULL UNIQUE, PRIMARY KEY (room_id, user_id))")


def _migrate_11(db: sqlite_utils.Database) -> None:
    """The outbox's index holds only the actions still to send: marking one sent drops its entry, where
    the index of every action by ``done`` moved it to the other end (about one page more written per
    event). The queries for pending actions (``done = 0``) use it."""
    db.execute("DROP INDEX IF EXISTS idx_outbox_done_seq")
    db.execute("CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (seq) WHERE done = 0")


def _migrate_12(db: sqlite_utils.Database) -> None:
    """Each room's table page token in a column of its own, indexed where there is one: the index over
    the state's JSON was rewritten on every save of the room (about a page more per event)."""
    if "page_token" not in db.table("rooms").columns_dict:
        db.execute("ALTER TABLE rooms ADD COLUMN page_token TEXT")
    db.execute(f"UPDATE rooms SET page_token = {_PAGE_TOKEN}")
    db.execute("DROP INDEX IF EXISTS rooms_page_token")
    db.execute("CREATE INDEX IF NOT EXISTS rooms_by_page_token ON rooms (page_token) WHERE page_token IS NOT NULL")


Migration = Callable[[sqlite_utils.Database], None]


def _part_of_another_package(db: sqlite_utils.Database) -> None:
    """Versions 2 to 4 made tables that a transport now owns and makes itself (``Store.open_part``):
    they stay versions of the core's schema, with nothing left to do, so a database at any version
    opens as it did."""


MIGRATIONS: list[Migration] = [
    _migrate_1, _part_of_another_package, _part_of_another_package, _part_of_another_package,
    _migrate_5, _migrate_6, _migrate_7, _migrate_8, _migrate_9, _migrate_screen_links, _migrate_11, _migrate_12,
]
SCHEMA_VERSION = len(MIGRATIONS)
PART_VERSION = "schema:"
"""The meta key before a part's name (``schema:<name>``): the version of that part of the database."""


def _startup_error(err: sqlite3.Error, path: str) -> StartupError:
    code = _ERROR_CODES.get(getattr(err, "sqlite_errorname", ""), "db_error")
    return StartupError(code, path=path, detail=str(err))


def _owner_only(path: str) -> None:
    """The database holds the table's secrets (sheets, secret rolls, the acta): it is made mode 0600,
    and an existing one is narrowed to it. SQLite gives its ``-wal`` and ``-shm`` files the mode of
    the database. A path that cannot be made is left to SQLite, which says why (``db_*``)."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for name in (path, path + "-wal", path + "-shm"):
        with contextlib.suppress(OSError):
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)


class Store:
    """The bot's database. ``path=None`` keeps everything in memory."""

    def __init__(self, path: str | None = None) -> None:
        self._seq = 0
        self.path = path or ":memory:"
        self._rooms_written: OrderedDict[str, tuple[str, str | None]] = OrderedDict()
        """The state and page token of the rooms last read or written (``ROOMS_REMEMBERED`` of them), as
        the database holds them: an unchanged room is not written again, an unchanged token not set
        again. Forgotten on every rollback."""
        if path:
            _owner_only(path)
        try:
            conn = sqlite3.connect(path or ":memory:", isolation_level=None, check_same_thread=False)
        except sqlite3.Error as err:
            raise _startup_error(err, path or ":memory:") from None
        self.db = sqlite_utils.Database(conn)
        try:
            self._open(path)
        except sqlite3.Error as err:
            conn.close()
            raise _startup_error(err, path or ":memory:") from None
        except StartupError:
            conn.close()
            raise

    def _open(self, path: str | None) -> None:
        if path:
            self.db.execute("PRAGMA journal_mode=WAL")
            if [row[0] for row in self.db.execute("PRAGMA quick_check")] != ["ok"]:
                raise StartupError("db_corrupt", path=path)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._migrate(path or ":memory:")

    def _migrate(self, path: str) -> None:
        """Every open writes (the schema version), so an unwritable database is refused at once."""
        with self.transaction():
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StartupError("db_newer_schema", path=path, found=version, supported=SCHEMA_VERSION)
            for migration in MIGRATIONS[version:]:
                migration(self.db)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        row = self.db.execute("SELECT max(seq) FROM outbox").fetchone()
        self._seq = row[0] or 0

    def open_part(self, name: str, migrations: list[Migration]) -> None:
        """Make or bring up to date a part of the database another package owns (a transport's tables,
        in the same file, written in the same transactions): each of ``migrations`` runs once, in
        order, in one transaction with the part's version (meta ``schema:<name>``). A part written by
        a newer rolbot is refused, never migrated backwards."""
        key = PART_VERSION + name
        with self.transaction():
            saved = self.get_meta(key) or "0"
            if not saved.isdecimal():
                raise StartupError("db_corrupt", path=self.path)
            version = int(saved)
            if version > len(migrations):
                raise StartupError("db_newer_schema", path=self.path, found=version, supported=len(migrations))
            for migration in migrations[version:]:
                migration(self.db)
            if version < len(migrations):
                self.set_meta(key, str(len(migrations)))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._rooms_written.clear()
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except BaseException:
            self._rooms_written.clear()  # what this transaction wrote may not be in the database
            raise

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])

    def forget_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key = ?", [key])

    def meta_with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        rows = self.db.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", [len(prefix), prefix])
        return [(r[0], r[1]) for r in rows]

    def was_handled(self, event_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM handled WHERE event_id = ?", [event_id]).fetchone() is not None

    def claim_event(self, event_id: str, room_id: str, ts: int) -> bool:
        """Record the event as handled (inside its transaction): False when it was handled before.
        One statement, where asking first and recording after took two."""
        cur = self.db.conn.execute("INSERT OR IGNORE INTO handled (event_id, room_id, ts) VALUES (?, ?, ?)",
                                   (event_id, room_id, ts))
        return cur.rowcount > 0

    def load_room(self, room_id: str) -> dict[str, Any] | None:
        row = self.db.conn.execute("SELECT data FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        token = data.get("page_token") if isinstance(data, dict) else None
        self._remember_room(room_id, row[0], token if isinstance(token, str) else None)
        return data

    def save_room(self, room_id: str, data: str, page_token: str | EllipsisType | None = ...) -> None:
        """``data``: the room state already serialised as JSON; not written when the database holds it.
        ``page_token``: the one in ``data`` (read from it when not given)."""
        if page_token is ...:
            found = json.loads(data).get("page_token")
            page_token = found if isinstance(found, str) else None
        known = self._rooms_written.get(room_id)
        if known == (data, page_token):
            self._rooms_written.move_to_end(room_id)
            return
        if known is not None and known[1] == page_token:
            # The row is there with this token: its index is not touched.
            self.db.conn.execute("UPDATE rooms SET data = ? WHERE room_id = ?", (data, room_id))
        else:
            # An upsert updates the row in place: REPLACE deletes and inserts it (new rowid, every index
            # touched), about three more pages written per event.
            self.db.conn.execute("INSERT INTO rooms (room_id, data, page_token) VALUES (?, ?, ?) ON CONFLICT (room_id)"
                                 " DO UPDATE SET data = excluded.data, page_token = excluded.page_token",
                                 (room_id, data, page_token))
        self._remember_room(room_id, data, page_token)

    def _remember_room(self, room_id: str, data: str, page_token: str | None) -> None:
        self._rooms_written[room_id] = data, page_token
        self._rooms_written.move_to_end(room_id)
        if len(self._rooms_written) > ROOMS_REMEMBERED:
            self._rooms_written.popitem(last=False)

    def room_for_token(self, token: str) -> str | None:
        """The room whose table page token is ``token`` (compare it again before trusting it)."""
        row = self.db.execute("SELECT room_id FROM rooms WHERE page_token = ?", [token]).fetchone()
        return row[0] if row else None

    # -- the GMs' screen links (``!pantalla``, bot/screen/)

    def screen_token(self, room_id: str, user_id: str) -> str | None:
        row = self.db.execute("SELECT token FROM screen_links WHERE room_id = ? AND user_id = ?",
                              [room_id, user_id]).fetchone()
        return row[0] if row else None

    def set_screen_token(self, room_id: str, user_id: str, token: str) -> None:
        """The GM's link of the room is ``token`` from now on (an earlier one stops working)."""
        self.db.execute("INSERT OR REPLACE INTO screen_links (room_id, user_id, token) VALUES (?, ?, ?)",
                        [room_id, user_id, token])

    def screen_link(self, token: str) -> tuple[str, str] | None:
        """(room id, GM's user id) of a screen token, if it is a current one."""
        row = self.db.execute("SELECT room_id, user_id FROM screen_links WHERE token = ?", [token]).fetchone()
        return (row[0], row[1]) if row else None

    # -- what ``!deshacer`` can take back (bot/core/undo.py)

    def push_undo(self, room_id: str, step: UndoStep, keep: int) -> None:
        """Keep ``step`` as the room's newest, and only the ``keep`` newest (inside the event's transaction)."""
        self.db.execute("INSERT INTO undo (room_id, event_id, label, state, parts) VALUES (?, ?, ?, ?, ?)",
                        [room_id, step.event_id, step.label, step.state, json.dumps(step.parts, ensure_ascii=False)])
        self.db.execute("DELETE FROM undo WHERE room_id = ? AND id NOT IN"
                        " (SELECT id FROM undo WHERE room_id = ? ORDER BY id DESC LIMIT ?)", [room_id, room_id, keep])

    def last_undo(self, room_id: str) -> UndoStep | None:
        """The room's newest step that is not undone yet."""
        row = self.db.execute("SELECT event_id, label, state, parts FROM undo WHERE room_id = ? ORDER BY id DESC"
                              " LIMIT 1", [room_id]).fetchone()
        return UndoStep(row[0], row[1], row[2], [(p[0], p[1]) for p in json.loads(row[3])]) if row else None

    def drop_undo(self, room_id: str, event_id: str) -> None:
        self.db.execute("DELETE FROM undo WHERE room_id = ? AND event_id = ?", [room_id, event_id])

    # -- the acta (bot/core/acta.py)

    def write_acta(self, room_id: str, records: list[Record]) -> None:
        """Apply what one event adds to or changes in the room's acta (inside its transaction)."""
        conn = self.db.conn
        for item in records:
            if isinstance(item, Entry):
                conn.execute("INSERT INTO acta (room_id, session, event_id, ts, kind, actor, text, data, sender)"
                             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             [room_id, item.session, item.source, item.ts, item.kind, item.actor, item.text,
                              json.dumps(item.data, ensure_ascii=False), item.sender])
            else:
                self._change_acta(room_id, item)

    def _change_acta(self, room_id: str, change: Change) -> None:
        spoken = "(" + ", ".join(f"'{kind}'" for kind in SPOKEN) + ")"
        whose = "" if change.any_sender else " AND sender = ?"
        mine = [] if change.any_sender else [change.by]
        if change.op == "edit":
            self.db.execute(f"UPDATE acta SET kind = ?, text = ? WHERE room_id = ? AND event_id = ? AND kind IN {spoken}"
                            f"{whose}", [change.kind, change.text, room_id, change.source, *mine])
        elif change.op == "undo":
            self.db.execute("DELETE FROM acta WHERE room_id = ? AND event_id = ?", [room_id, change.source])
        elif change.op == "forget":
            self.db.execute(f"DELETE FROM acta WHERE room_id = ? AND event_id = ? AND kind IN {spoken}{whose}",
                            [room_id, change.source, *mine])
        elif change.sessions is None:
            self.db.execute("DELETE FROM acta WHERE room_id = ?", [room_id])
        else:
            self.db.conn.executemany("DELETE FROM acta WHERE room_id = ? AND session = ?",
                                     [(room_id, n) for n in change.sessions])

    def acta_sessions(self, room_id: str) -> list[int]:
        """The room's recorded session numbers, in order."""
        rows = self.db.execute("SELECT DISTINCT session FROM acta WHERE room_id = ? ORDER BY session", [room_id])
        return [r[0] for r in rows]

    def acta_entries(self, room_id: str, sessions: list[int]) -> list[Entry]:
        """The entries of these sessions, in the order they were recorded."""
        out: list[Entry] = []
        for session in sessions:
            rows = self.db.execute("SELECT session, kind, actor, text, event_id, ts, data, sender FROM acta"
                                   " WHERE room_id = ? AND session = ? ORDER BY id", [room_id, session])
            out += [Entry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7]) for r in rows]
        return out

    def room_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT room_id FROM rooms")]

    def mark_skipped(self, event_id: str, room_id: str, ts: int) -> None:
        """Record an event the table never saw (unreadable) as handled, so it is never tried again."""
        with self.transaction():
            self.db.execute("INSERT OR IGNORE INTO handled (event_id, room_id, ts) VALUES (?, ?, ?)",
                            [event_id, room_id, ts])

    # -- the rolls of each room (``bot/core/rolls.py``)

    def add_rolls(self, rolls: list[dict[str, Any]]) -> None:
        """Store roll records (``RollRecord.to_row``); ``seq`` keeps their order within a room."""
        for row in rolls:
            names = list(row)
            self.db.execute(
                f"INSERT INTO rolls ({', '.join(names)}, seq) VALUES ({', '.join('?' * len(names))},"
                " (SELECT coalesce(max(seq), 0) + 1 FROM rolls WHERE room_id = ?))",
                [*row.values(), row["room_id"]])

    def rolls(self, room_id: str, *, actor: str | None = None, visible: bool = True,
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

    def hidden_rolls(self, room_id: str) -> list[dict[str, Any]]:
        """The room's secret rolls not revealed yet, newest first."""
        return [dict(r) for r in self.db.query(
            "SELECT * FROM rolls WHERE room_id = ? AND secret = 1 AND revealed = 0 ORDER BY seq DESC", [room_id])]

    def reveal_roll(self, roll_id: str) -> None:
        self.db.execute("UPDATE rolls SET revealed = 1 WHERE roll_id = ?", [roll_id])

    def queue_actions(self, event_id: str, actions: list[Action], owner: str = "") -> None:
        """``owner``: the name of the transport that owns the event's room."""
        if not actions:
            return
        rows = []
        for action in actions:
            self._seq += 1
            rows.append((action.action_id, event_id, self._seq, json.dumps(action_to_dict(action), ensure_ascii=False),
                         owner))
        self.db.conn.executemany(
            "INSERT INTO outbox (action_id, event_id, seq, data, done, transport) VALUES (?, ?, ?, ?, 0, ?)", rows
        )

    def pending_actions(self) -> list[Action]:
        rows = self.db.execute("SELECT data FROM outbox WHERE done = 0 ORDER BY seq")
        return [action_from_dict(json.loads(r[0])) for r in rows]

    def pending_owned(self, owner: str) -> list[tuple[str, Action]]:
        """The pending actions ``owner`` has, and those of no owner (queued before owners were kept), with
        the owner each has (``owner`` or empty), in their order."""
        rows = self.db.execute("SELECT transport, data FROM outbox WHERE done = 0 AND transport IN (?, '') ORDER BY seq",
                               [owner])
        return [(r[0], action_from_dict(json.loads(r[1]))) for r in rows]

    def claim_actions(self, action_ids: list[str], owner: str) -> None:
        """Record ``owner`` as the owner of these actions of no owner."""
        with self.transaction():
            self.db.conn.executemany("UPDATE outbox SET transport = ? WHERE action_id = ? AND transport = ''",
                                     [[owner, a] for a in action_ids])

    def actions_done(self, action_ids: list[str]) -> None:
        """One statement, its own transaction (none for no actions); a long list in one transaction."""
        if len(action_ids) > DONE_PER_STATEMENT:
            with self.transaction():
                self.mark_done(action_ids)
        else:
            self.mark_done(action_ids)

    def mark_done(self, action_ids: list[str]) -> None:
        """In the caller's transaction (or, for up to ``DONE_PER_STATEMENT`` ids, in one statement of its
        own): one ``UPDATE`` per ``DONE_PER_STATEMENT`` ids."""
        for start in range(0, len(action_ids), DONE_PER_STATEMENT):
            chunk = action_ids[start:start + DONE_PER_STATEMENT]
            marks = ", ".join("?" * len(chunk))
            self.db.conn.execute(f"UPDATE outbox SET done = 1 WHERE action_id IN ({marks})", chunk)
