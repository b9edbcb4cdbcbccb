"""A game plugs in as one object: a toy game, built here from its own folder only, works at the table."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.core.combat import place_late
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.game import Game, GameRegistry, Vitality
from bot.core.settings import RoomSettings, TableSettings
from bot.core.state import Character, Combat
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from systems.base import DiceRoll, roll_dice
from systems.dice import Rng
from systems.refusal import Refusal
from tests.transcript import GM, Transcript, play


@dataclass(frozen=True)
class ToySystem:
    key: str = "juguete"
    name: str = "Juguete"

    def roll(self, text: str, rng: Rng) -> DiceRoll:
        return roll_dice(text, rng, self.key)


class ToyCombat:
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


def toy_game(folder: Path) -> Game:
    """Everything of the toy game lives in ``folder``: its messages, its rule cards, its commands."""
    (folder / "templates").mkdir()
    (folder / "templates" / "saludo.txt").write_text("🧸 ¡Hola, {{ name }}!", encoding="utf-8")
    (folder / "templates" / "saludo.html").write_text("🧸 ¡Hola, <b>{{ name }}</b>!", encoding="utf-8")
    (folder / "templates" / "orden.txt").write_text("🧸 Orden: {{ order|join(', ') }}.", encoding="utf-8")
    (folder / "templates" / "sin_nombre.txt").write_text("🧸 ¿A quién saludo?", encoding="utf-8")
    (folder / "cards.toml").write_text(
        '[[card]]\nid = "juguete-peluche"\ntitle = "Peluches"\nkeywords = ["peluche"]\n'
        'source = "Manual del juguete"\ntext = "Un peluche abraza a quien lo pide."\n', encoding="utf-8")
    commands = CommandGroup()

    @commands.command("saluda", "greet", usage="NOMBRE")
    def greet(ctx: Context, args: str) -> None:
        ctx.room.characters.clear()  # a change the refusal below must undo
        ctx.announce("juguete/orden", order=[])
        if not args.strip():
            raise Refusal("juguete/sin_nombre")
        ctx.reply("juguete/saludo", name=args.strip())

    return Game("juguete", ToySystem(), ToyCombat(), {"abrazos": int}, commands,
                templates=folder / "templates", cards=folder / "cards.toml")


@pytest.fixture
def toy_table(tmp_path: Path) -> Table:
    games: GameRegistry = GAMES.with_game(toy_game(tmp_path))
    settings = TableSettings(RoomSettings(system="juguete", gms=(GM,)))
    return Table(Store(), settings, random.Random(1), games=games)


def test_the_toy_game_command_answers_with_its_own_template(toy_table: Table) -> None:
    t = play("@ana:local: !saluda <Ana>\n@ana:local: !greet Bruno", table=toy_table)
    assert t.texts(1) == ["🧸 Orden: .", "🧸 ¡Hola, <Ana>!"]
    assert t.for_line(1)[1]["html"] == "🧸 ¡Hola, <b>&lt;Ana&gt;</b>!"
    assert t.texts(2)[1] == "🧸 ¡Hola, Bruno!"


def test_a_refusal_answers_once_and_changes_nothing(toy_table: Table) -> None:
    t = play("@ana:local: !pj Ana\n@ana:local: !saluda", table=toy_table)
    assert t.text(2) == "🧸 ¿A quién saludo?"
    assert toy_table.room("!console:local").character_names() == ["Ana"]


def test_the_toy_game_brings_help_rules_sheet_and_initiative(toy_table: Table) -> None:
    t: Transcript = play(
        "@gm:local: !ayuda\n@gm:local: !regla peluche\n@gm:local: !pj Zoe @zoe:local\n"
        "@gm:local: !ficha Zoe abrazos 3\n@gm:local: !combate\n@gm:local: !turnos Zoe Ana\n"
        "@gm:local: !iniciativa reiniciar\n@gm:local: !estado", table=toy_table)
    assert "!saluda" in t.text(1) and "sistema: juguete" in t.text(1)
    assert "Peluches" in t.text(2) and "Manual del juguete" in t.text(2)
    assert "abrazos" in t.text(4) and "3" in t.text(4)
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
