"""Issue 22, items 10-16b: El Reino de la Sombra at the table, by the book (rules 003)."""

from __future__ import annotations

from bot.core.state import RoomState
from bot.core.table import Table
from systems.dice import parse
from systems.reino.resolver import weapon_damage
from systems.reino.rules import Grip, recovery_due, recovery_test
from tests.scripted import FaceRng, faces
from tests.transcript import Transcript, assert_refused, make_table, play

ROOM = "!console:local"
CAST = """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha Ana defensa 15 esquiva 2 pr 20 pr_max 20 umbral 8 fortaleza 1 pa 2 iniciativa 2 ataque 4
@gm:local: !ficha Bruno defensa 14 pr 15 pr_max 15 umbral 9 fortaleza 2 pa 2 iniciativa 1 ataque 3
@gm:local: !pnj Orco
@gm:local: !ficha Orco defensa 12 pr 10 umbral 5 ataque 2
"""
CAST_LINES = 6


def table_with(*rolls: tuple[int, int]) -> Table:
    """A reino table whose dice show exactly ``rolls`` ((face, sides), in order)."""
    table = make_table(system="reino")
    table.rng = FaceRng(rolls)  # type: ignore[assignment]
    return table


def d20s(*values: int) -> Table:
    table = make_table(system="reino")
    table.rng = faces(20, *values)  # type: ignore[assignment]
    return table


def room(table: Table) -> RoomState:
    return table.room(ROOM)


def sheet(table: Table, name: str) -> dict:
    character = room(table).find_character(name)
    assert character is not None
    return character.sheet


def roll_of(t: Transcript, number: int) -> dict:
    """The roll object of the room's message answering line ``number``."""
    (send,) = [a for a in t.for_line(number) if a["action"] == "send" and a.get("roll") and not a.get("gm_copy")]
    return send["roll"]


# --- item 10: stabilising adds the helper's Medicina, or Sabiduría -------------------------


def test_stabilising_adds_the_helpers_medicina() -> None:
    """003: «Otro personaje puede estabilizar a un moribundo con la habilidad Medicina (CD15), con una
    prueba de Sabiduría (CD15) o gastando un Punto de Acción.» Bruno's Medicina 6: 10 + 6 = 16 >= 15."""
    table = d20s(10)
    t = play(CAST + """
@gm:local: !ficha Bruno medicina 6
@gm:local: !herida Ana moribundo
@bob:local: !estabilizar Ana
""", table=table)
    line = CAST_LINES + 3
    assert "estabilizado" in t.text(line), t.text(line)
    assert roll_of(t, line)["modifiers"] == [{"reason": "medicina", "value": 6}]
    assert sheet(table, "Ana")["estados"] == "incapacitado, inconsciente"
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_stabilising_without_medicina_is_a_sabiduria_test_and_a_bonus_adds_to_it() -> None:
    """003: «... con una prueba de Sabiduría (CD15)»: without the skill, Sabiduría 3; the GM's +2 on top:
    10 + 3 + 2 = 15, just enough."""
    table = d20s(10)
    t = play(CAST + """
@gm:local: !ficha Bruno sabiduria 3
@gm:local: !herida Ana moribundo
@bob:local: !estabilizar Ana +2
""", table=table)
    line = CAST_LINES + 3
    assert "estabilizado" in t.text(line)
    assert roll_of(t, line)["modifiers"] == [{"reason": "sabiduria", "value": 3}, {"reason": "modificador", "value": 2}]


# --- item 11: named saves read the sheet -------------------------------------------------


def test_named_saves_add_the_sheets_save() -> None:
    """003: «La prueba de salvación será una tirada de 1D20 a la que se le sumarán los modificadores que
    correspondan»: the GM's ``!tiro Kira fortaleza vs 12`` and the player's own add Kira's Fortaleza."""
    table = d20s(10, 10, 10, 10)
    t = play("""
@gm:local: !pj Kira @kira:local
@gm:local: !ficha Kira fortaleza 3 reflejos 4 sabiduria 2
@gm:local: !tiro Kira fortaleza vs 12
@kira:local: !tiro fortaleza vs 12
@kira:local: !tiro reflejos vs 15
@kira:local: !tiro voluntad vs 15
""", table=table)
    gm, own, reflex, will = (roll_of(t, n) for n in range(3, 7))
    assert gm["modifiers"] == own["modifiers"] == [{"reason": "fortaleza", "value": 3}]
    assert (gm["total"], gm["outcome"], own["total"]) == (13, "success", 13)  # 10 + 3 vs 12
    assert gm["purpose"] == "fortaleza" and "Salvación de Fortaleza" in t.text(3)
    assert reflex["modifiers"] == [{"reason": "reflejos", "value": 4}] and reflex["total"] == 14
    assert will["modifiers"] == [{"reason": "sabiduria", "value": 2}], "a save not on the sheet: its attribute"


# --- item 12: an Action Point turns any failed roll into a success ---------------------------


def test_an_action_point_turns_a_failed_check_or_save_into_a_bare_success() -> None:
    """003: «Hacer que una tirada fallida se convierta en una tirada con éxito. En este caso siempre se
    considerará que el resultado total obtenido es el mínimo para asegurar el éxito.»"""
    table = d20s(3, 4, 18)
    t = play(CAST + """
@gm:local: !ficha Ana sigilo 5
@ana:local: !tiro Sigilo vs 15
@ana:local: !pa éxito
@ana:local: !tiro fortaleza vs 12
@ana:local: !pa éxito
@ana:local: !tiro Sigilo vs 15
@ana:local: !pa éxito
""", table=table)
    line = CAST_LINES + 1
    assert roll_of(t, line + 1)["outcome"] == "failure"  # 3 + 5 = 8 < 15
    assert "Sigilo" in t.text(line + 2) and "total 15" in t.text(line + 2) and "Le queda 1" in t.text(line + 2)
    assert roll_of(t, line + 3)["outcome"] == "failure"  # 4 + 1 = 5 < 12
    assert "Fortaleza" in t.text(line + 4) and "total 12" in t.text(line + 4) and "Le quedan 0" in t.text(line + 4)
    assert "ya tuvo éxito" in t.text(line + 6)  # 18 + 5: nothing to buy
    assert sheet(table, "Ana")["pa"] == 0


# --- item 13: using a skill is a standard action -------------------------------------------


def test_a_skill_roll_in_a_round_spends_the_standard_action_and_a_save_does_not() -> None:
    """003: «ACCIÓN ESTÁNDAR • Realizar un ataque. • Usar una Habilidad, Dote o Poder»."""
    table = d20s(15, 2, 10, 10)
    t = play(CAST + """
@gm:local: !ficha Ana sigilo 5
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@ana:local: !tiro fortaleza vs 12
@ana:local: !tiro Sigilo vs 15
@ana:local: !ataque Orco
@ana:local: !accion
""", table=table)
    line = CAST_LINES + 1
    assert "fallo" in t.text(line + 3) or "éxito" in t.text(line + 3)
    assert "ya no te quedan acciones de ese tipo" in t.text(line + 5)
    assert "Hechas este asalto: estándar." in t.text(line + 6)


# --- item 14: damage follows its attack ------------------------------------------------------

WEAPON = "@gm:local: !ficha Ana fuerza 2 arma Hacha arma_dano 1d8 arma_critico 3\n"


def test_a_hit_leaves_its_damage_pending_from_the_sheets_weapon() -> None:
    """003: «Cuando un ataque tiene éxito, se le causará al oponente una cantidad de daño que vendrá
    determinado en las estadísticas del arma. Recuerda que en el caso de un ataque en cuerpo a cuerpo,
    tienes que sumar el modificador de Fuerza al daño». d20 10 + 4 = 14 >= Defensa 12: a hit; 1d8 shows
    5, + FUE 2 = 7 >= umbral 5 of a minion (an NPC): Moribundo. RD is not subtracted (003 names it only
    in the critical threshold)."""
    table = table_with((15, 20), (2, 20), (10, 20), (5, 8))
    t = play(CAST + WEAPON + """
@gm:local: !ficha Orco rd 2
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@ana:local: !ataque Orco
@ana:local: !daño
@ana:local: !daño
""", table=table)
    line = CAST_LINES + 1
    assert "impacta" in t.text(line + 4) and "!daño" in t.text(line + 4)
    blow = "\n".join(t.texts(line + 5))
    assert "1d8" in blow and "= 7" in blow and "🩸 Orco cae Moribundo." in blow, blow
    assert sheet(table, "Orco")["pr"] == 3 and "moribundo" in sheet(table, "Orco")["estados"]
    assert "no tiene ningún golpe pendiente" in t.text(line + 6)
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_a_critical_multiplies_the_weapon_and_a_miss_leaves_nothing_to_apply() -> None:
    """003: «Un golpe crítico supone que el valor del daño del ataque se multiplicará según las
    estadísticas del arma». Natural 20: (1d8 4 + FUE 2) x 3 = 18 on Bruno (PR 15 -> -3). Then a miss
    (1 natural) leaves no blow."""
    table = table_with((15, 20), (2, 20), (20, 20), (4, 8), (12, 20))
    t = play(CAST + WEAPON + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@ana:local: !ataque Bruno
@ana:local: !daño
@ana:local: !siguiente
@bob:local: !siguiente
@ana:local: !ataque Bruno
@ana:local: !daño
""", table=table)
    line = CAST_LINES + 1
    assert "¡golpe crítico!" in t.text(line + 3)
    blow = "\n".join(t.texts(line + 4))
    assert "crítico ×3" in blow and "= 18" in blow and "PR 15 → -3" in blow, blow
    assert "falla" in t.text(line + 7) or "impacta" not in t.text(line + 7)
    assert "no tiene ningún golpe pendiente" in t.text(line + 8)


def test_an_owed_blow_never_blocks_the_next_attack_and_is_given_once() -> None:
    """A landed blow waits for its damage; issue 31 item 17b changed what issue 22 did here (the next attack
    was refused until it was rolled): «it never blocks the attacker's next attack and is never applied
    twice». Round 2: Ana's d20 3 + 4 = 7 < Defensa 12 misses; the GM gives the owed blow by hand (``!daño
    Orco 3``: PR 10 -> 7, 3 < Umbral 5), which settles it: Ana's ``!daño`` finds nothing."""
    table = d20s(15, 2, 10, 3)
    t = play(CAST + WEAPON + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@ana:local: !ataque Orco
@ana:local: !siguiente
@bob:local: !siguiente
@ana:local: !ataque Orco
@gm:local: !daño Orco 3
@ana:local: !daño
""", table=table)
    line = CAST_LINES + 1
    assert "[3] = 7 → falla" in t.text(line + 6)  # the room reads the total, not the NPC's Defensa
    assert sheet(table, "Orco")["pr"] == 7
    assert "no tiene ningún golpe pendiente" in t.text(line + 8)


# --- item 15: waking up changes the state; the bot rolls it every 10 rounds ------------------


def test_the_bot_rolls_the_wake_up_every_ten_rounds_and_a_success_wakes() -> None:
    """003: «Un personaje inconsciente puede recuperarse de la inconsciencia por medio de una prueba
    exitosa de Fortaleza (CD10) cada minuto (10 asaltos de combate) tras caer inconsciente.» Ana falls in
    round 1 and Bruno stabilises her with his Action Point; she has no turns while unconscious, so each
    !siguiente of Bruno's starts a round: round 11 begins on the 10th, and the bot rolls Fortaleza d20+1
    vs 10: 12 + 1 = 13, she wakes and has her turn."""
    table = d20s(15, 2, 12)
    script = CAST + """
@gm:local: !combate
@gm:local: !iniciativa Ana, Bruno
@gm:local: !siguiente
@gm:local: !daño Ana 20
@bob:local: !estabilizar Ana pa
""" + "@gm:local: !siguiente\n" * 10
    t = play(script, table=table)
    line = CAST_LINES + 5
    assert "Ronda 10" in t.texts(line + 9)[0] and not any("consciencia" in m for m in t.texts(line + 9))
    woken = t.texts(line + 10)
    # Issue 30: the round's order and its first turn are one message, the turn line after the round's.
    assert woken[-2].startswith("🔔 Ronda 11. Orden:") and woken[-1] == "▶️ Ana (@ana:local)"
    assert any("Recuperar la consciencia" in m and "recupera la consciencia" in m for m in woken), woken
    assert sheet(table, "Ana")["estados"] == "incapacitado"
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_a_helpers_medicina_wakes_an_unconscious_character() -> None:
    """003: «Otro personaje puede hacer que recupere la consciencia usando su habilidad Medicina o
    superando una prueba de Sabiduría con las condiciones anteriores» (CD 10): 5 + Medicina 6 = 11."""
    table = d20s(5)
    t = play(CAST + """
@gm:local: !ficha Bruno medicina 6
@gm:local: !daño Ana 20
@bob:local: !estabilizar Ana pa
@bob:local: !despertar Ana
""", table=table)
    line = CAST_LINES + 4
    assert "recupera la consciencia" in t.text(line)
    assert roll_of(t, line)["modifiers"] == [{"reason": "medicina", "value": 6}]
    assert sheet(table, "Ana")["estados"] == "incapacitado"


# --- item 16: the surprise round is labelled; the first normal round is «Ronda 1» -----------


def test_the_surprise_round_is_labelled_and_the_first_normal_round_is_round_one() -> None:
    """003: «tiene lugar un asalto de Sorpresa antes de que comience el asalto normal»."""
    table = d20s(10, 4, 15)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !sorpresa Orco
@gm:local: !iniciativa Ana, Bruno, Orco
@ana:local: !siguiente
@bob:local: !siguiente
@gm:local: !estado
""", table=table)
    line = CAST_LINES + 1
    surprise = t.texts(line + 2)  # issue 30: the round is named in its own line, the turn line is one phone line
    assert any(m.startswith("⚡ Asalto sorpresa") for m in surprise) and surprise[-1] == "▶️ Ana (@ana:local)", surprise
    after = t.texts(line + 4)
    assert any(m.startswith("🔔 Ronda 1. Orden: Orco → Ana → Bruno") for m in after), after
    assert after[-1] == "▶️ Orco"
    assert "Ronda 1" in t.text(line + 5)


# --- item 16b: the GM's enemies are minions unless made otherwise ----------------------------


def test_the_gms_enemies_are_minions_unless_the_gm_says_otherwise() -> None:
    """003: «A no ser que el Director de Juego lo especifique, los enemigos en combate que encontrarán los
    personajes siguen la regla de Secuaces ... Si un personaje iguala o supera el Umbral de Herida Grave
    de un secuaz, éste cae inmediatamente Moribundo.» Orco (no Secuaz on its sheet) falls at once; Jefe
    (Secuaz no) saves."""
    table = d20s(11)
    t = play(CAST + """
@gm:local: !pnj Jefe
@gm:local: !ficha Jefe pr 30 umbral 6 fortaleza 2 secuaz no
@gm:local: !daño Orco 5
@gm:local: !daño Jefe 6
""", table=table)
    line = CAST_LINES + 3
    assert "🩸 Orco recibe 5 de daño y cae Moribundo." in t.text(line) and "Fortaleza" not in t.text(line)
    assert "moribundo" in sheet(table, "Orco")["estados"]
    assert "Herida grave" in t.gm_text(line + 1) and "Fortaleza" in t.gm_text(line + 1)


def test_an_npc_minion_scores_no_critical() -> None:
    """003: «Un secuaz no puede obtener un golpe crítico contra un personaje.» The Orco's natural 20 hits
    Ana but is no critical."""
    table = d20s(20)
    t = play(CAST + "@gm:local: !combate\n@gm:local: !turnos Orco, Ana\n@gm:local: !ataque Ana", table=table)
    line = CAST_LINES + 3
    assert "impacta" in t.text(line) and "crítico" not in t.text(line).replace("no hace críticos", "")


def test_an_npcs_blow_keeps_its_strength_the_gms() -> None:
    """The room sees the NPC's damage dice and total, not its sheet's Fuerza (issue 19's rule): 1d6 shows 4,
    + FUE 3 = 7 on Ana (d20 14 + 2 = 16 >= Defensa 15)."""
    table = table_with((14, 20), (4, 6))
    t = play(CAST + """
@gm:local: !ficha Orco fuerza 3 arma_dano 1d6
@gm:local: !combate
@gm:local: !turnos Orco, Ana
@gm:local: !ataque Ana
@gm:local: !daño
@gm:local: !siguiente
""", table=table)   # the turn's end sends the GMs' digest (issue 30)
    line = CAST_LINES + 5
    room_copy = t.texts(line)[0]
    assert "= 7" in room_copy and "FUE" not in room_copy and "+ 3" not in room_copy, room_copy
    assert "FUE +3" in t.gm_text(line)   # issue 30: the GMs' copy comes in the digest
    assert "strength" not in roll_of(t, line)
    assert sheet(table, "Ana")["pr"] == 13


# --- new probabilities, by exact enumeration -----------------------------------------------


def test_stabilising_with_medicina_succeeds_on_exactly_the_faces_the_rule_gives() -> None:
    """Medicina 6 vs CD 15: faces 9-20 succeed (9 + 6 = 15), 1-8 fail: 12 of 20, through the table."""
    won = []
    for face in range(1, 21):
        table = d20s(face)
        play(CAST + "@gm:local: !ficha Bruno medicina 6\n@gm:local: !herida Ana moribundo\n"
             "@bob:local: !estabilizar Ana", table=table)
        if "moribundo" not in sheet(table, "Ana")["estados"]:
            won.append(face)
    assert won == list(range(9, 21))


def test_the_wake_up_roll_each_minute_by_enumeration() -> None:
    """Fortaleza +f vs CD 10, +1 per minute past the first: successes are the faces n with n = 20, or n > 1
    and n + f + (minute - 1) >= 10."""
    for fortitude in range(-2, 6):
        for minute in range(1, 6):
            won = sum(recovery_test(n, fortitude, minute).success for n in range(1, 21))
            expected = sum(1 for n in range(1, 21) if n == 20 or (n > 1 and n + fortitude + minute - 1 >= 10))
            assert won == expected
    assert [r for r in range(45) if recovery_due(3, r)] == [13, 23, 33, 43]
    assert [recovery_due(3, r) for r in (13, 23, 33)] == [1, 2, 3]


def test_a_blows_damage_by_enumeration_of_the_weapon_die() -> None:
    """(1d8 + FUE 3 a dos manos → +4) × 3: every face gives (face + 4) × 3; a projectile adds no FUE."""
    for face in range(1, 9):
        rng = faces(8, face)
        assert weapon_damage(parse("1d8"), 3, Grip.TWO_HANDS, 3, rng).total == (face + 4) * 3
        assert weapon_damage(parse("1d8"), 3, Grip.PROJECTILE, 1, faces(8, face)).total == face


# --- bad input: a clear Spanish answer that changes nothing ----------------------------------


def test_bad_weapon_fields_and_wake_ups_are_refused_and_change_nothing() -> None:
    for line, answer in [
        ("@gm:local: !ficha Ana arma_dano espada", "espada"),
        ("@gm:local: !ficha Ana arma_tipo rara", "rara"),
        ("@gm:local: !ficha Ana arma_critico x11", "x11"),
        ("@bob:local: !despertar Ana", "Ana no está inconsciente"),
        ("@bob:local: !despertar Ana +1 +2", "ℹ️ Uso: !despertar"),
        ("@ana:local: !daño", "Ana no tiene ningún golpe pendiente"),
        ("@ana:local: !daño Bruno 3", "⛔ Solo el máster"),
    ]:
        assert_refused(CAST, line, answer, system="reino")
    assert_refused(CAST + "@gm:local: !herida Ana moribundo", "@bob:local: !despertar Ana",
                   "está Moribundo: primero hay que estabilizarlo", system="reino")


def test_a_weapon_critical_reads_x3_and_a_wounded_helper_takes_the_penalty() -> None:
    """003, Malherido: «El personaje recibe una penalización de –2 a todas sus acciones»: first aid too.
    Medicina 6 - 2 = +4; face 11: 15, just stabilised."""
    table = d20s(11)
    t = play(CAST + """
@gm:local: !ficha Ana arma_critico x3
@gm:local: !ficha Bruno medicina 6
@gm:local: !herida Bruno malherido
@gm:local: !herida Ana moribundo
@bob:local: !estabilizar Ana
""", table=table)
    assert sheet(table, "Ana")["arma_critico"] == 3
    line = CAST_LINES + 5
    assert roll_of(t, line)["modifiers"] == [{"reason": "medicina", "value": 6}, {"reason": "malherido", "value": -2}]
    assert "estabilizado" in t.text(line)


def test_the_gm_spends_a_characters_action_point_on_its_failed_wound_save() -> None:
    """003: an Action Point turns a failed roll into a success, the save inside ``!daño`` too: the GM's
    ``!pa éxito Ana`` in the same turn. Ana's Fortaleza 1 + 4 = 5 < CD 10 + 9."""
    table = d20s(4)
    t = play(CAST + "@gm:local: !daño Ana 9\n@gm:local: !pa éxito Ana\n@bob:local: !pa éxito Ana", table=table)
    line = CAST_LINES + 1
    assert "fallada" in t.text(line)
    assert "su salvación por la herida grave tiene éxito por lo justo (total 19)" in t.text(line + 1)
    assert sheet(table, "Ana")["pa"] == 1
    assert "Solo el máster o el jugador de Ana" in t.text(line + 2)
