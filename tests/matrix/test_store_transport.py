"""The Matrix transport's state in its own tables on the table's ``Store`` (saved power levels, private
rooms, skipped events), and the upgrade of a database where the transport had made its tables itself
(no homeserver)."""

from __future__ import annotations

import sqlite3

from bot.core.store import SCHEMA_VERSION, Store
from bot.matrix.store import MatrixStore


def test_saved_power_levels_private_rooms_and_skipped_events():
    store = Store()
    matrix = MatrixStore(store)
    assert matrix.saved_power_levels("!r:s") is None and matrix.rooms_with_saved_power_levels() == []
    matrix.save_power_levels("!r:s", {"users": {"@gm:s": 100}, "events_default": 0})
    assert matrix.saved_power_levels("!r:s") == {"users": {"@gm:s": 100}, "events_default": 0}
    assert matrix.rooms_with_saved_power_levels() == ["!r:s"]
    matrix.forget_power_levels("!r:s")
    assert matrix.saved_power_levels("!r:s") is None
    assert matrix.private_room("@ana:s") is None
    matrix.set_private_room("@ana:s", "!dm:s")
    assert matrix.private_room("@ana:s") == "!dm:s"
    store.handled.skip("$bad", "!r:s", 0)
    store.handled.skip("$bad", "!r:s", 0)  # seen again (a backfill): no error
    assert store.handled.seen("$bad")


def test_database_of_schema_1_with_the_transports_own_tables_keeps_its_rows(tmp_path):
    path = str(tmp_path / "rolbot.db")
    store = Store(path)
    MatrixStore(store)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("DELETE FROM meta WHERE key = 'schema:matrix'")
    conn.execute("DROP TABLE matrix_saved_power")
    conn.execute("DROP TABLE matrix_dm")
    # What the transport created beside the store before the tables moved into the store's schema.
    conn.execute("CREATE TABLE matrix_saved_power (room_id TEXT PRIMARY KEY, content TEXT)")
    conn.execute("CREATE TABLE matrix_dm (user_id TEXT PRIMARY KEY, room_id TEXT)")
    conn.execute("INSERT INTO matrix_saved_power VALUES ('!r:s', '{\"events_default\": 0}')")
    conn.execute("INSERT INTO matrix_dm VALUES ('@ana:s', '!dm:s')")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    matrix = MatrixStore(store)
    assert matrix.saved_power_levels("!r:s") == {"events_default": 0}
    assert matrix.private_room("@ana:s") == "!dm:s"


def test_room_auth_state_round_trips_through_the_store():
    from bot.matrix.power import RoomAuth

    auth = RoomAuth()
    auth.apply({"type": "m.room.create", "state_key": "", "sender": "@gm:s", "content": {"room_version": "12"}})
    auth.apply({"type": "m.room.power_levels", "state_key": "", "content": {"users": {"@bot:s": 50}}})
    auth.apply({"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}})
    for user, value in (("@gm:s", "join"), ("@ana:s", "join"), ("@bruno:s", "join"), ("@bruno:s", "leave")):
        auth.apply({"type": "m.room.member", "state_key": user, "content": {"membership": value}})
    assert auth.dirty and auth.members == {"@gm:s", "@ana:s"}
    store = MatrixStore(Store())
    store.save_room_auths({"!r:s": auth.to_dict()})
    loaded = RoomAuth.from_dict(store.room_auths()["!r:s"])
    assert loaded == auth and loaded.is_admin("@gm:s") and loaded.level("@bot:s") == 50 and loaded.encrypted
    assert RoomAuth.from_dict({"creators": "@x:s", "power": [], "members": [1, "@a:s"]}).members == {"@a:s"}
    store.forget_room_auth("!r:s")
    assert store.room_auths() == {}


def test_the_tracker_and_the_messages_to_edit_survive_a_restart(tmp_path):
    """The combat tracker's event id (and whether the bot pinned it) and a lock notice's event id are in the
    database: a restarted bot edits the same messages (issue 30, item 4)."""
    from bot.matrix.tracker import KEPT_PER_ROOM, SentMessages

    path = str(tmp_path / "t.sqlite3")
    store = Store(path)
    MatrixStore(store)
    sent = SentMessages(store)
    sent.set_tracker("!r:s", "$tracker", True)
    for i in range(KEPT_PER_ROOM + 5):
        sent.remember(f"$e{i}/lock", "!r:s", f"$notice{i}")
    store.close()
    again = Store(path)
    MatrixStore(again)
    sent = SentMessages(again)
    assert sent.tracker("!r:s") == ("$tracker", True) and sent.tracker("!other:s") is None
    assert sent.event_of(f"$e{KEPT_PER_ROOM + 4}/lock") == f"$notice{KEPT_PER_ROOM + 4}"
    assert sent.event_of("$e0/lock") is None  # only the newest are kept
    sent.forget_tracker("!r:s")
    assert sent.tracker("!r:s") is None
