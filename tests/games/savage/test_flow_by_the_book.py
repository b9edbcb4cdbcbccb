"""Savage Worlds by the book (issue 21, first half): Extras, the soak at its moment, incapacitation after
the soak, one recovery roll, Nervios de acero, Healing, hold and the joker, soak rerolls, surprise, a
fight with no enemies left and the messages. Each docstring quotes the sentence of ``000``/``001`` it
implements."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.table import Table
from tests.scripted import FaceRng
from tests.transcript import GM, Transcript, make_table, play

BOB = "@bob:local"
CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 parada 6 bennies 3 vigor d8 espiritu d8 atletismo d6 notar d8 sanar d6
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha McAvoy dureza 6 parada 5 bennies 2 vigor d6 espiritu d6 atletismo d8 notar d4
"""
FIRST = 5
"""The first line after CAST."""


def sheet(table: Table, name: str) -> dict:
    return table.room(ROOM_ID).find_character(name).sheet


def roll_of(t: Transcript, number: int) -> dict:
    """The roll object of the first message answering ``number`` that shows one, as the GM sees it."""
    shown = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a]
    return (next((a for a in shown if a["private_to"] == GM), None) or shown[0])["roll"]


def rolls_of(t: Transcript, number: int) -> list[dict]:
    """Every roll object answering ``number`` (the GM's copy when there is one)."""
    sent = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a]
    private = [a["roll"] for a in sent if a["private_to"] == GM]
    return private or [a["roll"] for a in sent]


def scripted(table: Table, *faces: tuple[int, int]) -> FaceRng:
    table.rng = FaceRng(faces)  # type: ignore[assignment]
    return table.rng  # type: ignore[return-value]


def reasons(made: dict) -> dict[str, int]:
    return {m["reason"]: m["value"] for m in made["modifiers"]}


# Item 1: Extras are Extras.

def test_npcs_the_gm_creates_are_extras_unless_made_wild_cards() -> None:
    """000: «Cada grupo distinto de Extras bajo el control del DJ ... comparte una carta de acción»; a GM's
    NPC is an Extra (no wild die) unless ``!pnj NOMBRE comodín`` or ``Comodín sí`` makes it a Wild Card."""
    table = make_table(system="savage", seed=3)
    t = play(CAST + """
@gm:local: !pnj Orco
@gm:local: !pnj Capitán comodín
@gm:local: !ficha Orco pelear d6
@gm:local: !ficha Capitán pelear d6
@gm:local: !combate
@gm:local: !turnos Orco, Capitán, Lobo, Brujo
@gm:local: !ficha Brujo comodín sí pelear d6
@gm:local: !tiro Orco Pelear
@gm:local: !tiro Capitán Pelear
@gm:local: !tiro Lobo Pelear
@gm:local: !tiro Brujo Pelear
""", table)
    assert "capitan" in table.room(ROOM_ID).characters and "capitan comodin" not in table.room(ROOM_ID).characters
    assert "Capitán" in t.text(FIRST + 1)
    assert roll_of(t, FIRST + 7)["wild"] is None, "!pnj makes an Extra"
    assert roll_of(t, FIRST + 8)["wild"] is not None, "!pnj NOMBRE comodín makes a Wild Card"
    assert roll_of(t, FIRST + 9)["wild"] is None, "!turnos makes an Extra"
    assert roll_of(t, FIRST + 10)["wild"] is not None, "Comodín sí on the sheet"


def test_a_wounded_extra_is_out_of_the_fight() -> None:
    """000: «Los Extras heridos quedan fuera de juego. Están muertos o incapacitados, ya se determinará,
    pero están fuera de combate.»"""
    table = make_table(system="savage", seed=3)
    t = play(CAST + """
@gm:local: !pnj Orco
@gm:local: !ficha Orco dureza 5
@gm:local: !combate
@gm:local: !turnos Orco, Kira
@gm:local: !daño Orco 9
@gm:local: !estado
""", table)
    assert "Orco: fuera de combate" in t.text(FIRST + 4)
    assert sheet(table, "Orco").get("fuera") == 1 and sheet(table, "Orco").get("heridas", 0) == 0
    assert "Orco [fuera de combate]" in t.text(FIRST + 5)


def test_the_gm_sets_any_state_with_ficha() -> None:
    """000: «Los personajes incapacitados ... no pueden realizar acciones»: the GM may still put any
    state on a sheet by hand."""
    table = make_table(system="savage")
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Kira, McAvoy
@gm:local: !ficha Kira incapacitado 1 desangrando 1
@gm:local: !ficha McAvoy aturdido 1
@gm:local: !estado
""", table)
    assert (sheet(table, "Kira")["incapacitado"], sheet(table, "Kira")["desangrando"]) == (1, 1)
    assert sheet(table, "McAvoy")["aturdido"] == 1
    board = t.text(FIRST + 4)
    assert "incapacitado" in board and "desangrándose" in board and "aturdido" in board


def test_an_ally_a_player_controls_acts_on_that_players_card() -> None:
    """000: «Los aliados que estén bajo el control de su jugador actuarán en esta misma carta de acción.»"""
    table = make_table(system="savage", seed=4)
    t = play(CAST + """
@gm:local: !pnj Perro grupo Kira
@gm:local: !combate
@gm:local: !iniciativa Kira, Perro, McAvoy
""", table)
    state = table.room(ROOM_ID).combat.data["deck"]["in_play"]
    assert set(state) == {"Kira", "McAvoy"}
    deal = t.texts(FIRST + 2)[0]
    card = state["Kira"]
    assert f"Kira {card}" in deal and f"Perro {card}" in deal
