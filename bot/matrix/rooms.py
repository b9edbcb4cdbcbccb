"""The rooms the bot is in and their auth state (``RoomAuth``): the copy stored at the last run, a
room's full state read once from the homeserver when there is none, and every change stored before
the sync token passes the batch that brought it."""

from __future__ import annotations

import asyncio
import logging

from bot.matrix.errors import PermanentError
from bot.matrix.power import RoomAuth
from bot.matrix.session import Session
from bot.matrix.store import MatrixStore

log = logging.getLogger("rolbot.matrix")

STATE_FETCHES = 8
"""How many rooms' full state are read from the homeserver at once (rooms with no stored copy)."""


class JoinedRooms:
    """The auth state of each room the bot is in, by room id (``auths``, shared with the outbox)."""

    def __init__(self, session: Session, matrix_store: MatrixStore) -> None:
        self.session = session
        self.matrix_store = matrix_store
        self.auths: dict[str, RoomAuth] = {}
        self._fetching: dict[str, asyncio.Future[RoomAuth]] = {}

    def __contains__(self, room_id: object) -> bool:
        return room_id in self.auths

    def get(self, room_id: str) -> RoomAuth | None:
        return self.auths.get(room_id)

    def load(self) -> None:
        """The rooms' auth state as stored at the last run: a room found here is not read again."""
        for room_id, data in self.matrix_store.room_auths().items():
            self.auths[room_id] = RoomAuth.from_dict(data)
        if self.auths:
            log.info("auth state of %d rooms loaded", len(self.auths))

    def save(self) -> None:
        """Store the rooms whose state changed since they were last stored."""
        changed = {room_id: auth for room_id, auth in self.auths.items() if auth.dirty}
        if changed:
            self.matrix_store.save_room_auths({room_id: auth.to_dict() for room_id, auth in changed.items()})
            for auth in changed.values():
                auth.dirty = False

    def forget(self, room_id: str) -> None:
        """The bot left the room (kicked, or it left)."""
        self.auths.pop(room_id, None)
        self.matrix_store.forget_room_auth(room_id)

    async def auth_for(self, room_id: str) -> RoomAuth:
        """The room's auth state: the stored copy, or (missing) its full state read once from the
        homeserver and stored at once (concurrent callers share the one request)."""
        auth = self.auths.get(room_id)
        if auth is not None:
            return auth
        pending = self._fetching.get(room_id)
        if pending is None:
            pending = self._fetching[room_id] = asyncio.ensure_future(self._fetch(room_id))
            pending.add_done_callback(lambda _: self._fetching.pop(room_id, None))
        return await asyncio.shield(pending)

    async def _fetch(self, room_id: str) -> RoomAuth:
        client = self.session.client
        resp = await self.session.request("room state", lambda: client.room_get_state(room_id), attempts=6)
        auth = RoomAuth()
        for ev in resp.events:
            auth.apply(ev)
        self.auths[room_id] = auth
        self.save()
        return auth

    async def fetch_missing(self, room_ids: list[str]) -> set[str]:
        """Read the full state of the rooms with no stored copy, ``STATE_FETCHES`` at a time;
        the rooms read (their state is newer than the sync's)."""
        missing = [r for r in room_ids if r not in self.auths]
        if not missing:
            return set()
        log.info("reading the state of %d rooms", len(missing))
        limit = asyncio.Semaphore(STATE_FETCHES)

        async def one(room_id: str) -> None:
            async with limit:
                try:
                    await self.auth_for(room_id)
                except PermanentError as err:
                    log.error("room %s: %s", room_id, err)

        await asyncio.gather(*(one(r) for r in missing))
        return {r for r in missing if r in self.auths}
