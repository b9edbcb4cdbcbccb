"""Issue 30: a command whose answer only confirms bookkeeping the table need not read is answered with
a ✅ reaction on it, no message in the room (nor a private one); what a player must read stays a message."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.events import Event, Send
from tests.transcript import Transcript, make_table, play

CAST = """
@gm:local: !pj Kira @ana:local
@gm:local: !pj Bruno @bob:local
"""


def acknowledged(t: Transcript, number: int) -> bool:
    """Line ``number`` got a ✅ reaction and no message at all."""
    return t.acked(number)


def test_claiming_a_character_is_a_reaction() -> None:
    table = make_table()
    t = play(CAST + "@carla:local: !pj Carla", table=table)
    assert acknowledged(t, 1) and acknowledged(t, 2) and acknowledged(t, 3)
    room = table.room(ROOM_ID)
    assert room.find_character("Kira").owner == "@ana:local"
    assert room.find_character("Carla").owner == "@carla:local"


def test_setting_sheet_fields_is_a_reaction_and_showing_the_sheet_is_a_message() -> None:
    table = make_table()
    t = play(CAST + "@ana:local: !ficha Kira iniciativa 3\n@ana:local: !ficha Kira", table=table)
    assert acknowledged(t, 3)
    assert table.room(ROOM_ID).find_character("Kira").sheet["iniciativa"] == 3
    assert "iniciativa 3" in t.text(4)


def test_a_gms_npc_sheet_set_is_a_reaction_with_nothing_in_the_room_and_the_sheet_to_the_gms() -> None:
    table = make_table(system="savage")
    t = play("@gm:local: !pnj Orco\n@gm:local: !ficha Orco Parada 6, Dureza 7", table=table)
    react, private = t.for_line(2)
    assert (react["action"], react["key"]) == ("react", "✅")
    assert private["private_to"] == "@gm:local" and "Parada 6" in private["text"] and "Dureza 7" in private["text"]
    assert table.room(ROOM_ID).find_character("Orco").sheet["parada"] == 6


def test_a_sheet_set_with_a_rejected_field_is_a_message_that_says_so() -> None:
    t = play(CAST + "@ana:local: !ficha Kira iniciativa 3 iniciativa x")
    assert t.kinds(3) and "react" not in t.kinds(3)


def test_a_players_change_of_a_derived_number_still_reaches_the_gm() -> None:
    t = play(CAST + "@ana:local: !ficha Kira Agilidad d8, Parada 5\n@ana:local: !ficha Kira Parada 7",
             system="savage")
    assert acknowledged(t, 3)
    (report,) = [a for a in t.for_line(4) if a["action"] == "send"]
    assert report["private_to"] == "@gm:local" and "Parada" in report["text"]
    assert ("react", "✅") in [(a["action"], a.get("key")) for a in t.for_line(4)]


def test_bookkeeping_commands_of_the_gm_are_reactions() -> None:
    table = make_table()
    t = play(CAST + "@gm:local: !permite Kira\n@gm:local: !modo warn\n@gm:local: !master @dani:local\n"
             "@ana:local: !macro golpe = 1d20+3\n@ana:local: !macro golpe borrar\n@gm:local: !sistema savage",
             table=table)
    for number in range(3, 9):
        assert acknowledged(t, number), (number, t.for_line(number))
    room = table.room(ROOM_ID)
    assert (room.enforcement, room.system) == ("warn", "savage")
    assert "@dani:local" in room.gms


def test_removing_a_gm_is_a_reaction_unless_they_stay_one_by_the_config() -> None:
    t = play("@gm:local: !master @gm2:local\n@gm:local: !master quitar @gm2:local\n"
             "@gm:local: !master @gm:local\n@gm:local: !master quitar @gm:local")
    assert acknowledged(t, 1) and acknowledged(t, 2) and acknowledged(t, 3)
    assert "Sigue siendo máster" in t.text(4)


def test_leaving_the_order_is_a_reaction_and_on_ones_turn_the_next_turn_is_announced() -> None:
    table = make_table()
    t = play(CAST + "@gm:local: !combate\n@gm:local: !turnos Kira, Bruno, Orco\n@gm:local: !sale Orco\n"
             "@gm:local: !sale Kira", table=table)
    assert acknowledged(t, 5)
    assert ("react", "✅") in [(a["action"], a.get("key")) for a in t.for_line(6)]
    assert "Bruno" in t.text(6)
    assert table.room(ROOM_ID).combat.order == ["Bruno"]


def test_savage_bennies_given_are_a_reaction_and_asked_are_a_message() -> None:
    table = make_table(system="savage")
    t = play(CAST + "@gm:local: !beni Kira +2\n@ana:local: !beni", table=table)
    assert acknowledged(t, 3)
    assert t.text(4) == "🪙 Kira tiene 5 benis."  # a player's new Wild Card starts with 3 (issue 30), +2


def test_a_control_of_the_gms_screen_has_no_message_to_react_to_and_posts_the_message() -> None:
    table = make_table()
    play(CAST, table=table)
    answers = table.handle(Event(ROOM_ID, "@gm:local", "!permite Kira", "$screen1", in_room=False))
    assert [type(a) for a in answers] == [Send] and "Kira" in answers[0].message.body
    answers = table.handle(Event(ROOM_ID, "@gm:local", "!ficha Kira iniciativa 2", "$screen2", in_room=False))
    assert [type(a) for a in answers] == [Send] and "iniciativa 2" in answers[0].message.body
