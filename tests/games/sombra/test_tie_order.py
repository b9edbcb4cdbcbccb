"""Issue 30 item 7: a tie in initiative is broken by the GM's ``!orden A antes de B`` (A moves right
before B; only between combatants that tied), and is shown as a tie to break, not as a condition."""

from __future__ import annotations

from tests.transcript import ROOM_ID, make_table, play

CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !pj Hans
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 disparo 16 arma II+2
@gm:local: !ficha Bruno vel 6 agi 8 res 6 disparo 15 arma II
@gm:local: !ficha Hans vel 6 agi 8 res 4 disparo 14 arma II
@gm:local: !combate
@gm:local: !iniciativa
"""
FIRST = 9


def order(table) -> list[str]:  # type: ignore[no-untyped-def]
    return table.room(ROOM_ID).combat.order


def test_the_gm_breaks_a_tie_and_it_stays_broken_next_round() -> None:
    table = make_table(system="sombra")
    t = play(CAST + "@gm:local: !estado\n@gm:local: !orden Hans antes de Bruno\n@gm:local: !estado\n"
             "@ana:local: !siguiente\n@gm:local: !siguiente\n@gm:local: !siguiente", table)
    board = t.text(FIRST)
    assert "empate de iniciativa" not in board
    assert "Empate por romper: Bruno = Hans" in board and "!orden" in board
    assert order(table) == ["McAvoy", "Hans", "Bruno"]
    assert "Hans" in t.text(FIRST + 1) and "Bruno" in t.text(FIRST + 1)
    assert "Empate" not in t.text(FIRST + 2)
    assert order(table) == ["McAvoy", "Hans", "Bruno"] and table.room(ROOM_ID).combat.round == 2


def test_only_combatants_that_tied_are_reordered() -> None:
    table = make_table(system="sombra")
    t = play(CAST + "@gm:local: !orden Hans antes de McAvoy\n@gm:local: !orden Nadie antes de Bruno", table)
    assert "no empataron" in t.text(FIRST) and "Bruno = Hans" in t.text(FIRST)
    assert "Nadie" in t.text(FIRST + 1)
    assert order(table) == ["McAvoy", "Bruno", "Hans"]


def test_a_player_cannot_reorder() -> None:
    table = make_table(system="sombra")
    t = play(CAST + "@bob:local: !orden Bruno antes de Hans", table)
    assert "Solo el máster" in t.text(FIRST)
