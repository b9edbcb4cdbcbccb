"""Issue 31 slip 1 for Sistema Sombra (a guard: it already held): in ``!daño Orco 1`` the trailing number
ends the name Orco 1, so the damage is missing; ``!daño Orco 1 5`` is damage of type V to Orco 1."""

from __future__ import annotations

from tests.transcript import assert_refused, make_table, play

NPCS = """
@gm:local: !pnj Orco 1
@gm:local: !ficha Orco 1 RES 10
@gm:local: !pnj Orco 2
@gm:local: !ficha Orco 2 RES 10
"""


def test_issue31_slip1_a_name_alone_gets_the_usage() -> None:
    """Issue 31 slip 1: 004 is silent on the command's words; the longest name is read, and with no damage
    given the usage shows both ways to give it; nothing changes."""
    assert_refused(NPCS, "@gm:local: !daño Orco 1", "!daño NOMBRE TIPO[+N]", system="sombra")


def test_issue31_slip1_a_number_after_the_whole_name_is_the_damage() -> None:
    """Issue 31 slip 1: ``!daño Orco 1 5`` rolls damage of type V against Orco 1 only."""
    table = make_table(system="sombra", seed=1)
    t = play(NPCS + "@gm:local: !daño Orco 1 5\n@gm:local: !heridas Orco 2", table)
    assert t.texts(5)[0].startswith("💥 Daño a Orco 1: Daño V:")
    assert t.text(6) == "🩺 Orco 2: sin heridas."
