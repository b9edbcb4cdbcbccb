"""Sistema Sombra by the book, third pass (issue 31 items 18, 19 and 20): a serious head wound is hours of
unconsciousness and no wound starts the death threshold (the GM does, `!ficha NOMBRE umbral sí`); aiming
costs a turn (`!apuntar [LOC]`); the skills 004 names are sheet fields and roll names, the bayonet's
among them."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.games.sombra.test_table import sheet, sombra_table
from tests.transcript import assert_refused, play

CAST = """@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Hans
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 vit 6 fusil 17 arma II+2
@gm:local: !ficha Hans vel 6 agi 5 res 4 vit 2 fusil 13 arma II+1
@gm:local: !combate
@gm:local: !iniciativa
"""
TURN = 7
"""McAvoy's first turn (VEL 7 before Hans's 6)."""


# --- item 18: the death threshold is the GM's to start ------------------------------------------

def test_item_18_a_serious_head_wound_is_hours_unconscious_not_the_death_threshold() -> None:
    """Issue 31 item 18. 004, Cabeza: «En heridas graves (daño > resistencia x 2) se está inconsciente un
    número de horas igual al daño recibido»; the threshold is for who has reached 0 hit points («Umbral
    Mortal (vit): numero de puntos de vida/tiempo que un PJ puede aguantar tras llegar a los 0 puntos de
    vida»), which 004 never gives people: 9 points at the head against RES 4 (9 > 8) knock Hans out for 9
    hours, and three rounds later (VIT 2) he is still alive, no threshold counted."""
    table = sombra_table()
    rounds = "@ana:local: !siguiente\n@gm:local: !siguiente\n" * 3
    t = play(CAST + f"@gm:local: !daño Hans 9 cabeza\n{rounds}@gm:local: !estado\n", table)
    hit = t.text(TURN)
    assert "cabeza: 9 → herida grave" in hit and "inconsciente (9 h)" in hit and "umbral" not in hit
    later = [text for n in range(TURN + 1, TURN + 7) for text in t.texts(n)]
    assert not any("mbral" in text or "muere" in text for text in later), later
    assert "muerto" not in sheet(table, "Hans") and "umbral" not in sheet(table, "Hans")
    assert "inconsciente (9 h)" in t.texts(TURN + 7)[0] and "umbral" not in t.texts(TURN + 7)[0]


def test_item_18_no_location_starts_the_threshold_by_itself() -> None:
    """Issue 31 item 18: a serious abdomen wound («el herido cae al suelo y está consciente, pero no puede
    realizar ninguna acción») leaves Hans down, not counting down to death."""
    table = sombra_table()
    t = play(CAST + "@gm:local: !daño Hans 9 abdomen\n@ana:local: !siguiente\n@gm:local: !siguiente\n"
             "@ana:local: !siguiente\n@gm:local: !siguiente\n", table)
    assert "umbral" not in t.text(TURN)
    assert not any("mbral" in text for n in range(TURN + 1, TURN + 5) for text in t.texts(n))
    assert "muerto" not in sheet(table, "Hans")


def test_item_18_the_gm_starts_the_threshold_and_the_bot_counts_it() -> None:
    """Issue 31 item 18: `!ficha Hans umbral sí` (only the GM's: it is the table's state) starts it; each
    new round counts one of VIT 2 (004: «Umbral Mortal (vit)»); at 0 Hans dies."""
    table = sombra_table()
    t = play(CAST + "@gm:local: !ficha Hans umbral sí\n@gm:local: !estado\n@ana:local: !siguiente\n"
             "@gm:local: !siguiente\n", table)
    assert not [m for m in t.messages(TURN) if not m.get("private_to")]  # the GM's bookkeeping: ✅
    assert "· Hans [umbral mortal]" in t.texts(TURN + 1)[0]
    # Dying, Hans cannot act: McAvoy's turn ends round 1; round 2 counts 2 - 1 = 1 round left (an NPC's
    # count is the GMs'); McAvoy's next turn ends round 2; round 3 counts 0: he dies.
    assert "Hans agoniza (umbral mortal)" in t.texts(TURN + 2)[0] and "Hans no puede actuar" in t.texts(TURN + 2)[-1]
    assert "Hans ha agotado su umbral mortal: muere" in t.texts(TURN + 3)[0]
    assert sheet(table, "Hans")["muerto"] == 1


def test_item_18_a_player_may_not_start_a_threshold_and_the_gm_may_stop_it() -> None:
    """Issue 31 item 18: the threshold is the table's state, the GM's (`!ficha Hans umbral no`, or `!curar`)."""
    t = play(CAST + "@gm:local: !pj Lola @ana:local\n@ana:local: !ficha Lola umbral sí\n", system="sombra")
    assert "máster" in t.texts(TURN + 1)[0]
    table = sombra_table()
    t = play(CAST + "@gm:local: !ficha Hans umbral sí\n@gm:local: !ficha Hans umbral no\n@ana:local: !siguiente\n"
             "@gm:local: !siguiente\n@gm:local: !ficha McAvoy umbral si\n@gm:local: !curar McAvoy\n"
             "@ana:local: !siguiente\n@gm:local: !siguiente\n@ana:local: !siguiente\n@gm:local: !siguiente\n", table)
    assert not any("mbral" in text for n in range(TURN + 2, TURN + 12) for text in t.texts(n))
    assert not sheet(table, "Hans").get("umbral") and not sheet(table, "McAvoy").get("umbral")


def test_item_18_a_dying_character_does_not_fight_back() -> None:
    """Issue 31 item 18: one the GM marked dying cannot act (the threshold is what they hold out «tras llegar a
    los 0 puntos de vida»): a blow against them is no fight, only the attacker rolls (three dice)."""
    table = sombra_table((2, 3, 4))
    t = play(CAST + "@gm:local: !ficha Hans umbral sí pelea 10\n@gm:local: !ficha McAvoy pelea 12\n"
             "@ana:local: !ataque Hans pelea\n", table)
    assert "Gana McAvoy" in " ".join(t.texts(TURN + 2)) and "Hans pelea" not in " ".join(t.texts(TURN + 2))


def test_item_18_the_rule_card_says_the_gm_starts_the_threshold() -> None:
    """Issue 31 item 18: the healing card no longer says a serious wound starts the count."""
    cards = tomllib.loads(Path("systems/sombra/cards.toml").read_text(encoding="utf-8"))["card"]
    text = next(c["text"] for c in cards if c["id"] == "sombra-curacion")
    assert "umbral sí" in text and "herida grave deja" not in text
    wounds = next(c["text"] for c in cards if c["id"] == "sombra-heridas")
    assert "inconsciente tantas horas como daño" in wounds


# --- item 19: aiming costs the turn -------------------------------------------------------------

def test_item_19_a_shot_aimed_without_a_turn_spent_aiming_is_refused_with_a_hint() -> None:
    """Issue 31 item 19. 004, Fusil: «Se pueden obtener beneficios por apuntar (un turno y aumentar un -5 el
    modificador)»: the -5 is bought with a turn."""
    assert_refused(CAST, "@ana:local: !ataque Hans apuntando", "!apuntar", system="sombra")


def test_item_19_aiming_spends_the_turn_and_the_next_turns_first_shot_gets_minus_5() -> None:
    """Issue 31 item 19: `!apuntar cabeza` spends McAvoy's turn (no shot); in his next turn the first shot
    carries -5 (and +2 for the head, 004: «Para apuntar a una determinada localización, tiraremos con un +2
    de penalizador»), the second shot only its +5."""
    table = sombra_table((9, 10, 2, 3, 4, 5, 6, 6, 7))
    t = play(CAST + "@ana:local: !apuntar cabeza\n@ana:local: !ataque Hans\n@ana:local: !siguiente\n"
             "@gm:local: !ataque McAvoy\n@gm:local: !siguiente\n@ana:local: !ataque Hans\n"
             "@ana:local: !ataque Hans\n", table)
    assert "McAvoy apunta a la cabeza" in t.text(TURN)
    assert "gasta este turno apuntando" in t.text(TURN + 1)
    # Hans, Fusil 13: 9+10+2 = 21 > 13, a miss. McAvoy, Fusil 17: 3+4+5 = 12 -5 +2 = 9 <= 17, at the head
    # whatever the middle die says; his second shot: 6+6+7 = 19 +5 = 24 > 17, without the -5.
    first = t.texts(TURN + 5)[0]
    assert "[3, 4, 5] -5 apuntando +2 apuntado → éxito medio" in first and "Cabeza" in first
    second = t.texts(TURN + 6)[0]
    assert "+5 2.º disparo" in second and "apuntando" not in second


def test_item_19_the_aim_is_lost_when_the_next_turn_passes_without_a_shot() -> None:
    """Issue 31 item 19: the -5 belongs to the next turn's first shot; a turn later it is gone."""
    t = play(CAST + "@ana:local: !apuntar\n@ana:local: !siguiente\n@gm:local: !siguiente\n"
             "@ana:local: !siguiente\n@gm:local: !siguiente\n@ana:local: !ataque Hans apuntando\n", system="sombra")
    assert "!apuntar" in t.text(TURN + 5)


def test_item_19_aiming_after_shooting_is_refused() -> None:
    """Issue 31 item 19: aiming takes the whole turn; one who already shot may not aim in it."""
    table = sombra_table((9, 9, 9))
    t = play(CAST + "@ana:local: !ataque Hans\n@ana:local: !apuntar\n", table)
    assert "ya ha actuado" in t.text(TURN + 1)


# --- item 20: the skills the document names ------------------------------------------------------

BLADES = """@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Hans
@gm:local: !ficha Hans vel 6 agi 5 res 4 pelea 12 esquivar 14 coo 5 fue 5 arma I
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 fue 6 {skills}
@gm:local: !combate
@gm:local: !iniciativa
"""


def test_item_20_armas_blancas_and_bayoneta_are_sheet_fields_and_roll_names() -> None:
    """Issue 31 item 20. 004: «se usa con la habilidad de "armas blancas"», «deberéis tirar por la habilidad
    de bayoneta», «Lucha desarmado», «pilotar barcas»: each a field of the sheet and a roll's name."""
    table = sombra_table((1, 2, 3, 2, 3, 4, 3, 4, 5))
    t = play("@gm:local: !pj McAvoy @ana:local\n"
             "@ana:local: !ficha McAvoy armas blancas 12 bayoneta 14 lucha desarmado 11 pilotar barcas 9\n"
             "@ana:local: !ficha McAvoy\n@ana:local: !tiro armas blancas\n@ana:local: !tiro bayoneta\n"
             "@ana:local: !tiro lucha desarmado\n", table)
    shown = t.text(3)
    assert "Armas blancas 12" in shown and "Bayoneta 14" in shown and "Pelea 11" in shown and "Pilotar 9" in shown
    assert "Armas blancas 12" in t.text(4) and "Bayoneta 14" in t.text(5) and "Pelea 11" in t.text(6)


def test_item_20_a_bayonet_attack_uses_the_bayonet_skill_at_plus_5() -> None:
    """Issue 31 item 20. 004: «para usar una bayoneta estando parado, deberéis tirar por la habilidad de
    bayoneta con un +5»."""
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(BLADES.format(skills="bayoneta 15 armas blancas 12 fusil 18") + "@ana:local: !ataque Hans bayoneta\n",
             table)
    attack = t.texts(7)[0]
    assert ", bayoneta 15" in attack and "+5 bayoneta sin carga" in attack and "calada" not in attack


def test_item_20_without_the_bayonet_skill_armas_blancas_or_fusil_at_minus_1() -> None:
    """Issue 31 item 20. 004: «Arma algo demodé que se usa con la habilidad de "armas blancas" (cuando se trata
    del cuchillo) o "fusil". Para usar una bayoneta acoplada a un fusil, se tira la habilidad con un
    penalizador de -1» (a penalty: one point harder, +1 to the roll-under roll); no +5, which is the bayonet
    skill's."""
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(BLADES.format(skills="armas blancas 12 fusil 18") + "@ana:local: !ataque Hans bayoneta\n", table)
    attack = t.texts(7)[0]
    assert ", armas blancas 12" in attack and "+1 bayoneta calada" in attack and "sin carga" not in attack
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(BLADES.format(skills="fusil 18") + "@ana:local: !ataque Hans bayoneta\n", table)
    attack = t.texts(7)[0]
    assert ", fusil 18" in attack and "+1 bayoneta calada" in attack and "sin carga" not in attack


def test_item_20_a_bayonet_attack_with_none_of_its_skills_names_the_bayonet() -> None:
    """Issue 31 item 20: with no bayonet, blade or rifle skill the refusal names `bayoneta`."""
    assert_refused(BLADES.format(skills="pelea 10"), "@ana:local: !ataque Hans bayoneta", "bayoneta",
                   system="sombra")


def test_item_20_an_npc_attack_without_disparo_uses_its_weapon_skill() -> None:
    """Issue 31 item 20: Hans has `fusil 13` and no `disparo` (004 names «Fusil/Subfusil», not a generic
    shooting skill): the GM's `!ataque McAvoy disparo` on his turn shoots with Fusil 13."""
    table = sombra_table((9, 9, 8))
    t = play(CAST + "@ana:local: !siguiente\n@gm:local: !ataque McAvoy disparo\n@gm:local: !siguiente\n", table)
    assert not t.texts(TURN + 1)  # a miss: held until the turn passes (issue 30)
    assert "Hans → McAvoy, fusil" in t.texts(TURN + 2)[0]
    assert "13" in t.gm_text(TURN + 1)
