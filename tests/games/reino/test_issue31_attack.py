"""Issue 31, items 15 and 16 for Reino: a typed modifier adds to the sheet's Ataque, and the GM who names
the acting character before its target attacks that target, never the attacker itself."""

from __future__ import annotations

from tests.transcript import assert_refused, make_table, play

FIGHT = """
@gm:local: !pj Kira @ana:local
@gm:local: !ficha Kira defensa 10 pr 20 umbral 30
@gm:local: !pnj Jefe
@gm:local: !ficha Jefe ataque 5 defensa 30 pr 20 umbral 30 secuaz no
@gm:local: !pnj Orco
@gm:local: !ficha Orco defensa 30 pr 20 umbral 30 ataque 3 secuaz no
@gm:local: !combate
@gm:local: !turnos Jefe, Orco, Kira
"""


def test_a_typed_modifier_adds_to_the_sheets_attack() -> None:
    """003: «El valor de Ataque de un personaje es el que se suma a la tirada que realiza para determinar si
    impacta a un oponente» and «Suma al resultado cualquier modificador pertinente»: both are added, so
    `!ataque Kira +2` with Ataque 5 is d20+7."""
    t = play(FIGHT + "@gm:local: !ataque Kira +2\n", table=make_table(system="reino", seed=3))
    roll = t.full_rolls(9)[0]
    assert roll["modifier"] == 7 and roll["total"] == roll["dice"][0] + 7, roll


def test_the_gm_naming_the_actor_first_attacks_the_target_named_after() -> None:
    """The house rules (003) are silent on who a named attacker is; the published game has a combatant attack
    another one on its turn: on Orco's turn the GM's `!ataque Orco Kira` is Orco attacking Kira."""
    t = play(FIGHT + "@gm:local: !siguiente\n@gm:local: !ataque Orco Kira\n@gm:local: !siguiente\n",
             table=make_table(system="reino", seed=3))
    assert not t.texts(10)  # a miss (a ✅), held until the turn passes (issue 30)
    answer = t.texts(11)[0]
    assert answer.startswith("⚔️ Orco ataca a Kira.") and "(Kira)" not in answer, answer
    assert t.full_rolls(11)[0]["modifier"] == 3, t.full_rolls(11)


def test_attacking_oneself_is_refused_with_a_hint() -> None:
    """The house rules (003) are silent; in the published game nobody attacks itself: the GM's `!ataque Jefe`
    on Jefe's turn is refused, saying to name the target, and spends nothing."""
    assert_refused(FIGHT, "@gm:local: !ataque Jefe", "!ataque OBJETIVO", system="reino")
    assert_refused(FIGHT, "@gm:local: !ataque Jefe +2 por la espalda", "Jefe no puede atacarse", system="reino")
