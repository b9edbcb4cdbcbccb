"""Issue 29, item 2, in the core: GM status follows the room at once. ``!master quitar @x`` takes back a GM
``!master`` added (and says why it cannot for the others); ``!master`` alone lists the GMs and why; an
``admins`` event from the transport (a power-level change, ``-o``) ends a GM's power without a message
of theirs: the screen's check (``Table.is_gm``) and the GMs' private copies follow it."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.events import Event, Send
from tests.transcript import make_table, play

CAST = "@gm:local: !sistema savage\n@ana:local: !pj Lyra\n@gm:local: !pnj Orco\n@gm:local: !ficha Orco parada 137\n"


def test_master_quitar_takes_back_a_gm_added_with_master() -> None:
    table = make_table()
    t = play("""
@gm:local: !master @bob:local
@bob:local: !combate
@gm:local: !master quitar @bob:local
@bob:local: !combate
""", table=table)
    assert "Combate" in t.text(2)
    assert t.acked(3)
    assert t.text(4).startswith("⛔ Solo el máster")
    assert table.room(ROOM_ID).gms == [] and not table.is_gm(ROOM_ID, "@bob:local")


def test_master_quitar_says_why_it_cannot_for_the_others_and_changes_nothing() -> None:
    table = make_table()
    table.handle(Event(ROOM_ID, "@dee:local", "hola", "$dee", sender_is_admin=True))
    table.handle(Event(ROOM_ID, "", "", "$admins", kind="admins", admins=(("@dee:local", "power"),)))
    before = table.room(ROOM_ID).to_dict()
    t = play("""
@gm:local: !master quitar @gm:local
@gm:local: !master quitar @dee:local
@gm:local: !master quitar @eve:local
@ana:local: !master quitar @gm:local
@gm:local: !master quitar ana
""", table=table)
    assert "por la configuración" in t.text(1) and "no por !master" in t.text(1)
    assert "nivel de poder" in t.text(2) and "bájale el nivel de poder" in t.text(2)
    assert "@eve:local no es máster" in t.text(3)
    assert t.text(4).startswith("⛔ Solo el máster")
    assert "Uso: !master" in t.text(5)
    assert table.room(ROOM_ID).to_dict() == before


def test_master_alone_lists_the_gms_and_why_in_the_room() -> None:
    table = make_table()
    table.handle(Event(ROOM_ID, "", "", "$admins", kind="admins",
                       admins=(("@dee:local", "power"), ("@cre:local", "creator"))))
    t = play("""
@gm:local: !master @bob:local
@ana:local: !master
""", table=table)
    listed = t.for_line(2)
    assert len(listed) == 1 and listed[0]["private_to"] is None
    text = listed[0]["text"]
    assert "@gm:local: por la configuración" in text and "@bob:local: añadido con !master" in text
    assert "@dee:local: por su nivel de poder" in text and "@cre:local: por ser quien creó la sala" in text
    assert "@ana:local" not in text


def test_an_admins_event_ends_a_power_gm_without_a_message_of_theirs() -> None:
    table = make_table(gms=())
    for number, line in enumerate(CAST.replace("@gm:local", "@cre:local").splitlines()):
        sender, text = line.split(": ", 1)
        table.handle(Event(ROOM_ID, sender, text, f"$cast{number}", sender_is_admin=sender == "@cre:local"))
    table.handle(Event(ROOM_ID, "@bea:local", "!pantalla", "$bea", sender_is_admin=True))
    table.handle(Event(ROOM_ID, "", "", "$admins", kind="admins", admins=(("@cre:local", "creator"),
                                                                           ("@bea:local", "power"))))
    assert table.is_gm(ROOM_ID, "@bea:local")
    table.handle(Event(ROOM_ID, "@cre:local", "", "$lowered", kind="admins", admins=(("@cre:local", "creator"),)))
    assert not table.is_gm(ROOM_ID, "@bea:local") and table.is_gm(ROOM_ID, "@cre:local")
    actions = table.handle(Event(ROOM_ID, "@ana:local", "!tiro Pelear contra Orco", "$roll"))
    copies = [a for a in actions if isinstance(a, Send) and a.gm_copy]
    assert copies and all("@bea:local" not in (a.private_to, *a.private_also) for a in copies)
    assert all(a.private_to == "@cre:local" for a in copies)


def test_an_admins_event_is_nobodys_writing() -> None:
    table = make_table()
    play("@gm:local: -----", table=table)
    actions = table.handle(Event(ROOM_ID, "@ana:local", "", "$admins", kind="admins", admins=()))
    assert actions == [] and table.room(ROOM_ID).lock is not None
