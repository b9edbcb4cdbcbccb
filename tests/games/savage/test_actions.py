"""Issue 21 (Savage Worlds by the book): actions in a turn, support, dramatic tasks, exploration, rerolls.

Each test quotes the sentence of the house rules (``../shared/rules/000_*``, ``001_*``) it implements.
"""

from __future__ import annotations

from bot.console import ROOM_ID
from tests.games.savage.test_sheets import CAST, FIRST, applied, roll
from tests.transcript import make_table, play

TURNS = CAST + """
@gm:local: !pj Bruno @cid:local
@gm:local: !ficha Bruno Pelear d8, Persuadir d8, Parada 6, Dureza 6
@gm:local: !combate
@gm:local: !turnos Orco, Kira, Bruno
@gm:local: !siguiente
"""
AFTER = FIRST + 5
"""The first line after TURNS (Kira's turn, round 1)."""


def test_declared_actions_penalise_every_action_and_a_further_one_is_refused() -> None:
    """001: «Es necesario declarar todas las acciones que pretende realizar el personaje al comienzo de su
    turno, antes de que empiecen a rodar los dados.» 000: «tres acciones aumenta esa penalización a -4»."""
    t = play(TURNS + """
@bob:local: !tiro Disparar
@bob:local: !tiro Disparar
@bob:local: !tiro Notar acciones 2
@gm:local: !siguiente
@cid:local: !tiro Pelear acciones 3
@cid:local: !tiro Persuadir
@cid:local: !tiro Pelear
@cid:local: !tiro Pelear
""", system="savage", seed=5)
    assert roll(t, AFTER)["applied"] == []
    assert "acciones 2" in t.text(AFTER + 1) and "primera" in t.text(AFTER + 1)
    assert "antes" in t.text(AFTER + 2), "declared after the dice started rolling"
    assert [applied(roll(t, AFTER + n)) for n in (4, 5, 6)] == [{"multi": -4}] * 3
    assert "acciones" in t.text(AFTER + 7)
    assert table_free_of_refusal_side_effects(t)


def table_free_of_refusal_side_effects(t) -> bool:  # type: ignore[no-untyped-def]
    """No refused action produced a roll."""
    return all("roll" not in a for n in (AFTER + 1, AFTER + 2, AFTER + 7) for a in t.for_line(n))


def test_free_actions_do_not_count_and_each_character_counts_its_own() -> None:
    """001: «La penalización por múltiples acciones no se añade a las tiradas de las acciones gratuitas»;
    a soak (000: «Tiradas de absorción») and the Spirit roll of a Shaken character are free."""
    t = play(TURNS + """
@gm:local: !ficha Kira aturdido 1
@bob:local: !tiro Espíritu
@gm:local: !ficha Kira aturdido 0
@bob:local: !tiro Disparar
@gm:local: !tiro Orco Pelear contra Kira
""", system="savage", seed=5)
    assert roll(t, AFTER + 1)["roll"]["kind"] == "recovery"
    assert roll(t, AFTER + 3)["applied"] == [], "the recovery roll did not spend Kira's one action"
    assert roll(t, AFTER + 4)["roll"]["kind"] == "trait", "the Orco's opposed roll out of its turn is free"


def test_the_count_and_the_last_roll_survive_another_combatant_leaving() -> None:
    """001: «Las penalizaciones siguen existiendo incluso si una de las acciones posteriores no tiene lugar»:
    the GM taking the Orco out of the order does not reset Kira's turn."""
    table = make_table(system="savage", seed=5)
    t = play(TURNS + """
@bob:local: !tiro Disparar acciones 2
@gm:local: !sale Orco
@bob:local: !tiro Disparar
@bob:local: !repetir
@gm:local: !ficha Kira bennies 2
@bob:local: !tiro Disparar
""", table)
    assert applied(roll(t, AFTER + 2)) == {"multi": -2}
    assert roll(t, AFTER + 3)["roll"]["kind"] == "trait", t.texts(AFTER + 3)
    assert "acciones" in t.text(AFTER + 5)
    assert table.room(ROOM_ID).combat.current == "Kira"
