"""Issue 22 (Stormbringer items 1-7 and 9): the table flow by the house rules of 002.

Each test quotes the sentence of ``/work/shared/rules/002_fbc80469e67b6799.txt`` it implements."""

from __future__ import annotations

from tests.transcript import make_table, play

ROOM = "!console:local"
CAST = """
@gm:local: !pj Elric @ana:local
@gm:local: !pj Moonglum @bob:local
@gm:local: !pj Orco
@gm:local: !pj Trasgo
@gm:local: !ficha Elric des 17 pv 14 armadura 1d8 grave 7 daño 1d8+1 bf 1d6 ataque 85 parada 70 esquiva 40 ver 60 pod 14
@gm:local: !ficha Moonglum des 15 pv 11 arma proyectil daño 1d8 ataque 80 parada 50 esquiva 50 ver 5 pod 10
@gm:local: !ficha Orco des 12 pv 24 armadura 1d6 grave 7 daño 1d8 bf 1d4 ataque 60 parada 65 esquiva 30 emboscada 70 pod 9
@gm:local: !ficha Trasgo des 10 pv 5 daño 1d6 ataque 40 parada 30 esquiva 30 pod 8
@gm:local: !combate
"""
FIRST = 10
"""The first line after CAST."""


def sb(script: str, seed: int = 1, table=None):
    return play(CAST + script, table or make_table(system="stormbringer", seed=seed))


def room(table) -> dict:
    return table.room(ROOM).to_dict()


def test_order_is_worked_out_every_round_after_a_death() -> None:
    """«La primera declaración la efectuará el personaje con la DES más baja»; «Primero atacan quienes
    usen armas de tiro, en orden de mayor a menor DES»: every round, also once the dead have left."""
    t = sb("""
@gm:local: !iniciativa
@gm:local: !ficha Trasgo pv 0
@gm:local: !ficha Elric arma proyectil
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
""")
    round_2 = t.texts(FIRST + 5)
    assert round_2[0].startswith("📋 Asalto 2 (12 s).")
    assert "Intenciones, de menor a mayor DES: Orco, Moonglum, Elric." in round_2[0]
    assert "Proyectiles, de mayor a menor DES: Elric, Moonglum. Cuerpo a cuerpo: Orco." in round_2[0]
    assert "Orden: Elric → Moonglum → Orco" in round_2[1]
    assert t.texts(FIRST + 6)[0].startswith("▶️ Ronda 2")
