"""The exported acta (issue 19, item 9): nothing in it links when GitHub renders the Markdown
(cmark-gfm with its autolink extension, the real renderer), no control character reaches either
format, and a one-field sheet pastes back as ``!ficha`` shows it."""

from __future__ import annotations

import html
import re
import unicodedata

import cmarkgfm
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.events import Event, React
from bot.core.render import markdown_text
from tests.core.test_acta import ANA, ROOM, Room
from tests.transcript import GM, make_table, play

LINKING = ["ana@example.org", "a.b+c_d-e@sub.example.org", "Escribe a kira_x@ejemplo.es.", "mailto:ana@x.org",
           "xmpp:ana@x.org", "http://x.org", "https://x.org/a?b=c", "HTTPS://X.ORG", "ftp://x.org", "www.x.org",
           "WWW.X.ORG", "(www.x.org)", "*www.x.org*", "http:x.org", "javascript:alert(1)", "JavaScript:alert(1)",
           "data:text/html,<b>x</b>", "irc://irc.x.org", "<https://x.org>", "<ana@x.org>", "[a](https://x.org)"]
FRAGMENTS = st.sampled_from([*LINKING, "a", "Z", "0", " ", "\n", ".", ":", "/", "@", "_", "-", "+", "*", "(", ")",
                             "<", ">", "www", "http", "mailto", "x.org", "\x00", "\x1b", "\x7f", "\x85", "\t"])
CONTEXTS = ["{}", "*Kira {}*", "**Kira:** {}", "- {}", "- *Kira: {}*"]
"""Where the acta's Markdown template puts user text (narration, action, dialogue, roll, state)."""
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 but tab and new line, DEL, C1: what must never reach an export."""


def github(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


def visible(rendered: str) -> str:
    """The text a reader sees in the rendered HTML (tags dropped, the invisible word joiner too)."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).replace("\u2060", "")


@pytest.mark.parametrize("text", LINKING)
@pytest.mark.parametrize("context", CONTEXTS)
def test_nothing_links_on_github_and_the_reader_sees_the_text(text: str, context: str) -> None:
    rendered = github(context.format(markdown_text(text)))
    assert "<a " not in rendered, (text, rendered)
    assert text in visible(rendered), (text, rendered)


@given(st.lists(FRAGMENTS, max_size=20).map("".join), st.sampled_from(CONTEXTS))
def test_no_mix_of_addresses_and_schemes_links_on_github(text: str, context: str) -> None:
    rendered = github(context.format(markdown_text(text)))
    assert "<a " not in rendered and "<img" not in rendered, (text, rendered)


def test_a_whole_exported_acta_has_no_link_on_github() -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    for text in LINKING:
        room.say(GM, f"Narración con {text} dentro")
        room.say(ANA, f"/me apunta {text}")
        room.say(ANA, f"Diálogo: {text}")
    rendered = github(room.document())
    assert "<a " not in rendered
    shown = visible(rendered)
    assert all(f"Narración con {text} dentro" in shown for text in LINKING if "<" not in text and "[" not in text)


CONTROLS = "".join(chr(c) for c in [*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)])


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_no_control_character_reaches_an_export(fmt: str) -> None:
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(GM, f"Narración\x1b[31m roja\x07 {CONTROLS} fin")
    room.say(ANA, f"/me susurra\x00 algo\x9b1m{CONTROLS}")
    room.say(ANA, "Dice\x1b]0;título\x07 esto\u0085 y\testo")
    room.say(ANA, f"!tiro 1d6 (com\x1bentario{CONTROLS})")
    document = room.document(fmt)
    assert CONTROL.search(document) is None, [hex(ord(c)) for c in CONTROL.findall(document)]
    assert "roja" in document and "fin" in document and "susurra" in document and "título" in document
    assert "\t" in document or fmt == "md", "a tab is kept where the format keeps it"


@given(st.text(alphabet=st.sampled_from([*CONTROLS, "a", " ", "w", ".", "@", ":", "/", "\n", "\r", "\t"]), max_size=40))
def test_markdown_text_drops_control_characters(text: str) -> None:
    escaped = markdown_text(text)
    assert CONTROL.search(escaped) is None and "<a " not in github(escaped)
    assert all(unicodedata.category(c) != "Cc" or c == "\n" or c == "\t" for c in escaped)


@pytest.mark.parametrize("system, field, value", [
    ("savage", "Arma", "Rifle de asalto"),
    ("savage", "Parada", "5"),
    ("stormbringer", "Armadura", "Cuero endurecido"),
    ("stormbringer", "Arma", "Espada larga"),
    ("reino", "Defensa", "17"),
    ("sombra", "Pistola", "12"),
])
def test_a_one_field_sheet_pastes_back_as_it_shows(system: str, field: str, value: str) -> None:
    """``!ficha Kira`` of a sheet with one field, its line pasted after ``!ficha Kira`` (on IRC, or
    copying the line under the title), gives the same sheet; the whole answer pasted does too."""
    table = make_table(system=system)
    play(f"@gm:local: !pj Kira @bob:local\n@gm:local: !ficha Kira {field} {value},", table)
    sheet = table.room(ROOM).characters["kira"].sheet
    starting = {"bennies": 3} if system == "savage" else {}  # a player's new Wild Card's bennies (issue 30)
    typed = {k: v for k, v in sheet.items() if k not in starting}
    assert {k: sheet.get(k) for k in starting} == starting
    assert len(typed) == 1 and value in map(str, typed.values())
    shown = table.handle(Event(ROOM, GM, "!ficha Kira", "$show"))[0].message.body
    line = shown.splitlines()[1]
    assert sorted(line.split(", ")) == sorted([f"{field} {value}", *(f"Bennies {n}" for n in starting.values())])
    for pasted in (line, shown):
        copy = make_table(system=system)
        play("@gm:local: !pj Kira @bob:local", copy)
        (answer,) = copy.handle(Event(ROOM, GM, f"!ficha Kira {pasted}", "$paste"))
        assert isinstance(answer, React), pasted
        assert copy.room(ROOM).characters["kira"].sheet == sheet
        assert copy.handle(Event(ROOM, GM, "!ficha Kira", "$again"))[0].message.body == shown


def test_a_typed_multi_word_value_after_a_one_word_pair_is_still_refused_by_name() -> None:
    """Pairs typed by hand (``campo valor campo valor``) still read one-word values: a stray word is
    an unknown field, named; the valid fields are kept (issue 20: one bad field no longer rejects the
    whole sheet)."""
    table = make_table(system="savage")
    play("@gm:local: !pj Kira @bob:local", table)
    (answer,) = table.handle(Event(ROOM, GM, "!ficha Kira Parada 5 Volar d8", "$x"))
    sheet = table.room(ROOM).characters["kira"].sheet
    assert "«Volar»" in answer.message.body and sheet == {"parada": 5, "bennies": 3}  # a player's Wild Card: 3


@pytest.mark.parametrize("scheme", ["http", "https", "javascript", "JavaScript", "mailto", "xmpp", "data", "irc",
                                    "vbscript", "tel", "file", "web+app", "x-y.z"])
def test_every_scheme_prefix_has_its_colon_escaped(scheme: str) -> None:
    """Not only those cmark-gfm links today: any ``scheme:`` followed by more reads as text in every
    CommonMark renderer (``\\:`` shows as ``:``), and a colon that ends a phrase is left alone."""
    assert markdown_text(f"ver {scheme}:algo") == f"ver {scheme}\\:algo"
    assert markdown_text(f"({scheme}:algo)") == f"({scheme}\\:algo)"
    assert markdown_text(f"{scheme}://x") == f"{scheme}\\://x"
    assert markdown_text("Kira dijo: hola") == "Kira dijo: hola"
    assert markdown_text("a las 10:30") == "a las 10:30", "a number is no scheme"


def test_www_inside_a_scheme_is_escaped_too() -> None:
    assert markdown_text("www.ftp://x") == "www\\.ftp\\://x"
    assert markdown_text("xwww.y") == "xwww\\.y"


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_every_me_is_written_as_an_action_never_as_speech(fmt: str) -> None:
    """Issue 29 item 9: a ``/me`` (typed, or a client's emote) of a character, of a player with no character,
    of the GM and of the GM inside a lock is an action (italics), never a speaker's line."""
    room = Room()
    room.play("@gm:local: !acta activar\n@ana:local: !pj Ana")
    room.say(ANA, "/me saluda")
    room.say(ANA, "se inclina", kind="emote")
    room.say("@bob:local", "/me bosteza")
    room.say(GM, "/me cierra la puerta")
    room.play("@gm:local: -----")
    room.say(GM, "/me ruge en el bloqueo")
    room.play("@gm:local: -----")
    document = room.document(fmt)
    actions = ("Ana saluda", "Ana se inclina", "@bob:local bosteza", "cierra la puerta", "ruge en el bloqueo")
    if fmt == "md":
        lines = [line.replace("\\", "") for line in document.splitlines()]
        assert all(f"*{action}*" in lines for action in actions), document
        assert not [line for line in lines if line.startswith("**")], document
    else:
        assert all(f'<p class="accion"><i>{html.escape(action)}</i></p>' in document for action in actions), document
        assert 'class="dialogo"' not in document, document
