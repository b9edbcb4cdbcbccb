"""Issue 30, item 5: a GM's secret roll (``!tiro Voss Notar oculta``) never uses an NPC's action, nor
does revealing it later: the NPC still has its attack or its declared actions, in every game that
counts them."""

from __future__ import annotations

import pytest

from tests.transcript import make_table, play

SETUPS = {
    "savage": ("""
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 parada 6 bennies 3 vigor d8 espiritu d8
@gm:local: !pnj Voss
@gm:local: !ficha Voss dureza 7 parada 6 notar d8 pelear d10
@gm:local: !combate
@gm:local: !turnos Voss, Kira
""", "!tiro Voss notar oculta", "!tiro Voss pelear"),
    "stormbringer": ("""
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 14 ataque 85 parada 70 esquiva 40
@gm:local: !pnj Voss
@gm:local: !ficha Voss des 18 pv 13 ataque 60 parada 55 esquiva 30
@gm:local: !combate
@gm:local: !turnos Voss, Elric
""", "!tiro Voss ataque oculta", "!ataque Elric"),
    "reino": ("""
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana defensa 15 pr 20 pr_max 20 umbral 8 fortaleza 1 pa 2 iniciativa 2
@gm:local: !pnj Voss
@gm:local: !ficha Voss defensa 12 pr 10 umbral 6 ataque 4 percepcion 3
@gm:local: !combate
@gm:local: !turnos Voss, Ana
""", "!tiro Voss percepcion oculta", "!ataque Ana"),
}


@pytest.mark.parametrize("system", sorted(SETUPS))
def test_a_gms_secret_roll_and_its_reveal_leave_the_npcs_action(system: str) -> None:
    setup, secret, action = SETUPS[system]
    table = make_table(system=system, seed=9)
    play(setup, table=table)
    t = play(setup + f"@gm:local: {secret}\n@gm:local: !revelar\n@gm:local: {action}", table=table)
    n = setup.count("\n")
    hidden = "\n".join(t.texts(n, gm_copies=True))
    assert "oculta" in hidden, hidden
    assert "revelada" in "\n".join(t.texts(n + 1)), t.texts(n + 1)
    answer = "\n".join(t.texts(n + 2))
    assert "⛔" not in answer and "ya " not in answer, answer
