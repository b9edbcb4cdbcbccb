"""Issue 10, items 3-6, 8, 9: what a player posts during a lock or out of turn, grants, dash lines."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core import floor
from bot.core.args import Opt, Parsed, Rest
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.events import Event, EventKind, PowerLevels, React, Redact, Send
from bot.core.game import GameRegistry
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import GM, make_table, play

CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Sör Brönn @bob:local
"""
BOB = "@bob:local"
COMBAT = CAST + "@gm:local: !combate\n@gm:local: !turnos McAvoy, Sör Brönn\n"
"""Lines 1-4; McAvoy (ana) has the turn, Sör Brönn (bob) waits."""


def _table_with(script: str, **options: object):  # type: ignore[no-untyped-def]
    table = make_table(**options)  # type: ignore[arg-type]
    for number, line in enumerate(filter(None, map(str.strip, script.splitlines())), start=1):
        sender, text = line.split(": ", 1)
        table.handle(Event("!r", sender, text, f"$s{number}"))
    return table


def _redacts(actions: list, event_id: str) -> bool:
    return any(isinstance(a, Redact) and a.event_id == event_id for a in actions)


def _texts(actions: list) -> list[str]:
    return [a.message.body for a in actions if isinstance(a, Send)]


# -- item 3: during a lock anything a player posts counts as writing ------------------------------

POSTS: list[tuple[EventKind, bool, str]] = [
    ("notice", False, "!tiro 1d6"),
    ("notice", True, "editado como aviso"),
    ("reaction", False, "👍 lo que sea"),
    ("poll", False, "¿Atacamos?"),
    ("media", False, ""),
    ("other", False, ""),
    ("text", True, "hola editado"),
    ("emote", True, "corre editado"),
]


@pytest.mark.parametrize(("kind", "edit", "text"), POSTS)
@pytest.mark.parametrize("mode", ["redact", "mute"])
def test_any_post_during_a_lock_counts_as_writing(kind: EventKind, edit: bool, text: str, mode: str) -> None:
    table = _table_with(CAST + "@gm:local: -----", enforce=mode)
    actions = table.handle(Event("!r", BOB, text, "$x", kind=kind, edit=edit))
    assert _redacts(actions, "$x") and any("narrando" in t for t in _texts(actions))
    assert table.handle(Event("!r", GM, text, "$gm", kind=kind, edit=edit)) == []


def test_a_muted_lock_covers_the_room_and_redacts_what_slips_through() -> None:
    table = _table_with(CAST, enforce="mute")
    opened = table.handle(Event("!r", GM, "-----", "$1"))
    assert [a.lock for a in opened if isinstance(a, PowerLevels)] == [True]
    assert _redacts(table.handle(Event("!r", BOB, "👍", "$2", kind="reaction")), "$2")


def test_notices_are_never_run_as_commands() -> None:
    table = _table_with(CAST)
    assert table.handle(Event("!r", GM, "!combate", "$1", kind="notice")) == []
    assert table.handle(Event("!r", GM, "-----", "$2", kind="notice")) == []
    assert table.handle(Event("!r", BOB, "hola", "$3")) == []  # no lock was opened


@pytest.mark.parametrize(("kind", "text"), [("notice", "!tiro 1d20"), ("reaction", "⚔️"), ("media", ""),
                                            ("poll", "¿Atacamos?"), ("text", "¿me toca?")])
def test_out_of_turn_only_in_character_posts_count(kind: EventKind, text: str) -> None:
    table = _table_with(COMBAT)
    assert table.handle(Event("!r", BOB, text, "$x", kind=kind)) == []


# -- item 4: a grant covers exactly one valid in-character command --------------------------------

def test_a_failed_roll_neither_spends_the_grant_nor_passes_the_lock() -> None:
    t = play(CAST + """
@gm:local: -----
@gm:local: !permite Sör Brönn
@bob:local: !tiro banana
@bob:local: !tiro
@bob:local: !tiro 1d6 (ahora sí)
@bob:local: !tiro 1d6 (otra)
""")
    assert t.redacted(5) and "narrando" in t.text(5)
    assert t.redacted(6) and t.texts(6) == []
    assert not t.redacted(7) and "ahora sí" in t.text(7)
    assert t.redacted(8)


def test_a_failed_roll_out_of_turn_is_refused_and_keeps_the_grant() -> None:
    t = play(COMBAT + """
@gm:local: !permite Sör Brönn
@bob:local: !tiro 1d6+
@bob:local: !tiro {}
@bob:local: !tiro 1d20 (esquiva)
""".format("1" * 3000))
    assert t.redacted(6) and "Es el turno de McAvoy" in t.text(6)
    assert t.redacted(7) and t.texts(7) == []  # over-long: refused, no "too long" answer
    assert not t.redacted(8) and "esquiva" in t.text(8)


def test_a_grant_covers_no_action_or_talk() -> None:
    t = play(COMBAT + """
@gm:local: !permite Sör Brönn
@bob:local: /me ataca también
@gm:local: -----
@bob:local: ¿puedo hablar?
""")
    assert t.redacted(6) and "Es el turno de McAvoy" in t.text(6)
    assert t.redacted(8) and "narrando" in t.text(8)


def test_grants_outside_combat_end_with_the_lock() -> None:
    t = play(CAST + """
@gm:local: -----
@gm:local: !permite Sör Brönn
@gm:local: -----
@gm:local: -----
@bob:local: !tiro 1d6
""")
    assert t.redacted(7)


def test_a_follow_up_rides_on_the_spent_grant() -> None:
    """The hook a game uses for a roll that allows one more (Savage: a soak's second-benny reroll)."""
    commands = CommandGroup()

    @commands.takes("prueba", "probe", spec=[Opt(Rest("otra"))], in_character=True)
    def soak(ctx: Context, got: Parsed) -> None:
        if got.text("otra") == "otra":
            floor.consume_grant(ctx)
        else:
            floor.keep_grant_for(ctx, "prueba")
        ctx.reply("no_combat")

    generic = GAMES["generic"]
    games = GameRegistry(replace(generic, commands=commands), *(g for g in GAMES if g.key != "generic"))
    table = Table(Store(), make_table().settings, games=games)
    t = play(COMBAT + """
@gm:local: !permite Sör Brönn
@bob:local: !prueba
@bob:local: !tiro 1d6
@bob:local: !prueba otra
@bob:local: !prueba otra
""", table=table)
    assert not t.redacted(6)
    assert t.redacted(7)  # the follow-up grant covers that command only
    assert not t.redacted(8)
    assert t.redacted(9)


# -- item 5: edits are judged by their new content, never run; turn and lock before any reply -----

@pytest.mark.parametrize(("kind", "text"), [("emote", "ataca"), ("text", "/me ataca"), ("text", "!tiro 1d20")])
def test_an_out_of_turn_edit_into_character_is_redacted(kind: EventKind, text: str) -> None:
    table = _table_with(COMBAT)
    actions = table.handle(Event("!r", BOB, text, "$x", kind=kind, edit=True))
    assert _redacts(actions, "$x") and any("Es el turno de McAvoy" in t for t in _texts(actions))


def test_edits_are_judged_never_run() -> None:
    table = _table_with(COMBAT)
    assert table.handle(Event("!r", BOB, "¿me toca?", "$1", edit=True)) == []
    # An edited command runs nothing: its sender only gets a private hint (issue 29 item 7).
    for sender, text, event_id in (("@ana:local", "!tiro 1d20", "$2"), (GM, "!combate fin", "$3")):
        actions = table.handle(Event("!r", sender, text, event_id, edit=True))
        assert [a.private_to for a in actions if isinstance(a, Send)] == [sender] and len(actions) == 1, actions
        assert "Editar un mensaje no ejecuta" in actions[0].message.body
    assert table.handle(Event("!r", GM, "-----", "$4", edit=True)) == []
    assert table.handle(Event("!r", BOB, "hola", "$5")) == []  # no lock was opened


def test_an_over_long_roll_is_judged_by_the_turn_first() -> None:
    t = play(COMBAT + "@bob:local: !tiro " + "1d6+" * 1000 + "\n@bob:local: !tiro " + "1d6+" * 1000)
    assert t.redacted(5) and "Es el turno de McAvoy" in t.text(5)
    assert t.redacted(6) and t.texts(6) == []


# -- item 6: dash lines and their confirmation ----------------------------------------------------

LOOKALIKES = [
    "\u2015" * 5, "\u2012" * 5, "\u2010" * 5, "\u2011" * 5, "\u2212" * 5, "\uff0d" * 5, "\u2501" * 5,
    "\ufe58" * 3, "- - - - -", "\u200b-----", "-----\u200b", "\u200f-----", "-----\u200e", "\ufeff-----",
    "——-", "—— -", "\u2500" * 5, "\ufe63" * 5, "-\u00ad-\u00ad-\u00ad-\u00ad-", "\u3000-----\u00a0",
]


@pytest.mark.parametrize("dash", LOOKALIKES)
def test_dash_lookalikes_lock_and_are_confirmed(dash: str) -> None:
    t = play(CAST + f"@gm:local: {dash}\n@bob:local: ¿puedo?\n@gm:local: {dash}\n@bob:local: ya")
    assert [(a["action"], a["key"]) for a in t.for_line(3)] == [("react", "🔒")]
    assert t.redacted(4)
    assert [(a["action"], a["key"]) for a in t.for_line(5)] == [("react", "🔓")]
    assert t.for_line(6) == []


@pytest.mark.parametrize("dash", ["\u2015" * 5, "——-", "\ufeff- - - - -", "\u2501" * 10])
def test_named_lock_with_lookalikes(dash: str) -> None:
    t = play(CAST + f"@gm:local: {dash} (McAvoy) {dash}\n@bob:local: /me avanza\n@ana:local: /me habla")
    assert [a["key"] for a in t.for_line(3) if a["action"] == "react"] == ["🔒"]
    assert t.redacted(4) and t.for_line(5) == []


@pytest.mark.parametrize("line", ["——", "----", "- - - -", "-----x", "—— ~", "\u2014\u200b\u2014"])
def test_not_dash_lines(line: str) -> None:
    """No lock; what looks like a slip for one (few dashes, dashes and no character's name) gets the GM a
    private hint (issue 20)."""
    t = play(CAST + f"@gm:local: {line}\n@bob:local: hola")
    assert all(a["action"] == "send" and a["private_to"] == "@gm:local" for a in t.for_line(3))
    assert t.for_line(4) == []


def test_a_player_dash_line_gets_no_confirmation() -> None:
    table = _table_with(CAST)
    actions = table.handle(Event("!r", BOB, "——-", "$1"))
    assert not any(isinstance(a, React) for a in actions)


# -- item 8: a combat ends the exploration turn ---------------------------------------------------

def test_starting_a_combat_ends_the_exploration() -> None:
    t = play(CAST + """
@gm:local: !exploracion
@ana:local: /me abre la puerta
@gm:local: !combate
@gm:local: !turnos McAvoy, Sör Brönn
@bob:local: /me también abre
""")
    assert "Pierde su acción: Sör Brönn." in t.texts(5)[1]
    assert t.redacted(7) and "Es el turno de McAvoy" in t.text(7)


@pytest.mark.parametrize("order", ["!turnos McAvoy, Sör Brönn", "!iniciativa"])
def test_turns_during_exploration_end_it(order: str) -> None:
    t = play(CAST + f"""
@gm:local: !combate
@gm:local: !exploracion
@bob:local: /me explora
@gm:local: {order}
@ana:local: /me explora otra vez
@bob:local: /me explora otra vez
""")
    assert "Pierde su acción: McAvoy." in t.texts(6)[0]
    refused = [n for n in (7, 8) if t.redacted(n)]
    assert len(refused) == 1 and "Es el turno de" in t.text(refused[0])


# -- item 9: a named lock gives its player the floor out of turn ----------------------------------

def test_a_named_lock_gives_the_floor_out_of_turn() -> None:
    t = play(COMBAT + """
@gm:local: ---------- (Sör Brönn)
@bob:local: /me responde al grito
@bob:local: !tiro 1d20 (Notar)
@ana:local: /me dispara
@gm:local: ----------
@bob:local: /me sigue
""")
    assert t.for_line(6) == [] and "Notar" in t.text(7)
    assert t.redacted(8) and "Ahora solo escribe Sör Brönn" in t.text(8)
    assert t.redacted(10) and "Es el turno de McAvoy" in t.text(10)


def test_a_grant_given_before_a_lock_does_not_carry_into_it() -> None:
    t = play(CAST + """
@gm:local: !permite McAvoy
@gm:local: -----
@ana:local: !tiro 1d6
""")
    assert t.redacted(5)


def test_no_exploration_during_a_running_combat_nor_a_second_one() -> None:
    t = play(COMBAT + """
@gm:local: !exploracion
@ana:local: !combate fin
@gm:local: !combate fin
@gm:local: !exploracion
@ana:local: /me explora
@gm:local: !exploracion
@ana:local: /me vuelve a explorar
""")
    assert t.text(5).startswith("⛔ Hay un combate en marcha")
    assert "(!exploracion fin la termina)" in t.text(10)
    assert t.redacted(11) and "Ya has actuado" in t.text(11)  # one action each: the restart was refused
