"""The IRC transport's state, on the table's database (``bot.core.store.Store``), in tables of its own
with their own schema version (``Store.open_part("irc", ...)``): who each nick is (kept across restarts
while they keep their nick and ``user@host``), each channel's mute record, and the last message the bot
saw in each channel (the ``chathistory`` request starts there).

An earlier rolbot kept these as ``meta`` keys (``irc_people``, ``irc_mute:<channel>``,
``irc_last_msgid:<channel>``): the first migration moves them into the tables.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from bot.core.store import Migration, Store
from bot.irc.modes import MuteRecord

if TYPE_CHECKING:
    import sqlite_utils

log = logging.getLogger("rolbot.irc")

_OLD_PEOPLE = "irc_people"
_OLD_MUTE = "irc_mute:"
_OLD_LAST_SEEN = "irc_last_msgid:"


def _old_meta(db: sqlite_utils.Database, prefix: str) -> list[tuple[str, str]]:
    rows = db.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", [len(prefix), prefix])
    return [(key[len(prefix):], value) for key, value in rows]


def _people_rows(saved: str) -> list[tuple[str, str, str]]:
    """``irc_people`` as an earlier rolbot wrote it (folded nick -> [user id, mask]); what cannot be
    read is dropped (those people get an id again when next seen)."""
    try:
        data = json.loads(saved)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    return [(key, value[0], value[1]) for key, value in data.items()
            if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)]


def _migrate_1(db: sqlite_utils.Database) -> None:
    """The people, mute records and last messages seen, moved out of ``meta``."""
    db.table("irc_people").create({"nick": str, "user_id": str, "mask": str}, pk="nick", if_not_exists=True)
    db.table("irc_mute").create({"room_id": str, "data": str}, pk="room_id", if_not_exists=True)
    db.table("irc_last_seen").create({"room_id": str, "msgid": str}, pk="room_id", if_not_exists=True)
    people = _old_meta(db, _OLD_PEOPLE)
    rows = _people_rows(people[0][1]) if people and people[0][0] == "" else []
    db.conn.executemany("INSERT OR REPLACE INTO irc_people (nick, user_id, mask) VALUES (?, ?, ?)", rows)
    db.conn.executemany("INSERT OR REPLACE INTO irc_mute (room_id, data) VALUES (?, ?)", _old_meta(db, _OLD_MUTE))
    db.conn.executemany("INSERT OR REPLACE INTO irc_last_seen (room_id, msgid) VALUES (?, ?)",
                        _old_meta(db, _OLD_LAST_SEEN))
    db.execute("DELETE FROM meta WHERE key = ? OR substr(key, 1, ?) = ? OR substr(key, 1, ?) = ?",
               [_OLD_PEOPLE, len(_OLD_MUTE), _OLD_MUTE, len(_OLD_LAST_SEEN), _OLD_LAST_SEEN])


MIGRATIONS: list[Migration] = [_migrate_1]


class IrcStore:
    """The IRC transport's tables in ``store``'s database (made or migrated when opened)."""

    def __init__(self, store: Store) -> None:
        store.open_part("irc", MIGRATIONS)
        self.conn = store.conn
        self.transaction = store.transaction

    def people(self) -> dict[str, list[str]]:
        """Folded nick -> [user id, ``user@host`` when first seen], as last saved."""
        return {r[0]: [r[1], r[2]] for r in self.conn.execute("SELECT nick, user_id, mask FROM irc_people")}

    def save_people(self, people: dict[str, list[str]]) -> None:
        """Replace the saved people by ``people`` (those the bot knows now), in one transaction."""
        with self.transaction():
            self.conn.execute("DELETE FROM irc_people")
            self.conn.executemany("INSERT INTO irc_people (nick, user_id, mask) VALUES (?, ?, ?)",
                                     [(nick, user_id, mask) for nick, (user_id, mask) in people.items()])

    def mute_record(self, room_id: str) -> MuteRecord | None:
        """The channel's mute record, while a muted lock is on or its undoing waits; one that cannot
        be read counts as none."""
        row = self.conn.execute("SELECT data FROM irc_mute WHERE room_id = ?", [room_id]).fetchone()
        if row is None:
            return None
        try:
            return MuteRecord.from_json(row[0])
        except (ValueError, KeyError, TypeError):
            log.warning("%s: unreadable mute record dropped", room_id)
            self.forget_mute_record(room_id)
            return None

    def save_mute_record(self, room_id: str, record: MuteRecord) -> None:
        self.conn.execute("INSERT OR REPLACE INTO irc_mute (room_id, data) VALUES (?, ?)", [room_id, record.to_json()])

    def forget_mute_record(self, room_id: str) -> None:
        self.conn.execute("DELETE FROM irc_mute WHERE room_id = ?", [room_id])

    def last_seen(self, room_id: str) -> str | None:
        """The ``msgid`` of the last message the bot saw in the channel."""
        row = self.conn.execute("SELECT msgid FROM irc_last_seen WHERE room_id = ?", [room_id]).fetchone()
        return row[0] if row else None

    def set_last_seen(self, room_id: str, msgid: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO irc_last_seen (room_id, msgid) VALUES (?, ?)", [room_id, msgid])
