"""Reading a chat line: dash lines, out-of-character text, commands and actions (docs/protocol.md#1).

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
MIN_HINTED_DASHES = 3
"""A GM's line of 3 or 4 dashes is taken for a slip: it gets a hint, not a lock."""
MAX_LOCK_NAME = 80
_COMMAND = re.compile(r"^(?:!|//?)([^\W\d_]\w*)(?:\s+(.*))?$", re.DOTALL)
_OUT_OF_CHARACTER = re.compile(r"^\s*(?:\(\(.*\)\)\s*$|off:)", re.IGNORECASE | re.DOTALL)

LineKind = Literal["dash", "named_dash", "short_dash", "command", "action", "ooc", "talk"]


@dataclass(frozen=True, slots=True)
class Line:
    kind: LineKind
    name: str = ""
    """The command name (accent-free, lower case) or the named lock's character name."""
    args: str = ""
    bare: bool = False
    """A named lock written without parentheses (``----- Kira``): a lock only if the name is a character's."""


def normalise(text: str) -> str:
    """NFKC, without format characters (zero-width spaces and joiners, direction marks, BOM; ASCII has none)."""
    text = unicodedata.normalize("NFKC", text)
    return text if text.isascii() else "".join(c for c in text if unicodedata.category(c) != "Cf")


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
    """``-----``, ``----- (Nombre)`` (trailing dashes allowed) or ``----- Nombre``, read on the
    normalised text; ``---`` and ``----`` are a ``short_dash``."""
    text = normalise(text).strip()
    if not text or text[0] not in DASH_WEIGHTS:
        return None
    opening = text.find("(")
    if opening < 0:
        length = dash_length(text)
        if length is None:
            return _bare_named(text)
        if length >= MIN_DASHES:
            return Line("dash")
        return Line("short_dash") if length >= MIN_HINTED_DASHES else None
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


def _bare_named(text: str) -> Line | None:
    """``----- Nombre`` (trailing dashes allowed): the dashes, then a name with no parenthesis."""
    cut = next(i for i, char in enumerate(text) if char not in DASH_WEIGHTS and not char.isspace())
    head_length = dash_length(text[:cut]) or 0
    end = len(text)
    while end > cut and (text[end - 1] in DASH_WEIGHTS or text[end - 1].isspace()):
        end -= 1
    name = text[cut:end]
    if head_length < MIN_DASHES or not 0 < len(name) <= MAX_LOCK_NAME or ")" in name:
        return None
    return Line("named_dash", name=name, bare=True)


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
