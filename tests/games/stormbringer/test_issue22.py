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
@gm:local: !acciones
@gm:local: !ficha Trasgo pv 0
@gm:local: !ficha Elric arma proyectil
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
@gm:local: !ficha Orco pv -1
@gm:local: !siguiente
@gm:local: !siguiente
""")
    round_2 = t.texts(FIRST + 6)
    assert round_2[0].startswith("📋 Asalto 2 (intenciones primero).")   # issue 30: short, round 1 explained the phases
    assert "Proyectiles: Elric, Moonglum. Cuerpo a cuerpo: Orco." in round_2[0]
    assert "Orden: Orco → Moonglum (@bob:local) → Elric (@ana:local)" in round_2[1]   # issue 30: the players, once
    assert t.texts(FIRST + 7)[0] == "⚔️ Asalto 2: acciones, en el orden anunciado."   # issue 30
    round_3 = t.texts(FIRST + 10)   # Orco died on line FIRST + 8: round 3 after Elric and Moonglum
    assert round_3[0].startswith("📋 Asalto 3 (intenciones primero).")
    assert "Orden: Moonglum (@bob:local) → Elric (@ana:local)." in round_3[1]


def counters(table) -> dict:
    return room(table)["combat"]["data"]["counters"]


def test_one_attack_per_round_with_one_weapon() -> None:
    """«un personaje jugador no puede efectuar más de un ataque, y con una sola arma, en cada asalto de
    combate»: a second !ataque in the round is refused and changes nothing."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco
@ana:local: !ataque Orco
@ana:local: !tiro Espada
""", table=table)
    assert "Elric · ⚔️ Ataque 85%" in t.text(FIRST + 3)
    assert "Elric ya atacó este asalto" in t.text(FIRST + 4)
    assert counters(table)["elric"]["attacks"] == 1


def test_second_weapon_and_ambidexterity_come_from_the_sheet() -> None:
    """«Aquellos personajes que empuñen dos armas, pueden realizar un ataque adicional con su segunda
    arma con -25%» and «Los personajes ambidiestros no tendrán la penalización del -25%»: only when the
    sheet gives the second weapon (arma2) and ambidexterity (ambidiestro)."""
    t = sb("""
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco dos armas
@ana:local: !ataque Orco ambidiestro
@gm:local: !ficha Elric arma2 cuerpo
@ana:local: !ataque Orco
@ana:local: !ataque Orco dos armas
@ana:local: !ataque Orco dos armas
@gm:local: !ficha Elric ambidiestro sí
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco 200
@ana:local: !ataque Orco 200 dos armas
""", seed=4)
    assert "Elric no lleva segunda arma" in t.text(FIRST + 3)
    assert "Elric no es ambidiestro" in t.text(FIRST + 4)
    assert "Ataque 85 -20 (ataques previos) -25 (segunda arma) = 40%" in t.text(FIRST + 7)
    assert "Elric ya atacó con la segunda arma este asalto" in t.text(FIRST + 8)
    # Round 2, ambidextrous: the second weapon's attack has no -25%.
    assert "Ataque 200 -20 (ataques previos) = 180%" in t.text(FIRST + 16)


def test_a_masters_riposte_is_not_the_rounds_attack() -> None:
    """«Estas respuestas no sustituyen al Ataque normal del maestro cuando su DES le permita actuar»,
    and «la probabilidad de éxito de todo Ataque ... disminuye cada vez en un 20%»."""
    t = sb("""
@gm:local: !ficha Elric ataque 95 parada 95
@gm:local: !ficha Orco des 20
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@gm:local: !ataque Elric 200
@ana:local: !parada 200
@ana:local: !ataque Orco respuesta
@gm:local: !siguiente
@ana:local: !ataque Orco
""", seed=4)
    assert "Ataque de respuesta 95%" in t.text(FIRST + 7)
    assert "▶️ Elric" in t.texts(FIRST + 8)[-1]
    assert "Elric · ⚔️ Ataque 95 -20 (ataques previos) = 75%" in t.text(FIRST + 9)


def test_a_landed_blow_waits_for_its_damage() -> None:
    """«Si un ataque no crítico no es parado entonces la víctima hará una tirada para ver cuánto daño
    absorbe su armadura»: a later attack, hit or miss, does not lose the blow still waiting for damage."""
    table = make_table(system="stormbringer", seed=2)
    t = sb("""
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Trasgo 200
@bob:local: !siguiente
@ana:local: !ataque Orco 1
@gm:local: !daño Trasgo
@gm:local: !daño Trasgo
@gm:local: !daño Orco
""", table=table)
    assert "Moonglum · ⚔️ Ataque 200%" in t.text(FIRST + 2) and "éxito" in t.text(FIRST + 2)
    assert "→ fallo" in t.text(FIRST + 4)
    assert "Trasgo · 🩸 Daño [" in t.text(FIRST + 5)   # Moonglum's 1d8, not lost by Elric's miss
    assert "No hay ningún golpe pendiente contra Trasgo" in t.text(FIRST + 6)
    assert "No hay ningún golpe pendiente contra Orco" in t.text(FIRST + 7)
    assert "Falta el daño del arma" not in t.text(FIRST + 7)


def test_fixed_damage() -> None:
    """«El atacante hace tirada por daño que hace el arma»: a bare number is a damage already known
    (12 points); the sheet's armour still absorbs it as any blow's damage."""
    table = make_table(system="stormbringer", seed=2)
    t = sb("@gm:local: !daño Orco 12\n@gm:local: !daño Orco 3 armadura 0", table=table)
    first = t.text(FIRST)
    assert "Orco · 🩸 Daño 12 = 12 − armadura [" in first
    absorbed = int(first.split("(absorbe ")[1].split(")")[0])
    assert f"pierde {12 - absorbed} PV" in first
    assert "pierde 3 PV" in t.text(FIRST + 1)
    assert room(table)["characters"]["orco"]["sheet"]["pv"] == 24 - (12 - absorbed) - 3
    assert "PV 24 →" in t.gm_text(FIRST) and "24" not in t.text(FIRST)   # an NPC's hit points: the GM's


def test_per_weapon_skills() -> None:
    """«Con cada arma tenemos un % de ataque»; «una espada y un escudo serán considerados como dos armas
    distintas»: !ataque X espada uses Espada; a shield attacks and parries with its own %."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !ficha Elric espada 90 escudo 40 arma2 escudo
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco espada
@ana:local: !siguiente
@gm:local: !ataque Elric 200
@ana:local: !parada escudo
@gm:local: !ficha Orco arma2 escudo escudo 60
@gm:local: !ataque Elric escudo
@gm:local: !siguiente
""", table=table)   # the turn's end sends the GMs' digest (issue 30)
    assert "Elric · ⚔️ Ataque 90%" in t.text(FIRST + 4)
    assert "Elric · 🛡️ Parada 40%" in t.text(FIRST + 7)
    # Orco's shield, his second weapon: its own 60%, -20 for his attack before, -25 as second weapon.
    assert "Orco · ⚔️ Ataque 60 -20 (ataques previos) -25 (segunda arma) = 15%" in t.gm_text(FIRST + 9)


def test_a_named_attack_roll_makes_the_blow() -> None:
    """«Si se consigue una tirada normal entonces se toca a la víctima, a no ser que ésta lo pare o lo
    esquive»: !tiro Espada in combat is the round's attack, and its blow can be parried and damaged."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !ficha Elric espada 200
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !tiro Espada
@gm:local: !esquiva Orco 1
@gm:local: !daño Orco
@ana:local: !ataque Orco
""", table=table)
    assert "Espada 200%" in t.text(FIRST + 4)
    assert "Orco · 🤸 Esquiva" in t.text(FIRST + 5)
    assert "Orco · 🩸 Daño [" in t.text(FIRST + 6) and "BF [" in t.text(FIRST + 6)
    assert "Elric ya atacó este asalto" in t.text(FIRST + 7)


def test_no_defence_offered_when_both_would_be_refused() -> None:
    """«No se pueden esquivar flechas» and «Las flechas ... sólo pueden ser paradas con un escudo»: an
    arrow at a victim with no shield is not answered with «puede !parada o !esquiva»."""
    t = sb("""
@gm:local: !ficha Moonglum arma arco
@gm:local: !iniciativa
@gm:local: !acciones
@bob:local: !ataque Orco 200
""", seed=4)
    assert "!parada o !esquiva" not in t.text(FIRST + 3)
    assert "Orco no puede parar ni esquivar: !daño Orco" in t.text(FIRST + 3)


def test_a_crossbow_is_a_missile_weapon() -> None:
    """«Primero atacan quienes usen armas de tiro»; «No se pueden esquivar flechas»: a crossbow shoots
    in the missile phase, and its bolt is no thrown weapon to dodge at half (the rules are silent on
    bolts: they are taken as arrows)."""
    t = sb("""
@gm:local: !ficha Elric arma ballesta
@gm:local: !iniciativa
@gm:local: !acciones
@ana:local: !ataque Orco 200
@gm:local: !esquiva
""", seed=4)
    assert "Proyectiles, de mayor a menor DES: Elric, Moonglum." in t.texts(FIRST + 1)[0]
    assert "contra arma arrojadiza" not in t.text(FIRST + 4)
    assert "Los virotes de ballesta no se pueden esquivar" in t.text(FIRST + 4)


def test_the_declarations_of_intent_are_a_phase_of_their_own() -> None:
    """«1º) Declaración de intenciones ... La primera declaración la efectuará el personaje con la DES más
    baja»; «El personaje sufrirá un malus de 5 puntos a la DES al desenvainar o recoger su nueva arma»:
    each declares in turn, lowest DES first, and may write in character then; nobody attacks before the
    last declaration; a change of weapon is declared then and costs 5 DES in the attack order."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !iniciativa
@gm:local: !ataque Elric
@gm:local: !siguiente
@gm:local: !siguiente
@ana:local: /me desenvaina a Tormentosa
@bob:local: !arma espada
@bob:local: /me cambia el arco por la espada
@bob:local: !siguiente
@ana:local: /me grita el nombre de Arioco
@ana:local: !siguiente
@gm:local: !arma Orco hacha
@gm:local: !acciones
""", table=table)
    assert "Intenciones, en ese orden: cada uno declara" in t.texts(FIRST)[-2] and "▶️ Trasgo" in t.texts(FIRST)[-1]
    assert "Aún se declaran las intenciones (le toca a Trasgo)" in t.text(FIRST + 1)
    assert t.acked(FIRST + 3) and not t.texts(FIRST + 3)   # issue 30: Moonglum's declaration turn, a ✅
    assert t.redacted(FIRST + 4)                       # Elric declares after Moonglum (higher DES)
    assert "Moonglum cambia de arma: espada" in t.text(FIRST + 5)
    assert not t.redacted(FIRST + 6) and not t.redacted(FIRST + 8)
    actions = t.texts(FIRST + 9)
    assert actions[0].startswith("⚔️ Asalto 1: acciones. Proyectiles: —. Cuerpo a cuerpo: Elric, Orco, Moonglum, Trasgo.")
    assert "Cambian de arma (−5 DES): Moonglum." in actions[0]
    assert "▶️ Elric" in actions[-1]
    assert "Orco solo puede cambiar de arma al declarar su intención" in t.text(FIRST + 10)
    assert "No se están declarando intenciones" in t.text(FIRST + 11)
    assert room(table)["characters"]["moonglum"]["sheet"]["arma"] == "espada"


def sheet(table, name: str) -> dict:
    return room(table)["characters"][name]["sheet"]


ACTIONS = "@gm:local: !iniciativa\n@gm:local: !acciones\n@bob:local: !siguiente\n"
"""Round 1 to Elric's attack: the declarations closed by the GM, Moonglum passes."""


def test_a_weapon_without_the_fue_and_des_it_needs_is_used_at_5() -> None:
    """«Si se utiliza un arma sin tener la FUE y DES requeridas, no se puede ser entrenado con ella y se
    tendrá un 5% en ataque» (and «solo se tendrá un 5% en Parada»)."""
    t = sb("@gm:local: !ficha Elric fue 9 arma_fue 13\n" + ACTIONS + """
@ana:local: !ataque Orco
@ana:local: !siguiente
@gm:local: !ataque Elric 999
@ana:local: !parada
""", seed=3)
    assert "Elric · ⚔️ Ataque 85 -80 (sin la FUE o la DES del arma) = 5%" in t.text(FIRST + 4)
    assert "Elric · 🛡️ Parada 70 -65 (sin la FUE o la DES del arma) = 5% contra crítico" in t.text(FIRST + 7)


def test_a_critical_parried_with_a_plain_success_may_break_the_parrying_weapon() -> None:
    """«Al parar un golpe crítico: si el daño recibido es mayor que los puntos de armadura del arma que
    para entonces ésta se rompe» (the optional rule: 20 points, the doubled damage against them); the
    broken weapon is recorded and attacks no more."""
    table = make_table(system="stormbringer", seed=3)
    t = sb(ACTIONS + """
@ana:local: !ataque Orco 999
@gm:local: !parada 95
@gm:local: !daño Orco 11
""", table=table)
    assert "¡crítico!" in t.text(FIRST + 3) and "→ éxito" in t.gm_text(FIRST + 4)
    assert "Daño 11 = 11 ×2 (crítico, sin armadura) = 22" in t.text(FIRST + 5)   # 22 > 20: it breaks
    assert "El arma con que Orco paró el crítico no aguanta el golpe y se rompe" in t.text(FIRST + 5)
    assert sheet(table, "orco")["arma_rota"] == "sí"


def test_a_critical_parry_breaks_the_attacking_weapon_and_two_criticals_destroy_both() -> None:
    """«Si para un golpe normal con una tirada crítica entonces se rompe el arma atacante»; «Sólo se puede
    parar un golpe crítico con un éxito crítico en la tirada de Parar, pero los dos objetos que chocan se
    destruirán»."""
    table = make_table(system="stormbringer", seed=3)
    t = sb(ACTIONS + """
@ana:local: !ataque Orco 999
@gm:local: !parada 999
@ana:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !acciones
@bob:local: !siguiente
@ana:local: !ataque Orco
""", table=table)
    assert "Para el crítico, pero las dos armas que chocan quedan destruidas" in t.text(FIRST + 4)
    assert "Arma rota: Elric, Orco" in t.text(FIRST + 4)
    assert sheet(table, "elric")["arma_rota"] == sheet(table, "orco")["arma_rota"] == "sí"
    assert "El arma de Elric está rota" in t.text(FIRST + 10)


def test_disarm_instead_of_damage_on_a_critical() -> None:
    """«En caso de conseguir una tirada crítica en ataque, el atacante debe decir si su intención es dañar
    a la víctima o desarmarla»."""
    table = make_table(system="stormbringer", seed=3)
    t = sb(ACTIONS + """
@ana:local: !desarmar
@ana:local: !ataque Orco 999
@gm:local: !esquiva 5
@ana:local: !desarmar
@gm:local: !daño Orco
@ana:local: !siguiente
@gm:local: !ataque Elric
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !arma Orco hacha
""", table=table)
    assert "No hay ningún crítico que haya alcanzado a su víctima" in t.text(FIRST + 3)
    assert "¡crítico!" in t.text(FIRST + 4)
    assert "Elric desarma a Orco con su crítico, sin daño" in t.text(FIRST + 6)
    assert "No hay ningún golpe pendiente contra Orco" in t.text(FIRST + 7)
    assert "Orco está desarmado" in t.text(FIRST + 9)
    assert "Orco cambia de arma: hacha" in t.text(FIRST + 12)    # round 2's declarations
    assert "orco" not in room(table)["combat"]["data"]["disarmed"]


def test_every_ambusher_rolls() -> None:
    """«Se tirará 1D100 bajo la habilidad de Emboscada de cada combatiente para ver si los atacantes pasan
    desapercibidos»: one failure gives them all away (the rules are silent; the careful reading)."""
    t = sb("@gm:local: !ficha Trasgo emboscada 50\n@gm:local: !emboscada Orco, Trasgo contra Elric, Moonglum",
           seed=3)
    answer = t.gm_text(FIRST + 1)
    assert "Orco · Emboscada 70%: [" in answer and "Trasgo · Emboscada 50%: [" in answer


def test_pod_saves_set_the_state() -> None:
    """«la víctima morirá a menos que consiga una tirada inferior o igual a su POD en 1D100» and, against
    an enemy caught unawares, «Si se falla la tirada, el porcentaje del atacante al asestar el golpe será
    multiplicado por dos»."""
    table = make_table(system="stormbringer", seed=3)
    t = sb("@gm:local: !iniciativa\n@gm:local: !acciones\n" + """
@gm:local: !espalda Moonglum
@bob:local: !siguiente
@gm:local: !indefenso Orco contra Trasgo
@ana:local: !siguiente
@gm:local: !ataque Moonglum
@gm:local: !ficha Elric pod 95
@gm:local: !indefenso Orco contra Elric
@gm:local: !estado
@gm:local: !daño Elric
""", table=table)
    assert "Moonglum · POD 10%: [24] → fallo" in t.text(FIRST + 2)
    assert "el próximo ataque contra Moonglum tiene el porcentaje doble" in t.text(FIRST + 2)
    assert "Trasgo · POD 8%: [55] → fallo" in t.gm_text(FIRST + 4) and "Orco acaba con Trasgo" in t.texts(FIRST + 4)[0]
    assert "Trasgo" not in room(table)["combat"]["order"]
    assert "Orco · ⚔️ Ataque 60 ×2 = 120%: [37] → éxito" in t.gm_text(FIRST + 6)   # Moonglum's failed save
    assert "se salva" in t.text(FIRST + 8).lower() and "el máster aplica !daño Elric" in t.text(FIRST + 8)
    assert "Elric [PV 14, sorprendido: sin defensa]" in t.text(FIRST + 9)
    assert "Elric · 🩸 Daño [" in t.text(FIRST + 10)       # Orco's 1d8 + 1d4 from the sheet


def test_the_last_declarer_leaving_starts_the_attacks() -> None:
    """«1º) Declaración de intenciones ... 2º) Ataques con armas»: when the last to declare leaves the
    combat (!sale), the round goes on to its attacks instead of a new round."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !iniciativa
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !sale Elric
""", table=table)
    assert t.acked(FIRST + 3) and not t.texts(FIRST + 3)   # issue 30: Elric's declaration turn, a ✅
    answer = t.texts(FIRST + 4)
    assert any(a.startswith("⚔️ Asalto 1: acciones. Proyectiles: Moonglum. Cuerpo a cuerpo: Orco, Trasgo.") for a in answer)
    assert "▶️ Moonglum" in answer[-1]
    assert room(table)["combat"]["round"] == 1


def test_a_last_declarer_who_cannot_act_does_not_end_the_round() -> None:
    """«1º) Declaración de intenciones ... 2º) Ataques con armas»: Elric, stunned (the highest DES, so the
    last to declare), declares nothing; after Moonglum the round goes on to its attacks."""
    t = sb("""
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !daño Elric 1d8 crítico
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
""", seed=4)
    assert "📋 Asalto 2 (intenciones primero)." in t.texts(FIRST + 5)[0]
    assert t.acked(FIRST + 7) and not t.texts(FIRST + 7)   # issue 30: Moonglum declares next, a ✅
    answer = t.texts(FIRST + 8)
    assert answer[0].startswith("⚔️ Asalto 2: acciones"), answer
    assert answer[-1].startswith("▶️ Moonglum")


def test_the_last_declarer_falling_on_their_turn_hands_the_round_to_its_attacks() -> None:
    """«1º) Declaración de intenciones ... 2º) Ataques con armas»: a blow still waiting for its damage
    kills Elric, the last to declare, on his declaring turn: the round's attacks start."""
    table = make_table(system="stormbringer", seed=4)
    t = sb("""
@gm:local: !ficha Elric pv 2
@gm:local: !iniciativa
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !daño Elric 20 crítico
""", table=table)
    assert t.acked(FIRST + 4) and not t.texts(FIRST + 4)   # issue 30: Elric's declaration turn, a ✅
    answer = t.texts(FIRST + 5)
    assert any(a.startswith("⚔️ Asalto 1: acciones. Proyectiles: Moonglum. Cuerpo a cuerpo: Orco, Trasgo.")
               for a in answer), answer
    assert any("Elric muere y sale del orden" in a for a in answer)
    assert answer[-1].startswith("▶️ Moonglum")
    assert room(table)["combat"]["round"] == 1
