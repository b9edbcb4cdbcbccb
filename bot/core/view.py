"""What the acta and the privacy rule read of the event being handled (``Context`` is one)."""

from __future__ import annotations

from typing import Protocol

from bot.core.events import Event
from bot.core.render import Renderer
from bot.core.state import Character, RoomState
from bot.core.work import UnitOfWork


class EventView(Protocol):
    @property
    def event(self) -> Event: ...

    @property
    def room(self) -> RoomState: ...

    @property
    def renderer(self) -> Renderer: ...

    @property
    def work(self) -> UnitOfWork: ...

    @property
    def sender(self) -> str: ...

    @property
    def gms(self) -> list[str]: ...

    @property
    def system_key(self) -> str: ...

    @property
    def answer_privately(self) -> bool: ...

    @property
    def character(self) -> Character | None: ...

    @property
    def speaker_name(self) -> str: ...

    def is_gm(self, user_id: str | None = None) -> bool: ...

    def sheet_is_gms(self, character: Character) -> bool: ...
