"""The Stormbringer table through chat transcripts: round phases, counters, defences, damage,
surprise, experience, refusals and a restart mid-combat."""

from __future__ import annotations

import random

import pytest

from tests.transcript import assert_gm_only, assert_refused, make_table, play

ROOM = "!console:local"
SETUP = """
@gm:local: !pj Elric @ana:local
@gm:local: !pj Moonglum @bob:local
@gm:local: !pj Orco
@gm:local: !ficha Elric des 17 pv 14 armadura 1d8 grave 7 daño 1d8+1 bf 1d6 ataque 85 parada 70 esquiva 40 ver 60 arma2 cuerpo
@gm:local: !ficha Moonglum des 15 pv 11 arma proyectil daño 1d8 ataque 80 parada 50 esquiva 50 ver 5
@gm:local: !ficha Orco des 12 pv 24 armadura 1d6 grave 7 daño 1d8 bf 1d4 ataque 60 parada 65 esquiva 30 emboscada 70
@gm:local: !combate
"""
# Lines 8-: a full combat. Seed 58 gives the dice described in test_full_combat.
FIGHT_1 = """
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !parada
@bob:local: !siguiente
@ana:local: !ataque Orco
@gm:local: !parada
"""
FIGHT_2 = """
@gm:local: !parada
@gm:local: !daño Orco
@ana:local: !ataque Orco dos armas
@gm:local: !parada
@gm:local: !esquiva
@gm:local: !daño Orco
@gm:local: !estado
@ana:local: !siguiente
@gm:local: !ataque Elric
@ana:local: !parada
@gm:local: !siguiente
@gm:local: !acciones
@gm:local: !estado
@bob:local: !ataque Orco
@gm:local: !parada
@gm:local: !combate fin
"""
FIGHT_SEED = 58


def sb(script: str, seed: int = 1, table=None):
    if table is not None:
        return play(script, table)
    return play(script, system="stormbringer", seed=seed)


def room(table) -> dict:
    return table.room(ROOM).to_dict()


def test_full_combat() -> None:
    table = make_table(system="stormbringer", seed=FIGHT_SEED)
    t = play(SETUP + FIGHT_1 + FIGHT_2, table)
    phases = t.texts(8)[0]
    assert "Intenciones, de menor a mayor DES: Orco, Moonglum (@bob:local), Elric (@ana:local)." in phases
    assert "Proyectiles, de mayor a menor DES: Moonglum. Cuerpo a cuerpo: Elric, Orco." in phases
    # The declarations go first, lowest DES first (issue 22); then the missile user goes first although
    # Elric has the higher DEX.
    assert "▶️ Orco" in t.texts(8)[-1] and "Intenciones, en ese orden: cada uno declara" in t.texts(8)[-2]
    assert "▶️ Moonglum" in t.texts(9)[-1]
    # Round 1: Moonglum's arrow hits; Orco's first parry is halved against a missile, and works.
    assert "Ataque 80%: [59] → éxito" in t.text(10)
    assert "Parada 65 ÷2 = 32% contra proyectil: [21] → éxito" in t.gm_text(11)  # issue 19: Orco's skill
    assert "▶️ Elric" in t.text(12)
    # Elric hits; Orco's second parry is at -20% and fails.
    assert "Ataque 85%: [65] → éxito" in t.text(13)
    assert "Parada 65 -20 (paradas previas) = 45%: [95] → fallo" in t.gm_text(14)
    # One defence per blow: no dodge after the failed parry of that blow.
    assert "ya intentó defenderse de ese golpe" in t.text(15)
    # Damage from Elric's sheet (1d8+1 + 1d6) minus Orco's armour 1d6.
    assert "Daño [1] + 1 + BF [3] = 5 − armadura [3] (absorbe 3) → pierde 2 PV" in t.text(16)
    assert "PV 24 → 22" in t.gm_text(16) and "24" not in t.text(16)
    # Elric's second attack, with his second weapon (issue 22: one attack a round per weapon), is at
    # -20% and -25%; Orco may not parry again this round, but may dodge.
    assert "Ataque 85 -20 (ataques previos) -25 (segunda arma) = 40%: [29] → éxito" in t.text(17)
    assert "no puede parar más este asalto" in t.text(18)
    assert "Esquiva 30%: [88] → fallo" in t.gm_text(19) and "30" not in t.text(19)
    assert "Herida grave (umbral 7)" in t.gm_text(20) and "PV 22 → 11" in t.gm_text(20)
    assert "Herida grave" in t.text(20) and "umbral" not in t.text(20) and "22" not in t.text(20)
    status = t.text(21)
    assert "Elric [PV 14, ataques 2]" in status
    assert "Orco [herida grave, paradas 2, sin más paradas]" in status  # an NPC's PV are the GM's
    assert t.acked(22)  # Orco's turn: a ✅, the GM runs it (issue 30)
    assert "Orco · ⚔️ Ataque 60%" in t.gm_text(23)
    assert "Elric · 🛡️ Parada 70%: [49] → éxito" in t.text(24)
    # Round 2: counters emptied, phases announced again and the declarations first (issue 22: lowest
    # DES first); the GM closes them (!acciones); Orco parries with no penalty.
    first_lines = [m.split("\n")[0] for m in t.texts(25)][:2]
    assert first_lines == ["📋 Asalto 2 (intenciones primero). Proyectiles: Moonglum. Cuerpo a cuerpo: Elric, Orco.",
                           "🔔 Ronda 2. Orden: Orco → Moonglum (@bob:local) → Elric (@ana:local)."]
    assert "Intenciones, en ese orden" not in " ".join(t.texts(25))   # issue 30: round 1 explained it
    assert t.texts(26)[0] == "⚔️ Asalto 2: acciones, en el orden anunciado."   # issue 30: not repeated
    assert "▶️ Moonglum" in t.texts(26)[1]
    assert "Orco [herida grave]" in t.text(27) and "paradas" not in t.text(27)
    assert "Parada 65 ÷2 = 32% contra proyectil" in t.gm_text(29) and "previas" not in t.gm_text(29)
    assert "Fin del combate tras 2 rondas" in t.text(30)
    state = room(table)
    assert state["combat"] is None
    assert state["characters"]["orco"]["sheet"]["pv"] == 11
    assert state["characters"]["elric"]["sheet"]["marcas"] == "ataque"   # hit, not parried


def test_restart_mid_round_resumes_exactly(tmp_path) -> None:
    part_1, part_2, boundary_seed = SETUP + FIGHT_1, SETUP + FIGHT_1 + FIGHT_2, 7
    single = make_table(system="stormbringer", seed=FIGHT_SEED)
    play(part_1, single)
    single.rng = random.Random(boundary_seed)
    expected = play(part_2, single)

    db = str(tmp_path / "r.db")
    play(part_1, make_table(system="stormbringer", seed=FIGHT_SEED, db=db))
    restarted = make_table(system="stormbringer", seed=boundary_seed, db=db)
    got = play(part_2, restarted)

    assert got.actions and got.actions == expected.actions
    assert all(int(a["id"][1:].split("/")[0]) >= 15 for a in got.actions)
    assert room(restarted) == room(single)
    # The restored state was used: the defended blow, the attacker's damage, the counters.
    assert "ya intentó defenderse de ese golpe" in got.text(15)
    assert "BF" in got.text(16)
    assert "-20 (ataques previos)" in got.text(17)


def test_restart_keeps_counters_and_phases_in_json(tmp_path) -> None:
    db = str(tmp_path / "r.db")
    play(SETUP + FIGHT_1, make_table(system="stormbringer", seed=FIGHT_SEED, db=db))
    data = make_table(system="stormbringer", db=db).room(ROOM).to_dict()["combat"]["data"]
    assert data["counters"]["orco"] == {"attacks": 0, "parries": 2, "parry_failed": True, "ripostes_earned": 0,
                                       "shield_used": False, "main_used": False, "second_used": False}
    assert data["counters"]["elric"]["attacks"] == 1
    blow = data["blows"][-1]
    assert blow["defended"] and blow["landed"] and blow["attacker"] == "Elric"
    assert data["phases"]["melee"] == ["Elric", "Orco"]


GM_ONLY = [
    ("!daño Orco 1d6", "!damage Orco 1d6"),
    ("!emboscada Orco contra Elric", "!ambush Orco contra Elric"),
    ("!experiencia Elric ataque", "!experience Elric ataque"),
    ("!primero master", "!first gm"),
]


@pytest.mark.parametrize("spanish, english", GM_ONLY)
def test_gm_only_commands_refuse_players(spanish: str, english: str) -> None:
    assert_gm_only(SETUP, "@bob:local", spanish, english, system="stormbringer")


def test_player_commands_have_english_aliases() -> None:
    t = sb(SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !attack Orco 70
@gm:local: !parry
@gm:local: !dodge
""", seed=FIGHT_SEED)
    assert "Moonglum · ⚔️ Ataque 70%" in t.text(10)
    assert "Orco · 🛡️ Parada" in t.text(11)
    assert "ya intentó defenderse" in t.text(12)


BAD = [
    ("@gm:local: !emboscada Orco", "!emboscada EMBOSCADOR, EMBOSCADOR contra"),
    ("@gm:local: !emboscada 60 contra Nadie", "No hay ningún personaje llamado «Nadie»"),
    ("@gm:local: !emboscada Moonglum contra Elric", "Moonglum no tiene «emboscada» en la ficha"),
    ("@gm:local: !daño Nadie 1d6", "No hay ningún personaje llamado «Nadie»"),
    ("@gm:local: !daño Orco banana", "no es una tirada"),
    ("@gm:local: !daño Orco", "No hay ningún golpe pendiente contra Orco"),
    ("@gm:local: !primero nadie", "!primero jugadores o !primero máster"),
    ("@gm:local: !experiencia Elric", "Elric no tiene habilidades marcadas"),
    ("@gm:local: !experiencia Elric fuerza", "Elric no tiene «fuerza» en la ficha"),
    ("@gm:local: !ataque", "No hay ningún combate en marcha"),
    ("@gm:local: !parada", "No hay ningún combate en marcha"),
    ("@gm:local: !daño", "Uso: !daño NOMBRE"),
    ("@gm:local: !experiencia", "Uso: !experiencia NOMBRE"),
]


@pytest.mark.parametrize("line, answer", BAD)
def test_bad_arguments_get_a_short_answer_and_change_nothing(line: str, answer: str) -> None:
    assert_refused(SETUP, line, answer, system="stormbringer")


IN_COMBAT_BAD = [
    ("@gm:local: !parada", "No hay ningún golpe que defender"),
    ("@bob:local: !ataque Orco respuesta", "Moonglum no tiene ataques de respuesta"),
    ("@gm:local: !ficha Moonglum ataque 1000\n@bob:local: !ataque", "Número demasiado grande"),
]


@pytest.mark.parametrize("line, answer", IN_COMBAT_BAD)
def test_bad_actions_in_combat(line: str, answer: str) -> None:
    table = make_table(system="stormbringer")
    script = SETUP + "@gm:local: !iniciativa\n@gm:local: !acciones\n"
    play(script, table)
    counters = room(table)["combat"]["data"]["counters"]
    t = play(script + line, table)
    assert answer in t.texts(10 + line.count("\n"))[-1]
    assert room(table)["combat"]["data"]["counters"] == counters


def test_defence_belongs_to_the_target() -> None:
    t = sb(SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
@ana:local: !parada
@ana:local: !parada Orco
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !ataque
@ana:local: !parada
@bob:local: !parada
""", seed=FIGHT_SEED)
    assert "El golpe de Moonglum va contra Orco, no contra Elric" in t.text(11)
    assert "Solo el máster o el jugador de Orco" in t.text(12)
    # Orco's untargeted attack: the first to defend becomes the target.
    assert t.acked(14)  # Orco's turn: a ✅, the GM runs it (issue 30)
    assert "Orco · ⚔️ Ataque 60%: [21] → éxito" in t.gm_text(15)
    assert "Elric · 🛡️ Parada" in t.text(16)
    assert "El golpe de Orco va contra Elric, no contra Moonglum" in t.text(17)


def test_turns_are_enforced_for_attacks_not_for_defences() -> None:
    t = sb(SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@ana:local: !ataque Orco
@bob:local: !ataque Orco
@gm:local: !parada
""", seed=FIGHT_SEED, )
    assert t.redacted(10)                  # Elric's turn comes after Moonglum's missile
    assert "Moonglum · ⚔️" in t.text(11)
    assert "Orco · 🛡️" in t.text(12)      # the GM defends out of turn


def test_ties_follow_the_side_chosen_first_then_alternate() -> None:
    script = """
@gm:local: !pj Elric @ana:local
@gm:local: !pj Orco
@gm:local: !ficha Elric des 12
@gm:local: !ficha Orco des 12
@gm:local: !combate
{first}
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
"""
    players = sb(script.format(first=""))
    assert "Cuerpo a cuerpo: Elric, Orco." in players.texts(6)[0]
    assert "Orden: Orco → Elric" in players.texts(9)[1]          # round 2's declarations
    assert "Cuerpo a cuerpo: Orco, Elric." in players.texts(9)[0]         # round 2's phases
    assert "en el orden anunciado" in players.texts(10)[0]
    gm = sb(script.format(first="@gm:local: !primero máster"))
    assert "van primero los personajes del máster" in gm.text(6)
    assert "Cuerpo a cuerpo: Orco, Elric." in gm.texts(7)[0]
    assert "Orden: Elric (@ana:local) → Orco" in gm.texts(10)[1]
    assert "Cuerpo a cuerpo: Elric, Orco." in gm.texts(10)[0]             # round 2's phases
    assert "en el orden anunciado" in gm.texts(11)[0]


def test_sheet_changes_reorder_the_next_round() -> None:
    t = sb(SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !ficha Orco des 20 arma ninguna
@gm:local: !ficha Elric arma proyectil
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !turnos Orco, Elric
@gm:local: !siguiente
@gm:local: !siguiente
""")
    new_round = t.texts(14)
    assert "Proyectiles: Elric, Moonglum. Cuerpo a cuerpo: —. Sin arma: Orco." in new_round[0]
    assert "Orden: Moonglum (@bob:local) → Elric (@ana:local) → Orco" in new_round[1]   # the declarations, lowest DES first
    # Turns set by hand are kept at the next round.
    assert "Orden: Orco → Elric" in t.texts(19)[0]


def test_ambush_success_leaves_victims_helpless_for_its_rounds() -> None:
    t = sb(SETUP + """
@gm:local: !emboscada Orco contra Elric, Moonglum
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !ataque Elric
@ana:local: !esquiva
@gm:local: !estado
@gm:local: !siguiente
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !estado
""", seed=9)
    assert "Sorpresa 1D4−1: [2]−1 = 1 asaltos" in t.text(8)
    assert "Sorprendidos: Elric, Moonglum." in t.text(8)
    assert "Moonglum: sorprendido: sin defensa (1 asalto)" in t.texts(10)[1]
    assert "Moonglum no puede atacar este asalto: le ha pillado la sorpresa" in t.text(11)
    assert "Orco · ⚔️ Ataque 60%: [14] → éxito" in t.gm_text(14)
    assert "Elric no puede esquivar este asalto: le ha pillado la sorpresa" in t.text(15)
    assert "Elric [PV 14, sorprendido: sin defensa (1 asalto)]" in t.text(16)
    assert "Moonglum · ⚔️ Ataque" in t.text(19)     # round 2: the surprise is over
    assert "sorprendido" not in t.text(20)


def test_failed_ambush_rolls_ver_for_each_victim() -> None:
    t = sb(SETUP + """
@gm:local: !emboscada Orco contra Elric Moonglum
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !estado
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
@gm:local: !estado
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !estado
""", seed=26)
    assert "Emboscada descubierta" in t.text(8)
    # Issue 22: the message names each ambusher (Orco, the GM's), so the numbers go to the GM.
    assert "Orco · Emboscada 70%: [75] → fallo" in t.gm_text(8)
    assert "Elric · Ver 🎲 d100 vs 60%: [21] → éxito" in t.gm_text(8)
    assert "Moonglum · Ver 🎲 d100 vs 5%: [21] → fallo" in t.gm_text(8)
    assert "Elric · Ver 🎲 d100: [21] → éxito" in t.text(8) and "70" not in t.text(8)
    round_1, round_2, round_3 = t.text(11), t.text(16), t.text(20)
    assert "Moonglum [PV 11, sorprendido: sin defensa]" in round_1
    assert "Elric [PV 14, sorprendido: no ataca]" in round_1          # spotted, not a master
    assert "Moonglum [PV 11, sorprendido: no ataca]" in round_2       # may parry, not attack
    assert "Elric [PV 14]" in round_2
    assert "sorprendido" not in round_3


def test_critical_damage_ignores_armour_and_stuns() -> None:
    table = make_table(system="stormbringer")
    t = play(SETUP + """
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !daño Orco 1d8 crítico
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
@bob:local: !ataque Orco
@gm:local: !parada Orco
@gm:local: !estado
""", table)
    assert "×2 (crítico, sin armadura)" in t.text(10) and "armadura [" not in t.text(10)
    assert "sufre aturdimiento al menos cinco minutos" in t.text(10)
    # 002: stunned, "no podrá combatir durante por lo menos cinco minutos": Orco gets no turn (issue 20),
    # not even to declare (issue 22), and may not parry.
    # Issue 30: the round's order and its first turn are one message (the turn after the round's line).
    assert t.texts(12)[-2:] == ["🔔 Ronda 2. Orden: Orco → Moonglum (@bob:local) → Elric (@ana:local).",
                                "▶️ Moonglum (@bob:local). Orco no puede actuar."]
    assert t.texts(13)[-1] == "▶️ Moonglum (@bob:local)"
    assert "Orco tiene el estado aturdido por un crítico" in t.text(15)
    assert "Orco [herida grave, aturdido desde el asalto 1 (2 de 25 asaltos): no combate]" in t.text(16)
    assert "Elric [PV 14]" in t.text(16)
    assert room(table)["combat"]["data"]["wounds"]["orco"] == ["major", "stunned"]


def test_damage_outside_combat_uses_the_sheet_armour() -> None:
    table = make_table(system="stormbringer")
    t = play(SETUP + "@gm:local: !daño Elric 2d6 armadura 0 (caída)\n@gm:local: !daño Elric 1d4", table)
    assert "armadura [0]" not in t.text(8) and "(caída)" in t.text(8)
    assert "− armadura [" in t.text(9)
    pv = room(table)["characters"]["elric"]["sheet"]["pv"]
    assert pv < 14 and f"→ {pv}." in t.text(9)


def test_experience_rolls_marked_skills_and_updates_the_sheet() -> None:
    table = make_table(system="stormbringer", seed=FIGHT_SEED)
    play(SETUP + FIGHT_1 + FIGHT_2, table)
    elric = table.room(ROOM).characters["elric"]
    elric.sheet["ataque"] = 10      # low skill: the d100 will almost surely beat it
    t = play(SETUP + FIGHT_1 + FIGHT_2 + "@gm:local: !experiencia Elric\n@gm:local: !experiencia Elric", table)
    assert t.text(31) == "Elric · ataque · 📈 Experiencia 10%: 1D100 [56] → mejora: 1D10 [4] → 14%"
    assert elric.sheet["ataque"] == 14
    assert "marcas" not in elric.sheet
    assert "no tiene habilidades marcadas" in t.text(32)


def test_help_includes_the_syntax_and_fits() -> None:
    t = sb("@ana:local: !ayuda pelea\n@ana:local: !ayuda combate\n@ana:local: !ayuda sintaxis")
    for name in ("!ataque", "!parada", "!esquiva", "!daño", "!emboscada", "!experiencia"):
        assert name in t.text(1)
    assert "!primero" in t.text(2) and "Stormbringer (d100)" in t.text(3)
    assert all(len(t.text(n)) <= 700 for n in (1, 2, 3))


def test_user_text_is_escaped_in_html() -> None:
    t = sb("""
@gm:local: !pj <b>x</b> @ana:local
@gm:local: !ficha <b>x</b> ataque 50 des 10
@gm:local: !pj Orco
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !acciones
@ana:local: !ataque Orco (<i>zas</i>)
""")
    html = next(a["html"] for a in t.for_line(7) if a["action"] == "send")
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<i>zas" not in html


def test_master_parry_earns_one_riposte_at_the_attack_penalty() -> None:
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
@gm:local: !estado
@gm:local: !permite Elric
@ana:local: !ataque Orco respuesta
@gm:local: !permite Elric
@ana:local: !ataque Orco respuesta
""", table)
    assert "Elric · 🛡️ Parada 95%: [61] → éxito" in t.text(16)
    assert "Elric [PV 14, ataques 1, paradas 1, respuestas 1]" in t.text(17)
    assert "Ataque de respuesta 95 -20 (ataques previos) = 75%" in t.text(19)
    assert t.redacted(21) and "Es el turno de Orco" in t.text(21)  # a refused riposte is no valid roll
    assert room(table)["granted"] == ["@ana:local"]   # the refused riposte used no grant
