"""The WAL's checkpoints, mostly off the event's path.

SQLite's automatic checkpoint runs inside the commit that brings the WAL to 1000 pages: one event in
~180 waited ~6 ms for it, most of the commits' time (docs/performance.md). With ``synchronous=NORMAL``
the WAL is synced only by a checkpoint, so that threshold is also what a machine crash can lose: it stays
as it is, SQLite's own. A thread with a connection of its own runs a passive checkpoint every
``WAKE_COMMITS`` commits (about a third of the threshold at an event's ~6 pages), so when the commit's
automatic checkpoint comes, nearly everything is already copied and synced and it has little left to do.
A passive checkpoint never blocks the store's writes; one that fails (busy, disk) is simply tried again
``WAKE_COMMITS`` commits later, and the automatic one still bounds what a crash can lose.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

WAKE_COMMITS = 50
"""Commits between two of the thread's checkpoints."""


class Checkpointer:
    """Checkpoints a file database's WAL in a daemon thread, started the first time it is needed."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._commits = 0
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._failed_once = False
        self.checkpointed = threading.Event()
        """Set after each checkpoint the thread runs (tests wait on it)."""

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def committed(self) -> None:
        """After a commit on the store's connection: every ``WAKE_COMMITS`` commits, wake the thread."""
        self._commits += 1
        if self._commits % WAKE_COMMITS:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="rolbot-checkpoint", daemon=True)
            self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread (its connection closes with it)."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                if conn is None:
                    conn = self._connect()
                if conn is not None and self.checkpoint(conn):
                    self.checkpointed.set()
        finally:
            if conn is not None:
                conn.close()

    def _connect(self) -> sqlite3.Connection | None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as err:
            self._failed(err)
            return None
        return conn

    def checkpoint(self, conn: sqlite3.Connection) -> bool:
        """A passive checkpoint: it copies what no reader still needs and never waits; true when it was not
        busy. A failure is logged once (the error's name only) and tried again later."""
        try:
            (busy, _, _), = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as err:
            self._failed(err)
            return False
        return busy == 0

    def _failed(self, err: sqlite3.Error) -> None:
        if not self._failed_once:
            self._failed_once = True
            log.warning("WAL checkpoint failed (%s); tried again after later commits",
                        getattr(err, "sqlite_errorname", type(err).__name__))
