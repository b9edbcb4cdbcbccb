"""Issue 23 item 5: the SQL one event costs (counted with ``set_trace_callback``), and that fewer
statements never lose state: one transaction per event, the handled record in it."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from bot.core.events import Event
from bot.core.records import UndoStep
from bot.core.state import RoomState
from bot.core.store import Store
from bot.core.table import Table
from tests.transcript import GM, make_table

ROOM = "!r:local"
ANA = "@ana:local"


def statements(table: Table, event: Event, done: bool = True) -> tuple[list[str], list[str]]:
    """The SQL statements ``table.handle(event)`` runs, and those of marking its actions sent after."""
    seen: list[str] = []
    conn = table.store.db.conn
    conn.set_trace_callback(seen.append)
    try:
        actions = table.handle(event)
        handled = len(seen)
        if done:
            table.actions_done([a.action_id for a in actions])
    finally:
        conn.set_trace_callback(None)
    return seen[:handled], seen[handled:]


def _table(tmp_path) -> Table:  # type: ignore[no-untyped-def]
    table = make_table(db=str(tmp_path / "t.db"))
    for n, text in enumerate(["!pj Ana @ana:local", "El viento sopla."]):
        table.actions_done([a.action_id for a in table.handle(Event(ROOM, GM, text, f"$setup{n}"))])
    return table


def test_an_event_that_changes_nothing_costs_its_handled_record_alone(tmp_path) -> None:
    """No read-back of the handled record apart from its insert, no rewrite of an unchanged room, no
    empty transaction to mark no actions sent: BEGIN, the handled record, COMMIT."""
    table = _table(tmp_path)
    handled, done = statements(table, Event(ROOM, GM, "La lluvia cae.", "$talk"))
    assert len(handled) <= 3, handled
    assert not any("INTO rooms" in s for s in handled), handled
    assert done == []
    assert table.store.handled.seen("$talk")


def test_a_roll_costs_one_statement_per_table_it_writes(tmp_path) -> None:
    """BEGIN, handled, the roll record, the room (its last rolls), the reply in the outbox, COMMIT;
    then one statement marks the reply sent."""
    table = _table(tmp_path)
    handled, done = statements(table, Event(ROOM, ANA, "!tiro 2d6", "$roll"))
    assert len(handled) <= 6, handled
    assert len(done) <= 1, done
    assert table.pending_actions() == []


def test_an_event_seen_before_writes_nothing(tmp_path) -> None:
    table = _table(tmp_path)
    table.handle(Event(ROOM, ANA, "!tiro 2d6", "$roll"))
    handled, _ = statements(table, Event(ROOM, ANA, "!tiro 2d6", "$roll"))
    assert table.handle(Event(ROOM, ANA, "!tiro 2d6", "$roll")) == []
    assert not any(s.startswith(("INSERT INTO rooms", "INSERT INTO outbox", "INSERT INTO rolls")) for s in handled)


def test_a_change_after_unchanged_events_is_saved(tmp_path) -> None:
    """The room is written whenever its state differs from what the database holds."""
    path = str(tmp_path / "t.db")
    table = _table(tmp_path)
    table.handle(Event(ROOM, GM, "La lluvia cae.", "$talk"))
    table.handle(Event(ROOM, GM, "!combate", "$fight"))
    reopened = make_table(db=path)
    assert reopened.room(ROOM).combat is not None
    assert reopened.store.handled.seen("$talk") and reopened.store.handled.seen("$fight")


def test_a_room_written_in_a_rolled_back_transaction_is_written_again(tmp_path) -> None:
    """What the store remembers of the rooms it wrote never outlives a rollback: the same state saved
    again after it is written, not skipped as already there."""
    path = str(tmp_path / "t.db")
    table = _table(tmp_path)
    store = table.store
    changed = table.room(ROOM).to_dict()
    changed["system"] = "savage"
    data = RoomState.from_dict(changed).to_json()
    with pytest.raises(RuntimeError), store.transaction():
        store.rooms.save(ROOM, data)
        raise RuntimeError("the event failed")
    assert (store.rooms.load(ROOM) or {}).get("system") is None
    with store.transaction():
        store.rooms.save(ROOM, data)
    assert (make_table(db=path).store.rooms.load(ROOM) or {}).get("system") == "savage"


def test_a_failed_event_leaves_no_handled_record(tmp_path, monkeypatch) -> None:
    """The handled record is in the event's transaction: a failure to commit handles it again later."""
    table = _table(tmp_path)

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(table.store.outbox, "queue", broken)
    with pytest.raises(OSError):
        table.handle(Event(ROOM, ANA, "!tiro 2d6", "$roll"))
    assert not table.store.handled.seen("$roll")
    monkeypatch.undo()
    assert table.handle(Event(ROOM, ANA, "!tiro 2d6", "$roll"))


def test_a_rooms_state_is_updated_in_place(tmp_path) -> None:
    """A changed room is an update of its row, not a delete and an insert (which moves it to a new
    rowid and writes every index of the table again)."""
    table = _table(tmp_path)
    rowid = "SELECT rowid FROM rooms WHERE room_id = ?"
    before = table.store.db.execute(rowid, [ROOM]).fetchone()[0]
    table.handle(Event(ROOM, GM, "!combate", "$fight"))
    assert table.store.db.execute(rowid, [ROOM]).fetchone()[0] == before
    assert make_table(db=str(tmp_path / "t.db")).room(ROOM).combat is not None


class _FailingCommit:
    """The store's connection, with its next COMMIT refused (a full disk) and rolled back."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    def execute(self, sql: str, *params: Any) -> sqlite3.Cursor:
        if sql == "COMMIT" and not self.failed:
            self.failed = True
            self.conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *params)


def test_a_room_written_in_a_transaction_whose_commit_failed_is_written_again(tmp_path) -> None:
    """A COMMIT that fails loses what the transaction wrote: the store forgets it wrote the room."""
    path = str(tmp_path / "t.db")
    table = _table(tmp_path)
    store = table.store
    changed = table.room(ROOM).to_dict()
    changed["system"] = "savage"
    data = RoomState.from_dict(changed).to_json()
    real = store.conn
    store.conn = _FailingCommit(real)  # type: ignore[assignment]
    with pytest.raises(sqlite3.OperationalError), store.transaction():
        store.rooms.save(ROOM, data)
    store.conn = real
    with store.transaction():
        store.rooms.save(ROOM, data)
    assert (make_table(db=path).store.rooms.load(ROOM) or {}).get("system") == "savage"


class _Crash(Exception):
    pass


def test_what_the_undo_steps_know_of_the_database_is_forgotten_on_rollback(tmp_path) -> None:
    """Issue 28 item 7: a kept step skips dropping the room's undone steps, and a GM's command the lookup of
    their refusal, once the store knows there are none; a rolled-back transaction brings them back, so what
    the store knew is forgotten and the next step or command drops them."""
    store = Store(str(tmp_path / "t.db"))

    def step(event_id: str) -> UndoStep:
        return UndoStep(event_id, "!combate", "{}", [], GM)

    with store.transaction():
        store.undo.push(ROOM, step("$1"), 20)
        store.undo.note_refusal(ROOM, GM, "!siguiente")
    with store.transaction():
        store.undo.mark(ROOM, "$1", "{}")
    with pytest.raises(_Crash), store.transaction():
        store.undo.push(ROOM, step("$2"), 20)
        store.undo.note_refusal(ROOM, GM, None)
        raise _Crash
    assert store.undo.redoable(ROOM) is not None
    assert store.undo.refusal(ROOM, GM) == "!siguiente"
    with store.transaction():
        store.undo.push(ROOM, step("$3"), 20)
        store.undo.note_refusal(ROOM, GM, None)
    assert store.undo.redoable(ROOM) is None
    assert store.undo.refusal(ROOM, GM) is None
    assert [s.event_id for s in store.undo.recent(ROOM, 5)] == ["$3"]
