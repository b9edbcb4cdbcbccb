"""The WAL's checkpoints run mostly in a thread of the store's, off the event's path, while SQLite's own
automatic checkpoint still bounds what a machine crash can lose (issue 28 item 7,
bot/core/store/checkpoint.py)."""

from __future__ import annotations

import gc
import logging
import sqlite3
import threading
from pathlib import Path

from bot.core.store import Store
from bot.core.store.checkpoint import WAKE_COMMITS, Checkpointer


def _threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "rolbot-checkpoint"]


def _store(tmp_path: Path) -> tuple[Store, Checkpointer]:
    store = Store(str(tmp_path / "mesa.db"))
    store.conn.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, data BLOB)")
    assert store.checkpointer is not None
    return store, store.checkpointer


def _event(store: Store, n: int, size: int = 6000) -> None:
    """One event's transaction: a row of ``size`` bytes (two or three pages)."""
    with store.transaction():
        store.conn.execute("INSERT INTO filler VALUES (?, ?)", (n, bytes(size)))


def _wal(store: Store) -> tuple[int, int]:
    """Frames in the WAL and frames copied to the database, as a no-op checkpoint reports them."""
    (_, log, done), = store.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    return log, done


def test_the_thread_checkpoints_the_wal_every_few_commits_and_stops_on_close(tmp_path: Path) -> None:
    """issue 28 item 7: the thread starts at the WAKE_COMMITS-th commit and copies the WAL into the
    database; close stops it and, as before, leaves no WAL behind."""
    store, checkpointer = _store(tmp_path)
    for n in range(WAKE_COMMITS - 1):
        _event(store, n)
    assert not checkpointer.running and _threads() == []  # started the first time it is needed
    _event(store, WAKE_COMMITS)
    assert checkpointer.checkpointed.wait(timeout=30)
    assert checkpointer.running
    store.close()
    assert not checkpointer.running and _threads() == []
    assert not (tmp_path / "mesa.db-wal").exists()


def test_sqlites_own_checkpoint_still_bounds_the_wal(tmp_path: Path) -> None:
    """issue 28 item 7: the power-loss window stays SQLite's: the store's connection keeps its automatic
    checkpoint (1000 pages), so one commit of more than that is copied and synced before it returns."""
    store, _ = _store(tmp_path)
    assert store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    _event(store, 0, size=4096 * 1010)
    log, done = _wal(store)
    assert log > 1000 and done == log
    store.close()


def test_an_in_memory_store_starts_no_thread() -> None:
    store = Store()
    assert store.checkpointer is None
    for n in range(WAKE_COMMITS + 1):
        with store.transaction():
            store.meta.set(f"k{n}", "x")
    assert _threads() == []
    store.close()


def test_a_store_dropped_unclosed_stops_its_thread(tmp_path: Path) -> None:
    """A test or a tool that forgets ``close()`` leaves no thread behind once the store is gone."""
    store, checkpointer = _store(tmp_path)
    for n in range(WAKE_COMMITS):
        _event(store, n)
    assert checkpointer.checkpointed.wait(timeout=30)
    conn = store.conn
    del store
    gc.collect()  # its repositories hold its transaction: a cycle
    assert not checkpointer.running and _threads() == []
    conn.close()


def test_a_failed_checkpoint_is_logged_once_and_raises_nothing(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    """issue 28 item 7: a checkpoint that fails is tried again later; the bot goes on; one line, no path."""
    store, checkpointer = _store(tmp_path)
    closed = sqlite3.connect(":memory:")
    closed.close()
    with caplog.at_level(logging.WARNING):
        assert not checkpointer.checkpoint(closed)
        assert not checkpointer.checkpoint(closed)
    records = [r for r in caplog.records if "checkpoint" in r.getMessage()]
    assert len(records) == 1
    assert "mesa.db" not in records[0].getMessage()
    store.close()
