"""Issue 30 (a quiet table): the turn line is one phone line that pings the player, and a turn passing
to a GM-run combatant with nothing else to say is a ✅ on the command, not a room message."""

from __future__ import annotations

import textwrap

import pytest

from tests.transcript import make_table, play

PHONE_COLUMNS = 38

FIGHT = """
@gm:local: !pj Rackhir @carla:local
@gm:local: !pj Elric @ana:local
@gm:local: !combate
@gm:local: !turnos Elric, Orco, Rackhir
@gm:local: !siguiente
@gm:local: !siguiente
@carla:local: !siguiente
"""


def _phone_lines(text: str) -> int:
    return sum(max(1, len(textwrap.wrap(part, PHONE_COLUMNS))) for part in text.split("\n"))


@pytest.mark.parametrize("system", ["generic", "savage", "stormbringer", "reino", "sombra"])
def test_a_players_turn_line_is_one_phone_line_with_the_mention(system: str) -> None:
    t = play(FIGHT, system=system)
    turn = [text for text in t.texts(6) if text.startswith("▶️")]
    assert turn == ["▶️ Rackhir (@carla:local)"], t.texts(6)
    assert _phone_lines(turn[0]) == 1
    assert "@carla:local" in t.messages(6)[0].get("mentions", ["@carla:local"])


@pytest.mark.parametrize("system", ["generic", "stormbringer", "reino", "sombra"])
def test_a_turn_passing_to_an_npc_with_nothing_else_to_say_is_a_reaction(system: str) -> None:
    table = make_table(system=system)
    t = play(FIGHT, table=table)
    assert t.acked(5), t.for_line(5)
    assert t.texts(7)[-1] == "▶️ Elric (@ana:local)"  # the next round's first turn is said


def test_an_npc_turn_after_someone_passed_over_is_a_reaction() -> None:
    """Issue 30 (at most 0.8 room messages per command): who is passed over (down or dead, which the room
    read when it happened) makes no message of its own; a player's turn line still names them, and the
    GMs' view (the screen, the acta) keeps them."""
    t = play("""
@gm:local: !pj Elric @ana:local
@gm:local: !combate
@gm:local: !turnos Elric, Guardia, Orco
@gm:local: !ficha Guardia fuera 1
@ana:local: !siguiente
@gm:local: !siguiente
""", system="savage")
    assert t.acked(5) and not t.texts(5), t.for_line(5)
    # The new round's one message names who cannot act, as the deal does (issue 31 item 10).
    assert t.texts(6) == ["No puede actuar: Guardia (fuera de combate).", "🔔 Ronda 2. Orden: Elric → Guardia → Orco.",
                          "▶️ Elric (@ana:local)"], t.texts(6)
    assert len(t.messages(6)) == 1, t.messages(6)


def test_a_players_turn_line_names_who_was_passed_over() -> None:
    t = play("""
@gm:local: !pj Elric @ana:local
@gm:local: !combate
@gm:local: !turnos Orco, Guardia, Elric
@gm:local: !ficha Guardia fuera 1
@gm:local: !siguiente
""", system="savage")
    assert t.texts(5) == ["▶️ Elric (@ana:local). Guardia no puede actuar."], t.texts(5)


def test_a_turn_passing_to_a_character_the_gm_plays_is_a_reaction_too() -> None:
    t = play("""
@gm:local: !pj Elric @ana:local
@gm:local: !pj Hans
@gm:local: !combate
@gm:local: !turnos Elric, Hans
@ana:local: !siguiente
""", system="generic")
    assert t.acked(5), t.for_line(5)
