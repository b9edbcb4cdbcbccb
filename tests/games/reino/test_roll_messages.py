"""El Reino de la Sombra's rolls as the table shows them: the rendered messages and ``rolbot roll`` (the resolver itself
is tested in ``tests/systems/reino/test_resolver.py``).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest

from bot.core.render import Renderer
from systems.dice import DiceError
from systems.reino.resolver import SYSTEM
from tests.systems.reino.test_resolver import EVERY_KIND, ROOT, roll

RENDERER = Renderer()


@pytest.mark.parametrize("text", ["2d6 vs 7", "ataque +5", "daño 1d8 x 20", "prueba +99999", "salvación astucia"])
def test_reino_errors_render_one_spanish_line(text: str) -> None:
    with pytest.raises(DiceError) as info:
        SYSTEM.roll(text, random.Random(1))
    line = RENDERER.text("dice_error", code=info.value.code, params=info.value.params)
    assert line.startswith("⚠️") and "\n" not in line and "no válida" not in line


@pytest.mark.parametrize(("text", "template", "word"), EVERY_KIND)
def test_every_outcome_kind_renders(text: str, template: str, word: str) -> None:
    for seed in range(5):
        result = SYSTEM.roll(text + " <b>ojo</b> & co", random.Random(seed))
        assert result.template == template
        message = RENDERER.render(result.template, r=result)
        assert word in message.body
        assert str(result.total) in message.body
        assert "<b>ojo</b>" in message.body
        assert "&lt;b&gt;ojo&lt;/b&gt; &amp; co" in message.html
        assert "<b>ojo</b>" not in message.html
        assert message.body.count("\n") <= 1


@pytest.mark.parametrize(
    ("text", "face", "words"),
    [
        ("d20+3 vs 15", 1, "fallo (1 natural)"),
        ("d20-9 vs 15", 20, "éxito (20 natural)"),
        ("ataque +5 vs 14", 9, "impacta"),
        ("ataque +5 vs 14", 8, "falla"),
        ("ataque +5 vs 14", 20, "crítico"),
        ("moribundo +0", 1, "muere"),
        ("moribundo +0", 12, "sigue Moribundo"),
        ("moribundo +0", 20, "se estabiliza"),
        ("estabilizar +0", 15, "estabilizado"),
        ("consciencia +0", 3, "sigue inconsciente"),
    ],
)
def test_outcome_words(text: str, face: int, words: str) -> None:
    message = RENDERER.render(roll(text, face).template, r=roll(text, face))
    assert words in message.body and words in re.sub(r"<[^>]+>", "", message.html)


def test_opposed_words() -> None:
    render = RENDERER.render
    assert "gana el primero" in render("reino/opposed", r=roll("enfrentada +3 +1", 10, 5)).body
    assert "gana el segundo" in render("reino/opposed", r=roll("enfrentada +3 +1", 5, 10)).body
    assert "empate" in render("reino/opposed", r=roll("enfrentada +3 +1", 5, 7)).body


def test_check_body_reads_like_a_chat_line() -> None:
    body = RENDERER.render("reino/check", r=roll("d20+3 vs 15", 12)).body
    assert body == "🎲 Prueba d20+3 vs CD 15: [12] + 3 = 15 → éxito"


def test_cli_prints_the_contract() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "roll", "--system", "reino", "--seed", "3", "--count", "5", "--json", "d20+2 vs 12"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 5
    for row in rows:
        assert row["system"] == "reino" and row["total"] == row["dice"][0] + 2
        natural = row["dice"][0]
        assert row["outcome"] == ("success" if natural == 20 or (natural != 1 and row["total"] >= 12) else "failure")


def test_cli_bad_input_exits_2_with_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "roll", "--system", "reino", "ataque +5"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("⚠️") and proc.stderr.strip().count("\n") == 0
