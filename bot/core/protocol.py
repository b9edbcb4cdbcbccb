"""Reading a chat line: dash lines, out-of-character text, commands and actions (DESIGN.md 1).

Everything here runs on user text, so it is linear in it: dash lines are read by a scan, the two
patterns below have no nested or overlapping repetition (tests/core/test_linear.py)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from bot.core.state import name_key

DASH_WEIGHTS: dict[str, int] = {
    **dict.fromkeys("-‐‑‒–―−─━┄┅┈┉╌╍⎯⁃֊־", 1),
    "—": 2,
    "⸺": 4,
    "⸻": 6,
}
"""Dash-like characters after NFKC (which folds ``－`` ``﹣`` into ``-``, ``﹘`` ``︱`` into ``—``, ``︲``
into ``–``), each with its length in dashes: an em dash counts as two (phones turn ``--`` into ``—``)."""
MIN_DASHES = 5
MAX_LOCK_NAME = 80
_COMMAND = re.compile(r"^(?:!|//?)([^\W\d_]\w*)(?:\s+(.*))?$", re.DOTALL)
_OUT_OF_CHARACTER = re.compile(r"^\s*(?:\(\(.*\)\)\s*$|off:)", re.IGNORECASE | re.DOTALL)

LineKind = Literal["dash", "named_dash", "command", "action", "ooc", "talk"]


@dataclass(frozen=True, slots=True)
class Line:
    kind: LineKind
    name: str = ""
    """The command name (accent-free, lower case) or the named lock's character name."""
    args: str = ""


def normalise(text: str) -> str:
    """NFKC, without format characters (zero-width spaces and joiners, direction marks, BOM)."""
    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


def dash_length(text: str) -> int | None:
    """How many dashes ``text`` (already normalised) is worth, or None if it holds anything but dashes
    and spaces."""
    total = 0
    for char in text:
        weight = DASH_WEIGHTS.get(char)
        if weight is not None:
            total += weight
        elif not char.isspace():
            return None
    return total


def _read_dash_line(text: str) -> Line | None:
    """``-----`` or ``----- (Nombre)`` (trailing dashes allowed), read on the normalised text."""
    text = normalise(text).strip()
    if not text or text[0] not in DASH_WEIGHTS:
        return None
    opening = text.find("(")
    if opening < 0:
        length = dash_length(text)
        return Line("dash") if length is not None and length >= MIN_DASHES else None
    closing = text.find(")", opening)
    if closing < 0:
        return None
    head, name, tail = text[:opening], text[opening + 1:closing].strip(), text[closing + 1:]
    head_length = dash_length(head)
    if head_length is None or head_length < MIN_DASHES or dash_length(tail) is None:
        return None
    if not 0 < len(name) <= MAX_LOCK_NAME or "(" in name:
        return None
    return Line("named_dash", name=name)


def read_line(text: str, is_emote: bool = False) -> Line:
    if is_emote:
        return Line("action", args=text.strip())
    dash_line = _read_dash_line(text)
    if dash_line is not None:
        return dash_line
    stripped = text.strip()
    command = _COMMAND.match(stripped)
    if command:
        name = name_key(command[1])
        args = (command[2] or "").strip()
        if name == "me" and stripped.startswith("/"):
            return Line("action", args=args)
        return Line("command", name=name, args=args)
    if _OUT_OF_CHARACTER.match(text):
        return Line("ooc")
    return Line("talk")
