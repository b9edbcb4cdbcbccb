"""El Reino de la Sombra: full sheets, named rolls, wound-state penalties, stun refusals."""

from __future__ import annotations

import random

from bot.console import ROOM_ID
from systems.reino.resolver import SYSTEM
from tests.transcript import assert_refused, make_table, play

SHEET = "Fuerza 3, Destreza 2, Percepción 4, Sigilo 5, Defensa 14, Esquiva 2, RD 1, PR 20, Umbral 8, PA 2"
CAST = f"""
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana {SHEET}
@gm:local: !pnj Orco
@gm:local: !ficha Orco Defensa 13, PR 10
"""
FIRST = 5


def roll(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    (send,) = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a]
    return send


def gm_copy(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    """The whole roll the GM gets of a player's roll against an NPC."""
    (send,) = [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"] == "@gm:local"]
    return send


def test_sheet_round_trip_and_short_names() -> None:
    table = make_table(system="reino")
    t = play(CAST + "@ana:local: !ficha Ana\n@gm:local: !ficha Ana sab 1 con 2", table)
    exported = t.text(FIRST).split("\n")[1]
    assert exported == SHEET
    copy = make_table(system="reino")
    play(f"@gm:local: !pj Ana @ana:local\n@gm:local: !ficha Ana {exported}", copy)
    sheet = table.room(ROOM_ID).characters["ana"].sheet
    assert (sheet["sabiduria"], sheet["constitucion"]) == (1, 2)
    assert {k: v for k, v in sheet.items() if k not in ("sabiduria", "constitucion")} == \
        copy.room(ROOM_ID).characters["ana"].sheet


def test_named_rolls_with_and_without_the_skill_and_against_a_defense() -> None:
    t = play(CAST + """
@ana:local: !tiro Sigilo vs 15
@ana:local: !tiro Acrobacias
@ana:local: !tiro Medicina
@ana:local: !tiro Atletismo contra Orco
""", system="reino")
    stealth = roll(t, FIRST)["roll"]
    assert (stealth["modifier"], stealth["dc"]) == (5, 15) and stealth["modifiers"] == [{"reason": "sigilo", "value": 5}]
    acrobatics = roll(t, FIRST + 1)["roll"]
    assert acrobatics["modifiers"] == [{"reason": "destreza", "value": 2}], "a missing skill uses its attribute"
    assert roll(t, FIRST + 2)["roll"]["modifier"] == 0
    assert gm_copy(t, FIRST + 3)["roll"]["dc"] == 13


def test_wound_states_are_applied_listed_and_gone_when_healed() -> None:
    t = play(CAST + """
@gm:local: !herida Ana malherido
@ana:local: !tiro Sigilo vs 15
@ana:local: !tiro d20+3 vs 12
@ana:local: !tiro Sigilo vs 15 sin estado
@gm:local: !herida Ana incapacitado
@ana:local: !tiro prueba +1
@gm:local: !sana Ana incapacitado
@gm:local: !sana Ana malherido
@ana:local: !tiro Sigilo vs 15
""", system="reino")
    hurt = roll(t, FIRST + 1)
    assert hurt["applied"] == [{"reason": "malherido", "value": -2}] and hurt["roll"]["modifier"] == 3
    assert {"reason": "malherido", "value": -2} in hurt["roll"]["modifiers"] and "malherido -2" in hurt["text"]
    assert roll(t, FIRST + 2)["roll"]["modifier"] == 1
    assert roll(t, FIRST + 3)["applied"] == [] and roll(t, FIRST + 3)["roll"]["modifier"] == 5
    assert roll(t, FIRST + 5)["applied"] == [{"reason": "incapacitado", "value": -5}]
    assert roll(t, FIRST + 8)["applied"] == [] and roll(t, FIRST + 8)["roll"]["modifier"] == 5


def test_a_stunned_character_takes_no_standard_action_and_the_dying_roll_nothing() -> None:
    stunned = CAST + "@gm:local: !combate\n@gm:local: !turnos Ana, Orco\n@gm:local: !herida Ana aturdido"
    assert_refused(stunned, "@ana:local: !tiro Sigilo", "Aturdido", system="reino")
    assert_refused(CAST + "@gm:local: !herida Ana moribundo", "@ana:local: !tiro Sigilo", "Ana", system="reino")


def test_reroll_is_the_action_point_of_the_last_failed_roll() -> None:
    assert_refused(CAST, "@ana:local: !repetir", "Ana no tiene una tirada fallida de este turno que salvar con un "
                   "Punto de Acción", system="reino")


def test_contra_an_unknown_name_is_refused_not_rolled_against_a_default() -> None:
    assert_refused(CAST, "@ana:local: !tiro Sigilo contra Trasgo", "ningún personaje llamado «Trasgo»", system="reino")
    t = play(CAST + "@ana:local: !tiro Sigilo contra Orco", system="reino")
    assert gm_copy(t, FIRST)["roll"]["dc"] == 13


def test_the_system_names_the_tables_modifiers_in_a_new_outcome() -> None:
    plain = SYSTEM.roll("prueba +3 vs 12", random.Random(4))
    named = SYSTEM.roll_with("prueba +3 vs 12", random.Random(4), (("fuerza", 5), ("malherido", -2)))
    assert named.as_json()["modifiers"] == [{"reason": "fuerza", "value": 5}, {"reason": "malherido", "value": -2}]
    assert plain.as_json()["modifiers"] == [{"reason": "modificador", "value": 3}]
    assert named.as_json()["total"] == plain.as_json()["total"]


def test_a_players_roll_contra_an_npc_does_not_show_its_defense() -> None:
    t = play(CAST + "@ana:local: !tiro Sigilo contra Orco", system="reino")
    (public,) = [a for a in t.for_line(FIRST) if a["action"] == "send" and a["private_to"] is None]
    assert "dc" not in public["roll"] and "margin" not in public["roll"] and "13" not in public["text"]
    assert public["text"].startswith("Ana · Sigilo +5 contra Orco · 🎲")


def private(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"]]


def test_secuaz_is_the_gms_to_give() -> None:
    """003: "A no ser que el Director de Juego lo especifique, los enemigos en combate que encontrarán
    los personajes siguen la regla de Secuaces": who is a minion is the GM's word, not a player's."""
    assert_refused(CAST, "@ana:local: !ficha Ana Secuaz si", "solo el máster", system="reino")
    table = make_table(system="reino")
    t = play(CAST + "@ana:local: !ficha Ana Sigilo 7, Secuaz si\n@gm:local: !ficha Orco Secuaz si", table)
    sheets = table.room(ROOM_ID).characters
    assert sheets["ana"].sheet["sigilo"] == 7 and "secuaz" not in sheets["ana"].sheet
    assert "Secuaz" in t.texts(FIRST)[-1] and sheets["orco"].sheet["secuaz"] == "si"


def test_a_players_later_change_of_defense_dr_or_threshold_is_told_privately_to_the_gms() -> None:
    """003: "La Clase de Dificultad que debe superar una tirada de Ataque para impactar es un valor
    denominado Defensa": the numbers others roll against may be pasted, but the GM hears of a change."""
    table = make_table(system="reino")
    t = play(CAST + "@ana:local: !ficha Ana Defensa 40, RD 30, Umbral 8, PR máx 31", table)
    (report,) = private(t, FIRST)
    assert report["private_to"] == "@gm:local"
    assert "Defensa 14 → 40" in report["text"] and "RD 1 → 30" in report["text"]
    assert "Umbral" not in report["text"] and "PR máx" not in report["text"], "unchanged or set for the first time"
    assert table.room(ROOM_ID).characters["ana"].sheet["defensa"] == 40
    first = play("@gm:local: !pj Ana @ana:local\n@ana:local: !ficha Ana Defensa 15, RD 2, Umbral 9", system="reino")
    assert private(first, 2) == []
