"""Issue 20, item 1: a combat you can edit. ``!entra`` adds latecomers by each game's own initiative
among those still to act, ``!sale`` takes one out of the order, and ``!turnos`` / ``!iniciativa`` no
longer wipe a combat that has an order (``!iniciativa reiniciar`` starts it again on purpose)."""

from __future__ import annotations

import copy

import pytest

from bot.console import ROOM_ID
from bot.core.combat import place_late
from bot.core.state import Combat
from bot.core.table import Table
from tests.transcript import Transcript, assert_refused, make_table, play

ORDER_REFUSAL = ("!entra", "!sale", "!combate fin")

# Four combatants whose initiative is fixed by the sheet (Stormbringer DES, Reino a bonus far above
# the d20's spread, Sombra VEL): A, B, C, D in that order. The latecomers: Rurik belongs between C
# and D; Luz ahead of B, whose turn it is, so her place has passed and she acts right after B.
FIXED = {
    "stormbringer": ("des", {"A": 18, "B": 15, "C": 12, "D": 9, "Rurik": 10, "Luz": 16}),
    "reino": ("iniciativa", {"A": 400, "B": 300, "C": 200, "D": 100, "Rurik": 150, "Luz": 350}),
    "sombra": ("vel", {"A": 9, "B": 7, "C": 5, "D": 3, "Rurik": 4, "Luz": 8}),
}


ACTIONS = {"stormbringer": "@gm:local: !acciones\n"}
"""What starts the attacks after the round's first stage: Stormbringer's declarations of intent (issue 22)."""


def _cast(system: str) -> str:
    field, values = FIXED[system]
    lines = [f"@gm:local: !pj {name} @{name.lower()}:local" for name in values]
    lines += [f"@gm:local: !ficha {name} {field} {value}" for name, value in values.items()]
    return "\n".join(lines) + "\n"


def _combat(table: Table):
    return table.room(ROOM_ID).combat


def _stored(table: Table) -> dict:
    return copy.deepcopy(table.store.rooms.load(ROOM_ID))


def _more(table: Table, script: str) -> Transcript:
    """Go on with ``table``; the events keep their numbers after those already handled."""
    done = table.store.db.execute("SELECT count(*) FROM handled").fetchone()[0]
    return play("# -\n" * done + script, table=table)


def _last(t: Transcript) -> int:
    return max(int(a["event"][1:]) for a in t.actions if a["event"])


@pytest.mark.parametrize("system", ["savage", "stormbringer", "reino", "sombra"])
def test_initiative_with_a_name_mid_combat_is_refused_and_keeps_everyone(system: str) -> None:
    """The evening's report: ``!iniciativa Rurik`` emptied the combat down to Rurik alone."""
    setup = """
@gm:local: !pj Kira @bob:local
@gm:local: !pj McAvoy @ana:local
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !siguiente
"""
    for line in ("@gm:local: !iniciativa Rurik", "@gm:local: !iniciativa", "@gm:local: !turnos Rurik Kira"):
        table = make_table(system=system, seed=4)
        t = play(setup + line, table=table)
        answer = t.text(6)
        assert all(word in answer for word in ORDER_REFUSAL), answer
        assert sorted(_combat(table).order) == ["Kira", "McAvoy"]
        assert _combat(table).round == 1 and _combat(table).turn == 1
    assert_refused(setup, "@gm:local: !iniciativa Rurik", "!entra", system="savage", seed=4)


@pytest.mark.parametrize("system", ["savage", "stormbringer", "reino", "sombra", "generic"])
def test_combat_then_initiative_still_works_and_restart_deals_again(system: str) -> None:
    table = make_table(system=system, seed=4)
    t = play("""
@gm:local: !pj Kira @bob:local
@gm:local: !pj McAvoy @ana:local
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !iniciativa reiniciar
""", table=table)
    assert any(text.startswith("▶️ Ronda 1") for text in t.texts(4))
    # Two turns played round 1 (in Stormbringer, its two declarations); the order dealt again while the
    # next first turn runs stays in that round (issue 20 item 8: the round count never goes back).
    again = 1 if system == "stormbringer" else 2
    assert _combat(table).round == again and _combat(table).turn == 0
    assert any(text.startswith(f"▶️ Ronda {again}") for text in t.texts(7))
    assert sorted(_combat(table).order) == ["Kira", "McAvoy"]
    assert table.room(ROOM_ID).find_character("reiniciar") is None


@pytest.mark.parametrize("system", ["stormbringer", "reino", "sombra"])
def test_latecomers_take_their_place_by_initiative_and_nobody_else_moves(system: str) -> None:
    table = make_table(system=system, seed=4)
    play(_cast(system) + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
""" + ACTIONS.get(system, "") + """
@gm:local: !siguiente
""", table=table)
    assert _combat(table).order == ["A", "B", "C", "D"] and _combat(table).current == "B"
    before = _stored(table)["combat"]
    t = _more(table, "@gm:local: !entra Rurik Luz")
    combat = _combat(table)
    assert combat.order == ["A", "B", "Luz", "C", "Rurik", "D"]
    assert (combat.round, combat.current) == (before["round"], "B")
    answer = t.texts(_last(t))
    assert any("Rurik" in text and "Luz" in text for text in answer), answer
    # Next round, everyone keeps the place their initiative gives them.
    t = _more(table, "\n".join(["@gm:local: !siguiente"] * 5) + "\n" + ACTIONS.get(system, ""))
    assert _combat(table).round == 2
    assert _combat(table).order == ["A", "Luz", "B", "C", "Rurik", "D"]


def test_reino_keeps_the_others_rolls_and_records_the_latecomers() -> None:
    table = make_table(system="reino", seed=4)
    play(_cast("reino") + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
@gm:local: !siguiente
""", table=table)
    rolls = {r["name"]: r for r in _combat(table).data["sequence"]["rolls"]}
    _more(table, "@gm:local: !entra Rurik")
    after = {r["name"]: r for r in _combat(table).data["sequence"]["rolls"]}
    assert {k: v for k, v in after.items() if k != "Rurik"} == rolls
    assert after["Rurik"]["bonus"] == 150


def test_stormbringer_latecomer_keeps_the_phases_worked_out_from_the_sheets() -> None:
    """A latecomer is no hand-set order: the next round's phases are still worked out from DES."""
    table = make_table(system="stormbringer", seed=4)
    play(_cast("stormbringer") + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
@gm:local: !acciones
@gm:local: !entra Luz
""", table=table)
    assert _combat(table).order == ["A", "Luz", "B", "C", "D"]
    assert _combat(table).data["order"] == _combat(table).order


SAVAGE_CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Kira @bob:local
@gm:local: !pj Rurik @carl:local
@gm:local: !ficha McAvoy dureza 6 parada 5
@gm:local: !ficha Kira dureza 5 parada 6
@gm:local: !pnj Orco x3 grupo orcos
@gm:local: !combate
@gm:local: !iniciativa McAvoy, Kira, Orco 1, Orco 2
@gm:local: !siguiente
"""


@pytest.mark.parametrize("seed", range(1, 9))
def test_savage_latecomer_gets_a_card_dealt_now_and_the_others_keep_theirs(seed: int) -> None:
    table = make_table(system="savage", seed=seed)
    play(SAVAGE_CAST, table=table)
    before = _stored(table)["combat"]
    pile = before["data"]["deck"]["pile"]
    t = _more(table, "@gm:local: !entra Rurik")
    combat = _combat(table)
    deck = combat.data["deck"]
    card = deck["in_play"]["Rurik"]
    assert card == pile[-1] and deck["pile"] == pile[:-1]
    assert {g: c for g, c in deck["in_play"].items() if g != "Rurik"} == before["data"]["deck"]["in_play"]
    assert combat.round == before["round"] and combat.current == before["order"][before["turn"]]
    assert [n for n in combat.order if n != "Rurik"] == before["order"]
    assert "Rurik" in combat.data["roster"]
    assert card in "\n".join(t.texts(_last(t)))
    _assert_placed_by_card(combat)


def _assert_placed_by_card(combat) -> None:
    """Rurik acts before the first still to act with a worse card, or right after the current turn."""
    from systems.savage.deck import Card

    cards = combat.data["deck"]["in_play"]
    group = {"Orco 1": "orcos", "Orco 2": "orcos", "Orco 3": "orcos"}

    def key(name: str) -> tuple[int, int]:
        return Card(cards[group.get(name, name)]).order_key

    position = combat.order.index("Rurik")
    assert position > combat.turn
    later = combat.order[position + 1:]
    assert all(key(n) >= key("Rurik") for n in later)
    if position > combat.turn + 1:
        assert key(combat.order[position - 1]) <= key("Rurik")


def test_savage_extra_joining_its_group_shares_the_group_card() -> None:
    table = make_table(system="savage", seed=2)
    play(SAVAGE_CAST, table=table)
    before = _stored(table)["combat"]["data"]["deck"]
    _more(table, "@gm:local: !entra Orco 3")
    after = _combat(table).data["deck"]
    assert after == before
    assert "Orco 3" in _combat(table).order


def test_leave_on_the_current_turn_passes_the_turn() -> None:
    table = make_table(system="sombra", seed=4)
    t = play(_cast("sombra") + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
@gm:local: !siguiente
@gm:local: !sale B
@gm:local: !sale A
@gm:local: !sale D
""", table=table)
    n = len(FIXED["sombra"][1]) * 2 + 4
    assert "react" in t.kinds(n) and t.texts(n) == ["▶️ Ronda 1: turno de C (@c:local)."]
    assert _combat(table).order == ["C"]
    assert _combat(table).current == "C" and _combat(table).round == 1
    assert table.room(ROOM_ID).find_character("B") is not None


def test_leave_of_the_last_to_act_starts_the_next_round() -> None:
    table = make_table(system="stormbringer", seed=4)
    t = play(_cast("stormbringer") + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
@gm:local: !acciones
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !sale D
""", table=table)
    # Round 2 starts with the declarations of intent, lowest DES first (issue 22).
    assert _combat(table).round == 2 and _combat(table).current == "C"
    assert "D" not in _combat(table).order
    assert any(text.startswith("▶️ Turno de C") for text in t.texts(_last(t)))  # after the round's own line


def test_savage_leave_takes_the_card_and_the_roster_place() -> None:
    table = make_table(system="savage", seed=3)
    play(SAVAGE_CAST, table=table)
    _more(table, "@gm:local: !sale Kira")
    combat = _combat(table)
    assert "Kira" not in combat.order and "Kira" not in combat.data["roster"]
    assert "Kira" not in combat.data["deck"]["in_play"]
    _more(table, "\n".join(["@gm:local: !siguiente"] * 2))  # McAvoy's turn and the orcs' one (issue 20)
    assert _combat(table).round == 2 and "Kira" not in _combat(table).order


@pytest.mark.parametrize(("line", "expected"), [
    ("@gm:local: !entra Kira", "ya está"),
    ("@gm:local: !sale Rurik", "no está"),
    ("@gm:local: !sale Nadie", "no está"),
])
def test_bad_join_and_leave_change_nothing(line: str, expected: str) -> None:
    assert_refused(SAVAGE_CAST, line, expected, system="savage", seed=3)


def test_join_and_leave_need_an_order_and_a_gm() -> None:
    setup = "@gm:local: !pj Kira @bob:local\n@gm:local: !combate"
    assert_refused(setup, "@gm:local: !entra Rurik", "!iniciativa", system="savage")
    assert_refused(setup, "@gm:local: !sale Kira", "!iniciativa", system="savage")
    assert_refused(SAVAGE_CAST, "@bob:local: !entra Rurik", "Solo el máster", system="savage", seed=3)
    assert_refused(SAVAGE_CAST, "@bob:local: !sale Kira", "Solo el máster", system="savage", seed=3)


def test_english_aliases() -> None:
    table = make_table(system="savage", seed=5)
    play(SAVAGE_CAST + "@gm:local: !join Rurik\n@gm:local: !leave Orco 2", table=table)
    assert "Rurik" in _combat(table).order and "Orco 2" not in _combat(table).order


def test_a_player_ends_their_own_turn_with_next() -> None:
    table = make_table(system="sombra", seed=4)
    t = play(_cast("sombra") + """
@gm:local: !combate
@gm:local: !iniciativa A B C D
@a:local: !siguiente
@c:local: !siguiente
""", table=table)
    assert "▶️ Ronda 1: turno de B (@b:local)." in t.texts(len(FIXED["sombra"][1]) * 2 + 3)
    assert _combat(table).current == "B"
    assert t.text(len(FIXED["sombra"][1]) * 2 + 4).startswith("⛔")


@pytest.mark.parametrize(("turn", "ideal", "expected"), [
    (1, ["A", "B", "N", "C", "D"], ["A", "B", "N", "C", "D"]),   # its place comes next
    (1, ["A", "B", "C", "N", "D"], ["A", "B", "C", "N", "D"]),   # among those still to act
    (1, ["A", "B", "C", "D", "N"], ["A", "B", "C", "D", "N"]),   # last
    (2, ["N", "A", "B", "C", "D"], ["A", "B", "C", "N", "D"]),   # its place passed: right after the turn
    (3, ["A", "N", "B", "C", "D"], ["A", "B", "C", "D", "N"]),   # passed on the last turn of the round
])
def test_place_late(turn: int, ideal: list[str], expected: list[str]) -> None:
    combat = Combat(round=2, order=["A", "B", "C", "D"], turn=turn)
    place_late(combat, "N", ideal)
    assert combat.order == expected and combat.turn == turn
