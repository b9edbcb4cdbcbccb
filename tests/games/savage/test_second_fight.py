"""The second whole Savage fight as a regression transcript (issue 31): two player Wild Cards (Kira,
Rurik), a Wild Card NPC (Voss) and a pack of three wolf Extras sharing one card and one turn, four rounds
and two short fights after it, seeded (``make_table(seed=39)``), played on the messages of issue 30 and 31.

It goes through issue 31's turn items: the wolves' joker said once (item 10), a trap on Kira's own turn
and its soak (item 6), ``!esperar`` refused while Shaken and a holder who loses the hold to a blow and
acts right after (item 7), a second hit on an incapacitated hero (item 10), the deal naming who cannot
act (item 10), ``Daño del arma`` on three sheets (item 10) and the action count of a new fight (item 10).

Every roll's arithmetic is checked by ``check_numbers`` (test_whole_fight.py); the comments beside the
assertions do each sum by hand against 000 and 001: a trait roll keeps the better of its trait die and
the Wild Card's wild d6 (Extras roll no wild die), adds its modifiers (joker +2, −1 a wound), and is a
success at its TN (Parry in melee, 4 at range and for Spirit, Vigor and soak) with a raise each full 4
over; damage adds every die (Fuerza and the weapon's die in melee, +1d6 on a raise), against Toughness a
success is Shaken and each full 4 over a wound.
"""

from __future__ import annotations

import re

from tests.games.savage.test_flow_by_the_book import sheet
from tests.games.savage.test_whole_fight import TRAIT_KINDS, check_numbers
from tests.transcript import Transcript, make_table, play

SCRIPT = "".join(f"{line}\n" for line in (
    "@gm:local: !pj Kira @bob:local",  # 1
    "@gm:local: !ficha Kira Espíritu d8, Vigor d8, Atletismo d6, Disparar d8, Pelear d6, Parada 5, Dureza 6, "
    "Bennies 3, Arma Rifle, Tipo de arma distancia, Daño 2d8",
    "@gm:local: !pj Rurik @ana:local",
    "@gm:local: !ficha Rurik Espíritu d6, Fuerza d8, Vigor d10, Atletismo d6, Pelear d8, Parada 6, Dureza 7, "
    "Bennies 2, Arma Espada, Tipo de arma cuerpo, Daño del arma Fue+d8",
    "@gm:local: !pnj Voss comodín",  # 5
    "@gm:local: !ficha Voss Espíritu d8, Fuerza d8, Vigor d8, Pelear d10, Atletismo d8, Parada 7, Dureza 7, "
    "Bennies 1, Arma Sable, Tipo de arma cuerpo, Daño del arma: Fue+d6",
    "@gm:local: !pnj Lobo x3 grupo lobos Pelear d6, Fuerza d6, Atletismo d8, Parada 5, Dureza 5, Daño del arma Fue+d4",
    "@gm:local: !combate",
    "@gm:local: !iniciativa",
    # Round 1: the wolves (joker), Voss, Kira, Rurik.
    "@gm:local: !ataque Lobo 1 Kira",  # 10
    "@gm:local: !ataque Lobo 2 Rurik",
    "@gm:local: !ataque Lobo 3 Rurik",
    "@ana:local: !absorber",
    "@gm:local: !siguiente",
    "@gm:local: !ataque Voss Rurik",  # 15
    "@ana:local: !absorber no",
    "@gm:local: !siguiente",
    "@bob:local: !esperar",
    "@gm:local: Kira pisa una trampa de cepo.",
    "@gm:local: !daño Kira 2d6+4",  # 20
    "@bob:local: !absorber",
    "@bob:local: !esperar",
    "@ana:local: !beni recuperar",
    "@ana:local: !ataque Lobo 1",
    "@ana:local: !siguiente",  # 25
    # Round 2: the wolves, Kira (her held card), Voss, Rurik.
    "@gm:local: !estado",
    "@gm:local: !ataque Lobo 1 Rurik",
    "@gm:local: !ataque Lobo 2 Rurik",
    "@gm:local: !ataque Lobo 3 Rurik",
    "@gm:local: !siguiente",  # 30
    "@bob:local: !esperar",
    "@gm:local: !ataque Voss Kira",
    "@gm:local: !estado",
    "@gm:local: !siguiente",
    "@bob:local: !ataque Lobo 1",  # 35
    "@bob:local: !siguiente",
    "@ana:local: !ataque Lobo 2",
    "@ana:local: !siguiente",
    # Round 3: Kira, Rurik, Voss, the two wolves left.
    "@bob:local: !ataque Lobo 2",
    "@bob:local: !siguiente",  # 40
    "@ana:local: !ataque Voss",
    "@ana:local: !siguiente",
    "@gm:local: !ataque Voss Kira",
    "@bob:local: !absorber",
    "@gm:local: !siguiente",  # 45
    "@gm:local: Los dos lobos derriban a Rurik y lo muerden en el suelo.",
    "@gm:local: !daño Rurik 19",
    "@gm:local: !daño Rurik 12",
    "@gm:local: !estado",
    "@gm:local: !siguiente",  # 50
    # Round 4 opens; Voss flees. Two short fights after it.
    "@gm:local: Voss huye por el bosque y los lobos tras él.",
    "@gm:local: !combate fin",
    "@gm:local: !combate",
    "@gm:local: !turnos Kira, Voss",
    "@bob:local: !beni recuperar",  # 55
    "@bob:local: !tiro Disparar",
    "@gm:local: !combate fin",
    "@gm:local: Voss vuelve a asomar entre los árboles.",
    "@gm:local: !combate",
    "@gm:local: !turnos Kira, Voss",  # 60
    "@bob:local: !tiro Disparar",
    "@bob:local: !tiro Disparar",
    "@gm:local: !combate fin",
))


def rolls(t: Transcript, number: int) -> list[dict]:
    """The rolls answering line ``number`` as the GM reads them (an NPC's numbers from the GMs' copy)."""
    return t.full_rolls(number)


def text(t: Transcript, number: int) -> str:
    """The messages answering line ``number`` (the GMs' copies sent with them included)."""
    return "\n".join(a["text"] for a in t.for_line(number) if a["action"] == "send")


def checked(made: dict) -> None:
    """``check_numbers``, with a damage roll's constant (the trap's ``2d6+4``) counted as a modifier."""
    constant = re.search(r"[+-]\d+$", str(made.get("expr", ""))) if made["kind"] == "damage" else None
    extra = [{"reason": "constante", "value": int(constant.group())}] if constant else []
    check_numbers({**made, "modifiers": [*made["modifiers"], *extra]})


def dice(made: dict) -> tuple:
    """What a trait roll shows: its dice (the trait's, then the wild die's), its total and its TN."""
    return made["dice"], made["total"], made["tn"]


def test_the_second_whole_fight_by_the_book() -> None:
    table = make_table(system="savage", seed=39)
    t = play(SCRIPT, table)
    every = [r for a in t.actions if a["action"] == "send" for r in a.get("rolls") or ([a["roll"]] if "roll" in a else [])]
    for made in every:
        if ("tn" in made and made["kind"] in TRAIT_KINDS) or made.get("toughness") is not None:
            checked(made)
    assert len(every) > 30

    # The sheets: «Daño del arma» is the weapon's damage, with or without a colon (item 10).
    assert [sheet(table, n)["arma_dano"].lower() for n in ("Rurik", "Voss", "Lobo 2")] == ["fue+d8", "fue+d6", "fue+d4"]
    assert (sheet(table, "Rurik")["arma"], sheet(table, "Voss")["arma"]) == ("Espada", "Sable")

    # Round 1. The wolves share one card, the joker 🃏1: shown once for the three, said once (item 10).
    # 54 cards - 4 dealt (the pack's one, Voss's, Kira's, Rurik's) = 50. Q♦ before Q♣: ♦ goes before ♣.
    deal = text(t, 9)
    assert deal.startswith("🃏 Cartas de acción: Lobo 1/Lobo 2/Lobo 3 🃏1 ¡comodín! (+2 a rasgo y daño, actúa")
    assert "Voss Q♦, Kira Q♣, Rurik 9♠. Quedan 50 cartas." in deal and deal.count("comodín") == 1
    assert deal.endswith("▶️ Lobo 1, Lobo 2 y Lobo 3 (un solo turno para el grupo)")
    attack, damage = rolls(t, 10)  # Lobo 1 (an Extra: no wild die): Pelear d6 4 + 2 joker = 6 vs Kira's Parry 5
    assert (dice(attack), attack["wild"], attack["outcome"]) == (([4], 6, 5), None, "success")
    assert (damage["dice"], damage["total"], damage["toughness"]) == ([1, 3], 6, 6)  # Fue d6 1 + d4 3 + 2 = 6
    assert "💥 Kira: aturdido (" in text(t, 10)  # 6 vs Toughness 6: 0 over, a success: Shaken
    attack, damage = rolls(t, 11)  # Lobo 2: 4 + 2 = 6 vs Rurik's Parry 6, a hit; 3 + 1 + 2 = 6 < 7
    assert (dice(attack), damage["total"], damage["toughness"]) == (([4], 6, 6), 6, 7) and "Rurik: sin efecto" in text(t, 11)
    attack, damage = rolls(t, 12)  # Lobo 3: 5 + 2 = 7 vs 6; d6 6!+4 = 10, d4 1, +2 = 13 vs 7: 6 over, 1 wound
    assert (dice(attack), damage["dice"], damage["total"], damage["wounds"]) == (([5], 7, 6), [6, 4, 1], 13, 1)
    assert "Rurik: 1 herida, aturdido" in text(t, 12) and "!absorber [no]" in text(t, 12)
    soak = rolls(t, 13)[0]  # Rurik's soak: Vigor d10 6, wild 4: 6 vs 4, a success: 1 of 1, and Shaken goes too
    assert (dice(soak), soak["outcome"]) == (([6, 4], 6, 4), "success")
    assert "Absorbe 1 de 1 (Vigor, gasta un beni)" in text(t, 13)  # the shorter soak line (issue 30)
    assert "Queda: 0 heridas; 1 beni" in text(t, 13)  # 2 - 1 benny
    attack, damage = rolls(t, 15)  # Voss: Pelear d10 6, wild 5: 6 vs Parry 6, a hit
    assert (dice(attack), attack["outcome"]) == (([6, 5], 6, 6), "success")
    assert (damage["dice"], damage["total"], damage["wounds"]) == ([2, 6, 5], 13, 1)  # Fue d8 2 + d6 6!+5: 13 vs 7
    assert "no absorbe" in text(t, 16)
    spirit = rolls(t, 17)[0]  # Kira's turn starts Shaken: Spirit d8 2, wild 1: 2 vs 4, a failure
    assert (spirit["kind"], dice(spirit), spirit["outcome"]) == ("recovery", ([2, 1], 2, 4), "failure")
    # Item 7: Shaken, she cannot go on hold; told why, privately, and how to end Shaken.
    refused = t.messages(18)
    assert len(refused) == 1 and refused[0]["private_to"] == "@bob:local"
    assert "Kira tiene el estado aturdido: no puede ponerse en espera" in refused[0]["text"]
    # Item 6: the trap on her own turn, 2d6+4 = 5 + 2 + 4 = 11 vs 6: 5 over, 1 raise: 1 wound; the soak is open.
    trap = rolls(t, 20)[0]
    assert (trap["dice"], trap["total"], trap["wounds"]) == ([5, 2], 11, 1)
    assert text(t, 20) == "💥 Kira: 1 herida, aturdido (11 vs 6). 🛡️ !absorber [no]"
    soak = rolls(t, 21)[0]  # Vigor d8 8!+8!+3 = 19, wild 5: 19 vs 4, 15 over: 3 raises; 1 of 1 soaked
    assert (dice(soak), soak["raises"]) == (([8, 8, 3, 5], 19, 4), 3)
    assert "También se le pasa el aturdimiento" in text(t, 21) and "Queda: 0 heridas; 2 benis" in text(t, 21)
    held, spirit_line, turn = t.texts(22)  # no longer Shaken (001: a full soak ends it), she may hold now
    assert held.startswith("⏸️ Kira queda en espera: conserva su carta") and turn == "▶️ Rurik (@ana:local)"
    assert spirit_line.startswith("Rurik · 💫 Espíritu") and "sigue con el aturdimiento" in spirit_line
    spirit = rolls(t, 22)[0]  # Rurik: Spirit d6 2, wild 4, -1 wound = 3 vs 4, a failure
    assert (dice(spirit), spirit["modifiers"]) == (([2, 4], 3, 4), [{"reason": "heridas", "value": -1}])
    assert "le quedan 0" in text(t, 23)  # a benny ends Shaken: 1 - 1
    attack = rolls(t, 24)[0]  # Rurik: Pelear d8 2, wild 5, -1 = 4 vs Lobo 1's Parry 5: a miss
    assert (dice(attack), attack["outcome"]) == (([2, 5], 4, 5), "failure")

    # Round 2: a joker was dealt, so the deck is shuffled again; Kira keeps Q♣ while holding (000: «Si un
    # personaje en espera conserva su carta ... no recibe una nueva»): 54 - 4 in play = 50.
    deal = text(t, 25)
    assert "(salió un comodín: se baraja el mazo): Lobo 1/Lobo 2/Lobo 3 K♣, Kira Q♣ (en espera), Voss J♠" in deal
    assert "Rurik 4♣. Quedan 50 cartas." in deal and "Ronda 2. Orden: Lobo 1 → Lobo 2 → Lobo 3 → Kira" in deal
    # The wolves' three misses are ✅ and join the turn's passing message, in order (issue 30: held misses)
    assert all(t.acked(n) for n in (27, 28, 29)) and t.texts(30)[-1] == "▶️ Kira (@bob:local)"
    assert [dice(r) for r in rolls(t, 30)] == [([3], 3, 6), ([5], 5, 6), ([1], 1, 6)]  # d6 < Parry 6
    assert text(t, 31).startswith("⏸️ Kira queda en espera: conserva su carta")  # her turn: she holds again
    # Item 7: Voss hits the holder: d10 5, wild 1: 5 vs Parry 5; Fue d8 2 + d6 6!+1 = 9 vs 6, 3 over: Shaken.
    attack, damage = rolls(t, 32)
    assert (dice(attack), damage["dice"], damage["total"], damage["outcome"]) == (([5, 1], 5, 5), [2, 6, 1], 9, "shaken")
    assert "Kira: aturdido (" in text(t, 32) and "Sale de la espera: actúa tras este turno." in text(t, 32)
    state = text(t, 33).splitlines()  # no longer holding; now after Voss, before Rurik
    assert state[4:] == ["▶ Voss [🂠 J♠]", "· Kira [🂠 Q♣, aturdido, 2 benis]", "· Rurik [🂠 4♣, 1 herida, Paso 5]"]
    spirit = rolls(t, 34)[0]  # her turn right after Voss's: Spirit d8 6, wild 2: 6 vs 4, she recovers
    assert dice(spirit) == ([6, 2], 6, 4) and "se recupera" in text(t, 34) and text(t, 34).endswith("▶️ Kira (@bob:local)")
    attack, damage = rolls(t, 35)  # Disparar d8 3, wild 6!+3 = 9 vs 4: 5 over, a raise (+1d6 to the damage)
    assert (dice(attack), attack["raises"]) == (([3, 6, 3], 9, 4), 1)
    assert (damage["dice"], damage["total"], damage["wounds"]) == ([5, 8, 6, 1], 20, 3)  # 5 + 8!+6 + 1 = 20 vs 5
    assert "Lobo 1: fuera de combate" in text(t, 35)  # an Extra with a wound is out of the fight
    attack = rolls(t, 37)[0]  # Rurik: d8 3, wild 5, -1 = 4 vs Lobo 2's Parry 5: a miss
    assert dice(attack) == ([3, 5], 4, 5) and attack["outcome"] == "failure"

    # Round 3 (item 10): the deal names who gets no card because they cannot act. 50 - 4 = 46; ♥ before ♣.
    deal = text(t, 38)
    assert "Kira 8♥, Rurik 8♣, Voss 6♣, Lobo 2/Lobo 3 4♥. Quedan 46 cartas." in deal
    assert "No puede actuar: Lobo 1 (fuera de combate)." in deal
    assert dice(rolls(t, 39)[0]) == ([3, 1], 3, 4)  # Kira: 3 vs 4, a miss
    assert dice(rolls(t, 41)[0]) == ([3, 2], 2, 7)  # Rurik: 3 - 1 = 2 vs Voss's Parry 7
    attack, damage = rolls(t, 43)  # Voss: 5 vs 5; d8 7 + d6 6!+2 = 15 vs 6: 9 over, 2 raises: 2 wounds
    assert (dice(attack), damage["dice"], damage["total"], damage["wounds"]) == (([5, 1], 5, 5), [7, 6, 2], 15, 2)
    soak = rolls(t, 44)[0]  # Vigor d8 5, wild 2: 5 vs 4, a success: 1 of 2 soaked; 1 wound and Shaken stay
    assert dice(soak) == ([5, 2], 5, 4) and "Queda: 1 herida, aturdido; 1 beni" in text(t, 44)
    # The wolves' turn: the GM's 19 vs Rurik's 7: 12 over, 3 raises: 3 wounds on his 1, past 3: incapacitated.
    # No benny left, so no soak: the Vigor roll at once, d10 7, wild 2, -3 wounds = 4 vs 4: a success.
    hit = text(t, 47)
    assert "💥 Rurik: 3 heridas, incapacitado (19 vs 7)." in hit and "absorber" not in hit
    vigor = rolls(t, 47)[0]
    assert (vigor["kind"], dice(vigor), vigor["outcome"]) == ("incapacitation", ([7, 2], 4, 4), "success")
    before = dict(sheet(table, "Rurik"))
    # Item 10: a second hit on him (12 vs 7) is no «aturdido» and no soak: he stays incapacitated.
    assert text(t, 48) == "💥 Rurik: sigue con la incapacitación (12 vs 7)." and rolls(t, 48) == []
    assert "· Rurik [🂠 8♣, aturdido, 3 heridas, Paso 3, incapacitado]" in text(t, 49)  # Paso 6 - 3
    assert "absorción pendiente" not in text(t, 49)
    # Round 4: 46 - 3 cards = 43; Rurik (incapacitated) and Lobo 1 (out) get none, and the deal says so.
    deal = text(t, 50)
    assert "Kira Q♦, Voss 5♠, Lobo 2/Lobo 3 2♦. Quedan 43 cartas." in deal
    assert "No pueden actuar: Rurik (incapacitado); Lobo 1 (fuera de combate)." in deal
    spirit = rolls(t, 50)[0]  # Kira, Shaken: Spirit d8 1, wild 1: both dice on 1, a critical failure
    assert (dice(spirit), spirit["outcome"]) == (([1, 1], 0, 4), "critical_failure")
    assert "Fin del combate tras 4 rondas" in text(t, 52)
    assert sheet(table, "Rurik")["heridas"] == before["heridas"] == 3

    # Two short fights after it (item 10): each new fight's actions start at zero.
    spirit = rolls(t, 54)[0]  # still Shaken: d8 1, wild 2, -1 = 1 vs 4
    assert dice(spirit) == ([1, 2], 1, 4) and "le quedan 0" in text(t, 55)
    assert dice(rolls(t, 56)[0]) == ([6, 3], 5, 4)  # Disparar: 6 - 1 wound = 5 vs 4, a success
    shot = rolls(t, 61)[0]  # the next fight, round 1, Kira first again: her first action, not «ya hizo 1»
    assert dice(shot) == ([3, 1], 2, 4) and "ya hizo" not in text(t, 61)  # 3 - 1 = 2 vs 4, a miss
    refused = t.messages(62)
    assert refused[0]["private_to"] == "@bob:local" and "Kira ya hizo 1 acción este turno" in refused[0]["text"]
