"""Messages the bot could not decrypt (docs/encryption.md): kept in SQLite before the sync token may
pass them, their key asked for, judged by the table at once only if a lock keeps the sender off the
floor, handled once their key comes (if the floor is as it was), and their sender told, once per
room, when no key came in time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from nio import EncryptionError, LocalProtocolError, MegolmEvent

from bot.core.events import Action, Event, Send
from bot.core.table import Table
from bot.matrix.errors import PermanentError
from bot.matrix.metrics import MatrixMetrics
from bot.matrix.outbox import Outbox
from bot.matrix.power import RoomAuth
from bot.matrix.rooms import JoinedRooms
from bot.matrix.session import Session
from bot.matrix.store import MatrixStore
from bot.matrix.translate import ENCRYPTED
from bot.matrix.workers import Batch, Job, TableAnswers
from bot.metrics import Metrics

log = logging.getLogger("rolbot.matrix")

KEEP_UNDECRYPTED_S = 7 * 86400
"""A message whose key never came is kept (and retried after every sync) this long, then dropped."""
MAX_KEPT_PER_SENDER = 20
"""Unreadable events kept per sender and room; past it they are judged at once, as mere writing."""


class Undecryptable:
    """The kept messages of the bot's rooms that it could not decrypt yet. ``wait``: seconds a
    message may wait for its key before its sender is told (``[matrix] undecryptable_wait_s``)."""

    def __init__(self, session: Session, matrix_store: MatrixStore, table: Table, metrics: Metrics,
                 outbox: Outbox, rooms: JoinedRooms, answers: TableAnswers, enqueue: Callable[[str, Job], None],
                 read: Callable[[str, object, RoomAuth], Event | None], wait: float) -> None:
        """``read``: the ``Event`` a decrypted source is, or ``None`` once recorded as unreadable."""
        self.session = session
        self.matrix_store = matrix_store
        self.table = table
        self.metrics = metrics
        self.outbox = outbox
        self.rooms = rooms
        self.answers = answers
        self.enqueue = enqueue
        self.read = read
        self.wait = wait
        self._decrypting: set[str] = set()  # kept events already queued for the table, decrypted

    async def handle(self, event: Event, raw: dict[str, Any], batch: Batch | None) -> None:
        """A message nio could not decrypt. It is kept (SQLite) before the sync token may pass it,
        its key is asked for, and the table judges it now only if a lock keeps its sender off the
        floor; otherwise it waits for its key (``retry``)."""
        if self.matrix_store.kept_undecrypted(event.room_id, event.sender) >= MAX_KEPT_PER_SENDER:
            log.warning("room %s: %s has %d unreadable messages waiting: %s is judged as it is",
                        event.room_id, event.sender, MAX_KEPT_PER_SENDER, event.event_id)
            await self.answers.handle(event, batch)
            return
        first = self.matrix_store.park_undecrypted(event.event_id, event.room_id, event.sender,
                                                   json.dumps(raw, ensure_ascii=False), time.time(),
                                                   _megolm_session(raw), self.table.floor_epoch(event.room_id))
        if first:
            self.metrics.part(MatrixMetrics).undecryptable += 1
            log.info("room %s: cannot decrypt %s from %s yet: asking for its key",
                     event.room_id, event.event_id, event.sender)
            await self._request_key(event.room_id, raw)
        actions = await self.answers.answer(event, undecryptable=True)
        if actions is not None:  # judged by the lock: its words no longer matter
            self.matrix_store.unpark_undecrypted(event.event_id)
        self.answers.batches.handled(batch)
        if actions is not None:
            self.metrics.events_handled += 1
        self.answers.deliver(event.room_id, actions or [])
        if actions is None:
            await self.retry(only=event.event_id)  # its key may have come while it was queued

    async def handle_decrypted(self, event: Event, batch: Batch | None) -> None:
        """A kept message decrypted once its key came. It is judged only if the room's floor (lock,
        turn, grants) is as it was when it was sent; otherwise it is recorded as handled and dropped,
        so no stale dash line toggles a lock and no roll lands in another turn."""
        kept = self.matrix_store.undecrypted_event(event.event_id)
        if kept is not None and kept[1] and kept[1] != self.table.floor_epoch(event.room_id):
            log.info("room %s: the key of %s came after the floor changed: not judged", event.room_id,
                     event.event_id)
            self.table.store.handled.skip(event.event_id, event.room_id, event.ts)
            actions: list[Action] = []
        else:
            actions = await self.answers.answer(event) or []
        # Handled (committed) first, forgotten after: a crash between the two finds it handled.
        self.matrix_store.unpark_undecrypted(event.event_id)
        self._decrypting.discard(event.event_id)
        self.answers.settle(event, batch, actions)

    async def _request_key(self, room_id: str, raw: dict[str, Any]) -> None:
        """Ask for the room key: nio's request (to our own devices, and the one nio accepts a
        forwarded key for) and the same request to the sender's devices."""
        event = _megolm(room_id, raw)
        client = self.session.client
        if event is None or client.olm is None:
            return
        with contextlib.suppress(LocalProtocolError):  # already asked for this session
            await self.session.request("request room key", lambda: client.request_room_key(event), attempts=3)
        message = event.as_key_request(event.sender, client.device_id or "")
        with contextlib.suppress(PermanentError):
            await self.session.request("request room key from sender", lambda: client.to_device(message), attempts=3)

    async def retry(self, only: str | None = None) -> None:
        """Decrypt the kept messages whose room key has come (a lookup, no decryption attempt for the
        others); each goes to its room's worker, in turn."""
        client = self.session.client
        if client.olm is None:
            return
        for event_id, room_id, sender_key, session_id in self.matrix_store.undecrypted_sessions():
            if event_id in self._decrypting or (only is not None and event_id != only):
                continue
            if client.olm.inbound_group_store.get(room_id, sender_key, session_id) is None:
                continue
            kept = self.matrix_store.undecrypted_event(event_id)
            if kept is None:
                continue
            megolm = _megolm(room_id, json.loads(kept[0]))
            if megolm is None:
                continue
            try:
                clear = client.decrypt_event(megolm)
            except EncryptionError:
                continue
            src = getattr(clear, "source", None)
            if isinstance(src, dict) and src.get("type") == ENCRYPTED:
                continue
            try:
                auth = await self.rooms.auth_for(room_id)
            except PermanentError as err:
                log.warning("room %s: %s", room_id, err)
                continue
            event = self.read(room_id, src, auth)
            if event is None:
                self.matrix_store.unpark_undecrypted(event_id)
                continue
            log.info("room %s: the key of %s came: handling it", room_id, event_id)
            self._decrypting.add(event_id)
            self.enqueue(room_id, Job(event=event, parked=True))

    async def watch(self, ready: asyncio.Event, stopping: Callable[[], bool]) -> None:
        """Tell a player, once per room, that a message of theirs could not be read in time.

        It starts after the first sync (keys sent while the bot was down come with it) and counts the
        wait from this start at the earliest: downtime is not time the bot had to get a key."""
        await ready.wait()
        started = time.time()
        while not stopping():
            await asyncio.sleep(min(1.0, self.wait / 4))
            try:
                await self._notice(started)
            except Exception:  # a bad pass must not end the watch
                self.metrics.errors += 1
                log.exception("undecryptable messages: watch pass failed")

    async def _notice(self, started: float) -> None:
        """One pass of the watch: forget what waited too long, tell whoever waited past the limit."""
        now = time.time()
        for event_id, room_id, sender, seen, noticed in self.matrix_store.undecrypted():
            if now - seen > KEEP_UNDECRYPTED_S and event_id not in self._decrypting:
                log.info("room %s: no key for %s in %d days: forgotten", room_id, event_id,
                         KEEP_UNDECRYPTED_S // 86400)
                self.matrix_store.unpark_undecrypted(event_id)
                continue
            if noticed or event_id in self._decrypting or now - max(seen, started) < self.wait:
                continue
            if self.matrix_store.undecrypted_noticed(room_id, sender):
                self.matrix_store.set_undecrypted_noticed(room_id, sender)
                continue
            log.info("room %s: no key for %s from %s in time: telling them", room_id, event_id, sender)
            message = self.table.renderer.render("matrix/undecryptable", who=sender)
            await self.outbox.execute(Send(room_id, message, reply_to=event_id, mentions=(sender,),
                                           action_id=f"undecryptable/{room_id}/{sender}"))
            self.matrix_store.set_undecrypted_noticed(room_id, sender)


def _megolm(room_id: str, raw: dict[str, Any]) -> MegolmEvent | None:
    event = MegolmEvent.from_dict(raw)
    if not isinstance(event, MegolmEvent):
        return None
    event.room_id = room_id
    return event


def _megolm_session(raw: dict[str, Any]) -> tuple[str, str]:
    """(sender key, session id) of an ``m.room.encrypted`` event; empty strings when missing."""
    content = raw.get("content")
    if not isinstance(content, dict):
        return "", ""
    sender_key, session_id = content.get("sender_key"), content.get("session_id")
    return (sender_key if isinstance(sender_key, str) else "", session_id if isinstance(session_id, str) else "")
