"""The WAL's checkpoints run in a thread of the store's, off the event's path, with SQLite's bound on what
a power cut can lose (issue 28 item 7, bot/core/store/checkpoint.py)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from bot.core.store import Store
from bot.core.store.checkpoint import RESET_FRAMES, SYNC_FRAMES, WAKE_FRAMES, Checkpointer


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


def test_the_thread_checkpoints_the_wal_after_enough_events(tmp_path: Path) -> None:
    """issue 28 item 7: once the WAL holds WAKE_FRAMES frames no checkpoint synced, the thread copies them,
    not the commit; close stops the thread and, as before, leaves no WAL behind."""
    store, checkpointer = _store(tmp_path)
    assert not checkpointer.running  # started the first time it is needed
    n = 0
    while not checkpointer.running:
        _event(store, n)
        n += 1
    frames, backfilled = checkpointer.wal()
    assert WAKE_FRAMES <= frames - backfilled < SYNC_FRAMES  # the commit left it to the thread
    assert checkpointer.checkpointed.wait(timeout=30)
    assert checkpointer.wal()[1] >= frames
    store.close()
    assert not checkpointer.running
    assert _threads() == []
    assert not (tmp_path / "mesa.db-wal").exists()


def test_a_commit_never_leaves_sync_frames_unsynced(tmp_path: Path) -> None:
    """issue 28 item 7: the power-loss window stays SQLite's: a commit that brings SYNC_FRAMES frames
    not yet synced checkpoints at once, whatever the thread does."""
    store, checkpointer = _store(tmp_path)
    _event(store, 0, size=4096 * (SYNC_FRAMES + 10))
    frames, backfilled = checkpointer.wal()
    assert frames > SYNC_FRAMES
    assert backfilled == frames
    store.close()


def test_the_wal_starts_over_under_a_steady_stream_of_events(tmp_path: Path) -> None:
    """issue 28 item 7: the thread's checkpoints miss what is written while they run, so the commit
    finishes them at RESET_FRAMES (or at SYNC_FRAMES unsynced): the WAL stays bounded."""
    store, checkpointer = _store(tmp_path)
    most = 0
    for n in range(2 * RESET_FRAMES // 3):
        _event(store, n)
        most = max(most, checkpointer.wal()[0])
    assert most < RESET_FRAMES + SYNC_FRAMES
    store.close()
    assert _threads() == []


def test_an_in_memory_store_starts_no_thread() -> None:
    store = Store()
    assert store.checkpointer is None
    for n in range(3):
        with store.transaction():
            store.meta.set(f"k{n}", "x" * 100_000)
    assert _threads() == []
    store.close()


def test_a_failed_checkpoint_is_logged_once_and_raises_nothing(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    """issue 28 item 7: a checkpoint that fails is tried again later; the bot goes on; one line, no path."""
    store, checkpointer = _store(tmp_path)
    closed = sqlite3.connect(":memory:")
    closed.close()
    with caplog.at_level(logging.WARNING):
        assert not checkpointer._checkpoint(closed)
        assert not checkpointer._checkpoint(closed)
    records = [r for r in caplog.records if "checkpoint" in r.getMessage()]
    assert len(records) == 1
    assert "mesa.db" not in records[0].getMessage()
    store.close()
