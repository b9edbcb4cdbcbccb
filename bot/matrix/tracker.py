"""The bot's messages edited in place on Matrix (``m.replace``): a lock's one notice that names each
later offender (``Edit``), and the combat's tracker (``Tracker``), posted once, pinned while the fight
lasts where the bot may pin (``m.room.pinned_events``), edited as the fight moves and unpinned at its
end. Which event each is survives a restart (``SentMessages``). Edits are sent like any message, so
encrypted in an encrypted room (``Outbox.room_send``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot.core.events import Edit, Tracker
from bot.core.render import Message
from bot.core.store import Store
from bot.matrix.errors import PermanentError
from bot.matrix.power import RoomAuth, as_dict, as_level

if TYPE_CHECKING:
    from bot.matrix.outbox import Outbox

log = logging.getLogger("rolbot.matrix")

PINNED = "m.room.pinned_events"
KEPT_PER_ROOM = 50
"""The most messages the bot remembers it may edit in one room (the newest: a lock's notice is recent)."""


class SentMessages:
    """The ``matrix_sent`` and ``matrix_tracker`` tables (``bot/matrix/store.py``'s migration 6)."""

    def __init__(self, store: Store) -> None:
        self.conn = store.conn

    def remember(self, ref: str, room_id: str, event_id: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO matrix_sent (ref, room_id, event_id) VALUES (?, ?, ?)",
                        [ref, room_id, event_id])
        self.conn.execute("DELETE FROM matrix_sent WHERE room_id = ? AND rowid NOT IN (SELECT rowid FROM matrix_sent"
                        " WHERE room_id = ? ORDER BY rowid DESC LIMIT ?)", [room_id, room_id, KEPT_PER_ROOM])

    def event_of(self, ref: str) -> str | None:
        row = self.conn.execute("SELECT event_id FROM matrix_sent WHERE ref = ?", [ref]).fetchone()
        return row[0] if row else None

    def tracker(self, room_id: str) -> tuple[str, bool] | None:
        """The room's tracker: its event id and whether the bot pinned it."""
        row = self.conn.execute("SELECT event_id, pinned FROM matrix_tracker WHERE room_id = ?", [room_id]).fetchone()
        return (row[0], bool(row[1])) if row else None

    def set_tracker(self, room_id: str, event_id: str, pinned: bool) -> None:
        self.conn.execute("INSERT OR REPLACE INTO matrix_tracker (room_id, event_id, pinned) VALUES (?, ?, ?)",
                        [room_id, event_id, int(pinned)])

    def forget_tracker(self, room_id: str) -> None:
        self.conn.execute("DELETE FROM matrix_tracker WHERE room_id = ?", [room_id])


def notice_content(message: Message) -> dict[str, Any]:
    return {"msgtype": "m.notice", "body": message.body, "format": "org.matrix.custom.html",
            "formatted_body": message.html}


def replacement(event_id: str, message: Message, mentions: tuple[str, ...] = ()) -> dict[str, Any]:
    """The content of an edit of ``event_id`` to ``message`` (``m.replace``): clients show ``m.new_content``;
    the fallback body is marked with ``*`` as clients mark edits. ``mentions``: whom it pings anew."""
    new = {**notice_content(message), "m.mentions": {"user_ids": list(mentions)}}
    return {**notice_content(Message("* " + message.body, "* " + message.html)), "m.new_content": new,
            "m.mentions": {"user_ids": list(mentions)},
            "m.relates_to": {"rel_type": "m.replace", "event_id": event_id}}


def can_pin(auth: RoomAuth, user: str) -> bool:
    """The bot's power reaches the level ``m.room.pinned_events`` needs (the room's state default, 50)."""
    events = as_dict(auth.power.get("events"))
    return auth.level(user) >= as_level(events.get(PINNED), as_level(auth.power.get("state_default"), 50))


async def edit(outbox: Outbox, action: Edit) -> None:
    event_id = outbox.sent.event_of(action.ref)
    if event_id is None:  # never posted (a rate limit coalesced it, or it failed): nothing to edit
        log.info("room %s: no message %s to edit", action.room_id, action.ref)
        return
    await outbox.room_send(action.room_id, "m.room.message", replacement(event_id, action.message, action.mentions),
                           outbox.txn(action))


async def tracker(outbox: Outbox, action: Tracker) -> None:
    room_id, sent = action.room_id, outbox.sent
    known = sent.tracker(room_id)
    if action.step == "show" and action.message is not None:
        if known is not None:
            await outbox.room_send(room_id, "m.room.message", replacement(known[0], action.message), outbox.txn(action))
            return
        event_id = await outbox.room_send(room_id, "m.room.message", notice_content(action.message), outbox.txn(action))
        sent.set_tracker(room_id, event_id, False)
        sent.set_tracker(room_id, event_id, await _pin(outbox, room_id, event_id, True))
    elif action.step == "end" and known is not None:
        if known[1]:
            await _pin(outbox, room_id, known[0], False)
        sent.forget_tracker(room_id)
    elif action.step == "point" and known is not None:
        message = outbox.renderer.render("matrix/tracker_link", url=f"https://matrix.to/#/{room_id}/{known[0]}")
        content = {**notice_content(message), "m.mentions": {"user_ids": []}}
        if action.answer:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": action.answer}}
        await outbox.room_send(room_id, "m.room.message", content, outbox.txn(action))


async def _pin(outbox: Outbox, room_id: str, event_id: str, pin: bool) -> bool:
    """Pin (or unpin) ``event_id`` among the room's pinned events, if the bot may: whether it is pinned now.
    Without the power it stays unpinned (the power warning says what the bot lacks)."""
    auth = await outbox.auth_for(room_id)
    if not can_pin(auth, outbox.session.user_id):
        log.info("room %s: the bot may not pin the combat's tracker", room_id)
        return False
    client = outbox.session.client
    try:
        resp = await outbox.session.request("read pinned events", lambda: client.room_get_state_event(
            room_id, PINNED), attempts=4)
        pinned = [e for e in resp.content.get("pinned", []) if isinstance(e, str)]
    except PermanentError:  # M_NOT_FOUND: nothing pinned yet
        pinned = []
    wanted = [e for e in pinned if e != event_id] + ([event_id] if pin else [])
    if wanted != pinned:
        await outbox.session.request("pin" if pin else "unpin", lambda: client.room_put_state(
            room_id, PINNED, {"pinned": wanted}))
    return pin
