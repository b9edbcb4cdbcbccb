"""Hostile lines get a short clear answer or nothing: never a crash, never markup, never a flood."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.events import Event, Send
from tests.transcript import make_table, play
from tests.watchdog import watchdog

HOSTILE = [
    "!tiro " + "1d6+" * 50_000,
    "!tiro " + "1d6+" * 300,
    "x" * 200_000,
    "!tiro 99999999d99999999",
    "!tiro 1d1!",
    "!tiro 1000d1000!",
    "!tiro banana",
    "!pj <b>Malo</b>",
    "!pj \u202eevil\u202c",
    "!pj " + "ñ" * 500,
    "!fooo",
    "!" + "a" * 5000,
    "!turnos " + "A " * 10_000,
    "!ficha",
    "!regla " + "zz " * 10_000,
    "----- (" + "x" * 5000 + ")",
    "((" * 50_000,
    "/me " + "<script>alert(1)</script>",
    "!tiro 1d6 <a href='javascript:alert(1)'>x</a>",
    "!sistema <img src=x>",
]


def test_hostile_lines_answer_briefly() -> None:
    table = make_table()
    table.handle(Event("!r", "@gm:local", "!combate", "$0"))
    for i, text in enumerate(HOSTILE, start=1):
        for sender in ("@gm:local", "@eve:local"):
            with watchdog(text[:40]):
                actions = table.handle(Event("!r", sender, text, f"${i}{sender}"))
            for action in actions:
                if isinstance(action, Send):
                    body, html = action.message.body, action.message.html
                    assert len(body) <= 4000 and len(html) <= 4000
                    assert "<script" not in html and "<img" not in html and "<a href='javascript" not in html
                    assert "Algo ha fallado" not in body, (text[:40], body)


def test_markup_in_character_names_stays_text() -> None:
    t = play("@ana:local: !pj <b>Malo</b>\n@gm:local: ---------- (<b>malo</b>)\n@gm:local: ----------\n"
             "@ana:local: !tiro d6")
    assert "<b>Malo</b>" in t.text(4)
    assert "<b>Malo" not in t.for_line(4)[0]["html"] and "&lt;b&gt;Malo" in t.for_line(4)[0]["html"]
    assert "&lt;b&gt;" in t.for_line(2)[1]["html"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["@gm:local", "@ana:local", "@bob:local"]),
                          st.one_of(st.text(max_size=60),
                                    st.sampled_from(["!tiro ", "!pj ", "!turnos ", "!ficha ", "-----",
                                                     "----- (", "!siguiente", "!combate", "!iniciativa",
                                                     "!permite ", "/me ", "!exploracion"]).flatmap(
                                        lambda p: st.text(max_size=30).map(lambda s: p + s)))),
                max_size=25),
       st.sampled_from(["generic", "savage", "stormbringer", "reino", "sombra"]))
def test_fuzzed_sessions_never_crash(lines: list[tuple[str, str]], system: str) -> None:
    table = make_table(system=system, seed=random.randrange(1000))
    for i, (sender, text) in enumerate(lines):
        for action in table.handle(Event("!r", sender, text, f"${i}")):
            if isinstance(action, Send):
                assert "Algo ha fallado" not in action.message.body, text


def test_a_refusal_never_repeats_control_or_direction_characters_of_a_typed_name() -> None:
    """«Bad input gets a clear Spanish message»: the name a player typed comes back in the refusal as the room
    would store it, without bell, escape or right-to-left override characters that would garble the room."""
    table = make_table("savage")
    table.handle(Event("!r", "@gm:x", "!pj Kira", "$1"))
    for number, command in enumerate(("!ficha Ma\u202ela\x07o\x1b[31m", "!estado Ma\u200blo\x00"), start=2):
        sends = [a for a in table.handle(Event("!r", "@gm:x", command, f"${number}")) if isinstance(a, Send)]
        assert sends, command
        for send in sends:
            assert not any(c in send.message.body for c in "\u202e\u200b\x07\x1b\x00"), send.message.body


def test_no_reply_echoes_control_or_direction_characters_of_what_was_typed() -> None:
    """An expression or a question typed with bell, escape or a right-to-left override comes back without them
    in the reply (``!tiro``'s «no es una tirada», ``!regla``'s «No encuentro nada sobre»), plain and HTML."""
    table = make_table("savage")
    typed = "Ma\u202ela\x07o\x1b[31m\u2066x"
    for number, command in enumerate((f"!tiro {typed}", f"!regla {typed}", f"!{typed}"), start=1):
        for send in [a for a in table.handle(Event("!r", "@gm:x", command, f"${number}")) if isinstance(a, Send)]:
            for text in (send.message.body, send.message.html or ""):
                assert not any(c in text for c in "\u202e\x07\x1b\u2066"), text
