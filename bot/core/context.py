"""What a command handler sees of one event, and how it answers."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from bot.core import acta, privacy
from bot.core.commands import Command, CommandGroup
from bot.core.events import Action, Event, PowerLevels, React, Redact, Send
from bot.core.game import Game, GameRegistry
from bot.core.render import Message, Renderer
from bot.core.settings import RoomSettings
from bot.core.state import MAX_NAME, Character, Combat, RoomState, name_key
from bot.core.store import Store, UndoStep
from systems.base import GameSystem, Outcome, sized_dice
from systems.refusal import Refusal

ROLLER_KEYS = ("who", "attacker", "name")
"""The context keys of a game's roll message that name who rolled (``name``: the subject of a soak, a
recovery...; of a damage roll it is the target, so the acta does not credit a damage roll to it)."""


def named_gms(settings: RoomSettings, room: RoomState) -> list[str]:
    """A room's GMs by name: the config's, then those added with ``!master``."""
    return [*settings.gms, *(g for g in room.gms if g not in settings.gms)]


@dataclass
class Context:
    event: Event
    room: RoomState
    settings: RoomSettings
    renderer: Renderer
    rng: Random
    games: GameRegistry
    room_commands: CommandGroup
    actions: list[Action] = field(default_factory=list)
    on_grant: bool = False
    """The command runs on the sender's ``!permite`` grant (the lock or the turn would refuse it)."""
    grant_spent: bool = False
    """The command was a valid in-character one and used the grant (``floor.consume_grant``)."""
    records: list[acta.Record] = field(default_factory=list)
    """What the event adds to or changes in the room's acta, written in the event's transaction."""
    store: Store | None = None
    """Read-only use by commands (roll history); writes go through ``rolls`` and ``reveals``."""
    rolls: list[dict[str, Any]] = field(default_factory=list)
    """Roll records to store with the event (``bot/core/rolls.py``)."""
    reveals: list[str] = field(default_factory=list)
    """Secret rolls the GM revealed in this event (roll ids)."""
    recorded_sessions: Callable[[], list[int]] = list
    """The session numbers the room's acta holds now (read from the store), in order."""
    answer_privately: bool = False
    """A question asked off the floor (``Command.question``): every answer goes to the sender alone."""
    undoable: list[UndoStep] = field(default_factory=list)
    """The command of this event changed the play: how to take it back (``bot/core/undo.py``)."""
    undone: list[str] = field(default_factory=list)
    """The events whose commands this event took back (``!deshacer``)."""

    @property
    def sender(self) -> str:
        return self.event.sender

    @property
    def system_key(self) -> str:
        return self.room.system or self.settings.system or self.games.default.key

    @property
    def game(self) -> Game:
        """The room's game (a key no longer offered falls back to the default one)."""
        key = self.system_key
        return self.games.get(key, self.games.default)

    @property
    def system(self) -> GameSystem:
        return self.game.system

    def find_command(self, name: str) -> Command | None:
        """The room's game's own command of that name, else the core's."""
        return self.game.commands.find(name) or self.room_commands.find(name)

    @property
    def enforcement(self) -> str:
        return self.room.enforcement or self.settings.enforcement

    @property
    def gms(self) -> list[str]:
        return named_gms(self.settings, self.room)

    def is_gm(self, user_id: str | None = None) -> bool:
        """Named by the config or ``!master``, or shown by the transport as the room's creator or a user
        of power level 50+ (on this event for the sender, on their last one for anyone else)."""
        user = user_id or self.sender
        if user in self.settings.gms or user in self.room.gms:
            return True
        if user == self.sender:
            return self.event.sender_is_admin
        return user in self.room.admins

    def note_admin(self) -> None:
        """Remember whether the transport says the sender is the room's admin (``RoomState.admins``)."""
        admins = self.room.admins
        if self.event.sender_is_admin and self.sender not in admins:
            admins.append(self.sender)
        elif not self.event.sender_is_admin and self.sender in admins:
            admins.remove(self.sender)

    @property
    def character(self) -> Character | None:
        return self.room.character_of(self.sender)

    @property
    def speaker_name(self) -> str:
        """How the room calls the sender: their character, else their user id."""
        character = self.character
        return character.name if character else self.sender

    def render_send(self, kind: str, *, reply: bool = True, mentions: tuple[str, ...] = (),
                    private_to: str | None = None, roll: Outcome | None = None,
                    roll_json: dict[str, Any] | None = None, roll_id: str | None = None,
                    secret: bool = False, private_also: tuple[str, ...] = (), to_room_gms: bool = False,
                    rendered: privacy.Views | None = None, **context: Any) -> None:
        """Queue a message. ``roll``: the outcome a game's own message shows (the template's ``r``),
        recorded as the room's roll. A message that shows a roll carries it (``roll_json``, its
        record's ``roll_id``, the ``applied`` modifiers of the context, and whether it is ``secret``);
        ``rendered``: the message already rendered from ``kind`` and ``context``. A roll shown in the
        room goes to the acta; a secret one (sent privately) does not, until it is revealed.
        What it shows of a GM-owned sheet follows ``bot/core/privacy.py``: whoever is no GM gets the
        room's copy, and the GMs get theirs privately when it says more."""
        if self.answer_privately and private_to is None:
            private_to = self.sender
        params = {"r": roll, **context}
        views = rendered or privacy.render_views(self, kind, params)
        who = ""
        if roll_json is None and roll is not None:  # a game's own roll
            roll_json = roll.as_json()
            who = next((v for k in ROLLER_KEYS if isinstance(v := context.get(k), str)), "")
            roll_id = self.record_roll(roll, privacy.public_roll(roll_json, views) or {}, who or self.speaker_name,
                                       "", (), private_to is not None, views.public)
            secret = private_to is not None
        public_json = privacy.public_roll(roll_json, views)
        if public_json is not None:
            named = context.get("who")
            label = context.get("label")
            credited = named if isinstance(named, str) else None if public_json.get("kind") == "damage" else who
            # The acta shows no more of the label than the room's copy does (an NPC's skill without its die).
            shown = next((c for c in ((label, label.rsplit(" ", 1)[0]) if isinstance(label, str) and label else ())
                          if f" · {c}" in views.public.body), "")
            acta.roll(self, public_json, views.public.body, secret=secret or private_to is not None, who=credited or None,
                      label=shown)
        applied = tuple((str(r), int(v)) for r, v in context.get("applied", ())) if roll_json is not None else ()
        send = Send(
            self.event.room_id, views.public, self.event.event_id if reply else None, mentions, private_to,
            template=kind, actor=self.speaker_name, roll=public_json, applied=applied, roll_id=roll_id,
            private_also=private_also, to_room_gms=to_room_gms, secret=secret,
        )
        self.actions += privacy.addressed(self, send, views, roll_json)

    def record_roll(self, outcome: Any, roll_json: dict[str, Any], who: str, label: str,
                    applied: Sequence[tuple[str, int]], secret: bool, message: Message,
                    target: str | None = None) -> str:
        """Keep a roll for ``!historial``, ``!dados`` and ``!revelar`` (stored with the event); its id.
        ``message`` is the room's copy; ``target`` whom it was rolled against."""
        roll_id = f"{self.event.event_id}/r{len(self.rolls)}"
        self.rolls.append({
            "roll_id": roll_id, "room_id": self.event.room_id, "event_id": self.event.event_id, "ts": self.event.ts,
            "actor": name_key(who), "sender": self.sender, "system": self.system_key, "label": label,
            "secret": int(secret), "revealed": 0,
            "data": json.dumps({"who": who, "target": target, "roll": roll_json, "applied": list(applied)},
                               ensure_ascii=False),
            "dice": json.dumps(sized_dice(outcome)),
            "message": json.dumps({"body": message.body, "html": message.html}, ensure_ascii=False),
        })
        return roll_id

    def reply(self, kind: str, *, roll: Outcome | None = None, **context: Any) -> None:
        self.render_send(kind, roll=roll, **context)

    def announce(self, kind: str, mentions: tuple[str, ...] = (), *, roll: Outcome | None = None,
                 **context: Any) -> None:
        self.render_send(kind, reply=False, mentions=mentions, roll=roll, **context)

    def whisper(self, user_id: str, kind: str, *, roll: Outcome | None = None, **context: Any) -> None:
        self.render_send(kind, private_to=user_id, roll=roll, **context)

    def tell_gms(self, kind: str, **context: Any) -> None:
        """A message for the GMs only, to those the GMs' copies go to (``privacy.recipients``), and with
        ``to_room_gms`` to the room's creators and users of power level 50+ the transport knows when no
        GM is named. With no GM known at all it is addressed to the sender, who then reads it too."""
        first, *others = privacy.recipients(self) or (self.sender,)
        self.render_send(kind, private_to=first, private_also=tuple(others), to_room_gms=not self.gms, **context)

    def unknown_character(self, name: str) -> Refusal:
        """The refusal for a name that is no character of the room (raise it)."""
        return Refusal("unknown_character", name=name[:MAX_NAME], known=self.room.character_names())

    def usage(self, command_name: str) -> Refusal:
        """The refusal that shows a command's usage (raise it)."""
        return Refusal("usage", command=self.find_command(command_name))

    # Argument helpers every game's commands share.

    def split_name(self, args: str) -> tuple[Character | None, list[str]]:
        """The longest known character name at the start of ``args`` and the words after it;
        without a known name, None and all the words."""
        words = args.split()
        character, used = self.room.leading_character(words)
        return (character, words[used:]) if character is not None else (None, words)

    def named_character(self, args: str) -> tuple[Character, list[str]]:
        """Like ``split_name``, but the name must be a known character."""
        character, rest = self.split_name(args)
        if character is None:
            words = args.split()
            raise self.unknown_character(words[0] if words else "")
        return character, rest

    def character_named(self, name: str) -> Character:
        """The character called ``name`` (case- and accent-insensitive), or a refusal."""
        character = self.room.find_character(name)
        if character is None:
            raise self.unknown_character(name)
        return character

    def own_character(self) -> Character:
        """The sender's character, or a refusal."""
        if self.character is None:
            raise Refusal("no_character")
        return self.character

    def acting_character(self) -> Character | None:
        """Who acts for the sender: for the GM the combatant whose turn it is, else their character."""
        combat = self.room.combat
        if self.is_gm() and combat is not None and combat.started:
            current = self.room.find_character(combat.current or "")
            if current is not None:
                return current
        return self.character

    def own_or_named(self, args: str) -> tuple[Character, list[str]]:
        """``NOMBRE resto`` names a character; without a known name, the one acting for the sender
        (and all the words)."""
        character, rest = self.split_name(args)
        if character is not None:
            return character, rest
        acting = self.acting_character()
        if acting is None:
            raise Refusal("no_character")
        return acting, rest

    def sheet_is_gms(self, character: Character) -> bool:
        """An NPC, or a character a GM plays that no player made (a player's character the GM took over
        stays the player's): its sheet is the GMs', and what the room gets of it leaves out its numbers
        (``bot/core/privacy.py``)."""
        if character.npc:
            return True
        owner, creator = character.owner, character.creator
        return owner is not None and self.is_gm(owner) and (creator is None or self.is_gm(creator))

    def may_manage(self, character: Character) -> None:
        """Only the GM or the character's player may act for it."""
        if not (self.is_gm() or character.owner == self.sender):
            raise Refusal("not_your_character", name=character.name)

    def declared_combat(self) -> Combat:
        """The room's combat, started or not (``!combate`` declared it), or a refusal."""
        if self.room.combat is None:
            raise Refusal("no_combat")
        return self.room.combat

    def running_combat(self) -> Combat:
        """The combat whose turns have started, or a refusal."""
        combat = self.room.combat
        if combat is None or not combat.started:
            raise Refusal("no_combat")
        return combat

    def redact(self) -> None:
        reason = self.renderer.text("redact_reason")
        self.actions.append(Redact(self.event.room_id, self.event.event_id, reason))

    def react(self, key_kind: str) -> None:
        """React to the event with the emoji in template ``key_kind``."""
        self.actions.append(React(self.event.room_id, self.event.event_id, self.renderer.text(key_kind)))

    def power_levels(self, lock: bool, speakers: tuple[str, ...] = ()) -> None:
        self.actions.append(PowerLevels(self.event.room_id, lock, speakers, self.event.event_id))
