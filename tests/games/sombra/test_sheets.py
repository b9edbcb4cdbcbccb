"""Sistema Sombra: full sheets, named rolls, wound effects by location."""

from __future__ import annotations

import importlib
import pkgutil

import bot.games.sombra as package
from bot.console import ROOM_ID
from bot.games.sombra import GAME, sheet
from tests.transcript import assert_refused, make_table, play

SHEET = "FUE 6, RES 5, AGI 5, VEL 6, PER 7, Pelea 12, Pistola 18, Sigilo 14, Arma II+2"
CAST = f"""
@gm:local: !pj Hans @ana:local
@gm:local: !ficha Hans {SHEET}
"""
FIRST = 3


def roll(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    (send,) = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a]
    return send


def test_sheet_round_trip() -> None:
    table = make_table(system="sombra")
    exported = play(CAST + "@ana:local: !ficha Hans", table).text(FIRST).split("\n")[1]
    assert exported == SHEET
    copy = make_table(system="sombra")
    play(f"@gm:local: !pj Hans @ana:local\n@gm:local: !ficha Hans {exported}", copy)
    assert copy.room(ROOM_ID).characters["hans"].sheet == table.room(ROOM_ID).characters["hans"].sheet


def test_named_rolls_and_wound_effects_applied_listed_and_healed() -> None:
    t = play(CAST + """
@ana:local: !tiro Pistola dificil
@gm:local: !daño Hans 7 pecho
@ana:local: !tiro Sigilo
@gm:local: !daño Hans 6 brazo
@ana:local: !tiro Pistola
@ana:local: !tiro Pistola sin estado
@gm:local: !curar Hans
@ana:local: !tiro Pistola
""", system="sombra")
    first = roll(t, FIRST)
    assert first["roll"]["target"] == 18 and first["roll"]["modifiers"] == [{"reason": "dificil", "value": 5}]
    assert roll(t, FIRST + 2)["applied"] == [{"reason": "heridas", "value": 3}]
    armed = roll(t, FIRST + 4)
    assert armed["applied"] == [{"reason": "heridas", "value": 3}, {"reason": "herida_brazo", "value": 3}]
    assert roll(t, FIRST + 5)["applied"] == [] and roll(t, FIRST + 7)["applied"] == []
    assert_refused(CAST, "@ana:local: !tiro Conducir", "conducir", system="sombra")


def test_a_plain_check_by_a_wounded_character_gets_the_wounds_and_other_rolls_do_not() -> None:
    t = play(CAST + """
@gm:local: !daño Hans 7 pecho
@ana:local: !tiro 3d10 vs 14
@ana:local: !tiro daño IV+4
@ana:local: !tiro 3d10 vs 14 sin estado
""", system="sombra")
    assert roll(t, FIRST + 1)["applied"] == [{"reason": "heridas", "value": 3}]
    assert roll(t, FIRST + 2)["applied"] == [] and roll(t, FIRST + 2)["roll"]["kind"] == "damage"
    assert roll(t, FIRST + 3)["applied"] == []


def test_a_helpless_character_may_not_roll() -> None:
    assert_refused(CAST + "@gm:local: !daño Hans 12 abdomen", "@ana:local: !tiro Pistola", "Hans", system="sombra")


def test_a_useless_arm_stops_what_needs_it_and_other_rolls_go_on() -> None:
    """«En heridas graves, el brazo queda inutilizado» (issue 22 item 20): that arm only. With the right
    arm useless a pistol goes to the left hand; with both useless no attack is rolled."""
    one = CAST + "@gm:local: !pnj Guardia\n@gm:local: !ficha Guardia RES 5\n@gm:local: !daño Hans 12 brazo"
    t = play(one + "\n@ana:local: !tiro Pistola", system="sombra")
    assert "brazo derecho inutilizado" in t.text(FIRST + 2) and roll(t, FIRST + 3)["applied"] == []
    serious = one + "\n@gm:local: !daño Hans 12 brazo izquierdo"
    assert_refused(serious, "@ana:local: !tiro Pistola", "brazos inutilizados", system="sombra")
    assert_refused(serious, "@ana:local: !tiro Pelea", "brazos inutilizados", system="sombra")
    fight = serious + "\n@gm:local: !combate\n@gm:local: !turnos Hans, Guardia"
    assert_refused(fight, "@ana:local: !ataque Guardia pistola", "brazos inutilizados", system="sombra")
    t = play(serious + "\n@ana:local: !tiro Sigilo", system="sombra")
    assert roll(t, FIRST + 4)["roll"]["target"] == 14


def test_bad_sheet_values_are_refused_on_entry_and_change_nothing() -> None:
    for line in ("Pistola 31", "Pelea -1", "Sigilo mucho", "Arma XX+2", "Arma pistola", "Tipo dragón"):
        assert_refused(CAST, f"@gm:local: !ficha Hans {line}", "no válido", system="sombra")
    table = make_table(system="sombra")
    play(CAST + "@gm:local: !ficha Hans Pistola 30, Pelea 0, Arma IV+1, Tipo persona", table)
    sheet = table.room(ROOM_ID).characters["hans"].sheet
    assert (sheet["pistola"], sheet["pelea"], sheet["arma"], sheet["tipo"]) == (30, 0, "IV+1", "persona")


def test_a_stunned_character_rolls_at_half_the_skill_and_the_reply_says_so() -> None:
    t = play(CAST + """
@gm:local: !pnj Guardia
@gm:local: !ficha Guardia RES 5
@gm:local: !combate
@gm:local: !turnos Hans, Guardia
@gm:local: !daño Hans 6 cabeza
@ana:local: !tiro Pistola
@ana:local: !tiro Pistola sin estado
""", system="sombra")
    assert "aturdido" in t.text(FIRST + 4)
    stunned = roll(t, FIRST + 5)
    assert stunned["applied"] == [{"reason": "heridas", "value": 3}, {"reason": "aturdimiento", "value": 9}]
    assert "aturdimiento (habilidad a la mitad) +9" in stunned["text"]
    assert roll(t, FIRST + 6)["applied"] == []


def test_a_secret_named_roll_keeps_its_automatic_modifiers_private() -> None:
    t = play(CAST + "@gm:local: !daño Hans 7 pecho\n@ana:local: !tiro Pistola oculta", system="sombra")
    (private,) = [a for a in t.for_line(FIRST + 1) if a["action"] == "send" and a["private_to"]]
    assert private["private_to"] == "@ana:local" and private["secret"] and private["roll"]["target"] == 18
    assert private["applied"] == [{"reason": "heridas", "value": 3}]
    public = [a for a in t.for_line(FIRST + 1) if a["action"] == "send" and not a["private_to"]]
    assert public and all("roll" not in a and "Pistola" not in a["text"] for a in public)


def private(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"]]


def test_tipo_is_the_gms_to_give() -> None:
    """004: "Dado de localización (central): Me dice en que parte del cuerpo o vehículo habéis
    impactado", and vehicles lose armour ("Pérdida de blindaje") where people take wounds: whether a
    character is a person, a vehicle or a boat decides how it is hit, and is the GM's call."""
    assert_refused(CAST, "@ana:local: !ficha Hans Tipo barco", "solo el máster", system="sombra")
    table = make_table(system="sombra")
    play(CAST + "@gm:local: !ficha Hans Tipo persona\n@ana:local: !ficha Hans Tipo persona, Sigilo 15", table)
    assert table.room(ROOM_ID).characters["hans"].sheet["sigilo"] == 15


def test_a_players_later_change_of_armour_or_flotation_is_told_privately_to_the_gms() -> None:
    table = make_table(system="sombra")
    t = play(CAST + "@gm:local: !ficha Hans Blindaje 2\n@ana:local: !ficha Hans Blindaje 30, Flotabilidad 3", table)
    (report,) = private(t, FIRST + 1)
    assert report["private_to"] == "@gm:local" and "Blindaje 2 → 30" in report["text"]
    assert "Flotabilidad" not in report["text"]


def test_one_skill_list_for_the_sheet_and_the_rolls() -> None:
    """The skills ``!ficha`` accepts (in its order) are the ones ``!tiro`` rolls: one list in the package."""
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        assert getattr(module, "SKILLS", sheet.SKILLS) is sheet.SKILLS, info.name
    skill_fields = [key for key, kind in GAME.sheet_fields.items() if getattr(kind, "valid", None) == "sombra.skill"]
    assert tuple(skill_fields) == sheet.SKILLS
