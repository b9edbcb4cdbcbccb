"""Issue 30: during a fight a rule card (several phone lines) goes to the one who asked, not to the room;
outside a fight the table reads it."""

from __future__ import annotations

from tests.transcript import make_table, play

SETUP = """\
@gm:local: !pj Kira @bob:local
@gm:local: !pnj Orco
"""


def test_a_rule_asked_in_a_fight_is_answered_to_the_asker_alone() -> None:
    t = play(SETUP + "@gm:local: !combate\n@gm:local: !turnos Kira Orco\n@bob:local: !regla aturdido\n",
             make_table(system="savage"))
    sends = [a for a in t.for_line(5) if a["action"] == "send"]
    assert sends and all(a["private_to"] == "@bob:local" for a in sends), sends
    assert "Aturdido" in sends[0]["text"] or "aturdido" in sends[0]["text"].lower()


def test_a_rule_asked_outside_a_fight_is_read_by_the_table() -> None:
    t = play(SETUP + "@bob:local: !regla aturdido\n", make_table(system="savage"))
    sends = [a for a in t.for_line(3) if a["action"] == "send"]
    assert len(sends) == 1 and sends[0]["private_to"] is None
