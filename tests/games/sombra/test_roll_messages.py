"""Sistema Sombra's rolls as the table shows them: the rendered messages and ``rolbot roll`` (the resolver itself
is tested in ``tests/systems/sombra/test_resolver.py``).
"""

from __future__ import annotations

import random

import pytest

from bot.core.render import Renderer
from bot.games import GAMES
from systems.base import DiceRoll
from systems.dice import DiceError
from systems.sombra.resolver import SYSTEM, SombraInitiative
from tests.scripted import faces
from tests.systems.sombra.test_resolver import BAD, SAMPLES, roll


def test_registry_and_generic_fallback() -> None:
    assert GAMES["sombra"].system is SYSTEM
    result = SYSTEM.roll("2d6+1 hola", faces(6, 3, 4))
    assert isinstance(result, DiceRoll) and result.total == 8
    assert result.as_json()["system"] == "sombra"
    plain = SYSTEM.roll("3d10 (chequeo)", faces(10, 1, 2, 3))
    assert isinstance(plain, DiceRoll) and plain.result.comment == "chequeo"


@pytest.mark.parametrize(("text", "code"), BAD.items())
def test_bad_input_raises_dice_error(text: str, code: str) -> None:
    with pytest.raises(DiceError) as err:
        SYSTEM.roll(text, random.Random(1))
    assert err.value.code == code
    line = Renderer().text("dice_error", code=err.value.code, params=err.value.params)
    assert line.startswith("⚠️") and "\n" not in line and "no válida" not in line


@pytest.mark.parametrize(("text", "dice"), SAMPLES)
def test_every_kind_renders(text: str, dice: tuple[int, int, int]) -> None:
    result = roll(text, *dice)
    message = Renderer().render(result.template, r=result)
    assert message.html and message.body[0] in "🎲💥🎯"
    assert len(message.body.splitlines()) <= 2


def test_levels_render_in_spanish() -> None:
    names = {"critical": "crítico", "success": "éxito medio", "low_success": "éxito bajo",
             "low_failure": "fracaso bajo", "failure": "fracaso medio", "fumble": "pifia"}
    samples = {"critical": (5, 5, 5), "success": (2, 5, 6), "low_success": (1, 2, 3),
               "low_failure": (1, 2, 3), "failure": (6, 7, 8), "fumble": (10, 10, 10)}
    targets = {"low_failure": 4}
    for level, dice in samples.items():
        result = roll(f"3d10 vs {targets.get(level, 15)}", *dice)
        assert result.outcome == level
        assert names[level] in Renderer().render(result.template, r=result).body


def test_damage_line_in_check() -> None:
    result = roll("3d10 vs 20 daño II+2", 2, 5, 6)
    body = Renderer().render(result.template, r=result).body
    assert body.splitlines()[1].startswith("💥 Daño II+2") and "brazo izquierdo (5) 10" in body


def test_initiative_and_tie_render() -> None:
    result = SYSTEM.roll("iniciativa Ana 5 5, Bruno 5 5", random.Random(1))
    assert isinstance(result, SombraInitiative)
    body = Renderer().render(result.template, r=result).body
    assert "Ana" in body and "empate" in body


def test_html_escapes_user_text() -> None:
    evil = "<script>alert(1)</script>"
    for text in (f"3d10 vs 14 daño II {evil}", f"daño II {evil}", f"localizacion {evil}"):
        result = roll(text, 2, 5, 6)
        html = Renderer().render(result.template, r=result).html
        assert "<script>" not in html and "&lt;script&gt;" in html
    initiative = SYSTEM.roll("iniciativa <b>Ana</b> 5 5", random.Random(1))
    assert "&lt;b&gt;Ana" in Renderer().render(initiative.template, r=initiative).html
