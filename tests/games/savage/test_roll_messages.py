"""Savage Worlds's rolls as the table shows them: the rendered messages and ``rolbot roll`` (the resolver itself
is tested in ``tests/systems/savage/test_resolver.py``).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from bot.core.render import Renderer
from systems.dice import DiceError
from systems.savage.resolver import SYSTEM
from tests.systems.savage.test_resolver import KIND_SAMPLES


@pytest.mark.parametrize("text,code", [
    ("d8 multi 4", "savage.bad_multi_action"),
    ("rof 7 d8", "savage.bad_rof"),
    ("rof d8", "savage.missing_rof"),
    ("rof 3 2d8", "savage.not_a_trait_die"),
    ("d8 cobertura rara", "savage.unknown_cover"),
    ("d8 distancia lejana", "savage.unknown_range"),
    ("d8 apuntado ojo", "savage.unknown_called_shot"),
    ("d8 apuntado objeto", "savage.called_shot_needs_penalty"),
    ("d8 heridas 4", "savage.bad_wounds"),
    ("d8 vs 99999999999", "savage.bad_tn"),
    ("d8 apoyo +9", "savage.bad_support"),
    ("daño d8 multi 2", "savage.keyword_not_here"),
    ("d8 recibe 2", "savage.keyword_not_here"),
    ("rof 3 d8 objetivos a x2, b x2", "savage.target_dice_mismatch"),
    ("daño", "not_an_expression"),
    ("d8x", "unexpected_text"),
    ("d8 " + "x" * 600, "too_long"),
])
def test_bad_input_raises_dice_error_with_code(text: str, code: str) -> None:
    with pytest.raises(DiceError) as err:
        SYSTEM.roll(text, random.Random(1))
    assert err.value.code == code
    line = Renderer().text("dice_error", code=err.value.code, params=err.value.params)
    assert "\n" not in line and line.startswith("⚠️") and "no válida" not in line


@pytest.mark.parametrize("kind", sorted(KIND_SAMPLES))
def test_every_template_renders_and_escapes_user_text(kind: str) -> None:
    renderer = Renderer()
    for seed in range(40):
        result = SYSTEM.roll(KIND_SAMPLES[kind], random.Random(seed))
        assert result.template == kind
        message = renderer.render(result.template, r=result)
        assert message.body and len(message.body.splitlines()) <= 3
        assert "<b>x</b>" not in message.html and "<i>A</i>" not in message.html
        assert "&lt;" in message.html


def test_cli_json_contract() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "--seed", "3", "--json", "d8+1 vs 6"],
        capture_output=True, text=True, check=True,
    ).stdout
    data = json.loads(out)
    assert {"system", "total", "dice", "outcome", "raises", "wild"} <= set(data)
    assert data["outcome"] in {"critical_failure", "failure", "success", "raise"}
    bad = subprocess.run([sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "d8 multi 9"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Multiacción" in bad.stderr


def test_an_out_of_range_modifier_after_the_target_is_refused() -> None:
    with pytest.raises(DiceError) as err:
        SYSTEM.roll("d8 vs 6 +5000", random.Random(1))
    assert err.value.code == "savage.bad_modifier"
    assert "5000" in Renderer().render("dice_error", code=err.value.code, params=err.value.params).body
