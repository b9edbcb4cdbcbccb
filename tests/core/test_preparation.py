"""Issue 30 item 6: preparation in a few lines. ``!pnj Orco x3 <stat block>`` gives every copy that
sheet (a stat block never becomes part of a name), and a ``!ficha`` of a free name makes the character:
a player's own when they have none, an NPC when a GM's. Item 5's sheet part: a player pastes the starting
numbers of their own new character, and a later change of one is told to the GMs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.transcript import ROOM_ID, make_table, play

ROOT = Path(__file__).resolve().parents[2]


def room(table):  # type: ignore[no-untyped-def]
    return table.room(ROOM_ID)


def private(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"]]


def public(t, number: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [a["text"] for a in t.for_line(number) if a["action"] == "send" and not a["private_to"]]


def test_every_copy_gets_the_stat_block_and_no_name_holds_it() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pnj Orco x3 Pelear d8, Parada 6, Dureza 7", table)
    assert room(table).character_names() == ["Orco 1", "Orco 2", "Orco 3"]
    for n in (1, 2, 3):
        sheet = room(table).characters[f"orco {n}"].sheet
        assert (sheet["pelear"], sheet["parada"], sheet["dureza"]) == ("d8", 6, 7), sheet
    answer = " ".join(public(t, 1))
    assert "Orco 1, Orco 2, Orco 3" in answer and "Parada" not in answer and "d8" not in answer


def test_the_stat_block_of_the_issue_makes_no_name_of_its_words() -> None:
    table = make_table(system="savage")
    play("@gm:local: !pnj Orco x2 Pelear d8, Parada 6", table)
    assert room(table).character_names() == ["Orco 1", "Orco 2"]
    assert room(table).characters["orco 2"].sheet == {"pelear": "d8", "parada": 6}


def test_one_npc_with_a_stat_block_in_pairs_and_the_games_words() -> None:
    table = make_table(system="savage")
    play("@gm:local: !pnj Jefe Orco comodín pelear d10 parada 7", table)
    assert room(table).character_names() == ["Jefe Orco"]
    assert room(table).characters["jefe orco"].sheet == {"comodin": "si", "pelear": "d10", "parada": 7}


def test_a_stat_block_with_only_unknown_fields_is_refused_and_creates_nothing() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pnj Orco x2 Pelera d8, Parda 6", table)
    assert room(table).characters == {}
    assert "Pelear" in " ".join(t.texts(1))


def test_a_player_without_a_character_gets_the_free_name_of_the_readmes_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"`(!ficha Kira [^`]*,[^`]*)`", readme)
    assert example is not None
    table = make_table(system="savage")
    t = play(f"@bob:local: {example[1]}", table)
    kira = room(table).characters["kira"]
    assert kira.owner == "@bob:local" and not kira.npc
    assert (kira.sheet["agilidad"], kira.sheet["disparar"], kira.sheet["parada"]) == ("d8", "d8", 5)
    assert t.acked(1), t.for_line(1)


def test_a_player_with_a_character_is_told_to_use_pj() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pj Lyra @bob:local\n@bob:local: !ficha Kira Agilidad d8, Parada 5", table)
    assert "!pj" in t.text(2)
    assert room(table).character_names() == ["Lyra"]


def test_a_gms_sheet_of_a_free_name_makes_an_npc() -> None:
    table = make_table(system="savage")
    play("@gm:local: !ficha Voss el Rojo Pelear d10, Parada 7, Dureza 9", table)
    voss = room(table).characters["voss el rojo"]
    assert voss.npc and voss.owner is None
    assert (voss.sheet["pelear"], voss.sheet["parada"], voss.sheet["dureza"]) == ("d10", 7, 9)


def test_a_free_name_with_no_field_is_still_an_unknown_character() -> None:
    table = make_table(system="savage")
    t = play("@bob:local: !ficha Kira", table)
    assert "Kira" in t.text(1) and room(table).characters == {}


# -- item 5: starting numbers -----------------------------------------------------------------------

@pytest.mark.parametrize("system, paste, key, value", [
    ("savage", "Agilidad d8, Bennies 3", "bennies", 3),
    ("reino", "Fuerza 3, PR 12, PA 2", "pr", 12),
    ("stormbringer", "FUE 12, PV 14", "pv", 14),
])
def test_a_player_pastes_the_starting_numbers_of_a_new_character(system: str, paste: str, key: str,
                                                                   value: int) -> None:
    table = make_table(system=system)
    t = play(f"@gm:local: !pj Kira @bob:local\n@bob:local: !ficha Kira {paste}", table)
    assert room(table).characters["kira"].sheet[key] == value
    assert not any("solo el máster" in text for text in public(t, 2)), public(t, 2)
    assert private(t, 2) == [], "a first paste is no change to report"


def test_a_players_later_change_of_a_starting_number_is_told_to_the_gms() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pj Kira @bob:local\n@bob:local: !ficha Kira Agilidad d8, Bennies 3\n"
             "@bob:local: !ficha Kira Bennies 5", table)
    assert room(table).characters["kira"].sheet["bennies"] == 5
    (report,) = private(t, 3)
    assert report["private_to"] == "@gm:local" and "Bennies 3 → 5" in report["text"]


def test_wounds_and_conditions_stay_the_gms() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pj Kira @bob:local\n@bob:local: !ficha Kira Heridas 2", table)
    assert "solo el máster" in t.text(2)
    assert "heridas" not in room(table).characters["kira"].sheet
