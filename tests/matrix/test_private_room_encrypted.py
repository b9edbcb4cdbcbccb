"""The private room for secret rolls is made encrypted, and its first message goes encrypted even when the
bot's sync has not yet told nio about the room (or brought it before its encryption state): a stress run of
tests/matrix/test_matrix_e2e.py once saw a secret result arrive there in the clear."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, TypeVar

from nio import MatrixRoom

from bot.core.store import Store
from bot.matrix.outbox import Outbox
from bot.matrix.store import MatrixStore

T = TypeVar("T")


class FakeSession:
    """The bits of ``Session`` a private room's creation uses; the nio client knows no room yet."""

    user_id = "@rolbot:local"

    def __init__(self, known: dict[str, MatrixRoom]) -> None:
        self.client = SimpleNamespace(rooms=known, encrypted_rooms=set(), room_create=self._create)

    async def _create(self, **_: Any) -> Any:
        return SimpleNamespace(room_id="!dm:local")

    async def request(self, what: str, call: Callable[[], Awaitable[T]], **_: Any) -> T:
        return await call()


def _private_room(known: dict[str, MatrixRoom]) -> tuple[str, FakeSession]:
    store = Store(None)
    session = FakeSession(known)
    renderer = SimpleNamespace(text=lambda key, **_: "rolbot (privado)")
    outbox = Outbox(session, store, MatrixStore(store), renderer, None, {}, None, lambda: False)  # type: ignore[arg-type]
    return asyncio.run(outbox.private_room("@ana:local")), session


def test_a_new_private_room_is_known_encrypted_before_any_sync() -> None:
    room_id, session = _private_room({})
    assert session.client.rooms[room_id].encrypted and room_id in session.client.encrypted_rooms


def test_a_private_room_a_sync_brought_before_its_encryption_state_is_encrypted_too() -> None:
    early = MatrixRoom("!dm:local", "@rolbot:local", encrypted=False)
    room_id, session = _private_room({"!dm:local": early})
    assert session.client.rooms[room_id] is early and early.encrypted
