"""The WAL's checkpoints, off the event's path.

SQLite's automatic checkpoint runs inside the commit that brings the WAL to 1000 pages: one event in
~180 waited ~6 ms for it, most of the commits' time (docs/performance.md). With ``synchronous=NORMAL``
the WAL is synced only by a checkpoint, so its threshold is also what a machine crash can lose: that bound
is kept, the work moves to a thread with a connection of its own.

After every commit the store reads, from the WAL index (the ``-shm`` file, whose header layout SQLite
documents in walformat.html), how many frames the WAL holds and how many a checkpoint already copied
and synced (``mxFrame``, ``nBackfill``):

- from ``WAKE_FRAMES`` frames not yet synced the thread is woken and runs
  ``PRAGMA wal_checkpoint(PASSIVE)``, which never blocks the store's writes;
- at ``SYNC_FRAMES`` of them (SQLite's default threshold) the commit checkpoints itself, as SQLite did
  (after the thread's checkpoint, if one is running), so a thread that falls behind never widens what a
  machine crash can lose: no commit returns with ``SYNC_FRAMES`` frames unsynced, as with SQLite's own
  checkpoint (which counts every frame in the WAL, synced or not, so it never waited longer);
- the WAL starts over only when a checkpoint copied all of it; under a steady stream of events the
  thread's checkpoints always miss the few frames written while they ran, so at ``RESET_FRAMES`` frames
  the commit copies those few itself and the next write starts the WAL over (its file stays under
  ``RESET_FRAMES + SYNC_FRAMES`` pages, ~12 MB; SQLite's own about 4 MB).

A WAL index that cannot be read as expected leaves SQLite's automatic checkpoint on, as before.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import sqlite3
import struct
import threading

log = logging.getLogger(__name__)

SYNC_FRAMES = 1000
"""SQLite's default ``wal_autocheckpoint``: frames not yet synced at which the commit checkpoints itself."""

WAKE_FRAMES = SYNC_FRAMES // 2
"""Frames in the WAL at which the thread checkpoints, well before ``SYNC_FRAMES``."""

RESET_FRAMES = 2 * SYNC_FRAMES
"""Frames in the WAL at which the commit finishes the thread's work itself (a few frames written since
its last checkpoint), so the next write starts the WAL over: it never grows past this for long."""

_INDEX_VERSION = 3007000
"""``iVersion`` of the WAL index header SQLite has written since 3.7.0."""

_HEADER = struct.Struct("=I12xI")
"""``iVersion`` (offset 0) and ``mxFrame`` (offset 16), in the machine's byte order."""

_BACKFILL = struct.Struct("=I")
"""``nBackfill`` (offset 96): the frames a checkpoint copied into the database and synced."""

_BACKFILL_AT = 96


class Checkpointer:
    """Checkpoints a file database's WAL in a daemon thread, started the first time it is needed."""

    def __init__(self, path: str, index: mmap.mmap) -> None:
        self.path = path
        self._index = index
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._failed_once = False
        self._lock = threading.Lock()
        """Held by whoever checkpoints: two at once would leave one busy, its frames unsynced."""
        self.checkpointed = threading.Event()
        """Set after each checkpoint the thread runs (tests wait on it)."""

    @classmethod
    def attach(cls, conn: sqlite3.Connection, path: str) -> Checkpointer | None:
        """A checkpointer for ``conn``'s file, whose automatic checkpoint is then turned off; ``None``
        (SQLite's automatic checkpoint left on) when the WAL index is not the one this module reads."""
        try:
            fd = os.open(path + "-shm", os.O_RDONLY)
        except OSError:
            return None
        try:
            index = mmap.mmap(fd, _BACKFILL_AT + _BACKFILL.size, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        if _HEADER.unpack_from(index)[0] != _INDEX_VERSION:
            index.close()
            return None
        conn.execute("PRAGMA wal_autocheckpoint=0")
        return cls(path, index)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wal(self) -> tuple[int, int]:
        """The frames in the WAL and those of them a checkpoint copied and synced (``mxFrame``,
        ``nBackfill``)."""
        return _HEADER.unpack_from(self._index)[1], _BACKFILL.unpack_from(self._index, _BACKFILL_AT)[0]

    def committed(self, conn: sqlite3.Connection) -> None:
        """After a commit on the store's connection: wake the thread at ``WAKE_FRAMES`` frames no
        checkpoint synced; checkpoint at once at ``SYNC_FRAMES`` of them, or to finish the thread's work
        once the WAL holds ``RESET_FRAMES``."""
        frames, backfilled = self.wal()
        unsynced = frames - backfilled
        if unsynced >= SYNC_FRAMES:
            with self._lock:  # the thread's checkpoint, if one runs, ends first: this one syncs it all
                self._checkpoint(conn)
        elif frames >= RESET_FRAMES and unsynced:
            if self._lock.acquire(blocking=False):  # else the thread is at it: the next commit sees
                try:
                    self._checkpoint(conn)
                finally:
                    self._lock.release()
        elif unsynced >= WAKE_FRAMES:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rolbot-checkpoint", daemon=True)
                self._thread.start()
            self._wake.set()

    def close(self) -> None:
        """Stop the thread (its connection closes with it) and let the WAL index go."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with contextlib.suppress(BufferError):
            self._index.close()

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
                with self._lock:
                    if conn is not None and self._checkpoint(conn):
                        self.checkpointed.set()
        finally:
            if conn is not None:
                conn.close()

    def _connect(self) -> sqlite3.Connection | None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None)
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as err:
            self._failed(err)
            return None
        return conn

    def _checkpoint(self, conn: sqlite3.Connection) -> bool:
        """A passive checkpoint: it copies what no reader still needs and never waits. A failure (busy,
        disk) is tried again after a later commit; true when it was not busy."""
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
