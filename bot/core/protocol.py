"""Reading a chat line: dash lines, out-of-character text, commands and actions (DESIGN.md 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.core.state import name_key

DASHES = "-–—─"
_BARE_DASH_LINE = re.compile(rf"^\s*[{DASHES}]{{5,}}\s*$")
_NAMED_DASH_LINE = re.compile(rf"^\s*[{DASHES}]{{5,}}\s*\(\s*([^()]{{1,80}}?)\s*\)\s*[{DASHES}]*\s*$")
_COMMAND = re.compile(r"^(?:!|//?)([^\W\d_][\w]*)(?:\s+(.*))?$", re.DOTALL)
_OUT_OF_CHARACTER = re.compile(r"^\s*(?:\(\(.*\)\)\s*$|off:)", re.IGNORECASE | re.DOTALL)

LineKind = Literal["dash", "named_dash", "command", "action", "ooc", "talk"]


@dataclass(frozen=True, slots=True)
class Line:
    kind: LineKind
    name: str = ""
    """The command name (accent-free, lower case) or the named lock's character name."""
    args: str = ""


def read_line(text: str, is_emote: bool = False) -> Line:
    if is_emote:
        return Line("action", args=text.strip())
    if _BARE_DASH_LINE.match(text):
        return Line("dash")
    named = _NAMED_DASH_LINE.match(text)
    if named:
        return Line("named_dash", name=named[1])
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
