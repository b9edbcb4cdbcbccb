"""The second whole seeded Sistema Sombra fight (issue 31): two players and two NPCs of the GM, five
rounds, played on the messages of issue 30. It exercises issue 31's Sombra items: a turn spent aiming
(`!apuntar`, item 19), the bayonet's skills and the NPC's `disparo` read as its rifle (item 20), a serious
head wound that is hours of unconsciousness and a death threshold the GM starts (item 18). Every number is
checked by hand against /work/shared/rules/004 in the comments; seed 11 of the table's RNG gives the dice."""

from __future__ import annotations

from tests.games.sombra.test_table import sheet
from tests.transcript import make_table, play

FIGHT = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !pnj Hans
@gm:local: !pnj Kurt
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 vit 6 vol 6 fusil 17 bayoneta 15 fue 6 arma II+2
@gm:local: !ficha Bruno vel 6 agi 8 res 6 vit 5 vol 4 armas blancas 14 fusil 15 pelea 13 fue 7 arma II
@gm:local: !ficha Hans vel 6 agi 5 res 4 vit 2 fusil 13 pelea 11 arma II+1
@gm:local: !ficha Kurt vel 5 agi 7 res 5 vit 2 fusil 12 pelea 12 arma II
@gm:local: !combate
@gm:local: !iniciativa
@ana:local: !apuntar cabeza
@ana:local: !ataque Hans
@ana:local: !siguiente
@bob:local: !ataque Hans apuntando
@bob:local: !ataque Hans bayoneta
@bob:local: !siguiente
@gm:local: !ataque McAvoy disparo
@gm:local: !siguiente
@gm:local: !apuntar
@gm:local: !siguiente
@gm:local: !estado
@ana:local: !ataque Hans
@ana:local: !siguiente
@bob:local: !ataque Kurt fusil
@bob:local: !ataque Kurt fusil
@bob:local: !siguiente
@gm:local: !ataque Bruno
@gm:local: !siguiente
@ana:local: !ataque Kurt bayoneta
@ana:local: !siguiente
@bob:local: !siguiente
@gm:local: !ficha Kurt umbral sí
@gm:local: !estado
@ana:local: !siguiente
@bob:local: !siguiente
@gm:local: !estado
@gm:local: !combate fin
"""


def test_a_second_seeded_fight_checked_by_hand() -> None:
    table = make_table(system="sombra", seed=11)
    t = play(FIGHT, table)
    # Initiative (004: «La primaria, igual a la velocidad, y la secundaria, igual a la agilidad»): McAvoy VEL 7;
    # Bruno and Hans VEL 6, Bruno's AGI 8 before Hans's 5; Kurt VEL 5. The NPCs' numbers are the GM's.
    assert "1. McAvoy (7/6) · 2. Bruno (6/8) · 3. Hans · 4. Kurt" in t.texts(10)[0]
    assert "3. Hans (6/5) · 4. Kurt (5/7)" in t.gm_text(10)

    # --- Round 1 ---
    # McAvoy spends his turn aiming at the head (004: «apuntar (un turno y aumentar un -5 el modificador)»;
    # «Para apuntar a una determinada localización, tiraremos con un +2»): no shot, so his attack in the
    # same turn is refused, to him alone.
    assert t.text(11) == "🎯 McAvoy apunta a la cabeza: gasta el turno. Su primer disparo del siguiente, -5 (+2 por la zona)."
    assert t.messages(12)[0]["private_to"] == "@ana:local" and "gasta este turno apuntando" in t.text(12)

    # Bruno did not aim: `apuntando` is refused with the hint, privately.
    assert t.messages(14)[0]["private_to"] == "@bob:local" and "!apuntar [zona]" in t.text(14)
    # Bruno's bayonet: no Bayoneta skill on his sheet, so Armas blancas 14 with the bayonet fixed, +1 (004: «se
    # usa con la habilidad de "armas blancas" ... se tira la habilidad con un penalizador de -1»), no +5 (that
    # is the Bayoneta skill's). Hans's Esquivar 2x5+6 = 16 (11-20: normal, +0): 5+6+10 = 21 +1 = 22 > 14, a
    # medium failure (high 10 + low 5 = 15, not under 5). Hans fights back with Pelea 11 at +5 for Bruno's
    # Esquivar 2x8+6 = 22 (21-30: +5): 5+6+6 = 17 +5 = 22 > 11, a failure. Nobody strikes
    # (004: «El mejor resultado, da el golpe», and neither is a success).
    attack, fight = t.texts(15)
    # The attack and its dice on one line (issue 30).
    assert "Bruno → Hans, armas blancas 14: 🎲 3d10: [5, 6, 10] +1 bayoneta calada → fracaso medio" in attack
    assert "[5, 6, 6] → fracaso medio" in fight and "Nadie acierta" in fight
    digest = t.gm_text(15)
    assert "[5, 6, 10] = 21 +1 bayoneta calada = 22" in digest and "[5, 6, 6] = 17 +5 esquiva = 22" in digest

    # Hans has Fusil 13 and no Disparo: the GM's `!ataque McAvoy disparo` shoots with the rifle. 2+6+7 = 15 > 13,
    # a medium failure (7+2 = 9).
    # Hans's miss is a ✅, held until his turn passes (issue 30: it leads the ✅-turned message of line 18)
    assert not t.texts(17) and "Hans → McAvoy, fusil: 🎲 3d10: [2, 6, 7] → fracaso medio" in t.texts(18)[0]
    assert "fusil 13" in t.gm_text(17) and "[2, 6, 7] = 15 → fracaso medio" in t.gm_text(17)

    # Kurt (the GM acts for him on his turn) aims too, at no location.
    assert t.text(19) == "🎯 Kurt apunta: gasta el turno. Su primer disparo del siguiente, -5."
    assert "· Kurt [apuntando]" in t.text(21) and "▶ McAvoy [apuntando (cabeza)]" in t.text(21)

    # --- Round 2 ---
    # McAvoy's first shot after aiming: Fusil 17, 8+1+4 = 13 -5 aiming +2 aimed = 10 <= 17, a medium success
    # (8+1 = 9). It strikes the head (digit 0, whatever the middle die): II+2 = high 8 + low 1 + 2 = 11 against
    # Hans's RES 4: 11 > 2x4 = 8, a serious wound: unconscious 11 hours (004: «se está inconsciente un número de
    # horas igual al daño recibido»), and no death threshold (issue 31 item 18).
    shot = t.text(22)
    assert "[8, 1, 4] -5 apuntando +2 apuntado → éxito medio\n🩸 Cabeza: herida grave; inconsciente (11 h)." in shot
    assert "umbral" not in shot
    assert "[8, 1, 4] = 13 -5 apuntando +2 apuntado = 10" in t.gm_text(22)
    assert "II+2 cabeza (0): 11 contra RES 4 → herida grave" in t.gm_text(22)

    # Bruno fires twice at Kurt with Fusil 15: 1+9+7 = 17 > 15; the second shot at +5 (004: «el segundo tendrá
    # un penalizador de +5»): 1+10+10 = 21 +5 = 26 > 15. Both medium failures (9+1, 10+1).
    assert "[1, 9, 7] → fracaso medio" in t.text(24) and "[1, 10, 10] +5 2.º disparo → fracaso medio" in t.text(25)
    # Hans is unconscious: his turn is passed over. Kurt is the GM's: the turn passing to him is a ✅ and the
    # room reads nothing new (issue 30: Hans's fall was said when it happened); the GMs get their digest.
    assert t.for_line(26)[0]["key"] == "✅" and not t.texts(26)

    # Kurt's first shot after aiming: Fusil 12, 7+7+2 = 16 -5 = 11 <= 12, a medium success (7+2 = 9). II = 7+2 = 9
    # at the abdomen (middle die 7); Bruno's Resistir dolor VOL 4 / 2 = 2 leaves 7 > RES 6 (not > 12): a light
    # wound, +3 and half movement (004: «en heridas leves, +3 a todas las acciones y capacidad de movimiento
    # reducida a la mitad»).
    assert "[7, 7, 2] → éxito medio\n🩸 Abdomen: herida leve; movimiento a la mitad; acciones +3." in t.text(27)
    assert "[7, 7, 2] = 16 -5 apuntando = 11" in t.gm_text(27)
    assert "II abdomen (7): 9 −2 resistir dolor = 7 contra RES 6 → herida leve" in t.gm_text(27)

    # --- Round 3 ---
    # McAvoy has a Bayoneta skill: standing still, +5 (004: «deberéis tirar por la habilidad de bayoneta con un
    # +5»), Kurt's Esquivar 2x7+5 = 19 adding nothing: 1+6+1 = 8 +5 = 13 <= 15, a medium success (6+1 = 7).
    # Kurt's Pelea 12, McAvoy's Esquivar 2x6+7 = 19 adding nothing: 2+3+1 = 6 <= 12, a low success (3+1 < 5).
    # The better grade strikes: McAvoy. A bayonet is a blade (type I: the high die) with FUE 6 - 5 = +1:
    # 6 + 1 = 7 at the chest (middle die 1) > RES 5 (not > 10): light, +3.
    attack, fight = t.texts(29)
    assert "McAvoy → Kurt, bayoneta 15: 🎲 3d10: [1, 6, 1] +5 bayoneta sin carga → éxito medio" in attack
    assert "[2, 3, 1] → éxito bajo\n⚔️ Gana McAvoy: golpea a Kurt.\n🩸 Pecho: herida leve; acciones +3." in fight
    assert "Daño I+1: pecho (1) 7" in t.gm_text(29) and "pecho: 7 contra RES 5 → herida leve" in t.gm_text(29)

    # On Kurt's turn the GM judges him dying: `!ficha Kurt umbral sí` (bookkeeping: ✅, his sheet to the GM).
    # Dying, Kurt cannot act: his turn passes and round 4 begins, which counts the first round of his
    # threshold, VIT 2 (004: «Umbral Mortal (vit)»): 2 - 1 = 1 left (an NPC's count is the GM's).
    kinds = t.kinds(32)
    assert kinds[0] == "react"
    room = t.texts(32)
    assert "⏳ Kurt agoniza (umbral mortal): morirá si nadie le cura (!curar)." in room
    assert "▶️ McAvoy (@ana:local). Kurt no puede actuar." in room
    assert "queda 1 asalto" in t.gm_text(32)
    status = t.text(33)
    assert "· Kurt [umbral mortal, pecho: herida leve, +3 a sus acciones]" in status
    assert "· Hans [cabeza: herida grave, inconsciente (11 h)]" in status
    assert "· Bruno [abdomen: herida leve (7), movimiento a la mitad, +3 a sus acciones]" in status

    # --- Round 5 --- begins with the threshold's second round: 1 - 1 = 0, Kurt dies and leaves the order.
    assert "💀 Kurt ha agotado su umbral mortal: muere." in t.texts(35)
    assert "· Kurt" not in t.text(36) and "Fin del combate tras 5 rondas" in t.text(37)

    assert sheet(table, "Kurt")["muerto"] == 1 and "umbral" not in sheet(table, "Kurt")
    assert "muerto" not in sheet(table, "Hans")
    assert sheet(table, "Hans")["heridas"] == {"cabeza": {"severity": "serious", "damage": 11}}
    assert sheet(table, "Bruno")["heridas"] == {"abdomen": {"severity": "light", "damage": 7}}
    assert sheet(table, "Kurt")["heridas"] == {"pecho": {"severity": "light", "damage": 7}}
    assert "heridas" not in sheet(table, "McAvoy")
