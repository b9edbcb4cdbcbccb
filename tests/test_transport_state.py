"""Each transport's state lives in its own tables with its own schema version, on the table's database
(issue 23, item 2): a database the core alone opened, then each transport, migrates each part once, and
one made by ``main`` keeps every row of the transports' state."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlite_utils

import bot.irc.store
import bot.matrix.store
from bot.core.store import SCHEMA_VERSION, Store
from bot.irc.modes import MuteRecord
from bot.irc.store import IrcStore
from bot.matrix.store import MatrixStore

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "main-7f6c244.sqlite3"


def _tables(store: Store) -> set[str]:
    return set(store.db.table_names())


def _counted(name: str, runs: Counter[str],
             migrations: list[Callable[[sqlite_utils.Database], None]]) -> list[Callable[[sqlite_utils.Database], None]]:
    def wrap(n: int, migration: Callable[[sqlite_utils.Database], None]) -> Callable[[sqlite_utils.Database], None]:
        def run(db: sqlite_utils.Database) -> None:
            runs[f"{name}:{n}"] += 1
            migration(db)
        return run
    return [wrap(n, m) for n, m in enumerate(migrations, 1)]


def test_the_core_alone_then_each_transport_migrates_each_part_once(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    runs: Counter[str] = Counter()
    monkeypatch.setattr(bot.matrix.store, "MIGRATIONS", _counted("matrix", runs, bot.matrix.store.MIGRATIONS))
    monkeypatch.setattr(bot.irc.store, "MIGRATIONS", _counted("irc", runs, bot.irc.store.MIGRATIONS))
    path = str(tmp_path / "rolbot.sqlite3")

    store = Store(path)
    core_tables = _tables(store)
    assert not {t for t in core_tables if t.startswith(("matrix_", "irc_"))}
    assert store.meta.with_prefix("schema:") == []
    store.close()

    store = Store(path)
    MatrixStore(store).set_private_room("@ana:s", "!dm:s")
    assert store.meta.get("schema:matrix") == str(len(bot.matrix.store.MIGRATIONS))
    assert not {t for t in _tables(store) if t.startswith("irc_")}
    store.close()

    store = Store(path)
    IrcStore(store).set_last_seen("#mesa", "m1")
    MatrixStore(store)
    store.close()

    for _ in range(2):
        store = Store(path)
        matrix, irc = MatrixStore(store), IrcStore(store)
        assert matrix.private_room("@ana:s") == "!dm:s" and irc.last_seen("#mesa") == "m1"
        store.close()
    assert runs == {f"{part}:{n}": 1 for part, module in (("matrix", bot.matrix.store), ("irc", bot.irc.store))
                    for n in range(1, len(module.MIGRATIONS) + 1)}
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert core_tables < _tables(store)


def test_a_database_made_by_main_keeps_every_row_of_the_transports_state(tmp_path: Path) -> None:
    """Main kept the Matrix tables in the core's schema and IRC's state in ``meta`` keys: the Matrix
    tables keep their names, and IRC's rows move into its own tables."""
    db = tmp_path / "rolbot.sqlite3"
    shutil.copyfile(FIXTURE, db)
    mute = MuteRecord(True, ["@ana:irc"], False, ["@bob:irc"])
    people = {"ana": ["@ana:irc", "ana@host"], "bob": ["@bob:~b@h", "~b@h"]}
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO matrix_saved_power VALUES ('!r:s', '{\"events_default\": 0}')")
        conn.execute("INSERT INTO matrix_dm VALUES ('@ana:s', '!dm:s')")
        conn.execute("INSERT INTO matrix_room_auth VALUES ('!r:s', '{\"creators\": [\"@gm:s\"]}')")
        conn.execute("INSERT INTO matrix_undecrypted VALUES ('$e', '!r:s', '@ana:s', '{}', 1.5, 1, 'k', 's', 'ep')")
        conn.execute("INSERT INTO matrix_undecrypted_notice VALUES ('!r:s', '@ana:s')")
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("irc_people", json.dumps(people)), ("irc_mute:#mesa", mute.to_json()),
            ("irc_last_msgid:#mesa", "abc"), ("irc_last_msgid:#otra", "def"), ("matrix_sync_token", "s72_9")])
    conn.close()
    # every row comes through, but the outbox keeps only the actions still to carry out (version 15)
    kept = {"handled": "", "rooms": "", "rolls": "", "acta": "", "outbox": " WHERE done = 0"}
    before = {t: sqlite3.connect(db).execute(f"SELECT count(*) FROM {t}{where}").fetchone()[0]
              for t, where in kept.items()}

    store = Store(str(db))
    matrix, irc = MatrixStore(store), IrcStore(store)
    assert {t: store.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in before} == before
    assert matrix.saved_power_levels("!r:s") == {"events_default": 0} and matrix.private_room("@ana:s") == "!dm:s"
    assert matrix.room_auths() == {"!r:s": {"creators": ["@gm:s"]}}
    assert matrix.undecrypted() == [("$e", "!r:s", "@ana:s", 1.5, True)]
    assert matrix.undecrypted_event("$e") == ("{}", "ep") and matrix.undecrypted_noticed("!r:s", "@ana:s")
    assert irc.people() == people and irc.mute_record("#mesa") == mute
    assert irc.last_seen("#mesa") == "abc" and irc.last_seen("#otra") == "def"
    assert matrix.sync_token() == "s72_9"
    assert store.meta.with_prefix("irc_") == store.meta.with_prefix("matrix_") == [], "moved, not copied"
    store.close()
    store = Store(str(db))
    assert IrcStore(store).people() == people and MatrixStore(store).private_room("@ana:s") == "!dm:s"


def test_the_matrix_sync_token_is_kept_in_its_own_table() -> None:
    store = Store()
    matrix = MatrixStore(store)
    assert matrix.sync_token() is None
    matrix.save_sync_token("s1")
    matrix.save_sync_token("s2")
    assert matrix.sync_token() == "s2" and store.meta.with_prefix("matrix") == []


def test_a_coalesced_message_and_the_rate_limit_notice_left_in_the_cores_meta_move_to_matrixs_tables() -> None:
    """An earlier rolbot kept them as the core's ``coalesced/<room>`` and ``rate_limit_noticed/<room>`` meta keys
    (issue 23 item 2: no Matrix key in the core's store); a crash between the two is resumed from the new tables."""
    store = Store()
    store.meta.set("coalesced/!a:x", '{"room_id": "!a:x"}')
    store.meta.set("rate_limit_noticed/!a:x", "1")
    store.meta.set("rng", "kept")
    matrix = MatrixStore(store)
    assert matrix.coalesced_in_flight() == ['{"room_id": "!a:x"}'] and matrix.rate_limit_noticed("!a:x")
    assert not matrix.rate_limit_noticed("!b:x")
    assert [key for key, _ in store.meta.with_prefix("")] == ["rng", "schema:matrix"]
    matrix.coalesced_sent("!a:x", [], noticed=False)
    assert matrix.coalesced_in_flight() == []


def test_irc_state_round_trips_through_its_tables() -> None:
    irc = IrcStore(Store())
    assert irc.people() == {} and irc.mute_record("#mesa") is None and irc.last_seen("#mesa") is None
    irc.save_people({"ana": ["@ana:irc", ""]})
    irc.save_people({"bob": ["@bob:~b@h", "~b@h"]})
    assert irc.people() == {"bob": ["@bob:~b@h", "~b@h"]}, "the people as they are now, not a union"
    record = MuteRecord(False, [], True, [])
    irc.save_mute_record("#mesa", record)
    assert irc.mute_record("#mesa") == record
    irc.forget_mute_record("#mesa")
    assert irc.mute_record("#mesa") is None


def test_unreadable_irc_state_left_by_main_is_dropped_not_fatal(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.sqlite3")
    store = Store(path)
    store.meta.set("irc_people", "{no es json")
    store.meta.set("irc_mute:#mesa", "[]")
    irc = IrcStore(store)
    assert irc.people() == {} and irc.mute_record("#mesa") is None and store.meta.with_prefix("irc_") == []
