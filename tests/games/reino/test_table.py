"""The reino table: its commands, its combat hooks, a full combat, a surprise round and a restart."""

from __future__ import annotations

import random

import pytest

from bot.core.state import RoomState
from bot.core.table import Table
from tests.scripted import faces
from tests.transcript import GM, Transcript, assert_gm_only, assert_refused, make_table, play

ROOM = "!console:local"
CAST = """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha Ana defensa 15 esquiva 2 pr 20 pr_max 20 umbral 8 fortaleza 1 pa 1 iniciativa 2 ataque 4
@gm:local: !ficha Bruno defensa 14 pr 15 pr_max 15 umbral 9 fortaleza 2 pa 2 iniciativa 1 ataque 3
"""
CAST_LINES = 4


def scripted_table(*d20: int) -> Table:
    """A reino table whose d20s show exactly ``d20`` in order (and no more)."""
    table = make_table(system="reino")
    table.rng = faces(20, *d20)  # type: ignore[assignment]
    return table


def more(table: Table, script: str, after: int) -> Transcript:
    """Continue on ``table``: comment lines keep the event ids ($N) counting from ``after`` + 1."""
    return play("# -\n" * after + script, table=table)


def room(table: Table) -> RoomState:
    return table.room(ROOM)


def sheet(table: Table, name: str) -> dict:
    character = room(table).find_character(name)
    assert character is not None
    return character.sheet


# --- permissions and bad arguments -----------------------------------------------------

GM_ONLY = [
    ("!daño Ana 3", "!damage Ana 3"),
    ("!herida Ana aturdido", "!wound Ana stunned"),
    ("!sana Ana aturdido", "!heal Ana stunned"),
    ("!sorpresa Ana", "!surprise Ana"),
]


@pytest.mark.parametrize("spanish, english", GM_ONLY)
def test_gm_only_commands_refuse_players(spanish: str, english: str) -> None:
    assert_gm_only(CAST + "@gm:local: !combate", "@bob:local", spanish, english, system="reino")


def test_commands_exist_only_in_reino_rooms() -> None:
    t = play("@gm:local: !daño Ana 3\n@gm:local: !sorpresa Ana", system="generic")
    assert "No conozco el comando «dano»" in t.text(1) and "«sorpresa»" in t.text(2)


BAD = [
    ("!daño Ana cinco", "ℹ️ Uso: !daño [pa] | NOMBRE PUNTOS [pa]"),
    ("!daño Ana -3", "ℹ️ Uso: !daño"),
    ("!daño Ana 3 4", "ℹ️ Uso: !daño"),
    ("!daño Nadie 3", "No hay ningún personaje llamado «Nadie»"),
    ("!herida Ana feliz", "ℹ️ Uso: !herida"),
    ("!sana Ana", "ℹ️ Uso: !sana"),
    ("!ataque Ana +99999", "ℹ️ Uso: !ataque"),
    ("!ataque Fantasma", "No hay ningún personaje llamado «Fantasma»"),
    ("!estabilizar Ana mucho", "ℹ️ Uso: !estabilizar"),
    ("!estabilizar Ana", "Ana no está Moribundo"),
    ("!pa Ana extra", "ℹ️ Uso: !pa"),
    ("!pa éxito", "no tiene una tirada fallida"),
    ("!accion", "solo se cuentan en un asalto"),
    ("!sorpresa Ana", "No hay ningún combate"),
    ("!daño Carla 3", "le falta pr y umbral"),
]


@pytest.mark.parametrize("line, answer", BAD)
def test_bad_arguments_get_a_short_spanish_answer_and_change_nothing(line: str, answer: str) -> None:
    sender = "@ana:local" if "éxito" in line else GM
    assert_refused(CAST + "@gm:local: !pj Carla @carla:local", f"{sender}: {line}", answer, system="reino")


def test_surprise_refuses_overlong_names() -> None:
    t = play("@gm:local: !combate\n@gm:local: !sorpresa " + "x" * 41, system="reino")
    assert t.text(2).startswith("ℹ️ Uso: !sorpresa")


def test_action_points_shown_and_spending_without_a_use_lists_the_uses() -> None:
    """Issue 31 item 17b changed ``!pa gastar``: it spent a point on nothing; now, with no use named, it lists
    003's uses and spends nothing. Anyone may look at a player character's points."""
    table = make_table(system="reino")
    t = play(CAST + """
@ana:local: !pa
@ana:local: !pa gastar
@ana:local: !ap spend
@bob:local: !pa gastar Ana
@bob:local: !pa Ana
@gm:local: !pa gastar Bruno
""", table=table)
    assert "Ana: 1 Punto de Acción" in t.text(5)
    for line in (6, 7, 8, 10):
        assert "!pa éxito" in t.text(line) and "No se ha gastado ninguno" in t.text(line), t.text(line)
    assert "Ana: 1 Punto de Acción" in t.text(9)
    assert (sheet(table, "Ana")["pa"], sheet(table, "Bruno")["pa"]) == (1, 2)


def test_damage_halved_by_an_action_point_and_minion_threshold() -> None:
    table = make_table(system="reino")
    t = play(CAST + """
@gm:local: !pj Orco @gm:local
@gm:local: !ficha Orco pr 8 umbral 5 secuaz sí
@gm:local: !daño Bruno 7 pa
@gm:local: !daño Orco 5
@gm:local: !dano Orco 1
""", table=table)
    assert "mitad por un Punto de Acción" in t.text(7) and "PR 15 → 12" in t.text(7)
    assert sheet(table, "Bruno")["pa"] == 1 and sheet(table, "Bruno")["pr"] == 12
    assert "🩸 Orco recibe 5 de daño y cae Moribundo." in t.text(8) and "Fortaleza" not in t.text(8)
    assert sheet(table, "Orco")["estados"] == "moribundo"
    assert "PR 3 → 2" in t.gm_text(9) and "PR" not in t.text(9)  # issue 19: the NPC's PR is the GM's


def test_wound_states_escalate_and_heal() -> None:
    table = make_table(system="reino")
    t = play(CAST + """
@gm:local: !herida Ana aturdido
@gm:local: !herida Ana aturdida
@gm:local: !herida Ana malherido
@gm:local: !wound Ana dying
@gm:local: !herida Ana moribundo
@gm:local: !sana Ana moribundo
""", table=table)
    assert "Ana: aturdido" in t.text(5)
    assert "ya tenía el estado aturdido, pasa a malherido" in t.text(6)
    assert "ya tenía el estado malherido, pasa a incapacitado" in t.text(7)
    assert "Ana: moribundo" in t.text(8) and "incapacitado, moribundo" in t.text(8)
    assert "Ana: moribundo" in t.text(9)
    assert "deja de estar moribundo" in t.text(10)
    assert sheet(table, "Ana")["estados"] == "incapacitado"


def test_health_and_action_commands_in_a_round() -> None:
    table = scripted_table(10, 15)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@bob:local: !accion movimiento
@bob:local: !action move
@bob:local: !accion movimiento
@bob:local: !accion reacción
@ana:local: !health
@bob:local: !salud Bruno
""", table=table)
    assert "▶️ Bruno" in t.texts(6)[-1]
    assert "Le quedan: estándar, movimiento, gratuita, reacción" in t.text(7)
    assert "Le quedan: gratuita, reacción" in t.text(8)
    assert "ya no te quedan acciones" in t.text(9)
    assert "Hechas este asalto: movimiento, movimiento, reacción" in t.text(10)
    assert "Defensa 15" in t.text(11) and "PR 20/20" in t.text(11)
    assert "Acciones que le quedan: gratuita, reacción" in t.text(12)
    assert room(table).combat.data["taken"] == {"bruno": ["movimiento", "movimiento", "reaccion"]}


# --- a full combat ---------------------------------------------------------------------

FULL_COMBAT = CAST + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno, Orco, Jefe
@gm:local: !ficha Orco defensa 12 pr 6 umbral 5 secuaz sí ataque 2
@gm:local: !ficha Jefe defensa 16 rd 1 pr 30 pr_max 30 umbral 12 fortaleza 3 ataque 6 secuaz no
@gm:local: !ataque Ana
@gm:local: !daño Ana 9
@gm:local: !herida Ana incapacitado
@gm:local: !siguiente
@ana:local: !ataque Jefe
@bob:local: !ataque Jefe
@bob:local: !ataque Jefe
@bob:local: !accion movimiento
@gm:local: !daño Jefe 14
@bob:local: !siguiente
@ana:local: !ataque Orco
@ana:local: !pa éxito
@gm:local: !daño Orco 5
@ana:local: !siguiente
@gm:local: !ataque Ana
@gm:local: !daño Ana 9
@gm:local: !herida Ana incapacitado
@gm:local: !siguiente
@bob:local: !accion
@bob:local: !estabilizar Ana +3
@bob:local: !siguiente
@ana:local: !ataque Jefe
@ana:local: !siguiente
@gm:local: !estado
@gm:local: !siguiente
@bob:local: !estabilizar Ana +3
@bob:local: !siguiente
@gm:local: !salud Ana
@gm:local: !combate fin
@gm:local: !ficha Ana
"""
# initiative Ana Bruno Orco Jefe; Jefe's attack; Ana's wound save; Bruno's attack; Jefe's wound save;
# Ana's attack; Orco's dying save; Jefe's attack; Ana's wound save; Bruno's first aid; Ana's dying save;
# Bruno's second first aid.
FULL_COMBAT_D20 = (10, 15, 5, 18, 15, 4, 20, 20, 11, 3, 9, 2, 5, 12, 14)


def test_full_combat_from_initiative_to_the_end() -> None:
    table = scripted_table(*FULL_COMBAT_D20)
    t = play(FULL_COMBAT, table=table)
    line = CAST_LINES
    # Initiative: Jefe 18, Bruno 15+1, Ana 10+2, Orco 5.
    assert "Jefe ([18]), Bruno 16 ([15]+1), Ana 12 ([10]+2), Orco ([5])" in t.texts(line + 2)[0]
    assert t.texts(line + 2)[-1] == "▶️ Jefe"
    # Round 1: the GM attacks with Jefe (the actor), Ana takes a serious wound and fails Fortitude.
    assert "Jefe ataca a Ana" in t.text(line + 5) and "impacta" in t.text(line + 5)
    assert "PR 20 → 11" in t.text(line + 6) and "CD 19" in t.text(line + 6) and "fallada" in t.text(line + 6)
    assert "Ana: incapacitado" in t.text(line + 7)
    assert "▶️ Bruno" in t.texts(line + 8)[-1]
    # Ana out of turn: redacted and warned; Bruno crits, then has no standard action left.
    assert t.redacted(line + 9)
    assert "Bruno ataca a Jefe" in t.text(line + 10) and "¡golpe crítico!" in t.text(line + 10)
    assert "ya no te quedan acciones de ese tipo" in t.text(line + 11)
    assert "Le quedan: gratuita, reacción" in t.text(line + 12)
    assert "PR 30 → 16" in t.gm_text(line + 13) and "superada" in t.text(line + 13)
    # Ana (Incapacitado, -5) misses Orco, then buys the hit with her Action Point; Orco falls.
    assert "Ana ataca a Orco (herido: -5)" in t.text(line + 15) and "falla" in t.text(line + 15)
    assert "impacta a Orco por lo justo (total 12" in t.gm_text(line + 16) and "total" not in t.text(line + 16)
    assert "🩸 Orco recibe 5 de daño y cae Moribundo." in t.text(line + 17)
    # Round 2 (issue 20: the dying Orco gets no turn, so Ana's !siguiente ends the round): Orco's dying
    # save fails; Ana is stunned this round (no dodge, -2: Defense 11).
    new_round = t.texts(line + 18)
    assert "Orco" in new_round[0] and "vs CD 10" in new_round[0] and "muere" in new_round[0]
    assert new_round[1] == "💀 Orco muere y sale del orden."
    assert "Ronda 2. Orden: Jefe → Bruno → Ana." in new_round[2]
    assert "sin esquiva y -2" in t.text(line + 19) and "vs Defensa 11" in t.gm_text(line + 19)
    assert "PR 11 → 2" in t.text(line + 20) and "fallada" in t.text(line + 20)
    assert "ya tenía el estado incapacitado, pasa a moribundo" in t.text(line + 21)
    # Bruno's actions were reset by the new round; his first aid fails.
    assert "Hechas este asalto: ninguna. Le quedan: estándar, movimiento, completa, gratuita, reacción" in t.text(line + 23)
    assert "Bruno intenta estabilizar a Ana" in t.text(line + 24) and "sigue Moribundo" in t.text(line + 24)
    # Round 3: the dying Ana gets no turn; her first dying save (DC 10) passes without stabilising; the
    # dead Orco makes none. Her attack and her !siguiente are out of turn.
    round_three = t.texts(line + 25)
    assert len([m for m in round_three if m.startswith("🩸 ") and " vs CD " in m]) == 1
    assert round_three[0].startswith("🩸 Ana: [") and round_three[0].endswith("vs CD 10 → sigue")
    assert any(m.startswith("🔔 Ronda 3.") for m in round_three)   # issue 30: the round and its first turn, one message
    assert round_three[-1] == "▶️ Jefe. Ana no puede actuar."
    assert t.redacted(line + 26) and "⏳ Es el turno de Jefe" in t.text(line + 26)
    assert t.text(line + 27).startswith("⛔")
    status = t.text(line + 28)
    assert "Ronda 3" in status and "Ana [PR 2/20, moribundo, PA 0]" in status and "Orco" not in status
    # Bruno stabilises her: Incapacitado and unconscious, still no turn; round 4 has no dying save.
    assert "estabilizado" in t.text(line + 30)
    assert not any(" vs CD " in m for m in t.texts(line + 31))
    assert any(m.startswith("🔔 Ronda 4.") for m in t.texts(line + 31))
    assert "Ana: Defensa 11" in t.text(line + 32) and "incapacitado, aturdido, inconsciente" in t.text(line + 32)
    assert "4" in t.text(line + 33)
    assert room(table).combat is None
    ana = sheet(table, "Ana")
    assert (ana["pr"], ana["pa"], ana["estados"]) == (2, 0, "incapacitado, inconsciente")
    assert "estados incapacitado, inconsciente" in t.text(line + 34)
    assert sheet(table, "Orco")["estados"] == "moribundo, muerto"
    assert table.rng.exhausted()  # type: ignore[attr-defined]


# --- surprise --------------------------------------------------------------------------


def test_surprise_round_only_the_aware_act_then_everyone_rolls() -> None:
    table = scripted_table(10, 4, 12, 15)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !sorpresa Orco
@gm:local: !iniciativa Ana, Bruno, Orco
@gm:local: !ficha Orco defensa 14 esquiva 3 pr 10 umbral 6
@ana:local: !accion movimiento
@ana:local: !ataque Orco
@bob:local: !ataque Orco
@ana:local: !siguiente
@bob:local: !surprise Orco
@bob:local: !ataque Orco
@bob:local: !siguiente
@gm:local: !estado
@gm:local: !sorpresa nadie
""", table=table)
    line = CAST_LINES
    assert "La sorpresa pilla a Orco" in t.text(line + 2)
    init = t.texts(line + 3)
    assert "Asalto sorpresa: la sorpresa pilla a Orco, que no actúa" in init[0] and "Ana 12 ([10]+2), Bruno 5 ([4]+1)" in init[0]
    assert init[1] == "🎭 PNJ nuevos del máster: Orco. Siguen siendo de sus jugadores: Ana (@ana:local), Bruno (@bob:local)."
    assert "una sola acción" in init[2] and init[3] == "▶️ Ana (@ana:local)"
    assert "ya no te quedan acciones de ese tipo" in t.text(line + 6)
    assert t.redacted(line + 7)
    assert "Solo el máster" in t.text(line + 9)
    assert "(desprevenido: sin esquiva)" in t.text(line + 10) and "vs Defensa 11" in t.gm_text(line + 10)
    after = t.texts(line + 11)
    assert "Acaba el asalto sorpresa. Tiran iniciativa: Orco 15 ([15])" in after[0]
    assert "Ronda 1. Orden: Orco → Ana → Bruno" in after[1]  # issue 22: the first normal round is round 1
    assert "▶️ Orco" in after[-1]
    assert room(table).combat.order == ["Orco", "Ana", "Bruno"]
    # The NPC's resistance is its sheet's, the GM's: the room sees none of it.
    assert "desprevenido" not in t.text(line + 12) and "▶ Orco\n" in t.text(line + 12) and "PR 10/10" not in t.text(line + 12)
    assert "ya ha empezado" in t.text(line + 13)
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_without_unaware_combatants_there_is_no_surprise_round() -> None:
    table = scripted_table(10, 4)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !sorpresa Orco
@gm:local: !iniciativa Ana, Bruno
""", table=table)
    assert all("sorpresa" not in m for m in t.texts(CAST_LINES + 3))
    assert room(table).combat.data["surprise_round"] is False


# --- restart ---------------------------------------------------------------------------

PART_ONE = CAST + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno, Jefe
@gm:local: !ficha Jefe defensa 12 pr 30 pr_max 30 umbral 10 fortaleza 2 ataque 5
@gm:local: !daño Ana 20
@gm:local: !herida Bruno malherido
@gm:local: !turnos Bruno, Ana, Jefe
@bob:local: !accion movimiento
"""
PART_ONE_LINES = CAST_LINES + 7
PART_TWO = """
@bob:local: !accion movimiento
@bob:local: !ataque Jefe
@bob:local: !siguiente
@ana:local: !pa
@gm:local: !siguiente
@bob:local: !ataque Jefe
@gm:local: !estado
"""


def _part_two(table: Table) -> Transcript:
    return more(table, PART_TWO, PART_ONE_LINES)


def test_a_restart_mid_combat_changes_nothing(tmp_path) -> None:
    single = make_table(system="reino", db=str(tmp_path / "single.db"), seed=5)
    play(PART_ONE, table=single)
    single.rng = random.Random(77)
    uninterrupted = _part_two(single)

    first = make_table(system="reino", db=str(tmp_path / "r.db"), seed=5)
    play(PART_ONE, table=first)
    restarted = make_table(system="reino", db=str(tmp_path / "r.db"), seed=77)
    resumed = _part_two(restarted)

    assert resumed.actions == uninterrupted.actions
    assert restarted.room(ROOM).to_dict() == single.room(ROOM).to_dict()
    line = PART_ONE_LINES
    # What part one left in the state is used: Bruno's spent move, his Malherido (-2, stunned next
    # round) and Ana's dying save in round 2.
    assert "Hechas este asalto: movimiento, movimiento" in resumed.text(line + 1)
    assert "ya no te quedan acciones" in resumed.text(line + 2)
    assert "Ana: 1 Punto de Acción" in resumed.text(line + 4)
    # Issue 20: the dying Ana gets no turn, so Jefe's turn ends round 1.
    round_two = resumed.texts(line + 5)
    assert "Ana" in round_two[0] and round_two[0].startswith("🩸 Ana Moribundo, Fortaleza: [") and "vs CD 10" in round_two[0]
    assert "Bruno tiene el estado Aturdido" in " ".join(round_two)
    assert "tiene el estado Aturdido" in resumed.text(line + 6)
    assert "Ronda 2" in resumed.text(line + 7) and "malherido" in resumed.text(line + 7)


# --- timing of states and stabilising with action points ----------------------------------


def test_a_table_stun_lasts_through_the_next_round() -> None:
    table = scripted_table(10, 15)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@gm:local: !herida Ana aturdido
@gm:local: !siguiente
@ana:local: !ataque Bruno
@ana:local: !accion reacción
@ana:local: !siguiente
@gm:local: !salud Ana
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !salud Ana
""", table=table)
    line = CAST_LINES
    assert "Ana tiene el estado Aturdido" in t.texts(line + 4)[0]
    assert "tu personaje tiene el estado Aturdido y solo puede reaccionar" in t.text(line + 5)
    assert "Hechas este asalto: reacción" in t.text(line + 6)
    assert "Ronda 2" in t.texts(line + 7)[0] and "aturdido" in t.text(line + 8) and "Defensa 11" in t.text(line + 8)
    assert "Ana tiene el estado Aturdido" in t.texts(line + 9)[0]
    assert "Ronda 3" in t.texts(line + 10)[0]
    assert "aturdido" not in t.text(line + 11) and "Defensa 15" in t.text(line + 11)
    assert "estados" not in sheet(table, "Ana")


def test_stabilising_with_an_action_point_and_the_rp_spelling() -> None:
    table = make_table(system="reino")
    t = play(CAST + """
@gm:local: !herida Ana moribundo
@ana:local: !estabilizar Ana pa
@gm:local: !herida Bruno moribundo
@ana:local: !stabilize Bruno pa
@gm:local: !estabilizar Bruno pa
@gm:local: !ficha Bruno rp 10
@bob:local: !salud Bruno
""", table=table)
    assert "Ana gasta un Punto de Acción: Ana se estabiliza" in t.text(6)
    assert "Ana está fuera de combate" in t.text(8)  # unconscious after stabilising: no action
    assert "Bruno gasta un Punto de Acción: Bruno se estabiliza" in t.text(9)
    assert "PR 10/15" in t.text(11) and "rp" not in sheet(table, "Bruno")
    assert (sheet(table, "Ana")["pa"], sheet(table, "Bruno")["pa"]) == (0, 1)
    assert sheet(table, "Ana")["estados"] == sheet(table, "Bruno")["estados"] == "incapacitado, inconsciente"
