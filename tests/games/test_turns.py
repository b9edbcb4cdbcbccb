"""Issue 20, items 3 and 4: turns that run themselves, and a combat started during a lock.

A Savage group of Extras has one turn; whoever cannot act gets none, and the rolls their state
requires are made by the bot, one line each; a player ends their own turn with ``!siguiente``."""

from __future__ import annotations

import pytest

from bot.console import ROOM_ID
from tests.transcript import make_table, play

KIRA = "Pelear d8, Parada 6, Dureza 5, Arma espada, Arma daño f+d6, Fuerza d8, Vigor d8, Espíritu d6"
SOLDIER = "comodin no, Pelear d6, Parada 5, Dureza 5, Arma porra, Arma daño f+d4, Fuerza d6, Espíritu d4"
SAVAGE_SETUP = f"""
@gm:local: !pj Kira @ana:local
@gm:local: !ficha Kira {KIRA}
@gm:local: !pnj Soldado x3 grupo soldados
@gm:local: !ficha Soldado 1 {SOLDIER}
@gm:local: !ficha Soldado 2 {SOLDIER}
@gm:local: !ficha Soldado 3 {SOLDIER}
@gm:local: !combate
"""
GROUP_TURN = "Soldado 1, Soldado 2 y Soldado 3 (un solo turno para el grupo)"


def _quiet(t, number: int) -> bool:
    """Line ``number`` got a ✅ and no message in the room (a GMs' digest may ride along, privately)."""
    actions = t.for_line(number)
    return (("react", "✅") in [(a["action"], a.get("key")) for a in actions]
            and not any(a["action"] == "send" and a.get("private_to") is None for a in actions))


def _turn_lines(texts: list[str]) -> list[str]:
    return [t for t in texts if t.startswith("▶️")]


def _combat(table):
    return table.room(ROOM_ID).combat


def test_savage_a_group_of_extras_dealt_one_card_has_one_turn() -> None:
    table = make_table(system="savage", seed=3)
    t = play(SAVAGE_SETUP + """
@gm:local: !iniciativa
@ana:local: !siguiente
@gm:local: !siguiente
""", table=table)
    assert _turn_lines(t.texts(8)) == ["▶️ Kira (@ana:local)"]
    assert _turn_lines(t.texts(9)) == [f"▶️ {GROUP_TURN}"]
    new_round = t.texts(10)
    assert any(m.startswith("🔔 Ronda 2.") for m in new_round), new_round
    assert _turn_lines(new_round) == ["▶️ Kira (@ana:local)"]  # the round is named just before


def test_savage_a_group_listed_one_by_one_by_turnos_still_has_one_turn() -> None:
    table = make_table(system="savage", seed=3)
    t = play(SAVAGE_SETUP + """
@gm:local: !turnos Soldado 1, Kira, Soldado 2, Soldado 3
@gm:local: !siguiente
@ana:local: !siguiente
""", table=table)
    assert _turn_lines(t.texts(8)) == [f"▶️ {GROUP_TURN}"]
    assert _combat(table).order[:3] == ["Soldado 1", "Soldado 2", "Soldado 3"]
    assert _turn_lines(t.texts(9)) == ["▶️ Kira (@ana:local)"]
    assert any(m.startswith("🔔 Ronda 2.") for m in t.texts(10))


def test_savage_on_the_group_turn_the_gm_acts_for_any_member() -> None:
    table = make_table(system="savage", seed=3)
    t = play(SAVAGE_SETUP + """
@gm:local: !turnos Soldado 1, Soldado 2, Soldado 3, Kira
@gm:local: !ataque Soldado 3 Kira
@gm:local: !ataque Soldado 2 Kira
@gm:local: !tiro Soldado 1 Pelear contra Kira
@gm:local: !siguiente
""", table=table)
    digest = t.gm_text(12)  # the GMs' copies of the turn come when it ends (issue 30)
    # attacks (issue 30: one short line); both miss: a ✅ each, held until the room's next message, the roll
    for at, (line, member) in enumerate(((9, "Soldado 3"), (10, "Soldado 2"))):
        assert t.acked(line)
        assert t.texts(11)[at].startswith(f"⚔️ {member} → Kira: [") and t.texts(11)[at].endswith("fallo")
        assert f"⚔️ {member} → Kira: [" in digest and " vs 6 → " in digest  # Kira's Parry
    assert t.texts(11)[2].startswith("Soldado 1 · Pelear contra Kira · 🎲 ["), t.texts(11)
    assert "Soldado 1 · Pelear d6 contra Kira · 🎲 1d6 vs 6:" in digest
    assert _turn_lines(t.texts(12)) == ["▶️ Kira (@ana:local)"]


def test_a_player_ends_their_own_turn_and_nobody_elses() -> None:
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj Kira @ana:local
@gm:local: !pj Rurik @bob:local
@gm:local: !combate
@gm:local: !turnos Kira, Rurik, Orco
@bob:local: !siguiente
@ana:local: !siguiente
@ana:local: !siguiente
@bob:local: !siguiente
""", table=table)
    assert t.text(5).startswith("⛔") and "Kira" in t.text(5)
    assert t.texts(6) == ["▶️ Rurik (@bob:local)"]
    assert t.text(7).startswith("⛔") and "Rurik" in t.text(7)
    assert t.acked(8)  # a turn passing to the GM's Orco with nothing else to say (issue 30)


def test_savage_an_incapacitated_wild_card_and_an_extra_out_of_the_fight_get_no_turn() -> None:
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj Kira @ana:local
@gm:local: !pj McAvoy @bob:local
@gm:local: !ficha Guardia comodin no
@gm:local: !combate
@gm:local: !turnos Kira, McAvoy, Guardia, Orco
@gm:local: !ficha McAvoy incapacitado 1
@gm:local: !ficha Guardia fuera 1
@ana:local: !siguiente
""", table=table)
    assert t.acked(8), t.for_line(8)   # issue 30: an NPC's turn; who was passed over (down) makes no message
    assert table.room(ROOM_ID).combat.current == "Orco"


def test_savage_bleeding_out_rolls_vigor_at_the_start_of_the_round_before_the_deal() -> None:
    """000: "Cuando un personaje comienza a desangrarse, debe hacer una tirada de Vigor al comienzo de
    cada ronda de combate tras la que quedara incapacitado, antes de que se reparta ninguna carta de
    acción para la misma." The bleeding Wild Card gets no card and no turn; the bot rolls, one line."""
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj Kira @ana:local
@gm:local: !pj McAvoy @bob:local
@gm:local: !ficha McAvoy vigor d8
@gm:local: !combate
@gm:local: !iniciativa Kira, McAvoy, Orco
@gm:local: !ficha McAvoy incapacitado 1 desangrando 1
@gm:local: !siguiente
@gm:local: !siguiente
""", table=table)
    texts = t.texts(7) + t.texts(8)
    vigor = [i for i, m in enumerate(texts) if m.startswith("McAvoy ·")]
    deal = [i for i, m in enumerate(texts) if m.startswith("🃏")]
    assert len(vigor) == 1 and len(deal) == 1 and vigor[0] < deal[0], texts
    assert "\n" not in texts[vigor[0]] and "desangr" in texts[vigor[0]].lower(), texts
    # No card for him; the deal ends naming who cannot act (issue 31 item 10).
    cards, _, why = texts[deal[0]].partition(" No puede actuar: ")
    assert "McAvoy" not in cards and why == "McAvoy (incapacitado).", texts[deal[0]]
    assert "McAvoy" not in _combat(table).order[_combat(table).turn:]


REINO_SETUP = """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bran @bob:local
@gm:local: !ficha Ana pr 20 umbral 30 fortaleza 2
@gm:local: !combate
@gm:local: !turnos Ana, Bran, Orco
"""


def test_reino_the_dying_get_no_turn_and_save_each_round_in_one_line() -> None:
    """003: "Un personaje moribundo se encuentra a las puertas de la muerte. Está indefenso y es incapaz
    de actuar. A partir del asalto siguiente debe realizar pruebas de salvación de Fortaleza (CD10+1 por
    cada salvación previa realizada)." """
    table = make_table(system="reino", seed=5)
    t = play(REINO_SETUP + """
@gm:local: !daño Ana 20
@bob:local: !siguiente
@gm:local: !siguiente
@bob:local: !siguiente
@gm:local: !siguiente
""", table=table)
    assert _turn_lines(t.texts(6)) == ["▶️ Bran (@bob:local). Ana no puede actuar."]
    for line, dc in ((8, 10), (10, 11)):
        texts = t.texts(line)
        saves = [m for m in texts if m.startswith("🩸 Ana") and " vs CD " in m]
        assert len(saves) == 1 and f"CD {dc}" in saves[0] and "\n" not in saves[0], texts
        assert _turn_lines(texts) == ["▶️ Bran (@bob:local). Ana no puede actuar."]  # after the round's line


def test_reino_the_unconscious_get_no_turn() -> None:
    table = make_table(system="reino", seed=5)
    t = play(REINO_SETUP + """
@gm:local: !ficha Bran pr 20 umbral 30
@gm:local: !daño Bran 20
@gm:local: !sana Bran moribundo
@gm:local: !siguiente
""", table=table)
    assert "inconsciente" in t.text(8)
    assert t.acked(9), t.for_line(9)   # issue 30: an NPC's turn; who was passed over (down) makes no message
    assert table.room(ROOM_ID).combat.current == "Orco"


def test_reino_when_nobody_can_act_the_gm_hears_it_and_each_next_is_a_round_of_saves() -> None:
    table = make_table(system="reino", seed=5)
    t = play("""
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana pr 20 umbral 30 fortaleza 2
@gm:local: !combate
@gm:local: !turnos Ana
@gm:local: !daño Ana 20
@gm:local: !siguiente
""", table=table)
    assert any(m.startswith("⏸️ Ronda 1: nadie puede actuar") for m in t.texts(5)), t.texts(5)
    texts = t.texts(6)
    assert any(m.startswith("🩸 ") and " vs CD " in m for m in texts) and any(m.startswith("⏸️ Ronda 2") for m in texts), texts


def test_sombra_the_unconscious_and_the_helpless_get_no_turn() -> None:
    table = make_table(system="sombra", seed=1)
    t = play("""
@gm:local: !pj Cole @ana:local
@gm:local: !pj Vera @bob:local
@gm:local: !ficha Cole res 5
@gm:local: !ficha Vera res 5
@gm:local: !combate
@gm:local: !turnos Guardia, Cole, Vera, Sargento
@gm:local: !daño Cole 12 cabeza
@gm:local: !daño Vera 12 abdomen
@gm:local: !siguiente
@gm:local: !siguiente
""", table=table)
    assert t.acked(9), t.for_line(9)   # issue 30: an NPC's turn; who was passed over (down) makes no message
    assert _turn_lines(t.texts(10)) == ["▶️ Guardia"]


def test_the_actor_who_falls_on_their_own_turn_passes_it() -> None:
    table = make_table(system="sombra", seed=1)
    t = play("""
@gm:local: !pj Cole @ana:local
@gm:local: !ficha Cole res 5
@gm:local: !combate
@gm:local: !turnos Cole, Sargento
@gm:local: !daño Cole 12 cabeza
""", table=table)
    assert _turn_lines(t.texts(5)) == ["▶️ Sargento. Cole no puede actuar."]


@pytest.mark.parametrize("dash", ["-----", "----- (Kira)"])
def test_starting_a_combat_during_a_lock_tells_the_gm_and_the_lock_stays(dash: str) -> None:
    table = make_table(system="savage", seed=3)
    t = play(f"""
@gm:local: !pj Kira @ana:local
@gm:local: {dash}
@gm:local: !combate
""", table=table)
    answers = t.for_line(3)
    notes = [a for a in answers if a["action"] == "send" and a["text"].startswith("🔒")]
    assert len(notes) == 1 and notes[0]["private_to"] == "@gm:local", answers
    assert "guiones" in notes[0]["text"]
    assert table.room(ROOM_ID).lock is not None and table.room(ROOM_ID).combat is not None


def test_starting_a_combat_with_the_floor_open_says_nothing_of_locks() -> None:
    t = play("@gm:local: !combate", system="savage")
    assert not any(m.startswith("🔒") for m in t.texts(1))


def test_the_board_marks_every_member_of_the_group_turn() -> None:
    table = make_table(system="savage", seed=3)
    t = play(SAVAGE_SETUP + """
@gm:local: !turnos Soldado 1, Soldado 2, Soldado 3, Kira
@gm:local: !estado
""", table=table)
    assert t.text(9).splitlines()[1:] == ["▶ Soldado 1", "▶ Soldado 2", "▶ Soldado 3", "· Kira [3 benis]"]


def test_stormbringer_a_combatant_stunned_by_a_critical_gets_no_turn() -> None:
    """002: "Además, el personaje dañado quedará temporalmente aturdido y no podrá combatir durante por
    lo menos cinco minutos." """
    table = make_table(system="stormbringer", seed=1)
    t = play("""
@gm:local: !pj Elric @ana:local
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 24
@gm:local: !combate
@gm:local: !turnos Elric, Orco, Moonglum
@gm:local: !daño Orco 1d8 crítico
@ana:local: !siguiente
""", table=table)
    assert "aturdimiento" in t.text(6)
    assert _quiet(t, 7), t.for_line(7)   # issue 30: an NPC's turn; who was passed over (down) makes no message
    assert table.room(ROOM_ID).combat.current == "Moonglum"
