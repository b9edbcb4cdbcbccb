"""Issue 31 slip 1 for Reino: ``!daño NOMBRE N`` when N ends a character's name (``Orco 1``): the name
is the whole text; no amount given rolls the actor's blow on it, or says the amount is missing."""

from __future__ import annotations

from tests.transcript import assert_refused, make_table, play

FIGHT = """
@gm:local: !pj Kira @ana:local
@gm:local: !ficha Kira ataque 30 defensa 10 pr 20 umbral 30 arma_dano 1d8
@gm:local: !pnj Orco 1
@gm:local: !ficha Orco 1 defensa 5 pr 20 umbral 30
@gm:local: !pnj Orco 2
@gm:local: !ficha Orco 2 defensa 5 pr 20 umbral 30
@gm:local: !combate
@gm:local: !turnos Kira, Orco 1, Orco 2
"""
FIRST = 9


def test_issue31_slip1_a_name_alone_says_the_points_are_missing() -> None:
    """Issue 31 slip 1: the house rules (003) are silent on the command's words. ``!daño Orco 1`` names Orco 1
    (a trailing number that completes a name is the name); with no blow owed on it the GM is told the points
    are missing, with the usage; nothing changes."""
    assert_refused(FIGHT, "@gm:local: !daño Orco 1", "Falta el daño contra Orco 1: !daño Orco 1 PUNTOS",
                   system="reino")


def test_issue31_slip1_a_number_after_the_whole_name_is_the_points() -> None:
    """Issue 31 slip 1: ``!daño Orco 1 5`` is 5 points to Orco 1 (003: the damage comes off its PR), none
    to Orco 2."""
    table = make_table(system="reino")
    play(FIGHT + "@gm:local: !daño Orco 1 5", table)
    t = play(FIGHT + "@gm:local: !daño Orco 1 5\n@gm:local: !ficha Orco 1\n@gm:local: !ficha Orco 2", table)
    assert "PR 15" in t.text(FIRST + 1) and "PR 20" in t.text(FIRST + 2)


def test_issue31_slip1_a_name_alone_rolls_the_blow_owed_on_it() -> None:
    """Issue 31 slip 1, 003: «Cuando un ataque tiene éxito, se le causará al oponente una cantidad de daño»:
    Kira's hit on Orco 1 is owed; her ``!daño Orco 1`` rolls it as her plain ``!daño`` would."""
    table = make_table(system="reino", seed=3)
    t = play(FIGHT + "@ana:local: !ataque Orco 1\n@ana:local: !daño Orco 1\n@gm:local: !ficha Orco 1", table)
    # Ataque 30 + d20 5 = 35 vs Defensa 5: 003 «supera por 10 o más el valor de Defensa más la Reducción
    # de Daño» (5 + 0 + 10 = 15): a critical, ×2 for a weapon with no Crítico del arma.
    assert "¡golpe crítico!" in t.texts(FIRST)[0] and t.full_rolls(FIRST)[0]["total"] == 35
    # Her Daño del arma 1d8: 5, a one-handed weapon's critical doubles it: 10; PR 20 − 10 = 10.
    assert t.texts(FIRST + 1) == ["🗡️ Kira hiere a Orco 1. 🎲 Daño 1d8 · crítico ×2: ([5]) × 2 = 10",
                                  "🩸 Orco 1 recibe 10 de daño."]
    assert "PR 10," in t.text(FIRST + 2)
