"""Stormbringer: full sheets, named rolls, previous attacks and parries of the round."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.events import Event, Send
from bot.games.stormbringer import sheet
from tests.transcript import assert_refused, make_table, play

SHEET = "FUE 13, DES 17, PV 14, Arma cuerpo, Daño 1d8+1, Ataque 80, Parada 60, Esquiva 30, Ver 45, Espada 70"
CAST = f"""
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric {SHEET}
"""
FIRST = 3


def roll(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    (send,) = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a]
    return send


def test_sheet_round_trip() -> None:
    table = make_table(system="stormbringer")
    exported = play(CAST + "@ana:local: !ficha Elric", table).text(FIRST).split("\n")[1]
    assert exported == SHEET
    copy = make_table(system="stormbringer")
    play(f"@gm:local: !pj Elric @ana:local\n@gm:local: !ficha Elric {exported}", copy)
    assert copy.room(ROOM_ID).characters["elric"].sheet == table.room(ROOM_ID).characters["elric"].sheet


def test_named_rolls_and_contra_as_vs() -> None:
    t = play(CAST + "@ana:local: !tiro Ver\n@ana:local: !tiro Espada contra 50\n@ana:local: !tiro ver +10", system="stormbringer")
    assert roll(t, FIRST)["roll"]["target"] == 45 and "Ver 45%" in roll(t, FIRST)["text"]
    assert roll(t, FIRST + 2)["roll"]["target"] == 55
    assert_refused(CAST, "@ana:local: !tiro Otear", "otear", system="stormbringer")


def test_the_systems_own_syntax_keeps_working_for_a_player_with_a_sheet() -> None:
    t = play(CAST + "@ana:local: !tiro ataque 55 x2\n@ana:local: !tiro parada 40 segunda\n@ana:local: !tiro emboscada 60",
             system="stormbringer")
    attack = roll(t, FIRST)["roll"]
    assert (attack["kind"], attack["skill"], attack["target"]) == ("attack", 55, 35)
    assert roll(t, FIRST + 1)["roll"]["kind"] == "parry" and roll(t, FIRST + 2)["roll"]["skill"] == 60


def test_previous_attacks_and_parries_of_the_round_are_applied_and_reset() -> None:
    """Issue 22 changed this: one attack a round (and one more with a second weapon), so the -20% of an
    earlier attack now falls on the second weapon's attack; a named roll is that round's one attack."""
    t = play(CAST + """
@gm:local: !ficha Elric arma2 cuerpo
@gm:local: !combate
@gm:local: !turnos Elric, Orco
@ana:local: !tiro Espada
@ana:local: !ataque Orco dos armas
@ana:local: !tiro Espada
@ana:local: !tiro Espada sin estado
@gm:local: !siguiente
@gm:local: !siguiente
@ana:local: !tiro Espada
""", system="stormbringer", seed=5)
    assert roll(t, FIRST + 3)["applied"] == []
    second = roll(t, FIRST + 4)
    assert "Ataque 80 -20 (ataques previos) -25 (segunda arma) = 35%" in second["text"]
    assert "Elric ya atacó este asalto" in t.text(FIRST + 5)
    assert "Elric ya atacó este asalto" in t.text(FIRST + 6)
    assert roll(t, FIRST + 9)["applied"] == [], "a new round clears the count"


def test_a_stunned_combatant_may_not_roll() -> None:
    table = make_table(system="stormbringer")
    play(CAST + "@gm:local: !combate\n@gm:local: !turnos Elric, Orco", table)
    table.room(ROOM_ID).combat.data.setdefault("wounds", {})["elric"] = ["stunned"]  # what a critical hit leaves
    (answer,) = table.handle(Event(ROOM_ID, "@ana:local", "!tiro Ver", "$later"))
    assert isinstance(answer, Send) and "aturdido" in answer.message.body and answer.roll is None


def test_a_named_attack_or_parry_counts_towards_the_rounds_later_ones() -> None:
    table = make_table(system="stormbringer", seed=5)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Elric, Orco
@ana:local: !tiro Espada
@ana:local: !tiro Ataque
@ana:local: !tiro Parada
@ana:local: !tiro Parada
""", table)
    assert "Elric ya atacó este asalto" in t.text(FIRST + 3)   # issue 22: the named roll was the attack
    assert roll(t, FIRST + 4)["roll"]["target"] == 60 and roll(t, FIRST + 4)["applied"] == []
    assert roll(t, FIRST + 5)["roll"]["target"] == 40


def test_vs_or_contra_a_number_after_a_named_skill_overrides_the_sheet() -> None:
    t = play(CAST + "@ana:local: !tiro Espada vs 40\n@ana:local: !tiro Ver contra 25% +10", system="stormbringer")
    assert roll(t, FIRST)["roll"]["target"] == 40 and "Espada 40%" in roll(t, FIRST)["text"]
    assert roll(t, FIRST + 1)["roll"]["target"] == 35


def test_a_weapon_has_one_of_the_kinds_the_rules_know() -> None:
    for line in ("Tipo de arma espada", "Tipo de arma2 rifle"):
        assert_refused(CAST, f"@gm:local: !ficha Elric {line}", "no válido", system="stormbringer")
    table = make_table(system="stormbringer")
    t = play(CAST + "@gm:local: !ficha Elric Arma Arco largo, Tipo de arma arco, Arma2 Rodela, Tipo de arma2 escudo\n"
             "@ana:local: !ficha Elric", table)
    character = table.room(ROOM_ID).characters["elric"]
    assert (sheet.weapon_kind(character), sheet.weapon_kind(character, "arma2")) == ("bow", "shield")
    assert "Arma Arco largo, Tipo de arma arco" in t.text(FIRST + 1)


def private(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"]]


def test_a_players_later_change_of_armour_major_wound_or_damage_bonus_is_told_privately_to_the_gms() -> None:
    """002: "Si los P.V. perdidos son iguales o mayores que Herida Grave entonces recibe una herida
    grave": Grave, like the armour that absorbs damage, may be pasted, and a change reaches the GM."""
    table = make_table(system="stormbringer")
    t = play(CAST + "@gm:local: !ficha Elric Grave 7, Armadura 1d6, BF +1d4\n"
             "@ana:local: !ficha Elric Grave 20, Armadura 1d10+2, BF +1d4, Ver 50", table)
    (report,) = private(t, FIRST + 1)
    assert report["private_to"] == "@gm:local"
    assert "Grave 7 → 20" in report["text"] and "Armadura 1d6 → 1d10+2" in report["text"]
    assert "BF" not in report["text"] and "Ver" not in report["text"]
    assert table.room(ROOM_ID).characters["elric"].sheet["grave"] == 20


def test_a_players_change_of_hit_points_is_told_privately_to_the_gms() -> None:
    """Issue 30 item 5: PV is a starting number a player pastes for their character (it no longer stays
    the GM's alone); a change of the PV already on the sheet (the GM's 14) goes privately to the GMs."""
    table = make_table(system="stormbringer")
    t = play(CAST + "@ana:local: !ficha Elric PV 30, Ver 50", table)
    sheet = table.room(ROOM_ID).characters["elric"].sheet
    assert sheet["ver"] == 50 and sheet["pv"] == 30
    assert not any("solo el máster" in text for text in t.texts(FIRST))
    (report,) = private(t, FIRST)
    assert report["private_to"] == "@gm:local" and "PV 14 → 30" in report["text"], report
