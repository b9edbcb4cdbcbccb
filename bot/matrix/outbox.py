"""Carrying out the table's actions on Matrix: notices (in the room or a private room), redactions,
reactions, and the power levels of a mute. What must survive a restart goes through ``Store``.

Every action has a stable ``action_id``; its hash is the Matrix transaction id, so a resend after a
crash is deduplicated by the homeserver (same device: the session is kept on disk)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nio import MatrixRoom, RoomPreset

from bot.core.events import Action, Edit, PowerLevels, React, Redact, Send, Tracker
from bot.core.render import Renderer
from bot.core.store import Store
from bot.matrix.errors import PermanentError
from bot.matrix.power import RoomAuth, locked_power_levels
from bot.matrix.session import Session
from bot.matrix.store import MatrixStore
from bot.matrix.tracker import SentMessages, edit, notice_content, tracker
from bot.metrics import Metrics
from bot.transport import ActionRegistry

log = logging.getLogger("rolbot.matrix")


ENCRYPTION_STATE = {"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}
"""The private room for secret rolls is made encrypted, as Element makes a private room."""
OLD_DM_ROOM_NAMES = frozenset({"rolbot: tiradas ocultas"})
"""Names the private rooms had before (``matrix/dm_room_name``): renamed at start (``rename_private_rooms``)."""


@dataclass(frozen=True, slots=True)
class Carry:
    """How Matrix carries out one kind of action, and its place in the queue under a rate limit."""

    run: Callable[[Outbox, Any], Awaitable[None]]
    priority: Callable[[Any], int]
    """Lower goes first while the homeserver limits the bot (``bot.matrix.coalesce``): power levels
    of a mute, redactions, lock confirmations (reactions), a lock's one notice and its edits (2, each
    alone: its event id is kept), then the other notices (roll replies, 4: coalesced with other lock
    notices, 3), then private messages and the combat's tracker (5)."""


ACTIONS: ActionRegistry[Carry] = ActionRegistry("matrix")


def txn_id(action_id: str) -> str:
    return "rolbot-" + hashlib.sha256(action_id.encode()).hexdigest()[:32]


def relates_to(action: Send) -> dict[str, Any]:
    """The relation of a room message: a reply to what it answers; in a thread (``Send.thread``), that thread with
    the reply fallback Element sends (to what it answers, else the root) for clients that show no threads."""
    reply = {"m.in_reply_to": {"event_id": action.reply_to or action.thread}} if action.reply_to or action.thread else {}
    if not action.thread:
        return reply
    return {"rel_type": "m.thread", "event_id": action.thread, "is_falling_back": True, **reply}


class Outbox:
    def __init__(self, session: Session, store: Store, matrix_store: MatrixStore, renderer: Renderer, metrics: Metrics,
                 auths: dict[str, RoomAuth], auth_for: Callable[[str], Awaitable[RoomAuth]],
                 stopping: Callable[[], bool]) -> None:
        self.session = session
        self.store = store
        self.matrix_store = matrix_store
        self.renderer = renderer
        self.metrics = metrics
        self._auths = auths
        self.auth_for = auth_for
        self.sent = SentMessages(store)
        self.stopping = stopping
        self._pl_locks: dict[str, asyncio.Lock] = {}
        self._dm_lock = asyncio.Lock()

    async def execute(self, action: Action) -> None:
        """Carry out ``action`` and mark it done, unless the bot is stopping and it failed
        (then it stays in the outbox and is retried at the next start)."""
        try:
            await ACTIONS[action].run(self, action)
        except PermanentError as err:
            log.error("action %s in %s failed: %s", action.kind, action.room_id, err)
            if self.stopping():
                return
        if action.action_id:
            self.store.outbox.done([action.action_id])

    async def send(self, action: Send) -> None:
        content: dict[str, Any] = {**notice_content(action.message), "m.mentions": {"user_ids": list(action.mentions)}}
        if action.private_to:
            await self.send_private(action, content)
            return
        relation = relates_to(action)
        if relation:
            content["m.relates_to"] = relation
        event_id = await self.room_send(action.room_id, "m.room.message", content, self.txn(action))
        if action.ref:  # the core may edit it later (``Edit``)
            self.sent.remember(action.ref, action.room_id, event_id)

    @staticmethod
    def txn(action: Action) -> str | None:
        """The transaction id of ``action``'s one message (none for an action without an id)."""
        return txn_id(action.action_id) if action.action_id else None

    async def send_private(self, action: Send, content: dict[str, Any]) -> None:
        """A private message, in the bot's direct room with each recipient: ``private_to``, ``private_also``
        and, for ``to_room_gms`` (a secret roll), the room's creators and users with power level >= 50."""
        recipients = [action.private_to or "", *action.private_also]
        if action.to_room_gms:
            auth = await self.auth_for(action.room_id)
            recipients += sorted(u for u in auth.members if auth.is_admin(u))
        for i, user in enumerate(dict.fromkeys(r for r in recipients if r and r != self.session.user_id)):
            room_id = await self.private_room(user)
            tx_key = action.action_id if i == 0 else f"{action.action_id}>{user}"
            await self.room_send(room_id, "m.room.message", content, txn_id(tx_key) if action.action_id else None, user)

    async def room_send(self, room_id: str, event_type: str, content: dict[str, Any], tx: str | None,
                        invited: str | None = None) -> str:
        """Send to ``room_id``, encrypted when the room is (docs/protocol.md#1.9); the event's id. Trust policy: membership is
        the access control, so the room key goes to every device of every member, verified or not.
        The transaction id is stable, so a resend after a crash is one message (even re-encrypted)."""
        client = self.session.client
        if client.olm is not None:
            room = client.rooms.get(room_id) or await self._known_room(room_id)
            if room is not None and invited and invited not in room.users:
                # A private room's player may not have joined yet: the key must reach them too
                # (nio shares with the invited members it knows of, and may not know this one).
                room.add_member(invited, None, None, invited=True)
                client.olm.update_tracked_users(room)
            if room is not None and room.encrypted:
                self._stored_members(room)
                await self.session.query_keys()  # learn new members' devices before the key is shared
        resp = await self.session.request("send", lambda: client.room_send(room_id, event_type, content, tx_id=tx,
                                                                           ignore_unverified_devices=True))
        return str(getattr(resp, "event_id", ""))

    def _stored_members(self, room: MatrixRoom) -> None:
        """After a restart nio has not synced an encrypted room's members (the sync loads them
        lazily), and would ask the homeserver for them before its first send there. The stored copy
        is complete (read with the room's full state) and kept current by every sync: use it."""
        client = self.session.client
        auth = self._auths.get(room.room_id)
        if room.members_synced or auth is None or not auth.members or client.olm is None:
            return
        for user_id in auth.members - set(room.users):
            room.add_member(user_id, None, None)
        room.members_synced = True
        client.olm.update_tracked_users(room)

    async def _known_room(self, room_id: str) -> MatrixRoom:
        """nio knows only the rooms of the syncs since this start: after a restart a quiet room is
        unknown to it until something happens there. Tell it about the room, encrypted or not
        (the stored auth state says; nio's store remembers which rooms are; the homeserver is
        asked otherwise)."""
        client = self.session.client
        auth = self._auths.get(room_id)
        encrypted = room_id in client.encrypted_rooms or (auth is not None and auth.encrypted)
        if not encrypted and auth is None:
            try:
                await self.session.request("read encryption state", lambda: client.room_get_state_event(
                    room_id, "m.room.encryption"), attempts=4)
                encrypted = True
            except PermanentError:  # M_NOT_FOUND: a room in the clear
                encrypted = False
        return self._local_room(room_id, encrypted)

    async def redact(self, action: Redact) -> None:
        client = self.session.client
        await self.session.request("redact", lambda: client.room_redact(
            action.room_id, action.event_id, reason=action.reason,
            tx_id=txn_id(action.action_id or f"redact/{action.event_id}")))

    async def react(self, action: React) -> None:
        content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": action.event_id, "key": action.key}}
        tx = txn_id(action.action_id or f"react/{action.event_id}/{action.key}")
        await self.room_send(action.room_id, "m.reaction", content, tx)

    async def private_room(self, user_id: str) -> str:
        """The bot's private room with ``user_id``, made on first use."""
        async with self._dm_lock:
            known = self.matrix_store.private_room(user_id)
            if known:
                return known
            client = self.session.client
            resp = await self.session.request("create private room", lambda: client.room_create(
                is_direct=True, invite=[user_id], preset=RoomPreset.trusted_private_chat,
                name=self.renderer.text("matrix/dm_room_name"), initial_state=[ENCRYPTION_STATE]))
            self.matrix_store.set_private_room(user_id, resp.room_id)
            # Made with encryption on: nio learns it from a sync, which may come after the first send (or bring
            # the room before its encryption state), and a send to a room it believes in the clear goes so.
            self._local_room(resp.room_id, encrypted=True)
            return resp.room_id

    def _local_room(self, room_id: str, encrypted: bool) -> MatrixRoom:
        """nio's room for ``room_id``, made if it knows none, and known encrypted when ``encrypted`` (encryption,
        once on, stays on)."""
        client = self.session.client
        room = client.rooms.get(room_id)
        if room is None:
            room = client.rooms[room_id] = MatrixRoom(room_id, self.session.user_id, encrypted)
        if encrypted:
            room.encrypted = True
            client.encrypted_rooms.add(room_id)
        return room

    async def rename_private_rooms(self) -> None:
        """The private rooms made under an earlier name (``OLD_DM_ROOM_NAMES``) take today's, where the bot
        may still set a room's name; a room renamed by its member keeps their name. With no private room
        yet nothing is rendered (a quiet start loads no template)."""
        rooms = self.matrix_store.private_rooms()
        if not rooms:
            return
        name = self.renderer.text("matrix/dm_room_name")
        if name not in OLD_DM_ROOM_NAMES:
            for room_id in rooms:
                await self._rename_private_room(room_id, name)

    async def _rename_private_room(self, room_id: str, name: str) -> None:
        client = self.session.client
        try:
            resp = await self.session.request("read private room name", lambda: client.room_get_state_event(
                room_id, "m.room.name"), attempts=2)
            if resp.content.get("name") in OLD_DM_ROOM_NAMES:
                await self.session.request("rename private room", lambda: client.room_put_state(
                    room_id, "m.room.name", {"name": name}), attempts=2)
                log.info("private room %s renamed to %r", room_id, name)
        except PermanentError as err:  # left, or no power there: it keeps its name
            log.debug("private room %s not renamed: %s", room_id, err)

    async def power_levels(self, action: PowerLevels) -> None:
        room_id = action.room_id
        client = self.session.client
        async with self._pl_locks.setdefault(room_id, asyncio.Lock()):
            saved = self.matrix_store.saved_power_levels(room_id)
            if action.lock:
                resp = await self.session.request("read power levels", lambda: client.room_get_state_event(
                    room_id, "m.room.power_levels"))
                current = resp.content
                if saved is None:
                    saved = current
                    self.matrix_store.save_power_levels(room_id, current)
                auth = await self.auth_for(room_id)
                auth.power = current
                new = locked_power_levels(saved, auth, self.session.user_id, action.speakers)
                await self.session.request("mute room", lambda: client.room_put_state(
                    room_id, "m.room.power_levels", new))
                auth.power = new
            elif saved is not None:
                await self.session.request("restore power levels", lambda: client.room_put_state(
                    room_id, "m.room.power_levels", saved))
                self.matrix_store.forget_power_levels(room_id)
                if room_id in self._auths:
                    self._auths[room_id].power = saved


async def _send(outbox: Outbox, action: Send) -> None:
    await outbox.send(action)
    outbox.metrics.replies += 1


async def _redact(outbox: Outbox, action: Redact) -> None:
    await outbox.redact(action)
    outbox.metrics.redactions += 1


async def _power_levels(outbox: Outbox, action: PowerLevels) -> None:
    await outbox.power_levels(action)
    outbox.metrics.power_level_changes += 1


def _send_priority(action: Send) -> int:
    """A message the core may edit later (``Send.ref``) is sent alone, never coalesced: its id is kept."""
    if action.private_to:
        return 5
    if action.ref:
        return 2
    return 3 if action.template.startswith("lock_") else 4


ACTIONS.add(PowerLevels, Carry(_power_levels, lambda _: 0))
ACTIONS.add(Redact, Carry(_redact, lambda _: 1))
ACTIONS.add(React, Carry(Outbox.react, lambda _: 2))
ACTIONS.add(Send, Carry(_send, _send_priority))
ACTIONS.add(Edit, Carry(edit, lambda _: 2))
ACTIONS.add(Tracker, Carry(tracker, lambda _: 5))
