"""Stormbringer's rolls as the table shows them: the rendered messages and ``rolbot roll`` (the resolver itself
is tested in ``tests/systems/stormbringer/test_resolver.py``).
"""

from __future__ import annotations

import json
import random

import pytest

from bot.core.render import Renderer
from systems.dice import DiceError
from systems.stormbringer.resolver import SYSTEM
from tests.systems.stormbringer.test_resolver import EVERY_KIND, roll

RENDERER = Renderer()


def test_00_is_read_as_100_and_shown_as_00():
    result = roll("d100 vs 150", (100, 100))
    assert result.as_json()["total"] == 100 and result.as_json()["outcome"] == "fumble"
    assert "[00]" in RENDERER.render(result.template, r=result).body


def test_attack_fumble_rolls_the_fumble_table():
    result = roll("ataque 60", (99, 100), (37, 100))
    data = result.as_json()
    assert data["outcome"] == "fumble" and data["fumble_table"] == 37 and data["dice"] == [99, 37]
    assert "Pifias en combate" in RENDERER.render(result.template, r=result).body


@pytest.mark.parametrize(
    "text, code",
    [
        ("ataque", "stormbringer.missing_number"),
        ("parada x2", "stormbringer.missing_number"),
        ("ataque 5000", "stormbringer.number_too_big"),
        ("ataque 50 +1000", "stormbringer.modifier_too_big"),
        ("parada 40 x11", "stormbringer.too_many_actions"),
        ("parada 40 x0", "stormbringer.too_many_actions"),
        ("2d6 vs 7", "stormbringer.check_needs_d100"),
        ("d100+5 vs 7", "stormbringer.check_needs_d100"),
        ("vs", "stormbringer.missing_number"),
        ("daño", "stormbringer.missing_damage"),
        ("daño 1d8 grave", "stormbringer.missing_number"),
        ("iniciativa 12", "stormbringer.missing_number"),
        ("experiencia 50 int 500", "stormbringer.number_too_big"),
        ("ataque 50" + "9" * 3000, "too_long"),
        ("hola", "not_an_expression"),
        ("d100 vs 46x", "stormbringer.missing_number"),
        ("daño 1d8 bf", "not_an_expression"),
    ],
)
def test_bad_input_codes(text, code):
    with pytest.raises(DiceError) as err:
        SYSTEM.roll(text, random.Random(1))
    assert err.value.code == code
    message = RENDERER.text("dice_error", code=err.value.code, params=err.value.params)
    assert message.startswith("⚠️") and "\n" not in message


@pytest.mark.parametrize("text, kind", EVERY_KIND)
@pytest.mark.parametrize("seed", range(12))
def test_every_kind_honours_the_contract_and_renders(text, kind, seed):
    result = SYSTEM.roll(f"{text} (<b>Ana</b> & co)", random.Random(seed))
    data = json.loads(json.dumps(result.as_json()))
    assert data["system"] == "stormbringer" and data["kind"] == kind
    assert isinstance(data["total"], int) and all(isinstance(d, int) for d in data["dice"])
    if kind != "dice":
        assert isinstance(data["outcome"], str) and data["comment"] == "<b>Ana</b> & co"
    message = RENDERER.render(result.template, r=result)
    assert "<b>Ana</b>" in message.body and "<b>Ana</b>" not in message.html
    assert "&lt;b&gt;Ana&lt;/b&gt; &amp; co" in message.html
    assert 0 < len(message.body.splitlines()) <= 3


@pytest.mark.parametrize("face", [1, 4, 5, 46, 47, 99, 100])
def test_check_message_names_the_outcome(face):
    words = {"critical": "crítico", "success": "éxito", "failure": "fallo", "fumble": "pifia"}
    result = roll("d100 vs 46", (face, 100))
    assert words[result.roll.outcome] in RENDERER.render(result.template, r=result).body


def test_failed_parry_message_forbids_dodging_that_blow():
    result = roll("parada 40", (60, 100))
    assert "Ya no esquiva ni para en este asalto" in RENDERER.render(result.template, r=result).body
    arrow = roll("parada 40 flecha", (10, 100))
    assert "escudo" in RENDERER.render(arrow.template, r=arrow).body
