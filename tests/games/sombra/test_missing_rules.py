"""Sistema Sombra rules the table lacked (issue 22 item 22): pain resistance, a fumble jamming the
weapon, torpedoes against flotation, capsizing when turning, the engine and drifting, opportunity fire."""

from __future__ import annotations

from tests.games.sombra.test_table import CAST, sheet, sombra_table
from tests.transcript import assert_refused, play

FIGHT = CAST + "@gm:local: !ficha McAvoy fusil 18\n@gm:local: !combate\n@gm:local: !iniciativa McAvoy Hans\n"
TURN = 10
"""The first line of McAvoy's first turn in FIGHT."""
BOAT = CAST + "@gm:local: !pj Lancha\n@gm:local: !ficha Lancha tipo barco blindaje 4 flotabilidad 30 motor 5\n"
AFTER_BOAT = 9


def test_pain_resistance_ignores_vol_half_of_a_wounds_points() -> None:
    """«Resistir dolor (vol/2): capacidad de ignorar puntos de daño de heridas»: VOL 5 ignores 2, so 11
    points against RES 5 count as 9, a light wound (over 5, not over 10), not a serious one."""
    table = sombra_table()
    t = play(CAST + "@gm:local: !ficha McAvoy vol 5\n@gm:local: !daño McAvoy 11 pecho\n", table)
    assert "pecho: 11 −2 resistir dolor = 9 contra RES 5 → herida leve" in t.text(8)
    assert sheet(table, "McAvoy")["heridas"] == {"pecho": {"severity": "light", "damage": 9}}


def test_a_fumble_jams_the_firearm_until_it_is_cleared() -> None:
    """«Pifia: … El arma se encasquillará o estropeará»: the next shot is refused until
    !desencasquillar, which takes the turn's fire."""
    table = sombra_table((7, 7, 7, 1, 2, 3))
    t = play(FIGHT + """
@ana:local: !ataque Hans fusil
@ana:local: !ataque Hans fusil
@ana:local: !desencasquillar
@ana:local: !ataque Hans fusil
@ana:local: !siguiente
@gm:local: !siguiente
@ana:local: !ataque Hans fusil
""", table)
    assert "¡pifia!" in t.text(TURN) and "se encasquilla" in t.text(TURN)
    assert "encasquillada" in t.text(TURN + 1)
    assert "desencasquilla" in t.text(TURN + 2) and "encasquillada" not in sheet(table, "McAvoy")
    assert "ya ha disparado" in t.text(TURN + 3)
    assert "McAvoy → Hans, fusil 18" in t.text(TURN + 6)


def test_a_jam_refusal_changes_nothing() -> None:
    jammed = FIGHT + "@gm:local: !ficha McAvoy encasquillada 1\n"
    assert_refused(jammed, "@ana:local: !ataque Hans fusil", "encasquillada", system="sombra")


def test_torpedoes_and_bombs_count_double_against_flotation() -> None:
    """«los torpedos o bombas lanzados bajo la línea de flotación … cuentan el doble a la hora de restar
    flotabilidad»: 12 points through armour 4 leave 8 inside, and a torpedo takes 16 of flotation."""
    table = sombra_table()
    t = play(BOAT + "@gm:local: !daño Lancha 12 proa torpedo\n@gm:local: !daño Lancha 12 proa\n", table)
    assert "8 al interior" in t.text(AFTER_BOAT) and "flotabilidad 14" in t.text(AFTER_BOAT)
    assert "torpedo o bomba: cuenta doble" in t.text(AFTER_BOAT)
    # The proa lost 12//4 = 3 of its 4: armour 1 now, 11 inside.
    assert "flotabilidad 3" in t.text(AFTER_BOAT + 1)


def test_a_rolled_torpedo_says_so_and_doubles_too() -> None:
    """`!daño BARCO III torpedo`: 3d10 read as type III, the message names the torpedo."""
    table = sombra_table((3, 6, 4))
    t = play(BOAT + "@gm:local: !daño Lancha III torpedo\n", table)
    # III: 2x(6+3) = 18 at través (middle die 4) through armour 4: 14 inside, 28 of flotation: 30 - 28 = 2.
    assert "Daño III (torpedo o bomba): través (4) 18" in t.text(AFTER_BOAT)
    assert "14 al interior" in t.text(AFTER_BOAT) and "flotabilidad 2" in t.text(AFTER_BOAT)


def test_a_torpedo_against_a_person_is_refused() -> None:
    assert_refused(CAST, "@gm:local: !daño Hans 12 pecho torpedo", "Torpedo o bomba solo", system="sombra")


def test_the_engine_at_the_stern_and_a_boat_adrift() -> None:
    """«Popa: … el resto afecta a armas, motor o instrumental. Si el motor es destruído, la nave queda
    a la deriva»: 20 at the stern through armour 4 leave 16 inside, 4 to the crew and 12 to the
    engine (5 points): destroyed, adrift."""
    table = sombra_table()
    t = play(BOAT + "@gm:local: !daño Lancha 20 popa\n@gm:local: !heridas Lancha\n", table)
    assert "motor destruido: queda a la deriva" in t.text(AFTER_BOAT)
    assert sheet(table, "Lancha")["motor"] == 0 and "a la deriva" in t.text(AFTER_BOAT + 1)


def test_turning_against_high_waves_capsizes_on_a_medium_failure() -> None:
    """«deberá tirar por pilotar barcas (o buques), volcando solo en caso de fracaso medio o alto»."""
    table = sombra_table((9, 8, 7))
    t = play(BOAT + "@gm:local: !ficha Bruno pilotar 12\n@bob:local: !giro Lancha\n", table)
    assert "fracaso medio" in t.text(AFTER_BOAT + 1) and "¡Lancha vuelca!" in t.text(AFTER_BOAT + 1)
    assert sheet(table, "Lancha")["volcado"] == 1
    assert_refused(BOAT + "@gm:local: !ficha Bruno pilotar 12\n", "@bob:local: !giro Bruno", "no es un barco",
                   system="sombra")


def test_a_low_failure_when_turning_does_not_capsize() -> None:
    table = sombra_table((3, 1, 1))
    t = play(BOAT + "@gm:local: !ficha Bruno pilotar 4\n@bob:local: !giro Lancha\n", table)
    assert "fracaso bajo" in t.text(AFTER_BOAT + 1) and "vuelca" not in t.text(AFTER_BOAT + 1)
    assert "volcado" not in sheet(table, "Lancha")


def test_opportunity_fire_adds_5_to_the_watchers_initiative() -> None:
    """«Fuego de oportunidad: … Dará a +5 a la iniciativa del tirador ante cualquiera que aparezca por
    allí»: declared before !iniciativa, Hans (VEL 6) acts before McAvoy (VEL 7)."""
    t = play(CAST + "@gm:local: !combate\n@gm:local: !oportunidad Hans\n@gm:local: !iniciativa McAvoy Hans\n",
             system="sombra")
    assert "Hans vigila" in t.text(8)
    assert "1. Hans" in t.texts(9)[0] and "2. McAvoy (7/6)" in t.texts(9)[0]
    assert "1. Hans (6+5/8)" in t.gm_text(9)


def test_the_death_threshold_counts_vit_rounds_for_who_is_down_then_they_die() -> None:
    """«Umbral Mortal (vit): numero de puntos de vida/tiempo que un PJ puede aguantar tras llegar a los 0
    puntos de vida»: the rules have no hit points; read as VIT rounds for someone the GM marks dying
    (issue 31 item 18: no wound starts it by itself, `!ficha NOMBRE umbral sí` does), counted at each new
    round, then dead unless healed first. (Changed by issue 31: a serious wound used to start it.)"""
    table = sombra_table()
    script = CAST + """
@gm:local: !ficha McAvoy vit 2
@gm:local: !ficha Bruno vit 2
@gm:local: !combate
@gm:local: !iniciativa McAvoy Bruno Hans
@gm:local: !daño McAvoy 11 abdomen
@gm:local: !daño Bruno 13 abdomen
@gm:local: !ficha McAvoy umbral sí
@gm:local: !ficha Bruno umbral sí
@gm:local: !curar Bruno
@gm:local: !estado
""" + "@gm:local: !siguiente\n" * 6
    t = play(script, table)
    # A serious abdomen wound leaves them down, no threshold (issue 31 item 18).
    assert "umbral" not in " ".join(t.texts(11) + t.texts(12))
    assert "umbral mortal: 2 asaltos" in t.text(16) and "Bruno [umbral" not in t.text(16)
    answers = {n: " ".join(t.texts(n)) for n in range(17, 23)}
    second = next(n for n, text in answers.items() if "Ronda 2" in text)
    third = next(n for n, text in answers.items() if "Ronda 3" in text)
    assert "Umbral mortal de McAvoy: queda 1 asalto" in answers[second]
    assert "McAvoy ha agotado su umbral mortal: muere" in answers[third]
    assert sheet(table, "McAvoy")["muerto"] == 1 and "muerto" not in sheet(table, "Bruno")


def test_capsizing_probabilities_by_exact_enumeration() -> None:
    """Over the 1000 ordered triples: with Pilotar 30 only 10-10-10 (a fumble) capsizes; with Pilotar 0
    everything does except 1-1-1 (always a critical) and the 18 low failures (high plus low under 5 and
    not a triple: {1,1,2} and {1,2,2} three orders each, {1,1,3} and {1,3,3} three each, {1,2,3} six)."""
    from systems.sombra.rules import SombraDice, capsizes, resolve_check
    from tests.scripted import all_faces

    def capsized(pilot: int) -> int:
        return sum(capsizes(resolve_check(SombraDice(f), pilot).level) for f in all_faces(10, 10, 10))

    assert capsized(30) == 1
    assert capsized(0) == 1000 - 1 - 18


def test_the_gm_names_who_pilots_the_turn() -> None:
    """The GM, whose turn character may be the boat itself, names the pilot: `!giro Lancha Bruno`."""
    table = sombra_table((9, 8, 7))
    t = play(BOAT + "@gm:local: !ficha Bruno pilotar 12\n@gm:local: !giro Lancha Bruno\n", table)
    assert "Bruno gira Lancha" in t.text(AFTER_BOAT + 1) and "¡Lancha vuelca!" in t.text(AFTER_BOAT + 1)
    assert_refused(BOAT + "@gm:local: !ficha Hans pilotar 12\n", "@bob:local: !giro Lancha Hans", "Hans",
                   system="sombra")
