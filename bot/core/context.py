"""What a command handler sees of one event, and how it answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random
from typing import Any

from bot.core.commands import find_command
from bot.core.events import Action, Event, PowerLevels, React, Redact, Send
from bot.core.render import Renderer
from bot.core.settings import RoomSettings
from bot.core.state import MAX_NAME, Character, RoomState
from systems import get_system
from systems.base import GameSystem


@dataclass
class Context:
    event: Event
    room: RoomState
    settings: RoomSettings
    renderer: Renderer
    rng: Random
    actions: list[Action] = field(default_factory=list)
    on_grant: bool = False
    """The command runs on the sender's ``!permite`` grant (the lock or the turn would refuse it)."""
    grant_spent: bool = False
    """The command was a valid in-character one and used the grant (``floor.consume_grant``)."""

    @property
    def sender(self) -> str:
        return self.event.sender

    @property
    def system_key(self) -> str:
        return self.room.system or self.settings.system

    @property
    def system(self) -> GameSystem:
        return get_system(self.system_key)

    @property
    def enforcement(self) -> str:
        return self.room.enforcement or self.settings.enforcement

    @property
    def gms(self) -> list[str]:
        return [*self.settings.gms, *(g for g in self.room.gms if g not in self.settings.gms)]

    def is_gm(self, user_id: str | None = None) -> bool:
        user = user_id or self.sender
        if user in self.settings.gms or user in self.room.gms:
            return True
        return user == self.sender and self.event.sender_is_admin

    @property
    def character(self) -> Character | None:
        return self.room.character_of(self.sender)

    @property
    def speaker_name(self) -> str:
        """How the room calls the sender: their character, else their user id."""
        character = self.character
        return character.name if character else self.sender

    def render_send(self, kind: str, *, reply: bool = True, mentions: tuple[str, ...] = (),
                    private_to: str | None = None, **context: Any) -> None:
        message = self.renderer.render(kind, **context)
        self.actions.append(Send(
            self.event.room_id, message, self.event.event_id if reply else None, mentions, private_to,
        ))

    def reply(self, kind: str, **context: Any) -> None:
        self.render_send(kind, **context)

    def announce(self, kind: str, mentions: tuple[str, ...] = (), **context: Any) -> None:
        self.render_send(kind, reply=False, mentions=mentions, **context)

    def whisper(self, user_id: str, kind: str, **context: Any) -> None:
        self.render_send(kind, private_to=user_id, **context)

    def reply_unknown_character(self, name: str) -> None:
        self.reply("unknown_character", name=name[:MAX_NAME], known=self.room.character_names())

    def reply_usage(self, command_name: str) -> None:
        self.reply("usage", command=find_command(command_name, self.system_key))

    def redact(self) -> None:
        reason = self.renderer.text("redact_reason")
        self.actions.append(Redact(self.event.room_id, self.event.event_id, reason))

    def react(self, key_kind: str) -> None:
        """React to the event with the emoji in template ``key_kind``."""
        self.actions.append(React(self.event.room_id, self.event.event_id, self.renderer.text(key_kind)))

    def power_levels(self, lock: bool, speakers: tuple[str, ...] = ()) -> None:
        self.actions.append(PowerLevels(self.event.room_id, lock, speakers, self.event.event_id))
