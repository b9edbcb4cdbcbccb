"""A game plugs in as docs/architecture.md ("Adding a game") says: a toy game, written in a temporary
folder laid out as the repository (its ``systems/``, ``bot/games/`` and ``templates/`` folders), loads
with one registry line and works at the table."""

from __future__ import annotations

import difflib
import importlib
import random
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import bot.games
import systems
from bot.core.game import GameRegistry
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.core.test_layers import ROOT, core_reach
from tests.transcript import GM, Transcript, play

TOY_FILES = {
    "systems/juguete/__init__.py": '''
        """The toy game's dice: plain expressions."""

        from dataclasses import dataclass

        from systems.base import DiceRoll, roll_dice
        from systems.dice import Rng

        __all__ = ["SYSTEM"]


        @dataclass(frozen=True)
        class ToySystem:
            key: str = "juguete"
            name: str = "Juguete"

            def roll(self, text: str, rng: Rng) -> DiceRoll:
                return roll_dice(text, rng, self.key)


        SYSTEM = ToySystem()
        ''',
    "systems/juguete/cards.toml": '''
        [[card]]
        id = "juguete-peluche"
        title = "Peluches"
        keywords = ["peluche"]
        source = "Manual del juguete"
        text = "Un peluche abraza a quien lo pide."
        ''',
    "templates/juguete/saludo.txt": "🧸 ¡Hola, {{ name }}!",
    "templates/juguete/saludo.html": "🧸 ¡Hola, <b>{{ name }}</b>!",
    "templates/juguete/orden.txt": "🧸 Orden: {{ order|join(', ') }}.",
    "templates/juguete/sin_nombre.txt": "🧸 ¿A quién saludo?",
    "bot/games/juguete/__init__.py": '''
        """The toy game: one command, sorted turns, a bear among the conditions."""

        from pathlib import Path

        from bot.core.api import Game
        from bot.games.juguete.combat import ToyCombat
        from bot.games.juguete.commands import COMMANDS
        from bot.games.juguete.sheet import SHEET_FIELDS
        from systems.juguete import SYSTEM

        __all__ = ["GAME"]

        GAME = Game("juguete", SYSTEM, ToyCombat(), SHEET_FIELDS, COMMANDS,
                    templates=Path(__file__).resolve().parents[3] / "templates" / "juguete",
                    cards=Path(__file__).resolve().parents[3] / "systems" / "juguete" / "cards.toml")
        ''',
    "bot/games/juguete/commands.py": '''
        """The toy game's one command."""

        from bot.core.api import Arg, CommandGroup, Context, Parsed, Refusal, name_key

        COMMANDS = CommandGroup()
        NAME = Arg("NOMBRE")


        @COMMANDS.takes("saluda", "greet", spec=(NAME,))
        def greet(ctx: Context, got: Parsed) -> None:
            ctx.room.characters.clear()  # a change the refusal below must undo
            ctx.announce("juguete/orden", order=[])
            if name_key(got.text(NAME.shown)) == "nadie":
                raise Refusal("juguete/sin_nombre")
            ctx.reply("juguete/saludo", name=got.text(NAME.shown))
        ''',
    "bot/games/juguete/combat.py": '''
        """The toy game's combat hooks: turns in alphabetical order."""

        from bot.core.api import Character, Combat, CombatRules, Context, Vitality, place_late


        class ToyCombat(CombatRules):
            def initiative(self, ctx: Context, combat: Combat) -> None:
                combat.order = sorted(combat.order)
                ctx.announce("juguete/orden", order=combat.order)

            def new_round(self, ctx: Context, combat: Combat) -> None:
                return None

            def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
                return None

            def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
                return ["🧸"]

            def vitality(self, ctx: Context, character: Character) -> Vitality:
                return "up"

            def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
                place_late(combat, character.name, sorted([*combat.order, character.name]))
                return None

            def leave(self, ctx: Context, combat: Combat, name: str) -> None:
                return None
        ''',
    "bot/games/juguete/sheet.py": '''
        """The toy game's sheet: hugs."""

        SHEET_FIELDS: dict[str, type] = {"abrazos": int}
        ''',
    "bot/games/juguete/state.py": '''
        """The toy game keeps no combat data of its own: its accessor reads none."""

        from dataclasses import dataclass

        from bot.core.api import Combat


        @dataclass
        class ToyState:
            combat: Combat

            @classmethod
            def of(cls, combat: Combat) -> "ToyState":
                return cls(combat)
        ''',
}
"""Every file of the toy game, in its three folders (docs/architecture.md, "Adding a game")."""
TOY_FOLDERS = ("systems/juguete/", "templates/juguete/", "bot/games/juguete/")


def with_toy(registry: str) -> str:
    """The registry's source with the toy added as docs/architecture.md says: its entry."""
    entry = 'GameModule("sombra", "bot.games.sombra"),\n'
    return registry.replace(entry, entry + '    GameModule("juguete", "bot.games.juguete"),\n')


@pytest.fixture
def toy_games(tmp_path: Path) -> Iterator[GameRegistry]:
    """The toy game written in a temporary folder laid out as the repository is, found there by
    ``bot.games`` and ``systems``, and the registry with its one line more."""
    for name, text in TOY_FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    saved = {package: list(package.__path__) for package in (bot.games, systems)}
    bot.games.__path__.append(str(tmp_path / "bot" / "games"))
    systems.__path__.append(str(tmp_path / "systems"))
    importlib.invalidate_caches()
    registry = (ROOT / "bot" / "games" / "__init__.py").read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(compile(with_toy(registry), "bot/games/__init__.py", "exec"), namespace)
    try:
        games = namespace["GAMES"]
        assert isinstance(games, GameRegistry)
        yield games
    finally:
        for package, path in saved.items():
            package.__path__[:] = path
        for name in [n for n in sys.modules if n.startswith(("bot.games.juguete", "systems.juguete"))]:
            del sys.modules[name]
        for package in (bot.games, systems):
            if hasattr(package, "juguete"):
                delattr(package, "juguete")


@pytest.fixture
def toy_table(toy_games: GameRegistry) -> Table:
    settings = TableSettings(RoomSettings(system="juguete", gms=(GM,)))
    return Table(Store(), settings, random.Random(1), games=toy_games)


def test_the_toy_game_lives_in_its_own_folders_and_one_registry_line(toy_games: GameRegistry, tmp_path: Path) -> None:
    registry = (ROOT / "bot" / "games" / "__init__.py").read_text(encoding="utf-8").splitlines()
    changed = [line for line in difflib.ndiff(registry, with_toy("\n".join(registry) + "\n").splitlines())
               if line[:1] in "+-"]
    assert changed == ['+     GameModule("juguete", "bot.games.juguete"),']
    assert all(name.startswith(TOY_FOLDERS) for name in TOY_FILES)
    assert "juguete" in toy_games and toy_games["juguete"].commands.find("saluda") is not None
    assert [game.key for game in toy_games][:-1] == [game.key for game in GAMES]
    assert core_reach(tmp_path / "bot" / "games", tmp_path) == []  # the core only through bot.core.api
    command = toy_games["juguete"].commands.find("saluda")
    assert command is not None and command.run.__qualname__.startswith("CommandGroup.takes")


def test_the_toy_game_command_answers_with_its_own_template(toy_table: Table) -> None:
    t = play("@ana:local: !saluda <Ana>\n@ana:local: !greet Bruno", table=toy_table)
    assert t.texts(1) == ["🧸 Orden: .", "🧸 ¡Hola, <Ana>!"]
    (answer,) = t.messages(1)  # one room message per event (issue 30), its parts joined by a line break
    assert answer["html"] == "🧸 Orden: .<br/>🧸 ¡Hola, <b>&lt;Ana&gt;</b>!"
    assert t.texts(2)[1] == "🧸 ¡Hola, Bruno!"


def test_a_refusal_answers_once_and_changes_nothing(toy_table: Table) -> None:
    t = play("@ana:local: !pj Ana\n@ana:local: !saluda Nadie", table=toy_table)
    assert t.text(2) == "🧸 ¿A quién saludo?"
    assert toy_table.room("!console:local").character_names() == ["Ana"]


def test_the_toy_game_brings_help_rules_sheet_and_initiative(toy_table: Table) -> None:
    t: Transcript = play(
        "@gm:local: !ayuda\n@gm:local: !regla peluche\n@gm:local: !pj Zoe @zoe:local\n"
        "@gm:local: !ficha Zoe abrazos 3\n@gm:local: !combate\n@gm:local: !turnos Zoe Ana\n"
        "@gm:local: !iniciativa reiniciar\n@gm:local: !estado", table=toy_table)
    assert "!saluda" in t.text(1) and "sistema: juguete" in t.text(1)
    assert "Peluches" in t.text(2) and "Manual del juguete" in t.text(2)
    assert t.acked(4) and toy_table.room("!console:local").characters["zoe"].sheet == {"abrazos": 3}
    assert any(text == "🧸 Orden: Ana, Zoe." for text in t.texts(7))
    assert "🧸" in t.text(8)


def test_help_on_a_toy_command_shows_its_usage_and_the_topics(toy_table: Table) -> None:
    body = play("@ana:local: !ayuda saluda", table=toy_table).text(1)
    assert body.startswith("📖 !saluda / !greet NOMBRE\n") and "!ayuda tiradas" in body


def test_other_rooms_keep_their_games_and_the_toy_is_chosen_by_key(toy_table: Table) -> None:
    t = play("@gm:local: !sistema savage\n@gm:local: !saluda Ana\n@gm:local: !sistema juguete\n"
             "@gm:local: !saluda Ana", table=toy_table)
    assert "comando «saluda»" in t.text(2)
    assert t.texts(4) == ["🧸 Orden: .", "🧸 ¡Hola, Ana!"]


def test_the_shipped_registry_does_not_know_the_toy() -> None:
    assert "juguete" not in GAMES
    t = play("@gm:local: !sistema juguete")
    assert "juguete" in t.text(1) and "generic" in t.text(1)
