"""Issue 29 item 4: no text the bot posts carries C0 (but new line and tab), C1 or direction characters,
whatever a hostile member types: the room's text and HTML, the roll objects (``--jsonl``), the stored
rolls and acta, the acta's documents and IRC's lines all pass through ``bot.core.text.clean``."""

from __future__ import annotations

import io
import json
from typing import Any

from bot.console import ROOM_ID, run_console
from bot.core.acta_document import export
from bot.core.render import Message
from bot.core.text import clean, clean_json
from bot.irc.text import irc_lines, without_formatting
from tests.transcript import make_table

HOSTILE = ("\x00\x01\x07\x1b[31m\x7f\x80\x85\x9b\x9f\x0b\x0c\x1c\r\u202a\u202b\u202c\u202d\u202e"
           "\u2066\u2067\u2068\u2069")
LINES = [
    "@gm:local: !acta activar",
    f"@ana:local: !tiro 1d6 {HOSTILE}",
    f"@ana:local: !tiro 1d20+2 ataque{HOSTILE} feroz",
    "@ana:local: !pj Kira",
    f"@ana:local: !tiro 2d6+1 golpe{HOSTILE}",
    f"@ana:local: /me grita{HOSTILE} fuerte",
    f"@ana:local: hola{HOSTILE}\tadiós",
    f"@gm:local: La noche{HOSTILE} cae",
    f"@ana:local: !ficha Ma{HOSTILE}lo",
    f"@ana:local: !tiro 1d8 oculta{HOSTILE}",
]


def forbidden(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F
            or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069]


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def assert_clean(where: str, value: Any) -> None:
    for text in strings(value):
        assert not forbidden(text), f"{where}: {forbidden(text)!r} in {text!r}"


def parsed(value: Any) -> Any:
    """A stored column: its JSON read (a JSON text writes a control character as ``\\u001b``)."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def run(jsonl: bool) -> tuple[str, Any]:
    table = make_table()
    out = io.StringIO()
    run_console(table, io.StringIO("\n".join(LINES) + "\n"), out, jsonl=jsonl)
    return out.getvalue(), table


def test_a_hostile_line_reaches_no_output_with_a_control_or_direction_character() -> None:
    output, table = run(jsonl=True)
    actions = [json.loads(line) for line in output.splitlines()]
    assert any(a.get("roll", {}) and "comment" in a["roll"] for a in actions), actions
    for data in actions:
        assert_clean(f"--jsonl line {data['id']}", data)
        if data["action"] == "send":  # the room's body and HTML, and IRC's lines built from them
            lines = irc_lines(Message(data["text"], data["html"]))
            assert_clean("IRC lines", [without_formatting(line) for line in lines])  # the bot's own bold, italics
    for row in table.store.db.execute("SELECT * FROM rolls").fetchall():
        assert_clean("stored roll", [parsed(v) for v in row])
    entries = table.store.acta.entries(ROOM_ID, table.store.acta.sessions(ROOM_ID))
    assert {e.kind for e in entries} >= {"roll", "action", "dialogue", "narration"}
    for entry in entries:
        assert_clean("acta entry", [entry.actor, entry.text, entry.data])
    for fmt in ("md", "html"):
        assert_clean(f"acta {fmt}", export(table.store, table.renderer, ROOM_ID, fmt))  # type: ignore[arg-type]
    assert "hola[31m\tadiós" in next(e.text for e in entries if e.kind == "dialogue")


def test_the_console_view_shows_no_control_or_direction_character() -> None:
    output, _ = run(jsonl=False)
    assert "ataque" in output
    assert_clean("console", output)


def test_clean_keeps_new_lines_tabs_and_emoji_joiners() -> None:
    assert clean("a\n\tb\u200d🙂" + HOSTILE) == "a\n\tb\u200d🙂[31m"
    assert clean_json({"a\x1b": ["x\u202e", ("y\x00",)], "n": 1}) == {"a": ["x", ("y",)], "n": 1}
