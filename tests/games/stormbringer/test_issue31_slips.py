"""Issue 31 slip 1 for Stormbringer (a guard: it already held): in ``!daño Orco 1`` the trailing number
ends the name Orco 1, so with no blow owed on it the damage is missing; ``!daño Orco 1 5`` is 5 points."""

from __future__ import annotations

from tests.transcript import assert_refused, make_table, play

NPCS = """
@gm:local: !pnj Orco 1
@gm:local: !ficha Orco 1 PV 12
@gm:local: !pnj Orco 2
@gm:local: !ficha Orco 2 PV 12
"""


def test_issue31_slip1_a_name_alone_says_the_damage_is_missing() -> None:
    """Issue 31 slip 1: 002 is silent on the command's words; the longest name is read, and with no blow
    owed on Orco 1 the answer asks for the damage; nothing changes."""
    assert_refused(NPCS, "@gm:local: !daño Orco 1", "No hay ningún golpe pendiente contra Orco 1: di el daño",
                   system="stormbringer")


def test_issue31_slip1_a_number_after_the_whole_name_is_the_damage() -> None:
    """Issue 31 slip 1: ``!daño Orco 1 5`` takes 5 PV from Orco 1 (12 − 5 = 7), none from Orco 2."""
    table = make_table(system="stormbringer")
    t = play(NPCS + "@gm:local: !daño Orco 1 5\n@gm:local: !ficha Orco 1\n@gm:local: !ficha Orco 2", table)
    assert "Orco 1 · 🩸 Daño 5 = 5 → pierde 5 PV" in t.texts(5)[0]
    assert t.text(6).endswith("PV 7") and t.text(7).endswith("PV 12")
