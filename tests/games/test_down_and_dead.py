"""Issue 10, item 12: the dead leave the turn order with a notice; the down roll only what their state requires."""

from __future__ import annotations

from bot.console import ROOM_ID
from tests.transcript import make_table, play

DEAD_NOTICE = "💀 {} muere y sale del orden."


def _order(table) -> list[str]:
    return table.room(ROOM_ID).combat.order


def test_stormbringer_at_zero_hit_points_leaves_the_order_and_the_next_turn_starts() -> None:
    table = make_table(system="stormbringer", seed=1)
    t = play("""
@gm:local: !pj Elric @ana:local
@gm:local: !combate
@gm:local: !turnos Orco, Elric, Moonglum
@gm:local: !ficha Orco pv 3
@gm:local: !daño Orco 1d4+10
@gm:local: !estado
@gm:local: !ficha Elric pv 0
@gm:local: !combate fin
@ana:local: !tiro d100 vs 50
""", table=table)
    assert t.texts(5)[1:] == [DEAD_NOTICE.format("Orco"), "▶️ Elric (@ana:local)"]
    assert "Orco" not in t.text(6)
    assert t.texts(7) == [DEAD_NOTICE.format("Elric"), "▶️ Moonglum"]  # the sheet: a ✅
    assert t.text(9).startswith("⛔ Elric ha muerto: no puede hacer tiradas")


def test_savage_dead_leave_and_the_bleeding_only_roll_vigor() -> None:
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj Kira @bob:local
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha Kira incapacitado 1 desangrando 1 vigor d12 espiritu d6 aturdido 1
@gm:local: !combate
@gm:local: !iniciativa Kira, McAvoy, Orco
@gm:local: !ficha McAvoy muerto 1
@gm:local: !permite Kira
@bob:local: !tiro d8 vs 4
@bob:local: !recuperar
@gm:local: !tiro d8 vs 4
@gm:local: !siguiente
""", table=table)
    assert DEAD_NOTICE.format("McAvoy") in t.texts(6)
    # A roll the down character may not make is no valid use of the grant: out of turn, it is redacted.
    assert t.redacted(8) and "⏳ Es el turno de Orco" in t.text(8)
    assert t.redacted(9)
    assert "🎲" in t.text(10)
    assert any("Kira" in m and "Vigor" in m for m in t.texts(11))
    assert "McAvoy" not in _order(table)


REINO_DYING = """
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana pr 20 umbral 30 fortaleza 2
@gm:local: !combate
@gm:local: !turnos Ana, Orco
@gm:local: !daño Ana 7
@ana:local: !salud
@gm:local: !daño Ana 13
@ana:local: !tiro d20+2 vs 10
@ana:local: !ataque Orco
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
"""


def test_reino_the_dying_get_no_turn_and_save_each_round_but_roll_nothing_else() -> None:
    """Issue 20 changed this: the dying no longer keep their turn (003: "Está indefenso y es incapaz de
    actuar"); falling on their own turn passes it, and their rolls are refused as out of turn."""
    table = make_table(system="reino", seed=5)
    t = play(REINO_DYING, table=table)
    assert "PR 13/20" in t.text(6)  # no pr_max on the sheet: the maximum is the PR before any damage
    fall, turn = t.texts(7)
    assert "moribundo" in fall.lower() and turn == "▶️ Orco. Ana no puede actuar."
    assert "⏳ Es el turno de Orco" in t.text(8) and t.redacted(8)
    assert t.texts(9) == [] and t.redacted(9)
    # issue 30: one line a save; "Moribundo, Fortaleza" is said the first time in the fight only
    first, second = t.texts(10)[0], t.texts(11)[0]
    assert first.startswith("🩸 Ana Moribundo, Fortaleza: [") and first.endswith("+ 2 = 15 vs CD 10 → sigue"), first
    assert second.startswith("🩸 Ana: [") and second.endswith("vs CD 11 → sigue") and "\n" not in second, second
    for line in (10, 11):
        _, new_round, turn = t.texts(line)
        assert "Orden: Ana → Orco." in new_round and turn.endswith("▶️ Orco. Ana no puede actuar.")


def test_reino_a_failed_dying_save_kills_and_leaves_the_order() -> None:
    table = make_table(system="reino", seed=1)
    t = play(REINO_DYING, table=table)
    save, notice, new_round, turn = t.texts(10)
    assert save.startswith("🩸 Ana Moribundo, Fortaleza: ") and save.endswith("→ muere")
    assert notice == DEAD_NOTICE.format("Ana") and "Orden: Orco." in new_round and "▶️ Orco" in turn
    assert _order(table) == ["Orco"]


def test_sombra_the_gm_marks_the_dead_and_the_unconscious_may_not_roll() -> None:
    table = make_table(system="sombra", seed=1)
    t = play("""
@gm:local: !pj Cole @ana:local
@gm:local: !ficha Cole res 5
@gm:local: !combate
@gm:local: !turnos Cole, Guardia, Sargento
@gm:local: !daño Cole 12 cabeza
@ana:local: !tiro 3d10 vs 14
@gm:local: !ficha Guardia muerto 1
@gm:local: !ataque Cole
""", table=table)
    # Issue 20: unconscious on their own turn, Cole passes it, and rolls nothing (out of turn now).
    assert t.texts(5)[-1] == "▶️ Guardia. Cole no puede actuar."
    assert "⏳ Es el turno de Guardia" in t.text(6) and t.redacted(6)
    assert DEAD_NOTICE.format("Guardia") in t.texts(7)
    assert t.texts(7)[-1] == "▶️ Sargento"
    assert _order(table) == ["Cole", "Sargento"]
