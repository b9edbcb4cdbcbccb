"""Issue 30 items 2 and 4 in the core: one notice in the room per lock (edited to add later offenders
where the transport edits, else told privately), refusals to the one who caused them, and the combat
tracker a transport that edits keeps (docs/protocol.md#1.8)."""

from __future__ import annotations

import random

from bot.console import ROOM_ID
from bot.core.events import Edit, Event, Send, Tracker
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import GM, play

CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Kurtz @bob:local
@gm:local: !pj Lerma @cai:local
@gm:local: -----
@ana:local: ¿puedo hablar?
@bob:local: yo también
@cai:local: /me se asoma
@ana:local: otra vez
"""


def editing_table(enforce: str = "redact") -> Table:
    """A table whose console edits its messages, as Matrix does (``Context.edits``)."""
    settings = TableSettings(RoomSettings(system="savage", gms=(GM,), enforcement=enforce))
    return Table(Store(), settings, random.Random(1), games=GAMES, editing=("console",))


def room_sends(t, number: int) -> list[dict]:
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"] is None]


def test_one_notice_per_lock_and_later_offenders_are_told_privately() -> None:
    t = play(CAST)
    assert all(t.redacted(n) for n in (5, 6, 7, 8))
    first = room_sends(t, 5)
    assert len(first) == 1 and first[0]["text"].startswith("McAvoy · 🤫"), t.for_line(5)
    for number, user in ((6, "@bob:local"), (7, "@cai:local")):
        assert room_sends(t, number) == [], t.for_line(number)
        private = [a for a in t.for_line(number) if a["action"] == "send"]
        assert [a["private_to"] for a in private] == [user] and "espera a la raya" in private[0]["text"]
    assert [a["action"] for a in t.for_line(8)] == ["redact"]  # told once already


def test_one_notice_per_lock_is_edited_to_name_later_offenders() -> None:
    table = editing_table()
    t = play(CAST, table=table)
    assert len(room_sends(t, 5)) == 1
    edits = [a for n in (6, 7) for a in t.for_line(n) if a["action"] == "edit"]
    assert [a["event"] for a in edits] == ["$5/lock", "$5/lock"]
    assert edits[0]["text"].startswith("McAvoy y Kurtz · 🤫") and "Vuestros mensajes" in edits[0]["text"]
    assert edits[1]["text"].startswith("McAvoy, Kurtz y Lerma · 🤫")
    assert not [a for n in (6, 7, 8) for a in t.for_line(n) if a["action"] == "send"]
    # A new lock gets its own notice.
    more = play(CAST + "@gm:local: -----\n@gm:local: -----\n@bob:local: hola", table=table)
    assert room_sends(more, 11) and room_sends(more, 11)[0]["text"].startswith("Kurtz · 🤫")


def test_refusals_go_to_the_one_who_caused_them() -> None:
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Orco
@ana:local: !combate
@ana:local: !tiri 2d6
@ana:local: !sale Nadie
@gm:local: !sale Nadie
@gm:local: !ficha Orco Pelea d8
@gm:local: !ficha Orco
@gm:local: ----- Nadie
""", system="savage")
    for number, user in ((3, "@ana:local"), (4, "@ana:local"), (5, "@ana:local"), (6, GM), (9, GM)):
        sends = [a for a in t.for_line(number) if a["action"] == "send"]
        assert sends and all(a["private_to"] == user for a in sends), (number, t.for_line(number))
    # A GM's !ficha of an NPC: the sheet privately to that GM, nothing in the room.
    for number in (7, 8):
        sends = [a for a in t.for_line(number) if a["action"] == "send"]
        assert sends and all(a["private_to"] == GM for a in sends), (number, sends)
        assert "envío en privado" not in " ".join(a["text"] for a in sends)


def test_a_turn_refusal_is_private() -> None:
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Kurtz @bob:local
@gm:local: !combate
@gm:local: !turnos McAvoy Kurtz
@bob:local: /me dispara
""")
    sends = [a for a in t.for_line(5) if a["action"] == "send"]
    assert t.redacted(5) and [a["private_to"] for a in sends] == ["@bob:local"], t.for_line(5)


def handle(table: Table, number: int, sender: str, text: str) -> list:
    return table.handle(Event(ROOM_ID, sender, text, f"$t{number}", ts=number), owner="console")


def test_the_tracker_is_shown_on_each_change_and_ended_with_the_fight() -> None:
    table = editing_table()
    lines = ["!pj McAvoy @ana:local", "!pnj Orco", "!combate", "!turnos McAvoy Orco"]
    actions = [handle(table, n, GM, line) for n, line in enumerate(lines)]
    assert not [a for batch in actions[:3] for a in batch if isinstance(a, Tracker)]
    shown = [a for a in actions[3] if isinstance(a, Tracker)]
    assert [a.step for a in shown] == ["show"] and shown[0].message is not None
    assert "▶ McAvoy" in shown[0].message.body and "Orco" in shown[0].message.body
    assert not [a for a in handle(table, 5, "@ana:local", "hola") if isinstance(a, Tracker)]  # nothing changed
    moved = [a for a in handle(table, 6, GM, "!siguiente") if isinstance(a, Tracker)]
    assert len(moved) == 1 and moved[0].message is not None and "▶ Orco" in moved[0].message.body
    # !estado points to it (no list again) while few messages came after its last change.
    status = handle(table, 7, "@ana:local", "!estado")
    assert [(a.step, a.answer) for a in status if isinstance(a, Tracker)] == [("point", "$t7")]
    assert not [a for a in status if isinstance(a, Send)]
    for n in range(8, 30):
        handle(table, n, "@ana:local", f"charla {n}")
    status = handle(table, 30, "@ana:local", "!estado")
    assert not [a for a in status if isinstance(a, Tracker)]
    assert [a for a in status if isinstance(a, Send) and "Ronda 1" in a.message.body]
    ended = [a for a in handle(table, 31, GM, "!combate fin") if isinstance(a, Tracker)]
    assert [a.step for a in ended] == ["end"]


def test_a_transport_that_does_not_edit_gets_no_tracker_nor_edit() -> None:
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !turnos McAvoy Orco
@ana:local: !estado
""")
    assert not [a for a in t.actions if a["action"] in ("tracker", "edit")]
    assert "Ronda 1" in t.text(5)


def test_edit_and_tracker_actions_survive_the_outbox() -> None:
    from bot.core.events import action_from_dict, action_to_dict
    from bot.core.render import Message

    for action in (Edit(ROOM_ID, "$5/lock", Message("a", "<b>a</b>"), ("@x:y",), "$6/0"),
                   Tracker(ROOM_ID, "show", Message("t", "t"), None, "$7/1"), Tracker(ROOM_ID, "end"),
                   Tracker(ROOM_ID, "point", answer="$9")):
        assert action_from_dict(action_to_dict(action)) == action
