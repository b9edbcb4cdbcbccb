"""Issue 30, item 1 for Reino: a round's dying saves are one short line each, and a damage roll's effect line
does not repeat the total the roll just showed."""

from __future__ import annotations

from tests.transcript import make_table, play

PHONE = 38
FIGHT = """
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana pr 20 umbral 30 fortaleza 2
@gm:local: !pnj Orco
@gm:local: !ficha Orco pr 4 umbral 5
@gm:local: !pnj Trasgo
@gm:local: !ficha Trasgo pr 4 umbral 5
@gm:local: !combate
@gm:local: !turnos Ana, Orco, Trasgo
@gm:local: !daño Ana 20
@gm:local: !daño Orco 30
@gm:local: !daño Trasgo 30
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
"""


def _saves(texts: list[str]) -> list[str]:
    return [line for m in texts for line in m.split("\n") if line.startswith("🩸 ") and " vs CD " in line]


def test_dying_saves_are_one_line_each_and_the_explanation_comes_once_a_fight() -> None:
    t = play(FIGHT, table=make_table(system="reino", seed=5))
    first_round, next_round = _saves(t.texts(12)), _saves(t.texts(13))
    assert first_round == ["🩸 Ana Moribundo, Fortaleza: [13] + 2 = 15 vs CD 10 → sigue",
                           "🩸 Orco: 15 vs CD 10 → sigue", "🩸 Trasgo: 16 vs CD 10 → sigue"], first_round
    assert next_round[0] == "🩸 Ana: [19] + 2 = 21 vs CD 11 → se estabiliza (Inconsciente)", next_round
    assert all(len(line) <= PHONE for line in first_round[1:] + next_round[1:]), next_round


def test_a_rolled_damage_says_the_effect_without_repeating_the_total() -> None:
    t = play("""
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana fue 2 Daño del arma 1d8
@gm:local: !pnj Orco
@gm:local: !ficha Orco pr 4 umbral 5
@gm:local: !combate
@gm:local: !turnos Ana, Orco
@ana:local: !ataque Orco
@ana:local: !daño
""", table=make_table(system="reino", seed=10))
    room = [m for n in (8, 9) for m in t.texts(n) if "🩸" in m]
    assert room, [t.texts(8), t.texts(9)]
    effect = room[-1].split("\n")[-1]
    assert effect.startswith("🩸 Orco") and "recibe" not in effect and len(effect) <= PHONE, effect


TWO_HITS = """
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana ataque 30 fue 2 Daño del arma 1d8
@gm:local: !pnj Orco
@gm:local: !ficha Orco pr 40 umbral 50 defensa 10 ataque 30 Daño del arma 1d6 secuaz no
@gm:local: !combate
@gm:local: !turnos Ana, Orco
@ana:local: !ataque Orco
@ana:local: !daño
@ana:local: !siguiente
@gm:local: !ataque Ana
"""


def test_the_pending_damage_and_the_critical_are_explained_once_a_fight() -> None:
    t = play(TWO_HITS, table=make_table(system="reino", seed=10))
    first, second = t.text(7), t.text(10)
    assert "Daño pendiente: Ana lo tira con !daño" in first and "Orco ataca a Ana" in second, first
    assert "!daño" not in second and "\n" not in second, second
    critical = [m for n in range(7, 11) for m in t.texts(n) if "¡golpe crítico!" in m]
    assert len(critical) == 2 and ["multiplica el daño" in m for m in critical] == [True, False], critical


def test_an_action_point_that_buys_a_hit_says_it_in_three_phone_lines() -> None:
    t = play("""
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana ataque -20 pa 2 fue 2 Daño del arma 1d8
@gm:local: !pnj Orco
@gm:local: !ficha Orco pr 40 umbral 50 defensa 25
@gm:local: !combate
@gm:local: !turnos Ana, Orco
@ana:local: !ataque Orco
@ana:local: !pa éxito
""", table=make_table(system="reino", seed=10))
    bought = t.text(8)
    assert bought.startswith("✨ Ana gasta un Punto de Acción: impacta a Orco por lo justo"), bought
    assert "daño con !daño" in bought and len(bought) <= 3 * PHONE, bought
