"""Issue 31: a second whole seeded Stormbringer fight at the table, as a regression transcript.

Three players and, for the GM, an orc with a shield, a goblin and a wolf that joins late. It exercises
issue 31's Stormbringer items: the shield attacking with its own Escudo and dealing its own ``daño2``
(item 11), a critical parried by a critical that destroys both weapons and leaves the master no riposte
(item 12), a late DES that takes its slot in the declarations (item 13), the GM lifting a critical's
stun after the state showed how long it lasted (item 14), and a DES tie ordered by the GM's ``!orden``
that the declarations and the attacks keep, ``!espalda NOMBRE N`` and ``!sale`` of the acting one (14b).
Every number is checked by hand against the house rules of 002 in the comments: crit = target / 10
rounded down, a 99 fumbles only up to 100%, -20% per earlier attack or parry of the round, -25% for a
second weapon (a shield too: «un ataque con -25% o a una parada adicional»), damage = weapon + BF -
armour, a critical doubled and through armour, -5 DES for a declared change of weapon."""

from __future__ import annotations

from tests.transcript import make_table, play

ROOM = "!console:local"
SEED = 314
FIGHT = """
@gm:local: !pj Elric @ana:local
@gm:local: !pj Moonglum @bob:local
@gm:local: !pj Rackhir @carl:local
@gm:local: !pnj Orco
@gm:local: !pnj Trasgo
@gm:local: !ficha Elric des 17 pv 14 armadura 2 grave 7 daño 1d8+1 bf 1d6 ataque 95 parada 95 esquiva 40
@gm:local: !ficha Moonglum des 15 pv 11 armadura 1 grave 6 daño 1d6 ataque 70 parada 50 esquiva 50
@gm:local: !ficha Rackhir des 15 pv 12 daño 1d8 ataque 75 parada 40 esquiva 30
@gm:local: !ficha Orco des 18 pv 30 armadura 2 grave 8 daño 1d8 bf 1d4 ataque 60 esquiva 30 arma2 escudo escudo 70 daño2 1d4
@gm:local: !ficha Trasgo des 10 pv 6 daño 1d6 ataque 40 parada 30 esquiva 30
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !estado
@gm:local: !orden Rackhir antes de Moonglum
@gm:local: !entra Lobo
@gm:local: !ficha Lobo des 16 pv 9 daño 1d6 ataque 50 parada 5 esquiva 40
@gm:local: /me el trasgo se esconde tras el orco
@gm:local: !siguiente
@carl:local: /me Rackhir desenvaina y busca al trasgo
@carl:local: !siguiente
@bob:local: /me Moonglum va a por el lobo
@bob:local: !siguiente
@gm:local: /me el lobo gruñe y salta hacia Moonglum
@gm:local: !siguiente
@ana:local: /me Elric alza a Tormentosa contra el orco
@ana:local: !siguiente
@gm:local: /me el orco rodea a Elric para golpearle por la espalda
@gm:local: !siguiente
@gm:local: !espalda Elric 14
@gm:local: !ataque Elric
@ana:local: !parada
@gm:local: !ataque Elric dos armas
@gm:local: !siguiente
@ana:local: !ataque Orco
@ana:local: /me Elric suelta los restos de Tormentosa y retrocede
@ana:local: !siguiente
@gm:local: !ataque Moonglum
@bob:local: !parada
@gm:local: !siguiente
@carl:local: !ataque Trasgo
@gm:local: !parada
@gm:local: !daño Trasgo
@carl:local: !siguiente
@bob:local: !ataque Lobo
@gm:local: !esquiva
@bob:local: !siguiente
@carl:local: /me Rackhir busca un hueco en la guardia del orco
@carl:local: !siguiente
@bob:local: /me Moonglum le sigue por el otro flanco
@bob:local: !siguiente
@gm:local: /me el lobo, herido en el orgullo, mira hacia el bosque
@gm:local: !siguiente
@ana:local: !arma Daga
@ana:local: !ficha Elric daño 1d4+2
@ana:local: /me Elric desenvaina la daga
@ana:local: !siguiente
@gm:local: /me el orco embiste con el escudo
@gm:local: !siguiente
@gm:local: !ataque Elric escudo
@ana:local: !esquiva
@gm:local: !siguiente
@gm:local: /me el lobo aúlla y huye hacia el bosque
@gm:local: !sale Lobo
@carl:local: !ataque Orco
@gm:local: !parada escudo
@carl:local: !siguiente
@bob:local: !ataque Orco
@gm:local: !esquiva
@gm:local: !daño Orco
@bob:local: !siguiente
@ana:local: !ataque Orco
@gm:local: !parada escudo
@gm:local: !daño Orco
@ana:local: !siguiente
@gm:local: !estado
@carl:local: !siguiente
@bob:local: !siguiente
@ana:local: !siguiente
@gm:local: /me el orco, acorralado, carga con el escudo contra Moonglum
@gm:local: !siguiente
@gm:local: !ataque Moonglum escudo
@bob:local: !parada
@gm:local: !daño Moonglum
@gm:local: !siguiente
@ana:local: !ataque Orco
@gm:local: !parada escudo
@gm:local: !daño Orco
@ana:local: !siguiente
@carl:local: /me Rackhir apoya la espada en el cuello del orco: ¡ríndete!
@carl:local: !siguiente
@bob:local: !siguiente
@gm:local: !estado
@gm:local: !ficha Orco aturdido no
@gm:local: /me el orco se sacude el aturdimiento, mira a los tres y tira el escudo
@gm:local: !estado
@gm:local: !combate fin
"""


def test_a_second_whole_seeded_fight() -> None:
    table = make_table(system="stormbringer", seed=SEED)
    t = play(FIGHT, table)

    def room(n: int) -> str:
        return "\n".join(t.texts(n))

    def gm(n: int) -> str:
        return t.gm_text(n)

    # Round 1. DES: Orco 18, Elric 17, Moonglum 15, Rackhir 15, Trasgo 10. Declarations from the lowest
    # DES up, attacks from the highest down; Moonglum and Rackhir, both players', tie on 15.
    # The declarations pass as ✅ (issue 30): the round's message names their order once, with the players.
    assert ("Intenciones, de menor a mayor DES: Trasgo, Moonglum (@bob:local), Rackhir (@carl:local), "
            "Elric (@ana:local), Orco.") in room(12)
    assert "Cuerpo a cuerpo: Orco, Elric, Moonglum, Rackhir, Trasgo." in room(12) and "▶️ Trasgo" in room(12)
    # 14b: the tie of one side is the GM's to order: shown, then ordered once for the whole fight.
    assert "Empate por romper: Moonglum = Rackhir" in room(13)
    assert "Rackhir actúa justo antes que Moonglum" in room(14)
    # 13: Lobo enters with no DES (placed as 0, right after the current declarer), then gets DES 16:
    # it declares after Moonglum (15) and before Elric (17).
    assert "Trasgo → Lobo → Rackhir → Moonglum → Elric → Orco" in room(15)
    # Each declaration turn passes as a ✅ and nothing else (issue 30); only a player whose turn it is may end
    # it with !siguiente (else a private refusal), so carl's at 20, bob's at 22 (the GM's tie order: Rackhir
    # first), the GM's at 24 (Lobo, an NPC) and ana's at 26 taken show the order: Rackhir, Moonglum, Lobo, Elric.
    assert all(t.acked(n) for n in (18, 20, 22, 24, 26))
    assert "Cuerpo a cuerpo: Orco, Elric, Lobo, Rackhir, Moonglum, Trasgo." in room(28)   # 18, 17, 16, 15, 15, 10
    # 14b: `!espalda Elric 14`, the POD typed as the hint of a sheet without POD asks: 20 > 14, failed.
    assert "Elric · POD 14%: [20] → fallo" in room(29) and "porcentaje doble" in room(29)
    # Orco attacks from behind: 60 x2 = 120%, crit <= 12 (120 / 10): 12 is a critical.
    assert "Orco · ⚔️ Ataque 60 ×2 = 120%: [12] → ¡crítico!" in gm(30)
    # 12: Elric (95/95, a master) parries at 95% against the critical: 01 <= 9 is a critical: both weapons
    # are destroyed («los dos objetos que chocan se destruirán») and no riposte is offered.
    assert "Elric · 🛡️ Parada 95% contra crítico: [01] → ¡crítico!" in gm(31)
    assert "Arma rota: Orco, Elric" in room(31) and "responder" not in room(31)
    # 11: the shield as second weapon: Escudo 70 - 20 (one attack before) - 25 (second weapon) = 25%; 63 > 25.
    assert "Orco · ⚔️ Ataque 70 -20 (ataques previos) -25 (segunda arma) = 25%: [63] → fallo" in gm(32)
    assert "El arma de Elric está rota" in room(34)                 # no weapon left to attack with
    assert "Lobo · ⚔️ Ataque 50%: [24] → éxito" in gm(37)          # 24 <= 50, crit <= 5
    assert "Moonglum · 🛡️ Parada 50%: [21] → éxito" in room(38) and "Golpe parado." in room(38)
    assert "Rackhir · ⚔️ Ataque 75%: [55] → éxito" in room(40)      # 55 <= 75, crit <= 7
    assert "Trasgo · 🛡️ Parada 30%: [45] → fallo" in gm(41)        # 45 > 30
    # Rackhir's 1d8 = 6, no BF, no armour: 6 - 6 = 0 PV, dead.
    assert "Trasgo · 🩸 Daño [6] = 6 → pierde 6 PV" in room(42) and "PV 6 → 0" in gm(42)
    assert "Trasgo muere y sale del orden" in room(42)
    assert "Moonglum · ⚔️ Ataque 70%: [18] → éxito" in room(44)     # 18 <= 70
    assert "Lobo · 🤸 Esquiva 40%: [11] → éxito" in gm(45)          # 11 <= 40 (crit <= 4)
    # Round 2: the GM's tie order stays (Rackhir before Moonglum) in the declarations and the attacks.
    assert ("🔔 Ronda 2. Orden: Rackhir (@carl:local) → Moonglum (@bob:local) → Lobo → Elric (@ana:local) → "
            "Orco.") in room(46)
    assert "Elric cambia de arma: Daga" in room(53)
    # Elric draws a dagger: 17 - 5 = 12, last of the melee.
    assert "Cuerpo a cuerpo: Orco, Lobo, Rackhir, Moonglum, Elric. Cambian de arma (−5 DES): Elric." in room(58)
    # 11: the shield's attack, first of the round: Escudo 70 - 25 = 45%; 25 <= 45.
    assert "Orco · ⚔️ Ataque 70 -25 (segunda arma) = 45%: [25] → éxito" in gm(59)
    assert "Elric · 🤸 Esquiva 40%: [03] → ¡crítico!: esquiva el golpe" in room(60)   # 03 <= 4
    # 14b: `!sale` of Lobo on its own turn passes the turn to the next (Rackhir); round 2 goes on.
    assert "▶️ Rackhir" in room(63) and "Ronda 3" not in room(63)
    assert "Rackhir · ⚔️ Ataque 75%: [24] → éxito" in room(64)
    # Orco's main weapon is broken: it parries with the shield, Escudo 70: 26 <= 70.
    assert "Orco · 🛡️ Parada 70%: [26] → éxito" in gm(65)
    assert "Moonglum · ⚔️ Ataque 70%: [21] → éxito" in room(67)
    assert "Orco · 🤸 Esquiva 30%: [35] → fallo" in gm(68)          # 35 > 30
    # Moonglum's 1d6 = 5 - armour 2 = 3; 30 - 3 = 27.
    assert "Orco · 🩸 Daño [5] = 5 − armadura 2 (absorbe 2) → pierde 3 PV" in room(69) and "PV 30 → 27" in gm(69)
    assert "Elric · ⚔️ Ataque 95%: [52] → éxito" in room(71)
    # The shield's extra parry was spent on its attack: the second parry is 70 - 20 = 50%; 57 > 50.
    assert "Orco · 🛡️ Parada 70 -20 (paradas previas) = 50%: [57] → fallo" in gm(72)
    # The dagger: 1d4+2 = 1 + 2, BF 1d6 = 3: 6 - armour 2 = 4; 27 - 4 = 23.
    assert "Orco · 🩸 Daño [1] + 2 + BF [3] = 6 − armadura 2 (absorbe 2) → pierde 4 PV" in room(73)
    assert "PV 27 → 23" in gm(73)
    # Round 3: Lobo and Trasgo are gone; Elric is back at DES 17.
    assert "Cuerpo a cuerpo: Orco, Elric, Rackhir, Moonglum." in room(74)
    assert "Orco · ⚔️ Ataque 70 -25 (segunda arma) = 45%: [40] → éxito" in gm(81)   # 40 <= 45
    assert "Moonglum · 🛡️ Parada 50%: [96] → fallo" in room(82)
    # 11: the shield's own damage, daño2 1d4 = 3, BF 1d4 = 1: 4 - armour 1 = 3; 11 - 3 = 8 (the axe's
    # 1d8 is not rolled).
    assert "Moonglum · 🩸 Daño [3] + BF [1] = 4 − armadura 1 (absorbe 1) → pierde 3 PV" in room(83)
    assert "PV 11 → 8" in room(83)
    assert "Elric · ⚔️ Ataque 95%: [06] → ¡crítico!" in room(85)    # 06 <= 9
    # Only a critical parries a critical: 45 <= 70 is a plain success, the blow lands.
    assert "Orco · 🛡️ Parada 70% contra crítico: [45] → éxito" in gm(86)
    # 1d4+2 = 3 + 2, BF 1d6 = 4: 9, doubled with no armour: 18 >= Grave 8; 23 - 18 = 5: stunned.
    assert "Daño [3] + 2 + BF [4] = 9 ×2 (crítico, sin armadura) = 18 → pierde 18 PV" in room(87)
    assert "1D100 [97] en la tabla de Heridas graves" in room(87) and "PV 23 → 5" in gm(87)
    # 14: the state says since when the stun lasts: from round 3, now round 4: 2 of the 25 rounds (5 min).
    assert "Orco [herida grave, aturdido desde el asalto 3 (2 de 25 asaltos): no combate]" in room(92)
    assert "Moonglum [PV 8]" in room(92) and "Elric [PV 14]" in room(92)
    # 14: the GM lifts it, and the room is told how long it lasted.
    assert "Se acaba el aturdimiento de Orco (2 asaltos)" in room(93)
    assert "Orco [herida grave]" in room(95)
    assert "Fin del combate tras 4 rondas" in room(96)
    characters = table.room(ROOM).to_dict()["characters"]
    orco, elric = characters["orco"]["sheet"], characters["elric"]["sheet"]
    assert orco["pv"] == 5 and orco["arma_rota"] == "sí" and "arma2_rota" not in orco   # the shield held: 18 <= 20
    assert orco["marcas"] == "escudo"                      # the shield's hit on Moonglum marks Escudo
    assert elric["arma"] == "Daga" and "arma_rota" not in elric and "aturdido" not in orco
    assert characters["moonglum"]["sheet"]["pv"] == 8 and characters["trasgo"]["sheet"]["pv"] == 0
