"""The second whole seeded fight of El Reino de la Sombra (issue 31), every number checked by hand against 003.

Kira and Doran (players) against Capitan (the GM's, «Secuaz no», one Action Point) and Bandido (the GM's
minion). It plays issue 31's items 17 and 17b: the victim halves a hit's damage with an Action Point right
after it is shown (``!pa mitad``: Kira twice, the GM for Capitan, Doran after a critical that had dropped
him), the GM's ``!daño pa`` as the same choice, a halving refused once another roll came; damage not rolled
before ``!siguiente`` stays owed (the GM's screen lists it), never blocks the attacker's next attack, is
rolled later on the GM's ``!permite`` (or by the GM on its own character's turn) and only once; ``!pa
gastar`` lists the uses and spends nothing. Seed 6 of the table's RNG; the arithmetic of each roll is in the
comments. The checks read the GMs' view (the room's copy and the GMs' own copies, as ``test_fight.seen``).
"""

from __future__ import annotations

from bot.core.api import Pending
from tests.games.reino.test_fight import seen
from tests.games.test_pending import pending
from tests.transcript import make_table, play

ROOM = "!console:local"
SEED = 6
KIRA = "defensa 16 esquiva 2 pr 22 umbral 9 fortaleza 2 pa 3 iniciativa 3 ataque 5 fuerza 2 arma_dano 1d8 arma_critico 3"
DORAN = "defensa 14 pr 18 umbral 8 fortaleza 3 pa 2 iniciativa 1 ataque 4 fuerza 3 arma_dano 1d10 arma_tipo dos_manos"
CAPITAN = "defensa 15 rd 1 pr 30 umbral 12 fortaleza 4 pa 1 ataque 6 iniciativa 2 fuerza 2 arma_dano 1d10 secuaz no"
FIGHT = f"""
@gm:local: !pj Kira @ana:local
@gm:local: !pj Doran @bob:local
@gm:local: !ficha Kira {KIRA}
@gm:local: !ficha Doran {DORAN}
@gm:local: !pnj Capitan
@gm:local: !ficha Capitan {CAPITAN}
@gm:local: !pnj Bandido
@gm:local: !ficha Bandido defensa 12 pr 9 umbral 6 ataque 3 arma_dano 1d6
@gm:local: !combate
@gm:local: !iniciativa
@ana:local: !ataque Capitan
@gm:local: !pa mitad
@ana:local: !siguiente
@bob:local: !ataque Bandido
@bob:local: !siguiente
@gm:local: !ataque Kira
@gm:local: !daño
@ana:local: !pa mitad
@gm:local: !siguiente
@gm:local: !ataque Doran
@gm:local: !siguiente
@ana:local: !ataque Capitan
@ana:local: !pa gastar
@ana:local: !siguiente
@bob:local: !ataque Bandido
@bob:local: !daño
@bob:local: !daño
@gm:local: !permite Doran
@bob:local: !daño
@bob:local: !siguiente
@gm:local: !ataque Doran
@gm:local: !daño pa
@gm:local: !siguiente
@ana:local: !ataque Capitan
@ana:local: !daño
@gm:local: !pa mitad
@ana:local: !siguiente
@bob:local: !ataque Capitan
@bob:local: !siguiente
@gm:local: !ataque Kira
@gm:local: !daño
@gm:local: !tiro d20
@ana:local: !pa mitad
@gm:local: !siguiente
@ana:local: !ataque Capitan
@ana:local: !siguiente
@bob:local: !ataque Capitan
@bob:local: !daño
@bob:local: !siguiente
@gm:local: !ataque Kira
@gm:local: !siguiente
@ana:local: !ataque Capitan
@ana:local: !siguiente
@bob:local: !ataque Capitan
@bob:local: !daño
@bob:local: !siguiente
@gm:local: !ataque Kira
@gm:local: !daño
@ana:local: !pa mitad
@gm:local: !permite Kira
@ana:local: !estabilizar Kira pa
@gm:local: !siguiente
@bob:local: !ataque Capitan
@bob:local: !daño
@bob:local: !siguiente
@gm:local: !ataque Doran
@gm:local: !siguiente
@bob:local: !ataque Capitan
@bob:local: !daño
@bob:local: !siguiente
@gm:local: !ataque Doran
@gm:local: !daño
@bob:local: !pa mitad
@gm:local: !daño
@gm:local: !siguiente
@gm:local: !combate fin
"""


def lines(upto: int) -> str:
    """The fight's first ``upto`` lines."""
    return "\n".join([line for line in FIGHT.splitlines() if line.strip()][:upto]) + "\n"


EXPECTED = [
    # Sheets: Kira Defensa 16 (Esquiva 2), PR 22, Umbral 9, Fortaleza 2, PA 3, Iniciativa 3, Ataque 5, FUE 2,
    # 1d8 x3. Doran Defensa 14, PR 18, Umbral 8, Fortaleza 3, PA 2, Iniciativa 1, Ataque 4, FUE 3, 1d10 a dos
    # manos. Capitan Defensa 15, RD 1, PR 30, Umbral 12, Fortaleza 4, PA 1, Ataque 6, Iniciativa 2, FUE 2,
    # 1d10, no Crítico (x2). Bandido Defensa 12, PR 9, Umbral 6, Ataque 3, 1d6 (a minion).
    # 003: «La Prueba de Iniciativa es una tirada de 1D20 a la que se le suma el valor de Iniciativa».
    (10, "Kira 19 ([16]+3), Doran 18 ([17]+1), Capitan 12 ([10]+2), Bandido 6 ([6])"),  # 16+3, 17+1, 10+2, 6+0
    (11, "[1] + 5 = 6 → falla (1 natural)"),  # «Un resultado de 1 en el dado significa siempre un Fallo»
    (12, "No hay daño que reducir"),  # item 17: no hit shown, nothing to halve (the GM's, refused)
    (14, "[14] + 4 = 18 → impacta"),  # 14 + 4 = 18 >= Defensa 12; a critical needs 12 + 0 + 10 = 22
    # Line 15: Doran ends his turn without rolling the damage: it stays owed (see the pending checks below).
    (16, "[10] + 6 = 16 → impacta"),  # 16 >= Defensa 16 (Esquiva is part of it); a critical needs 26
    (17, "Daño 1d10 · FUE +2: [8] + 2 = 10"),  # one hand: FUE x1
    (17, "PR 22 → 12, sufre una herida grave."),  # 22 - 10 = 12; 10 >= Umbral 9
    (17, "Fortaleza d20+2 vs CD 20: [8] + 2 = 10 → fallada (margen -10)"),  # CD 10 + 10; 10 - 20 = -10
    # Item 17, «Reducir el daño sufrido por un ataque a la mitad»: Kira's player halves it. 10 // 2 = 5:
    # PR 22 -> 17 (the hit taken back and applied halved); 5 < Umbral 9: no save is due any more. PA 3 -> 2.
    (18, "Kira recibe 5 de daño (de 10: mitad por un Punto de Acción): PR 22 → 17."),
    (20, "[16] + 3 = 19 → impacta"),  # Bandido: 16 + 3 = 19 >= 14 (a minion makes no criticals)
    (21, "🔔 Ronda 2. Orden: Kira → Doran → Capitan → Bandido."),  # Bandido's damage not rolled: owed too
    (22, "[6] + 5 = 11 → falla"),  # 11 < 15
    (23, "Kira tiene 2) se gasta en un uso: !pa éxito"),  # item 17b: the uses listed, nothing spent (3 - 1)
    (23, "No se ha gastado ninguno."),
    (25, "[17] + 4 = 21 → impacta"),  # item 17b: the owed blow does not block it; 21 < 22: no critical
    # The newest blow first: 1d10 8 + FUE 3 x 1,5 = 4,5, toward zero 4: 12 >= Umbral 6, the minion falls.
    (26, "Daño 1d10 · FUE +3 ×1,5 a dos manos: [8] + 4 = 12"),
    (26, "PR 9 → -3, cae Moribundo."),  # 9 - 12 = -3
    (27, "quedó pendiente de un turno anterior"),  # item 17b: the owed one waits for the GM's !permite
    (29, "[5] + 4 = 9"),  # item 17b: on !permite, the owed blow: 5 + 4 = 9
    (29, "PR -3 → -12"),  # -3 - 9 = -12
    (31, "[11] + 6 = 17 → impacta"),  # 17 >= 14; a critical needs 14 + 0 + 10 = 24
    # Item 17: the GM's `!daño pa` is the victim's choice made for him: 1d10 7 + 2 = 9, 9 // 2 = 4;
    # PR 18 -> 14, 4 < Umbral 8; Doran's PA 2 -> 1.
    (32, "Daño 1d10 · FUE +2: [7] + 2 = 9"),
    (32, "Doran recibe 4 de daño (mitad por un Punto de Acción): PR 18 → 14."),
    # Round 3: the dying minion's save, d20 4 + Fortaleza 0 = 4 < CD 10 + 0 previous saves: dies.
    (33, "🩸 Bandido Moribundo, Fortaleza: 4 vs CD 10 → muere"),
    (33, "💀 Bandido muere y sale del orden."),
    (34, "[12] + 5 = 17 → impacta"),  # 17 >= 15; a critical needs 15 + 1 + 10 = 26
    (35, "Daño 1d8 · FUE +2: [7] + 2 = 9"),
    (35, "PR 30 → 21"),  # RD is not subtracted (003 names it only for criticals); 9 < Umbral 12
    # Item 17: for the GM's character the GM halves it: 9 // 2 = 4, PR 30 -> 26; Capitan's PA 1 -> 0.
    (36, "Capitan recibe 4 de daño (de 9: mitad por un Punto de Acción): PR 30 → 26."),
    (38, "[6] + 4 = 10 → falla"),  # 10 < 15
    (40, "[17] + 6 = 23 → impacta"),  # 23 >= 16, < 26
    (41, "PR 17 → 8, sufre una herida grave."),  # 1d10 7 + 2 = 9 >= Umbral 9; 17 - 9 = 8
    (41, "Fortaleza d20+2 vs CD 19: [17] + 2 = 19 → superada (margen +0)"),  # CD 10 + 9; 19 >= 19
    (42, "[7]"),  # the GM's roll: another roll, the hit can no longer be halved
    (43, "!pa mitad va justo después del daño de un golpe"),  # item 17: refused, nothing changes
    (44, "🔔 Ronda 4."),
    (45, "[2] + 5 = 7 → falla"),
    (47, "[17] + 4 = 21 → impacta"),  # 21 >= 15, < 26
    (48, "Daño 1d10 · FUE +3 ×1,5 a dos manos: [9] + 4 = 13"),  # 9 + 4; 13 >= Umbral 12
    (48, "PR 26 → 13, sufre una herida grave."),  # 26 - 13 = 13
    (48, "Fortaleza d20+4 vs CD 23: [9] + 4 = 13 → fallada (margen -10)"),  # CD 10 + 13 (the GM leaves
    # Tabla GDJ15's state out, 003 leaves it to him)
    (50, "[2] + 6 = 8 → falla"),
    (51, "🔔 Ronda 5."),
    (52, "[4] + 5 = 9 → falla"),
    (54, "[13] + 4 = 17 → impacta"),
    (55, "PR 13 → 6"),  # 1d10 3 + 4 = 7; 7 < 12
    (57, "[20] + 6 = 26 → ¡golpe crítico! (20 natural)"),  # «Un golpe crítico es resultado de 20»
    (58, "Daño 1d10 · FUE +2 · crítico ×2: ([6] + 2) × 2 = 16"),  # no Crítico on Capitan's sheet: x2
    (58, "PR 8 → -8, cae Inconsciente y Moribundo."),  # 8 - 16 <= 0: no wound save for the dropped
    # Item 17: 16 // 2 = 8, PR 8 -> 0: still «a cero o menos», unconscious and dying; 8 < Umbral 9. PA 2 -> 1.
    (59, "Kira recibe 8 de daño (de 16: mitad por un Punto de Acción): PR 8 → 0, cae Inconsciente y Moribundo."),
    # «Estabilizarte automáticamente a ti»: off her turn, on the GM's !permite; PA 1 -> 0.
    (61, "🩹 Kira gasta un Punto de Acción: Kira se estabiliza (Incapacitado e Inconsciente)."),
    (62, "▶️ Doran (@bob:local). Kira no puede actuar."),  # round 6: stable, so no dying save
    (63, "[5] + 4 = 9 → falla"),
    (64, "Doran no tiene ningún golpe pendiente"),
    (66, "[14] + 6 = 20 → impacta"),  # 20 >= 14, < 24; line 67 ends the turn: its damage stays owed
    (67, "🔔 Ronda 7."),
    (68, "[8] + 4 = 12 → falla"),
    (71, "[19] + 6 = 25 → ¡golpe crítico! (24 o más)"),  # 25 >= Defensa 14 + RD 0 + 10
    (72, "([10] + 2) × 2 = 24"),
    (72, "PR 14 → -10, cae Inconsciente y Moribundo."),  # 14 - 24 = -10: no wound save
    # Item 17: 24 // 2 = 12, PR 14 -> 2, standing; 12 >= Umbral 8: Fortaleza CD 10 + 12 = 22, its d20 rolled
    # now (the dropping hit had none): 11 + 3 = 14, fails by 8. PA 1 -> 0.
    (73, "Doran recibe 12 de daño (de 24: mitad por un Punto de Acción): PR 14 → 2, sufre una herida grave."),
    (73, "Fortaleza d20+3 vs CD 22: [11] + 3 = 14 → fallada (margen -8)"),
    # Item 17b: the GM rolls its own character's owed blow of round 6 on its turn: 1d10 7 + 2 = 9.
    (74, "Daño 1d10 · FUE +2: [7] + 2 = 9"),
    (74, "PR 2 → -7, cae Inconsciente y Moribundo."),  # 2 - 9 = -7
    # Round 8: Doran's dying save 14 + 3 = 17 >= CD 10 (not by 10: still dying); Kira, stable, rolls none.
    (75, "🩸 Doran: [14] + 3 = 17 vs CD 10 → sigue"),
    (75, "▶️ Capitan. Kira y Doran no pueden actuar."),
    (76, "Fin del combate tras 8 rondas."),
]


def test_a_second_whole_seeded_fight_every_number_checked() -> None:
    table = make_table(system="reino", seed=SEED)
    t = play(FIGHT, table=table)
    for line, text in EXPECTED:
        assert text in seen(t, line), (line, text, seen(t, line))
    assert t.acked(28) and t.acked(60)  # the GM's !permite: a ✅
    assert "PR" not in "\n".join(t.texts(36))  # the room reads no PR of the GM's character
    room = table.room(ROOM)
    assert room.combat is None
    sheets = {k: c.sheet for k, c in room.characters.items()}
    # Kira: PR 22 - 5 - 9 - 8 = 0; PA 3 - 1 (halved) - 1 (halved) - 1 (stabilised) = 0.
    assert (sheets["kira"]["pr"], sheets["kira"]["pa"], sheets["kira"]["estados"]) == (0, 0, "incapacitado, inconsciente")
    # Doran: PR 18 - 4 - 12 - 9 = -7; PA 2 - 1 (!daño pa) - 1 (!pa mitad) = 0.
    assert (sheets["doran"]["pr"], sheets["doran"]["pa"], sheets["doran"]["estados"]) == (-7, 0, "moribundo, inconsciente")
    assert (sheets["capitan"]["pr"], sheets["capitan"]["pa"]) == (6, 0)  # 30 - 4 - 13 - 7; PA 1 - 1
    assert sheets["bandido"]["pr"] == -12  # 9 - 12 - 9: each blow once


def test_the_owed_blows_on_the_gms_screen() -> None:
    """Item 17b: the screen lists a blow whose turn ended as owed, with what lets its attacker roll it; a
    dead attacker owes nothing; rolled, it is gone."""
    def shown(upto: int) -> list[Pending]:
        return pending(lines(upto), make_table(system="reino", seed=SEED))
    assert shown(14) == [Pending("damage", "Doran", "daño", target="Bandido", amount=1)]
    assert shown(15) == [Pending("damage_owed", "Doran", "permite Doran", target="Bandido", amount=1)]
    assert shown(21) == [Pending("damage_owed", "Doran", "permite Doran", target="Bandido", amount=1),
                         Pending("damage_owed", "Bandido", "daño", target="Doran", amount=1)]
    assert shown(29) == [Pending("damage_owed", "Bandido", "daño", target="Doran", amount=1)]
    assert shown(33) == []  # Bandido died
    assert shown(67) == [Pending("damage_owed", "Capitan", "daño", target="Doran", amount=1)]
    assert shown(74) == []
