"""Issue 30 (a quiet table, at most 0.8 room messages per command): ``!deshacer`` and ``!rehacer`` that
leave whose turn it is as it was are a ✅ on the command (the room read the step's answer right above),
and the GM who typed them reads the step's name privately; one that moves the turn, the round or the
combat is said in the room, where the table reads whose turn it now is."""

from __future__ import annotations

from tests.core.test_undo_steps import SETUP, _handled, _stored, _table
from tests.transcript import Transcript, play


def _room(t: Transcript, number: int) -> list[str]:
    return [a["text"] for a in t.messages(number) if a.get("private_to") is None]


def _line(table, line: str) -> tuple[Transcript, int]:
    number = _handled(table) + 1
    return play("# -\n" * (number - 1) + line, table=table), number


def test_an_undo_that_keeps_the_turn_is_a_reaction_and_the_gm_reads_the_step() -> None:
    table = _table()
    before = _stored(table)
    _line(table, "@gm:local: !daño Kira 12")
    t, n = _line(table, "@gm:local: !deshacer")
    assert _stored(table) == before
    assert [(a["action"], a.get("key")) for a in t.for_line(n) if a["action"] == "react"] == [("react", "✅")]
    assert not _room(t, n)   # nothing in the room
    private = [a for a in t.messages(n) if a.get("private_to") == "@gm:local"]
    assert [a["text"] for a in private] == ["↩️ Deshecho: !daño Kira 12. Ronda 1, turno de Voss."]
    t, n = _line(table, "@gm:local: !rehacer")
    assert ("react", "✅") in [(a["action"], a.get("key")) for a in t.for_line(n)] and not _room(t, n)
    assert [a["text"] for a in t.messages(n)] == ["↪️ Rehecho: !daño Kira 12. Ronda 1, turno de Voss."]
    assert t.messages(n)[0]["private_to"] == "@gm:local"


def test_an_undo_that_moves_the_turn_is_said_in_the_room() -> None:
    table = _table(SETUP + "@gm:local: !siguiente\n")
    t, n = _line(table, "@gm:local: !deshacer")
    assert _room(t, n) == ["↩️ Deshecho: !siguiente. Ronda 1, turno de Voss."]
    t, n = _line(table, "@gm:local: !rehacer")
    assert _room(t, n) == ["↪️ Rehecho: !siguiente. Ronda 1, turno de Kira."]
