"""Issue 30 (a quiet table): a Sombra hit is at most three phone lines in the room (the attack, the
dice and outcome, the wound's place, level and effect); the arithmetic (total, modifiers, damage
against RES) stays for ``!detalle`` and the GMs' view."""

from __future__ import annotations

import textwrap

from tests.games.sombra.test_table import CAST, sombra_table
from tests.transcript import play

FIRST = 7
"""The first line after CAST (6 lines)."""


def _phone_lines(text: str) -> int:
    return sum(max(1, len(textwrap.wrap(part, 38))) for part in text.split("\n"))


def test_a_hit_between_players_is_three_phone_lines_without_the_arithmetic() -> None:
    table = sombra_table((3, 2, 4, 2, 3, 5))
    t = play(CAST + "@ana:local: !ataque Bruno\n@ana:local: !ataque Bruno\n", table)
    # Out of a fight every roll explains its dice (in one, the first only): the common case is without it.
    hit = t.text(FIRST + 1).replace(" (mayor 5 · loc. 3 · menor 2)", "")
    assert hit.splitlines() == ["⚔️ McAvoy → Bruno, disparo 16: 🎲 3d10 vs 16: [2, 3, 5] → éxito medio",
                                "🩸 Pecho: herida leve; acciones +3."], hit   # the attack and its dice, one line
    assert _phone_lines(hit) <= 3 and "RES" not in hit and " = " not in hit


def test_the_gms_copy_of_a_hit_on_an_npc_keeps_the_numbers() -> None:
    table = sombra_table((3, 2, 4, 2, 3, 5))
    t = play(CAST + "@ana:local: !ataque Hans\n@ana:local: !ataque Hans\n", table)
    hit = t.text(FIRST + 1).replace(" (mayor 5 · loc. 3 · menor 2)", "")
    assert _phone_lines(hit) <= 3 and "RES" not in hit, hit
    assert "contra RES 4" in t.gm_text(FIRST + 1)


def test_a_gms_damage_roll_is_three_phone_lines() -> None:
    table = sombra_table((4, 9, 5))
    t = play(CAST + "@gm:local: !daño Bruno III\n", table)
    damage = t.text(FIRST)
    assert damage.splitlines()[0] == "💥 Daño III a Bruno: [4, 9, 5]", damage
    assert _phone_lines(damage) <= 3 and "RES" not in damage
