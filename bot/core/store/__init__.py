"""SQLite persistence (WAL): the schema made through sqlite-utils, the rows read and written through the
connection.

Every handled event is one transaction: the state it changed, the actions it
produced (the outbox) and the record that it was handled commit together, so a
crash either loses the whole event (it is handled again) or none of it.

The schema version is SQLite's ``PRAGMA user_version``: a database written by a newer rolbot
is refused, never migrated backwards. A file that is not a usable SQLite database raises
``StartupError`` with one of the ``db_*`` codes.

The core's tables are the table's own. Another package keeps its state in tables of its own in the
same file (``open_part``: its migrations, its version), written through the same connection, so
inside an event's transaction when it writes there.

The core's tables are read and written by concern, each through a small repository on the one
connection (``store.rooms``, ``store.handled``, ``store.outbox``, ``store.rolls``, ``store.undo``,
``store.acta``, ``store.screen_links``, ``store.meta``): none opens a transaction of its own inside an
event's, so everything one event writes commits together.

The repositories run their SQL on the ``sqlite3`` connection itself (``Store.conn``); ``Store.db``, the
``sqlite_utils.Database`` over that same connection, is made the first time a migration or another package
asks for it, so a start with the schema up to date does not import sqlite-utils (with dateutil, click and
pluggy about 3 MB: docs/performance.md). It opens no transaction of its own: its statements inside
``Store.transaction`` are part of it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING

from bot.core.errors import StartupError
from bot.core.store.acta import Acta
from bot.core.store.checkpoint import Checkpointer
from bot.core.store.meta import Meta
from bot.core.store.outbox import HandledEvents, Outbox
from bot.core.store.play import Rolls, UndoSteps
from bot.core.store.rooms import Rooms, ScreenLinks

if TYPE_CHECKING:
    import sqlite_utils

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
    if "done" in db.table("outbox").columns_dict:  # version 14's outbox has no ``done``: nothing to index
        db.execute("CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (seq) WHERE done = 0")


def _migrate_12(db: sqlite_utils.Database) -> None:
    """Each room's table page token in a column of its own, indexed where there is one: the index over
    the state's JSON was rewritten on every save of the room (about a page more per event)."""
    if "page_token" not in db.table("rooms").columns_dict:
        db.execute("ALTER TABLE rooms ADD COLUMN page_token TEXT")
    db.execute(f"UPDATE rooms SET page_token = {_PAGE_TOKEN}")
    db.execute("DROP INDEX IF EXISTS rooms_page_token")
    db.execute("CREATE INDEX IF NOT EXISTS rooms_by_page_token ON rooms (page_token) WHERE page_token IS NOT NULL")


_REBUILT = {
    "handled": ('"event_id" TEXT PRIMARY KEY, "room_id" TEXT, "ts" INTEGER', "WITHOUT ROWID"),
    "undo": ("id INTEGER PRIMARY KEY, room_id TEXT NOT NULL, event_id TEXT NOT NULL, label TEXT NOT NULL,"
             " state TEXT NOT NULL, parts TEXT NOT NULL", ""),
    "acta": ("id INTEGER PRIMARY KEY, room_id TEXT NOT NULL, session INTEGER NOT NULL, event_id TEXT NOT NULL,"
             " ts INTEGER NOT NULL, kind TEXT NOT NULL, actor TEXT NOT NULL, text TEXT NOT NULL, data TEXT NOT NULL,"
             " sender TEXT NOT NULL DEFAULT ''", ""),
}
"""Version 13's tables, column for column as before: ``handled`` kept in the b-tree of its event id alone
(``WITHOUT ROWID``: one b-tree where the rowid table and the index of its key were two), ``undo`` and ``acta``
numbered without ``AUTOINCREMENT``. The outbox's and the rolls' rows are too long for a ``WITHOUT ROWID``
table (they would spill to overflow pages: more pages per event, measured), so they stay as they are."""
_REBUILT_INDEXES = {
    "undo": ["CREATE INDEX undo_room ON undo (room_id, id)"],
    "acta": ["CREATE INDEX acta_room_session ON acta (room_id, session, id)",
             "CREATE INDEX acta_room_event ON acta (room_id, event_id)"],
}


def _migrate_13(db: sqlite_utils.Database) -> None:
    """Fewer pages written per event (9.5 to 8.3 WAL frames in ``bench/table.py``), every row kept: an
    event's handled record is one b-tree entry (it was the table's and its key index's), and an undo step
    or an acta entry no longer writes ``sqlite_sequence``. Their ids only order a room's entries: a new
    row's is still above every row there is (an id freed by deleting the newest may come back, and
    nothing keeps ids)."""
    for name, (columns, options) in _REBUILT.items():
        db.execute(f"CREATE TABLE {name}_v13 ({columns}) {options}")
        rebuilt = db.table(f"{name}_v13").columns_dict  # a later version's columns come back with their migration
        kept = ", ".join(f'"{column}"' for column in db.table(name).columns_dict if column in rebuilt)
        db.execute(f"INSERT INTO {name}_v13 ({kept}) SELECT {kept} FROM {name}")
        db.execute(f"DROP TABLE {name}")
        db.execute(f"ALTER TABLE {name}_v13 RENAME TO {name}")
        for index in _REBUILT_INDEXES.get(name, []):
            db.execute(index)


def _migrate_14(db: sqlite_utils.Database) -> None:
    """Who typed each undo step (``!deshacer ?`` lists them), and the state an undone step left
    (``!rehacer`` puts it back; NULL while the step is not undone). Steps stored before have neither:
    they are undone as before, by no one named."""
    columns = db.table("undo").columns_dict
    if "sender" not in columns:
        db.execute("ALTER TABLE undo ADD COLUMN sender TEXT NOT NULL DEFAULT ''")
    if "after" not in columns:
        db.execute("ALTER TABLE undo ADD COLUMN after TEXT")


def _migrate_15(db: sqlite_utils.Database) -> None:
    """The outbox holds only the actions still to carry out: one carried out is deleted (it was kept, marked
    ``done``). So it needs no index: queueing an action writes one page, carrying it out one more, where the
    row, its key's index and the pending index took about five (``bench/table.py``). ``seq`` is the rowid;
    finding an action by its id reads only what is pending, a few rows."""
    if "done" not in db.table("outbox").columns_dict:
        return
    db.execute("CREATE TABLE outbox_v15 (seq INTEGER PRIMARY KEY, action_id TEXT NOT NULL, event_id TEXT NOT NULL,"
               " data TEXT NOT NULL, transport TEXT NOT NULL DEFAULT '')")
    db.execute("INSERT INTO outbox_v15 (seq, action_id, event_id, data, transport)"
               " SELECT seq, action_id, event_id, data, transport FROM outbox WHERE done = 0 ORDER BY seq")
    db.execute("DROP TABLE outbox")
    db.execute("ALTER TABLE outbox_v15 RENAME TO outbox")


Migration = Callable[["sqlite_utils.Database"], None]


def _part_of_another_package(db: sqlite_utils.Database) -> None:
    """Versions 2 to 4 made tables that a transport now owns and makes itself (``Store.open_part``):
    they stay versions of the core's schema, with nothing left to do, so a database at any version
    opens as it did."""


MIGRATIONS: list[Migration] = [
    _migrate_1, _part_of_another_package, _part_of_another_package, _part_of_another_package,
    _migrate_5, _migrate_6, _migrate_7, _migrate_8, _migrate_9, _migrate_screen_links, _migrate_11, _migrate_12,
    _migrate_13, _migrate_14, _migrate_15,
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
    """The bot's database: one connection, its schema, its transactions and the repositories of the core's
    tables on it. ``path=None`` keeps everything in memory."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or ":memory:"
        if path:
            _owner_only(path)
        try:
            conn = sqlite3.connect(path or ":memory:", isolation_level=None, check_same_thread=False)
        except sqlite3.Error as err:
            raise _startup_error(err, path or ":memory:") from None
        self.conn = conn
        self.checkpointer: Checkpointer | None = None
        self.rooms = Rooms(conn)
        self.undo = UndoSteps(conn)
        try:
            self._open(path)
        except sqlite3.Error as err:
            conn.close()
            raise _startup_error(err, path or ":memory:") from None
        except StartupError:
            conn.close()
            raise
        if path:
            self.checkpointer = Checkpointer(path)
            weakref.finalize(self, self.checkpointer.close)  # a store dropped unclosed stops its thread
        self.meta = Meta(conn)
        self.handled = HandledEvents(conn, self.transaction)
        self.outbox = Outbox(conn, self.transaction)
        self.rolls = Rolls(conn)
        self.acta = Acta(conn)
        self.screen_links = ScreenLinks(conn)

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the store's connection, for the migrations and the tables of other packages."""
        import sqlite_utils  # on the first migration: a start with the schema up to date needs none

        return sqlite_utils.Database(self.conn)

    def _open(self, path: str | None) -> None:
        if path:
            self.conn.execute("PRAGMA journal_mode=WAL")
            if [row[0] for row in self.conn.execute("PRAGMA quick_check")] != ["ok"]:
                raise StartupError("db_corrupt", path=path)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self._migrate(path or ":memory:")

    def _migrate(self, path: str) -> None:
        """Every open writes (the schema version), so an unwritable database is refused at once."""
        with self.transaction():
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StartupError("db_newer_schema", path=path, found=version, supported=SCHEMA_VERSION)
            for migration in MIGRATIONS[version:]:
                migration(self.db)
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def open_part(self, name: str, migrations: list[Migration]) -> None:
        """Make or bring up to date a part of the database another package owns (a transport's tables,
        in the same file, written in the same transactions): each of ``migrations`` runs once, in
        order, in one transaction with the part's version (meta ``schema:<name>``). A part written by
        a newer rolbot is refused, never migrated backwards."""
        key = PART_VERSION + name
        with self.transaction():
            saved = self.meta.get(key) or "0"
            if not saved.isdecimal():
                raise StartupError("db_corrupt", path=self.path)
            version = int(saved)
            if version > len(migrations):
                raise StartupError("db_newer_schema", path=self.path, found=version, supported=len(migrations))
            for migration in migrations[version:]:
                migration(self.db)
            if version < len(migrations):
                self.meta.set(key, str(len(migrations)))

    def close(self) -> None:
        """Stop the checkpoint thread, then close the connection: the last one on the file, it checkpoints
        the WAL and removes it, as SQLite does."""
        if self.checkpointer is not None:
            self.checkpointer.close()
        self.conn.close()

    def release_memory(self) -> None:
        """Empty SQLite's page cache of the connection (up to 2 MB, filled by the start-up's reads): it fills
        again, up to its size, with what later events read (``bot/memory.py``)."""
        self.conn.execute("PRAGMA shrink_memory")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._forget_known()
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except BaseException:
            self._forget_known()  # what this transaction wrote may not be in the database
            raise
        if self.checkpointer is not None:
            self.checkpointer.committed()

    def _forget_known(self) -> None:
        """What the repositories remember of the database, to skip a statement, may have been rolled back."""
        self.rooms.forget_written()
        self.undo.forget_known()
