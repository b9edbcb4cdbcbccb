"""Issue 31 slip 1 for Sistema Sombra (a guard: it already held): in ``!daño Orco 1`` the trailing number
ends the name Orco 1, so the damage is missing; ``!daño Orco 1 5`` is damage of type V to Orco 1."""

from __future__ import annotations

from tests.games.sombra.test_table import sombra_table
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


# Slip 3: ``!tiro disparo`` with no ``disparo`` on the sheet.

SHOOTER = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 vit 6 {skills}
"""


def test_issue31_slip3_a_plain_disparo_roll_uses_the_sheets_firearm() -> None:
    """Issue 31 slip 3, 004 names each firearm's skill («Pistola», «Fusil/Subfusil», «Ametralladora») and no
    generic one: ``!tiro disparo`` with ``fusil 17`` and no ``disparo`` rolls Fusil 17, as ``!ataque X
    disparo`` does (item 20). 3d10 2, 9, 8 = 19 vs 17: over the skill, a failure."""
    table = sombra_table((2, 9, 8))
    t = play(SHOOTER.format(skills="fusil 17") + "@ana:local: !tiro disparo\n", table)
    assert t.text(3).startswith("McAvoy · Fusil 17 · 🎲 3d10 vs 17: [2, 9, 8] = 19 → fracaso")


def test_issue31_slip3_with_several_firearms_the_roll_asks_which() -> None:
    """Issue 31 slip 3: with ``fusil 17`` and ``pistola 12`` (and no ``disparo``) the roll asks which weapon,
    naming both and how to roll one; nothing changes."""
    assert_refused(SHOOTER.format(skills="fusil 17 pistola 12"), "@ana:local: !tiro disparo",
                   "¿Con qué arma dispara McAvoy? Tiene fusil 17, pistola 12: !tiro fusil", system="sombra")


def test_issue31_slip3_a_sheets_own_disparo_is_rolled() -> None:
    """Issue 31 slip 3: a sheet with its own ``disparo 14`` rolls it, whatever else it has."""
    table = sombra_table((2, 3, 4))
    t = play(SHOOTER.format(skills="disparo 14 fusil 17") + "@ana:local: !tiro disparo\n", table)
    assert t.text(3).startswith("McAvoy · Disparo 14 · 🎲 3d10 vs 14: [2, 3, 4] = 9")
