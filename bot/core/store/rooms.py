"""Each room's state (``rooms``) and its GMs' screen links (``screen_links``)."""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from types import EllipsisType
from typing import Any

ROOMS_REMEMBERED = 256
"""Rooms whose stored state the store keeps in memory to skip rewriting it unchanged (as many as
``Table`` keeps loaded)."""


class Rooms:
    """The rooms' state, each as the JSON of its ``RoomState``, with its table page token beside it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._written: OrderedDict[str, tuple[str, str | None]] = OrderedDict()
        """The state and page token of the rooms last read or written (``ROOMS_REMEMBERED`` of them), as
        the database holds them: an unchanged room is not written again, an unchanged token not set
        again. Forgotten on every rollback (``forget_written``)."""

    def load(self, room_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT data FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        token = data.get("page_token") if isinstance(data, dict) else None
        self._remember(room_id, row[0], token if isinstance(token, str) else None)
        return data

    def save(self, room_id: str, data: str, page_token: str | EllipsisType | None = ...) -> None:
        """``data``: the room state already serialised as JSON; not written when the database holds it.
        ``page_token``: the one in ``data`` (read from it when not given)."""
        if page_token is ...:
            found = json.loads(data).get("page_token")
            page_token = found if isinstance(found, str) else None
        known = self._written.get(room_id)
        if known == (data, page_token):
            self._written.move_to_end(room_id)
            return
        if known is not None and known[1] == page_token:
            # The row is there with this token: its index is not touched.
            self.conn.execute("UPDATE rooms SET data = ? WHERE room_id = ?", (data, room_id))
        else:
            # An upsert updates the row in place: REPLACE deletes and inserts it (new rowid, every index
            # touched), about three more pages written per event.
            self.conn.execute("INSERT INTO rooms (room_id, data, page_token) VALUES (?, ?, ?) ON CONFLICT (room_id)"
                                 " DO UPDATE SET data = excluded.data, page_token = excluded.page_token",
                                 (room_id, data, page_token))
        self._remember(room_id, data, page_token)

    def _remember(self, room_id: str, data: str, page_token: str | None) -> None:
        self._written[room_id] = data, page_token
        self._written.move_to_end(room_id)
        if len(self._written) > ROOMS_REMEMBERED:
            self._written.popitem(last=False)

    def forget_written(self) -> None:
        """What the database holds is no longer known (a transaction rolled back or failed to commit)."""
        self._written.clear()

    def for_token(self, token: str) -> str | None:
        """The room whose table page token is ``token`` (compare it again before trusting it)."""
        row = self.conn.execute("SELECT room_id FROM rooms WHERE page_token = ?", [token]).fetchone()
        return row[0] if row else None

    def ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT room_id FROM rooms")]


class ScreenLinks:
    """The GMs' private screen links (``!pantalla``, bot/screen/): one token per (room, GM)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def token(self, room_id: str, user_id: str) -> str | None:
        row = self.conn.execute("SELECT token FROM screen_links WHERE room_id = ? AND user_id = ?",
                              [room_id, user_id]).fetchone()
        return row[0] if row else None

    def set_token(self, room_id: str, user_id: str, token: str) -> None:
        """The GM's link of the room is ``token`` from now on (an earlier one stops working)."""
        self.conn.execute("INSERT OR REPLACE INTO screen_links (room_id, user_id, token) VALUES (?, ?, ?)",
                        [room_id, user_id, token])

    def link(self, token: str) -> tuple[str, str] | None:
        """(room id, GM's user id) of a screen token, if it is a current one."""
        row = self.conn.execute("SELECT room_id, user_id FROM screen_links WHERE token = ?", [token]).fetchone()
        return (row[0], row[1]) if row else None
