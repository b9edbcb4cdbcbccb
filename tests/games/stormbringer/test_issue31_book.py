"""Issue 31, Stormbringer items 11 to 14b: the shield's own attack and a second weapon's own damage, no
riposte after a critical parry of a critical, a late DES, the GM lifting a stun, and the small flows of 14b
(a weapon broken once, ``!espalda NOMBRE N``, ``!sale`` of the acting character, DES ties in the
declarations). The house rules are ``/work/shared/rules/002``."""

from __future__ import annotations

from tests.transcript import make_table, play

ROOM = "!console:local"
DUEL = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 30 ataque 85 parada 70 esquiva 40 daño 12
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 30 ataque 60 parada 55 esquiva 30 daño 20 arma2 escudo escudo 50 daño2 3
@gm:local: !combate
@gm:local: !turnos Orco, Elric
"""


def sb(script: str, seed: int = 1):
    table = make_table(system="stormbringer", seed=seed)
    return play(script, table), table


def state(table) -> dict:
    return table.room(ROOM).to_dict()


def lines(script: str) -> int:
    return sum(1 for line in script.splitlines() if line.strip())


# -- item 11: the shield's own percentage, the second weapon's own damage ---------------------------------

def test_item_11_a_shield_as_second_weapon_attacks_with_its_own_percentage_less_25() -> None:
    """Issue 31 item 11. 002: «Con cada arma tenemos un % de ataque» and «Aquellos personajes cuya segunda
    arma sea un escudo, tendrán derecho a un ataque con -25% o a una parada adicional sin penalizadores»:
    Orco's `!ataque Elric dos armas` with a shield as arma2 is Escudo 50 - 25 = 25%, not Ataque 60 - 25."""
    t, _ = sb(DUEL + "@gm:local: !ataque Elric dos armas\n")
    assert "Ataque 50 -25 (segunda arma) = 25%" in t.gm_text(lines(DUEL) + 1)


def test_item_11_the_shield_named_attacks_with_escudo_too() -> None:
    """Issue 31 item 11: `!ataque Elric escudo` is the same attack: Escudo 50 - 25 = 25%."""
    t, _ = sb(DUEL + "@gm:local: !ataque Elric escudo\n")
    assert "Ataque 50 -25 (segunda arma) = 25%" in t.gm_text(lines(DUEL) + 1)


def test_item_11_the_shields_attack_spends_its_extra_parry() -> None:
    """Issue 31 item 11 (a guard: it held): «un ataque con -25% o a una parada adicional»: the shield's
    attack spends the shield for the round (no free extra parry after it)."""
    _, table = sb(DUEL + "@gm:local: !ataque Elric dos armas\n")
    counter = state(table)["combat"]["data"]["counters"]["orco"]
    assert counter["shield_used"] and counter["second_used"] and not counter["main_used"]


def test_item_11_a_second_weapons_blow_deals_its_own_damage() -> None:
    """Issue 31 item 11: a second weapon has its own damage field (`daño2`, also `arma2_daño`), used by the
    `!daño` of its blow (002: «El atacante hace tirada por daño que hace el arma»): the shield hits for 3,
    not the sword's 20."""
    script = DUEL + "@gm:local: !ataque Elric dos armas\n@gm:local: !daño Elric\n"
    for seed in range(1, 40):
        t, table = sb(script, seed)
        if "→ Elric" in t.texts(lines(DUEL) + 1)[0]:
            break
    damage = "\n".join(t.texts(lines(DUEL) + 2))
    assert "Daño 3 = 3 → pierde 3 PV" in damage, damage
    assert state(table)["characters"]["elric"]["sheet"]["pv"] == 27


def test_item_11_arma2_dano_is_the_same_field_and_the_main_weapon_keeps_its_own() -> None:
    """Issue 31 item 11: `arma2_daño` is the field `daño2` names; the weapon in hand keeps `daño`."""
    script = DUEL + "@gm:local: !ficha Orco arma2_daño 4\n"
    _, table = sb(script)
    sheet = state(table)["characters"]["orco"]["sheet"]
    assert sheet["arma2_dano"] == "4" and sheet["dano"] == "20"


# -- item 12: no riposte after a critical parry of a critical ----------------------------------------------

MASTER = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 30 ataque 95 parada 95 esquiva 40 daño 12
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 30 ataque 60 parada 55 esquiva 30 daño 20
@gm:local: !combate
@gm:local: !turnos Orco, Elric
@gm:local: !ataque Elric 999
@ana:local: !parada 999
"""


def test_item_12_no_riposte_after_a_critical_parry_of_a_critical() -> None:
    """Issue 31 item 12. 002: «Sólo se puede parar un golpe crítico con un éxito crítico en la tirada de
    Parar, pero los dos objetos que chocan se destruirán»; the riposte is for one who «para un golpe
    normal»: the master's weapon is gone, no riposte is offered nor granted."""
    t, table = sb(MASTER + "@ana:local: !ataque Orco respuesta\n", seed=3)
    parry = "\n".join(t.texts(8))
    assert "¡crítico!" in t.texts(7)[0] and "¡crítico!" in parry, parry
    assert "Arma rota: Orco, Elric" in parry and "puede responder" not in parry
    data = state(table)["combat"]["data"]
    assert "riposte" not in data and data["counters"]["elric"]["ripostes_earned"] == 0
    assert "Ataque de respuesta" not in "\n".join(t.texts(9))


# -- item 13: a late combatant's DES set after !entra ------------------------------------------------------

LATE = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 14 ataque 85 parada 70 esquiva 40
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 13 ataque 60 parada 55 esquiva 30
@gm:local: !pnj Trasgo
@gm:local: !ficha Trasgo des 10 pv 6 ataque 40 parada 30 esquiva 30
@gm:local: !combate
@gm:local: !iniciativa
@gm:local: !pj Moonglum @bob:local
@gm:local: !entra Moonglum
@gm:local: !ficha Moonglum des 15 pv 11 ataque 70 parada 50 esquiva 50
"""


def test_item_13_a_late_des_declares_in_its_slot() -> None:
    """Issue 31 item 13. The house rules are silent on a DES known only after joining; 002 has «La primera
    declaración la efectuará el personaje con la DES más baja»: Moonglum, DES 15 set after `!entra`,
    declares after Orco (12) and before Elric (17), not right after Trasgo as a DES of 0 would."""
    _, table = sb(LATE)
    combat = state(table)["combat"]
    assert combat["order"] == ["Trasgo", "Orco", "Moonglum", "Elric"], combat["order"]
    t, table = sb(LATE + "@gm:local: !siguiente\n@gm:local: !siguiente\n")
    assert state(table)["combat"]["order"][state(table)["combat"]["turn"]] == "Moonglum"
    assert "▶️ Moonglum" in "\n".join(t.texts(13))


# -- item 14: the GM lifts a stun ------------------------------------------------------------------------

STUN = DUEL + """
@gm:local: !siguiente
@ana:local: !siguiente
@gm:local: !daño Orco 2 crítico
"""


def test_item_14_the_gm_lifts_the_stun_and_it_is_announced() -> None:
    """Issue 31 item 14. 002: «el personaje dañado quedará temporalmente aturdido y no podrá combatir durante
    por lo menos cinco minutos»; the house rules are silent on who ends it: the GM does, with
    `!ficha Orco aturdido no` (the screen's state control sends the same), and the room is told."""
    t, table = sb(STUN + "@gm:local: !ficha Orco aturdido no\n@gm:local: !estado\n")
    n = lines(STUN)
    lifted = "\n".join(t.texts(n + 1))
    assert "Se acaba el aturdimiento de Orco (1 asalto)" in lifted, lifted
    data = state(table)["combat"]["data"]
    assert "stunned" not in data["wounds"].get("orco", [])
    assert "aturdido" not in state(table)["characters"]["orco"]["sheet"]
    assert "aturdido" not in "\n".join(t.texts(n + 2))


def test_item_14_the_stun_label_says_how_long_it_has_lasted() -> None:
    """Issue 31 item 14: the fighter's state (the screen's rows, `!estado`) says since when the stun lasts,
    against the five minutes (25 rounds of 12 s) the rules give it."""
    t, _ = sb(STUN + "@gm:local: !estado\n")
    assert "Orco [herida grave, aturdido desde el asalto 2 (1 de 25 asaltos): no combate]" in "\n".join(t.texts(lines(STUN) + 1))


def test_item_14_a_player_cannot_lift_a_stun_and_outside_a_fight_it_is_refused() -> None:
    """Issue 31 item 14: the stun is the table's state: a player's `!ficha Elric aturdido no` is refused."""
    t, table = sb(DUEL + "@ana:local: !ficha Elric aturdido no\n")
    assert "aturdido" not in state(table)["characters"]["elric"]["sheet"]
    assert "máster" in "\n".join(t.texts(lines(DUEL) + 1))


# -- item 14b ---------------------------------------------------------------------------------------------

def test_item_14b_espalda_takes_the_pod_its_hint_asks_for() -> None:
    """Issue 31 item 14b. 002: «siempre tendrá derecho a una tirada de salvación bajo su POD»; without POD
    on the sheet the refusal says «di el porcentaje (55)»: `!espalda Elric 55` rolls under 55."""
    t, _ = sb(DUEL + "@gm:local: !espalda Elric\n@gm:local: !espalda Elric 55\n")
    assert "di el porcentaje" in t.texts(lines(DUEL) + 1)[0]
    assert "55%" in "\n".join(t.texts(lines(DUEL) + 2, gm_copies=True)), t.texts(lines(DUEL) + 2)


SALE = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 14 ataque 85 parada 70 esquiva 40
@gm:local: !pj Moonglum @bob:local
@gm:local: !ficha Moonglum des 15 pv 11 ataque 70 parada 50 esquiva 50
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 13 ataque 60 parada 55 esquiva 30
@gm:local: !combate
@gm:local: !iniciativa
"""


def test_item_14b_sale_of_the_declarer_passes_to_the_next_declarer() -> None:
    """Issue 31 item 14b: `!sale` of the one declaring passes the turn to the next declarer (the round does
    not end): Orco (12) leaves on its turn, Moonglum (15) declares."""
    _, table = sb(SALE + "@gm:local: !sale Orco\n")
    combat = state(table)["combat"]
    assert combat["round"] == 1 and combat["order"][combat["turn"]] == "Moonglum"
    assert combat["data"]["stage"] == "intent"


def test_item_14b_sale_of_the_last_declarer_starts_the_attacks() -> None:
    """Issue 31 item 14b: the last declarer leaving on its turn ends the declarations: the attacks start
    with the highest DES, in round 1."""
    script = SALE + "@gm:local: !siguiente\n@bob:local: !siguiente\n@gm:local: !sale Elric\n"
    _, table = sb(script)
    combat = state(table)["combat"]
    assert combat["round"] == 1 and combat["data"]["stage"] == "actions"
    assert combat["order"][combat["turn"]] == "Moonglum"


def test_item_14b_sale_of_the_attacker_passes_the_turn_and_the_last_one_ends_the_round() -> None:
    """Issue 31 item 14b: in the attacks, `!sale` of the acting one passes to the next; of the last one,
    the round ends (round 2 starts with its declarations)."""
    script = SALE + "@gm:local: !acciones\n@gm:local: !sale Elric\n"
    _, table = sb(script)
    combat = state(table)["combat"]
    assert combat["round"] == 1 and combat["order"][combat["turn"]] == "Moonglum"
    script += "@bob:local: !siguiente\n@gm:local: !sale Orco\n"
    _, table = sb(script)
    combat = state(table)["combat"]
    assert combat["round"] == 2 and combat["data"]["stage"] == "intent"
    assert combat["order"] == ["Moonglum"]


TIE = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 12 pv 14 ataque 85 parada 70 esquiva 40
@gm:local: !pj Moonglum @bob:local
@gm:local: !ficha Moonglum des 12 pv 11 ataque 70 parada 50 esquiva 50
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 12 pv 13 ataque 60 parada 55 esquiva 30
@gm:local: !pnj Trasgo
@gm:local: !ficha Trasgo des 10 pv 6 ataque 40 parada 30 esquiva 30
@gm:local: !combate
@gm:local: !iniciativa
"""


def test_item_14b_a_des_tie_in_the_declarations_is_broken_as_in_the_attacks() -> None:
    """Issue 31 item 14b. 002: «Los siguientes asaltos se jugarán alternativamente» (the side that goes first
    wins a tie); two of one side who tie are the GM's to order: the tie is shown, the declarations and the
    attacks keep one order, and nobody's declaration is skipped."""
    t, table = sb(TIE + "@gm:local: !estado\n")
    combat = state(table)["combat"]
    assert combat["order"] == ["Trasgo", "Elric", "Moonglum", "Orco"]   # players first on a tie in round 1
    assert "Elric = Moonglum" in "\n".join(t.texts(lines(TIE) + 1))


def test_item_14b_the_gms_orden_in_the_declarations_skips_nobody() -> None:
    """Issue 31 item 14b: `!orden Moonglum antes de Elric` during the declarations reorders them and keeps
    the declarations going (all four declare), and the attacks keep the GM's order."""
    script = TIE + """
@gm:local: !orden Moonglum antes de Elric
@gm:local: !siguiente
@bob:local: !siguiente
@ana:local: !siguiente
"""
    t, table = sb(script)
    assert "Moonglum" in t.texts(lines(TIE) + 1)[0]
    combat = state(table)["combat"]
    assert combat["data"]["stage"] == "intent" and combat["order"][combat["turn"]] == "Orco"
    t, table = sb(script + "@gm:local: !siguiente\n")
    combat = state(table)["combat"]
    assert combat["round"] == 1 and combat["data"]["stage"] == "actions"
    assert combat["order"] == ["Moonglum", "Elric", "Orco", "Trasgo"]


def test_item_14b_a_broken_weapon_is_not_broken_again() -> None:
    """Issue 31 item 14b. 002: «Si para un golpe normal con una tirada crítica entonces se rompe el arma
    atacante»: a weapon already broken is announced once; a second critical parry of a blow of that
    weapon (a master's riposte and an older blow both open) breaks nothing more."""
    script = """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 30 ataque 85 parada 70 esquiva 40 daño 12
@gm:local: !pj Moonglum @bob:local
@gm:local: !ficha Moonglum des 15 pv 30 ataque 70 parada 50 esquiva 50 daño 6
@gm:local: !pnj Orco
@gm:local: !ficha Orco des 18 pv 30 ataque 95 parada 95 esquiva 30 daño 20
@gm:local: !combate
@gm:local: !turnos Orco, Elric, Moonglum
@gm:local: !ataque Moonglum 50
@gm:local: !siguiente
@ana:local: !ataque Orco 50
@gm:local: !parada
@gm:local: !ataque Elric respuesta
@bob:local: !parada 999
@ana:local: !parada 999
"""
    for seed in range(1, 200):
        t, _ = sb(script, seed)
        texts = ["\n".join(t.texts(n)) for n in range(9, 16)]
        if ("→ éxito" in texts[0] and "→ éxito" in texts[2] and "→ éxito" in texts[3]
                and "→ éxito" in texts[4] and "¡crítico!" in texts[5] and "¡crítico!" in texts[6]):
            break
    else:
        raise AssertionError("no seed")
    assert "Arma rota: Orco" in texts[5]
    assert "Arma rota" not in texts[6], texts[6]
