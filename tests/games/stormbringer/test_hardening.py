"""Stormbringer at the table (issue 10, items 11 and 13): weapon kinds, arrows and sling
stones, the shield as second weapon, a master's riposte, second-weapon penalties, Ver."""

from __future__ import annotations

from tests.games.stormbringer.test_table import FIGHT_1, FIGHT_SEED, ROOM, SETUP
from tests.transcript import make_table, play


def test_arrows_cannot_be_dodged_and_only_a_shield_parries_them() -> None:
    table = make_table(system="stormbringer", seed=FIGHT_SEED)
    t = play(SETUP + """
@gm:local: !ficha Moonglum arma arco
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !esquiva
@gm:local: !parada
@gm:local: !ficha Orco arma2 escudo
@gm:local: !parada
@gm:local: !siguiente
""", table)   # the turn's end sends the GMs' digest (issue 30)
    assert "Proyectiles, de mayor a menor DES: Moonglum." in t.texts(9)[0]
    assert "Ataque 80%: [59] → éxito" in t.text(11)
    assert t.text(12).startswith("⛔ Las flechas no se pueden esquivar")
    assert t.text(13).startswith("⛔ Flechas y piedras de honda solo se paran con escudo, y Orco no lleva")
    assert "Parada 65 ÷2 = 32% contra proyectil: [21] → éxito" in t.gm_text(15)  # issue 19: Orco's skill


def test_sling_stones_cannot_be_dodged() -> None:
    t = play(SETUP + """
@gm:local: !ficha Moonglum arma honda
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !esquiva
""", system="stormbringer", seed=FIGHT_SEED)
    assert t.text(12).startswith("⛔ Las piedras de honda no se pueden esquivar")


def test_a_shield_as_second_weapon_parries_once_more_without_penalty_or_attacks() -> None:
    table = make_table(system="stormbringer", seed=FIGHT_SEED)
    t = play(SETUP + "@gm:local: !ficha Orco arma2 escudo\n" + FIGHT_1 + """
@ana:local: !siguiente
@gm:local: !ataque Elric dos armas
""", table)
    assert "Parada 65 ÷2 = 32% contra proyectil: [21] → éxito" in t.gm_text(12)
    assert "Ataque 85%: [65] → éxito" in t.text(14)
    # Without the shield this parry was at 65 -20 = 45% (test_full_combat).
    assert "Parada 65%: [95] → fallo" in t.gm_text(15) and "parada adicional del escudo" in t.text(15)
    assert t.text(17) == ("⛔ Orco ya usó el escudo este asalto: da un ataque con -25% "
                          "o una parada adicional, no las dos.")


def test_the_second_weapon_penalty_adds_to_the_penalty_for_earlier_attacks() -> None:
    t = play(SETUP + """
@gm:local: !ficha Elric arma2 espada
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco
@ana:local: !ataque Orco dos armas
""", system="stormbringer", seed=FIGHT_SEED)
    assert "Ataque 85 -20 (ataques previos) -25 (segunda arma) = 40%" in t.text(13)


def test_a_master_ripostes_right_after_a_parry_without_a_grant() -> None:
    table = make_table(system="stormbringer", seed=3)
    t = play(SETUP + """
@gm:local: !ficha Elric ataque 95 parada 95
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco
@gm:local: !esquiva
@ana:local: !siguiente
@gm:local: !ataque Elric
@ana:local: !parada
@ana:local: !ataque Orco respuesta
@ana:local: !ataque Orco respuesta
""", table)
    assert "Elric · 🛡️ Parada 95%: [61] → éxito" in t.text(16)
    assert "Elric es maestro: puede responder ya contra Orco (!ataque Orco respuesta)" in t.text(16)
    assert not t.redacted(17) and "Ataque de respuesta 95 -20 (ataques previos) = 75%" in t.text(17)
    assert t.redacted(18)   # one riposte per parry: the second is out of turn again
    assert table.room(ROOM).granted == []


def test_an_ambush_asks_for_the_victims_missing_ver_instead_of_rolling_at_5() -> None:
    table = make_table(system="stormbringer", seed=1)
    t = play(SETUP + """
@gm:local: !pj Tristelune
@gm:local: !emboscada Orco contra Elric, Tristelune
@gm:local: !ficha Tristelune ver 30
@gm:local: !emboscada Orco contra Elric, Tristelune
""", table)
    assert t.text(9) == ("⚠️ Falta «ver» en la ficha de Tristelune: si la emboscada falla, cada víctima tira Ver, "
                         "y las reglas no dan un porcentaje base. !ficha Tristelune ver 40, y repite la emboscada.")
    assert "Emboscada" in t.text(11)


RIPOSTE_SETUP = """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bob @bob:local
@gm:local: !ficha Ana ataque 95 parada 95 des 10 pv 12 arma espada
@gm:local: !ficha Bob ataque 99 parada 40 des 15 pv 12 arma espada
@gm:local: !combate
@gm:local: !turnos Bob Ana Carl
@bob:local: !ataque Ana
@ana:local: !parada
"""


def test_the_riposte_grant_covers_only_the_riposte() -> None:
    t = play(RIPOSTE_SETUP + "@ana:local: !ataque Carl\n@ana:local: !ataque Bob", system="stormbringer", seed=1)
    assert "puede responder ya contra Bob" in t.text(8)
    assert t.redacted(9) and "turno de Bob" in t.text(9)  # another target, out of turn: not the riposte
    assert not t.redacted(10) and t.text(10).startswith("Ana · ⚔️ Ataque de respuesta")


def test_a_riposte_without_naming_the_target_goes_at_the_parried_attacker() -> None:
    table = make_table(system="stormbringer", seed=1)
    t = play(RIPOSTE_SETUP + "@ana:local: !ataque", table=table)
    assert t.text(9).startswith("Ana · ⚔️ Ataque de respuesta")
    combat = table.room(ROOM).combat
    assert combat is not None and combat.data["counters"]["ana"]["attacks"] == 1
    assert combat.data["blows"][-1]["attacker"] == "Ana" and combat.data["blows"][-1]["target"] == "Bob"
