"""What a command handler sees of one event, and how it answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from random import Random
from typing import Any, Protocol

from bot.core import replies, targets
from bot.core.events import Event
from bot.core.privacy import Views, recipients
from bot.core.records import Pending, RollRequest, ScreenAttack, ScreenControl, SheetRoll, Vitality
from bot.core.render import Renderer
from bot.core.replies import Addressing
from bot.core.settings import RoomSettings
from bot.core.state import Character, Combat, RoomState
from bot.core.store import Store
from bot.core.work import UnitOfWork
from systems.base import GameSystem, Outcome
from systems.refusal import Refusal


class FoundCommand(Protocol):
    """A command as a context finds it (``bot.core.commands.Command`` is one)."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def name(self) -> str: ...

    @property
    def usage(self) -> str: ...

    @property
    def run(self) -> Callable[[Context, str], None]: ...

    @property
    def gm_only(self) -> bool: ...

    @property
    def in_character(self) -> bool: ...

    @property
    def needs_args(self) -> bool: ...

    @property
    def question(self) -> bool: ...

    @property
    def free(self) -> bool: ...


class CommandBook(Protocol):
    """Commands found by any of their names (``bot.core.commands.CommandGroup`` is one)."""

    def find(self, name: str) -> FoundCommand | None: ...

    def __iter__(self) -> Iterator[FoundCommand]: ...


class CombatRules(Protocol):
    """A game's combat hooks. Each mutates ``combat.data`` (its own JSON-able state)."""

    def initiative(self, ctx: Context, combat: Combat) -> None:
        """Order ``combat.order`` by the game's initiative and announce it."""

    def new_round(self, ctx: Context, combat: Combat) -> None:
        """Between rounds (re-deal cards, reset per-round counters)."""

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        """At the start of ``actor``'s turn (conditions that tick)."""

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        """Short condition labels for the status board."""
        ...

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """Whether ``character`` can act, is down, or is dead, from its sheet."""
        ...

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """``character`` enters the running combat (``!entra``): give it the game's initiative now
        (a card, a roll, its stats), put it in ``combat.order`` with ``bot.core.combat.place_late``
        and keep ``combat.data`` in step; nobody else's initiative changes. Returns how its
        initiative reads for the room (None: nothing to show, such as an NPC's sheet numbers)."""
        ...

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        """``name`` has just left ``combat.order`` (``!sale``): forget what ``combat.data`` keeps of
        it for the turn order (its card, its roll)."""

    def ties(self, ctx: Context, combat: Combat) -> list[list[str]]:
        """The initiative ties the GM still has to break (``!orden A antes de B``), each the names that
        tied, in their order; the status board and the screen show them. A game with no ties: none."""
        return []

    def settle_tie(self, ctx: Context, combat: Combat, name: str) -> None:
        """The GM placed ``name`` among those it tied with (``!orden``): it is no longer part of a tie,
        and the game keeps that order when it sorts again (a new round)."""
        return None

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """What the fight keeps open between two messages (a soak offered, a blow to parry, damage to
        apply), for the GM's screen only (never the room's): it answers from ``combat.data`` and decides
        nothing, called on a copy of the room's state. A game whose class extends this protocol and
        keeps no such item inherits this answer: nothing."""
        return []

    def holds_turn(self, ctx: Context, combat: Combat) -> bool:
        """Whether the fight waits for an answer before the turn may pass by itself (a soak still
        offered): while it does, a turn whose members can no longer act does not end by itself.
        A game with nothing to wait for inherits this answer: it never waits."""
        return False

    def sheet_edited(self, ctx: Context, character: Character, values: dict[str, Any]) -> None:
        """``!ficha`` (or the GM's screen's state control, which sends it) has just set ``values`` on
        ``character``'s sheet: the game keeps its fight in step (a stun lifted, a late DES placed) and may
        announce it, or refuse the edit (a ``Refusal``: then nothing changes). A game with nothing to
        follow inherits this answer: nothing."""
        return None

    def turns_listed(self, ctx: Context, combat: Combat) -> bool:
        """Whether the round's message named the order of the turns now going round, with their players
        (Stormbringer's declarations of intent): each of those turns then passes as a ✅ on the command,
        as a turn passing to the GM's combatants does. A game that lists no such stage: never."""
        return False

    def turn_ending(self, ctx: Context, combat: Combat) -> bool:
        """``!siguiente`` is about to end the turn: True keeps it (the game told the room why, such as a
        soak still open, once); False lets it end, after the game closed what it waited for."""
        return False


class SheetRules(Protocol):
    """How a game rolls from a character's sheet and the table's state (``!tiro``)."""

    def roll(self, ctx: Context, request: RollRequest) -> SheetRoll | None:
        """Resolve the request's text for its actor: a named roll (``Disparar vs 6``) from the sheet, or
        an expression with the state's modifiers added when ``auto``. Refuse a roll the actor may not
        make now (with the reason; the actor's vitality through ``bot.core.rolls.require_up``, which
        checks it once per request); None leaves the text to the system as a plain roll."""
        ...


class GameHooks(Protocol):
    """The room's game as a command sees it (``bot.core.game.Game`` is one): its resolver, hooks,
    commands, sheet and files."""

    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def system(self) -> GameSystem: ...

    @property
    def combat(self) -> CombatRules: ...

    @property
    def commands(self) -> CommandBook: ...

    @property
    def cards(self) -> Traversable | None: ...

    @property
    def sheet_rules(self) -> SheetRules | None: ...

    @property
    def sheet_fields(self) -> dict[str, type]: ...

    @property
    def sheet_names(self) -> dict[str, str]: ...

    @property
    def sheet_aliases(self) -> dict[str, str]: ...

    @property
    def sheet_state(self) -> frozenset[str]: ...

    @property
    def sheet_roles(self) -> frozenset[str]: ...

    @property
    def sheet_derived(self) -> frozenset[str]: ...

    @property
    def sheet_starting(self) -> frozenset[str]: ...

    @property
    def gm_fields(self) -> frozenset[str]: ...

    @property
    def turn_group(self) -> Callable[[Character], str] | None: ...

    @property
    def npc_words(self) -> dict[str, tuple[str, str]]: ...

    @property
    def locations(self) -> frozenset[str]: ...

    @property
    def screen_attack(self) -> ScreenAttack | None: ...

    @property
    def screen_controls(self) -> dict[str, ScreenControl]: ...

    @property
    def screen_shows(self) -> frozenset[str]: ...

    @property
    def screen_notes(self) -> Callable[[Context], dict[str, Any]] | None: ...

    @property
    def new_character(self) -> Callable[[Character], None] | None: ...

    @property
    def session_start(self) -> Callable[[Context], None] | None: ...


class GameBook(Protocol):
    """The games a table offers, by key (``bot.core.game.GameRegistry`` is one)."""

    def __contains__(self, key: object) -> bool: ...

    def __getitem__(self, key: str) -> GameHooks: ...

    def __iter__(self) -> Iterator[GameHooks]: ...

    def __hash__(self) -> int: ...

    def keys(self) -> tuple[str, ...]: ...

    def game_for(self, key: str) -> GameHooks:
        """The game of ``key``; the default one for a key no longer offered."""
        ...

    @property
    def default(self) -> GameHooks: ...


def named_gms(settings: RoomSettings, room: RoomState) -> list[str]:
    """A room's GMs by name: the config's, then those added with ``!master``."""
    return [*settings.gms, *(g for g in room.gms if g not in settings.gms)]


@dataclass
class Context:
    """One event as a command sees it: the room, its settings and game, how to answer (the unit of
    work gathers what it leaves for the event's transaction) and the argument helpers every game
    shares. What the bot does to the room itself (redactions, reactions, power levels, the enforcement
    mode) is ``bot/core/moderation.py``'s."""

    event: Event
    room: RoomState
    settings: RoomSettings
    renderer: Renderer
    rng: Random
    games: GameBook
    commands: CommandBook
    """The commands every room has; the game's come first (``find_command``)."""
    work: UnitOfWork
    store: Store | None = None
    """Read-only use by commands (roll history); writes go through ``work``."""
    recorded_sessions: Callable[[], list[int]] = list
    """The session numbers the room's acta holds now (read from the store), in order."""
    on_grant: bool = False
    """The command runs on the sender's ``!permite`` grant (the lock or the turn would refuse it)."""
    grant_spent: bool = False
    """The command was a valid in-character one and used the grant (``floor.consume_grant``)."""
    answer_privately: bool = False
    """A question asked off the floor (``Command.question``): every answer goes to the sender alone."""
    edits: bool = False
    """The room's transport edits the bot's messages in place (``Edit``) and keeps the combat's tracker
    (``Tracker``): Matrix does, IRC and the console do not."""
    _game: tuple[str | None, GameHooks] | None = field(default=None, repr=False, compare=False)
    """The game ``game`` found last, with the room's ``system`` it was for."""

    @property
    def sender(self) -> str:
        return self.event.sender

    @property
    def system_key(self) -> str:
        return self.room.system or self.settings.system or self.games.default.key

    @property
    def game(self) -> GameHooks:
        """The room's game (a key no longer offered falls back to the default one). Asked for many
        times per event: kept while the room's ``system`` is the one it was looked up for."""
        system = self.room.system
        known = self._game
        if known is not None and known[0] == system:
            return known[1]
        game = self.games.game_for(self.system_key)
        self._game = system, game
        return game

    @property
    def system(self) -> GameSystem:
        return self.game.system

    def find_command(self, name: str) -> FoundCommand | None:
        """The room's game's own command of that name, else the core's."""
        return self.game.commands.find(name) or self.commands.find(name)

    @property
    def gms(self) -> list[str]:
        return named_gms(self.settings, self.room)

    def is_gm(self, user_id: str | None = None) -> bool:
        """Named by the config or ``!master``, or shown by the transport as the room's creator, a user of
        power level 50+ or an IRC operator (on this event for the sender; for anyone else as the
        transport last said: its ``admins`` event or their own last event, ``RoomState.admins``)."""
        user = user_id or self.sender
        if user in self.settings.gms or user in self.room.gms:
            return True
        if user == self.sender:
            return self.event.sender_is_admin
        return user in self.room.admins

    @property
    def character(self) -> Character | None:
        return self.room.character_of(self.sender)

    @property
    def speaker_name(self) -> str:
        """How the room calls the sender: their character, else their user id."""
        character = self.character
        return character.name if character else self.sender

    def reply(self, kind: str, *, roll: Outcome | None = None, rendered: Views | None = None,
              **context: Any) -> None:
        replies.render_send(self, kind, roll=roll, rendered=rendered, **context)

    def announce(self, kind: str, mentions: tuple[str, ...] = (), *, roll: Outcome | None = None,
                 **context: Any) -> None:
        replies.render_send(self, kind, Addressing(reply=False, mentions=mentions), roll=roll, **context)

    def whisper(self, user_id: str, kind: str, *, roll: Outcome | None = None, **context: Any) -> None:
        replies.render_send(self, kind, Addressing(private_to=user_id), roll=roll, **context)

    def tell_gms(self, kind: str, **context: Any) -> None:
        """A message for the GMs only, to those the GMs' copies go to (``privacy.recipients``), and with
        ``to_room_gms`` to the room's creators and users of power level 50+ the transport knows when no
        GM is named. With no GM known at all it is addressed to the sender, who then reads it too."""
        first, *others = recipients(self) or (self.sender,)
        replies.render_send(self, kind, Addressing(private_to=first, private_also=tuple(others),
                                                   to_room_gms=not self.gms), **context)

    def unknown_character(self, name: str) -> Refusal:
        """The refusal for a name that is no character of the room (raise it)."""
        return targets.unknown_name(self.room, name.split(), shown=name)

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
            raise targets.unknown_name(self.room, args.split())
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
