"""A game, as the table core sees it: one object, listed once in ``bot/games/__init__.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, Protocol

from bot.core.commands import CommandGroup
from bot.core.records import SheetRoll, Vitality
from systems.base import GameSystem

if TYPE_CHECKING:
    from bot.core.context import Context
    from bot.core.state import Character, Combat

__all__ = ["CombatRules", "Game", "GameRegistry", "SheetRules", "Vitality"]


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


class SheetRules(Protocol):
    """How a game rolls from a character's sheet and the table's state (``!tiro``)."""

    def roll(self, ctx: Context, actor: Character | None, text: str, auto: bool) -> SheetRoll | None:
        """Resolve ``text`` for ``actor``: a named roll (``Disparar vs 6``) from the sheet, or an
        expression with the state's modifiers added when ``auto``. Refuse a roll the actor may not
        make now (with the reason); None leaves ``text`` to the system as a plain roll."""
        ...


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
    turn_group: Callable[[Character], str] | None = None
    """Who shares one turn (Savage: a group of Extras, one card): combatants with the same key, side by
    side in the order, act in one turn, on which the GM acts for any of them. None: each its own turn."""

    npc_words: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Words after an NPC's name in ``!pnj`` that set a field of its sheet (folded word -> field and
    value): Savage's ``comodín`` makes a Wild Card of a GM's NPC, an Extra otherwise."""

    @property
    def gm_fields(self) -> frozenset[str]:
        """The fields only a GM sets with ``!ficha``: the table's state and the roles."""
        return self.sheet_state | self.sheet_roles

    @property
    def name(self) -> str:
        return self.system.name


class GameRegistry:
    """The games a table offers, by key, in the order they were listed (the first is the default)."""

    def __init__(self, *games: Game) -> None:
        self._games: dict[str, Game] = {}
        for game in games:
            if game.key in self._games:
                raise ValueError(f"game listed twice: {game.key}")
            self._games[game.key] = game

    def __getitem__(self, key: str) -> Game:
        return self._games[key]

    def get(self, key: str, default: Game) -> Game:
        return self._games.get(key, default)

    def __contains__(self, key: Any) -> bool:
        return key in self._games

    def __iter__(self) -> Iterator[Game]:
        return iter(self._games.values())

    def keys(self) -> tuple[str, ...]:
        return tuple(self._games)

    @property
    def default(self) -> Game:
        """The game of a room that has none set: the first listed."""
        return next(iter(self._games.values()))

    def with_game(self, game: Game) -> GameRegistry:
        """A new registry with ``game`` added (tests plug a toy game in this way)."""
        return GameRegistry(*self, game)
