"""A game, as the table core sees it: one object, listed once in ``bot/games/__init__.py``."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from typing import Any

from bot.core.commands import CommandGroup
from bot.core.context import CombatRules, Context, SheetRules
from bot.core.records import ScreenAttack, ScreenControl, Vitality
from bot.core.state import Character
from systems.base import GameSystem

__all__ = ["CombatRules", "Game", "GameModule", "GameRegistry", "ScreenAttack", "ScreenControl", "SheetRules", "Vitality"]


@dataclass(frozen=True)
class Game:
    """Everything of one game: its pure resolver, its table hooks, its commands and its files.

    ``templates`` is the folder of the game's messages, addressed as ``<key>/<kind>``; ``cards`` its
    rule cards (TOML, see docs/rule-cards.md); either may be None."""

    key: str
    system: GameSystem
    combat: CombatRules
    sheet_fields: dict[str, type]
    commands: CommandGroup = field(default_factory=CommandGroup)
    templates: Traversable | None = None
    cards: Traversable | None = None
    sheet_rules: SheetRules | None = None
    sheet_names: dict[str, str] = field(default_factory=dict)
    """How the sheet shows a field (key -> Spanish name, accents included); default: the key."""
    sheet_aliases: dict[str, str] = field(default_factory=dict)
    """Other names of a field, folded (``name_key``): ``agi`` -> ``agilidad``."""
    sheet_state: frozenset[str] = frozenset()
    """The fields that are the table's state (bennies, wounds, hit points, conditions): only a GM sets
    them with ``!ficha``; players set their character's attributes, skills, weapons and macros."""
    sheet_roles: frozenset[str] = frozenset()
    """The fields that decide a character's role at the table (Savage's Grupo and Comodín, Reino's
    Secuaz, Sombra's Tipo): only a GM sets them, like ``sheet_state``."""
    sheet_derived: frozenset[str] = frozenset()
    """The numbers worked out from others that rolls are judged against (Parry, Toughness, Defense,
    DR, threshold, max PR...): a player may paste them, and a player's later change of one is told
    privately to the GMs with its old and new value."""
    sheet_starting: frozenset[str] = frozenset()
    """The table's numbers a player pastes for their own new character (Savage's bennies, Reino's PR and
    PA, Stormbringer's PV): of ``sheet_state``, but a player sets them like ``sheet_derived`` ones (the
    first time freely, a later change told privately to the GMs)."""
    turn_group: Callable[[Character], str] | None = None
    """Who shares one turn (Savage: a group of Extras, one card): combatants with the same key, side by
    side in the order, act in one turn, on which the GM acts for any of them. None: each its own turn."""

    npc_words: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Words after an NPC's name in ``!pnj`` that set a field of its sheet (folded word -> field and
    value): Savage's ``comodín`` makes a Wild Card of a GM's NPC, an Extra otherwise."""
    screen_attack: ScreenAttack | None = None
    """The GM's screen's attack control for the game's ``!ataque`` (None: the screen has none)."""
    screen_controls: dict[str, ScreenControl] = field(default_factory=dict)
    """The game's own controls on the GM's screen, by the form's ``accion`` (Savage's bennies)."""
    screen_shows: frozenset[str] = frozenset()
    """The game's commands (with their fixed words, folded: ``beni master``) whose answer the GM's screen
    shows all the time (``screen_notes``), so a GM with the screen open need not type them."""
    screen_notes: Callable[[Context], dict[str, Any]] | None = None
    """What the game adds to the GM's screen, for its ``screen_notes.html`` (Savage: the GM's pool)."""
    new_character: Callable[[Character], None] | None = None
    """What a player's new character starts with (``!pj`` of a new name), written into its sheet
    (Savage: a Wild Card's 3 bennies). Characters stored before are never touched."""
    session_start: Callable[[Context], None] | None = None
    """What a new session (``!sesion``, ``!sesion nueva``) sets back in the game (Savage: the players'
    bennies and the GM's pool); with it, ``!sesion`` works without the acta recording."""
    locations: frozenset[str] = frozenset()
    """The hit locations its damage and healing read after the target's name, folded (``name_key``):
    Sombra's ``cabeza``, ``brazo derecho``. The GM's screen takes them in its text field and keeps them
    out of the names it sends."""

    @property
    def gm_fields(self) -> frozenset[str]:
        """The fields only a GM sets with ``!ficha``: the table's state (but its starting numbers) and the
        roles."""
        return (self.sheet_state - self.sheet_starting) | self.sheet_roles

    @property
    def name(self) -> str:
        return self.system.name


@dataclass(frozen=True)
class GameModule:
    """A game listed by its key and the module whose ``GAME`` it is, imported when first needed (a room
    plays it, a roll or ``!ayuda`` names it): a restart whose rooms stay quiet imports no game. The key
    alone answers ``!sistema``'s and the config's checks."""

    key: str
    module: str

    def load(self) -> Game:
        game = importlib.import_module(self.module).GAME
        if not isinstance(game, Game) or game.key != self.key:
            raise ValueError(f"{self.module}.GAME is not the game {self.key}")
        return game


class GameRegistry:
    """The games a table offers, by key, in the order they were listed (the first is the default); a
    ``GameModule`` is imported on its first use."""

    def __init__(self, *games: Game | GameModule) -> None:
        self._games: dict[str, Game | GameModule] = {}
        for game in games:
            if game.key in self._games:
                raise ValueError(f"game listed twice: {game.key}")
            self._games[game.key] = game
        self._default_key = next(iter(self._games), None)

    def __getitem__(self, key: str) -> Game:
        game = self._games[key]
        if isinstance(game, GameModule):
            game = self._games[key] = game.load()
        return game

    def game_for(self, key: str) -> Game:
        """The game of ``key``; the default one for a key no longer offered."""
        return self[key] if key in self._games else self.default

    def __contains__(self, key: Any) -> bool:
        return key in self._games

    def __iter__(self) -> Iterator[Game]:
        """Every game, each imported if it was not yet (the rule cards, the help's topics)."""
        return (self[key] for key in tuple(self._games))

    def keys(self) -> tuple[str, ...]:
        return tuple(self._games)

    @property
    def default(self) -> Game:
        """The game of a room that has none set: the first listed (asked for many times per event)."""
        if self._default_key is None:
            raise LookupError("a registry with no games has no default")
        return self[self._default_key]

    def template_folders(self) -> list[tuple[str, Callable[[], Traversable | None]]]:
        """Each game's key and how to find its folder of messages: the game is imported when the renderer
        first reads one of its templates."""
        return [(key, functools.partial(self._templates_of, key)) for key in self._games]

    def _templates_of(self, key: str) -> Traversable | None:
        return self[key].templates

    def with_game(self, game: Game | GameModule) -> GameRegistry:
        """A new registry with ``game`` added (tests plug a toy game in this way)."""
        return GameRegistry(*self._games.values(), game)
