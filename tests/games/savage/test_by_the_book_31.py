"""Savage Worlds, issue 31 ("By the book, third pass"): each test quotes the house rule it implements."""

from __future__ import annotations

from bot.console import ROOM_ID
from tests.games.savage.test_sheets import roll
from tests.transcript import assert_refused, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Pelear d6, Disparar d8, Dureza 6
@gm:local: !pnj Orco
"""
FIRST = 4
"""The first line after CAST."""


def test_parry_without_a_parada_field_is_two_plus_half_the_fighting_die() -> None:
    """000: «El Valor Objetivo que se necesita para golpear con éxito a un oponente es igual a su valor de
    Parada (2 más la mitad del dado de Pelear, 2 a secas en el caso de que no tenga dicha habilidad).»"""
    t = play(CAST + "@gm:local: !ficha Orco Pelear d8, Dureza 5, Comodín no\n"
             "@bob:local: !tiro Pelear contra Orco\n"
             "@gm:local: !ficha Orco Pelear d12+1\n@bob:local: !tiro Pelear contra Orco\n"
             "@gm:local: !pnj Trasgo\n@gm:local: !ficha Trasgo Dureza 4\n@bob:local: !tiro Pelear contra Trasgo\n"
             "@gm:local: !ficha Orco Parada 9\n@bob:local: !tiro Pelear contra Orco", system="savage")
    assert roll(t, FIRST + 1)["roll"]["tn"] == 6, "2 + half of d8"
    assert roll(t, FIRST + 3)["roll"]["tn"] == 8, "2 + half of d12, the +1 rounds down to nothing"
    assert roll(t, FIRST + 6)["roll"]["tn"] == 2, "no Pelear: 2 a secas"
    assert roll(t, FIRST + 8)["roll"]["tn"] == 9, "a Parada on the sheet is the sheet's"


def test_medicina_is_the_groups_name_for_healing_on_the_sheet_and_in_rolls() -> None:
    """001: «la tirada de Medicina será un -6 porque es una Habilidad sin entrenamiento»: the group calls
    Healing (Sanar) Medicina; both names are the same sheet field and roll, and ``!sanar`` still heals."""
    t = play(CAST + "@gm:local: !ficha Kira Medicina d8\n@bob:local: !tiro Medicina\n@bob:local: !tiro Sanar\n"
             "@bob:local: !tiro medicina vs 6", system="savage")
    for line in (FIRST + 1, FIRST + 2, FIRST + 3):
        shown = roll(t, line)
        assert shown["roll"]["expr"] == "1d8" and "Sanar d8" in shown["text"], shown["text"]
        assert "−2" not in shown["text"] and "sin entrenar" not in shown["text"], "trained, not d4 −2"
    assert roll(t, FIRST + 3)["roll"]["tn"] == 6


BURST_CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Disparar d8, Dureza 6, Arma Subfusil, Tipo de arma distancia, Daño 2d6, Munición 30
@gm:local: !pnj Orco x3 Pelear d8, Parada 6, Dureza 5
"""


SAME = ("expr", "dice", "wild", "shots", "targets", "hits", "modifiers", "tn", "ammo")
"""What a burst's roll must have as ``!tiro rof`` gives it."""


def _burst(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    return next(r for r in t.full_rolls(number) if r.get("kind") == "rof")


def test_rate_of_fire_in_ataque_is_the_burst_of_tiro_rof() -> None:
    """000: «con una acción disparas en "fuego automático" muchas balas y tiras tantos dados como cadencia,
    además del salvaje», «cuando se dispara con esa cadencia tienen un -2 a impactar» and «Dependiendo de
    la cadencia de fuego del arma, se gasta un número determinado de balas»; ``!ataque Orco 1 rof 3`` (``cdf 3``,
    ``cadencia 3``) is the same burst as ``!tiro rof 3 Disparar objetivos Orco 1``."""
    same = "@bob:local: !tiro rof 3 Disparar objetivos Orco 1"
    for seed in (3, 5):
        base = play(BURST_CAST + same, system="savage", seed=seed)
        expected = _burst(base, 4)
        for said in ("rof 3", "cdf 3", "cadencia 3"):
            table = make_table(system="savage", seed=seed)
            t = play(BURST_CAST + f"@bob:local: !ataque Orco 1 {said}", table)
            got = _burst(t, 4)
            assert {k: got[k] for k in SAME} == {k: expected[k] for k in SAME}, said
            assert {"reason": "retroceso", "value": -2} in got["modifiers"]
            assert got["rof"] == 3 and len(got["shots"]) == 3 and got["wild"]
            assert table.room(ROOM_ID).characters["kira"].sheet["municion"] == 20, "RoF 3: 10 bullets"
            assert t.texts(4) == base.texts(4)
    melee = BURST_CAST + "@gm:local: !ficha Kira Tipo de arma cuerpo\n"
    assert_refused(melee, "@bob:local: !ataque Orco 1 rof 3", "cadencia", system="savage")
