"""The GM's screen's controls: a posted form read into the chat command it stands for.

A form is read whole before anything happens; what is wrong with it is a ``FormError`` (its
Spanish message is ``templates/web/screen_form_error.txt``) and nothing is sent to the table.
Names are matched to the room's characters and sent as the room calls them, so what the GM
typed never adds words to the command."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from bot.core.context import FoundCommand
from bot.core.state import RoomState

MAX_FORM_BYTES = 4096
"""The largest body a control posts (a few short fields); a larger one is refused unread."""
MAX_FIELDS = 8
MAX_TEXT = 200
"""The longest text field (an amount, dice, sheet changes, names)."""
FIELDS = frozenset({"nonce", "accion", "nombre", "texto"})
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class FormError(Exception):
    """What is wrong with a posted form: ``code`` and what the message names."""

    def __init__(self, code: str, **context: Any) -> None:
        super().__init__(code)
        self.code = code
        self.context = context


@dataclass(frozen=True, slots=True)
class Control:
    """One button or form of the screen: the command it becomes, and what it needs."""

    command: str
    """The command's name as the room's game finds it (its Spanish name goes in the text)."""
    words: str = ""
    """Fixed words after the command (``fin`` of ``!combate fin``)."""
    name: str = ""
    """``character`` (one of the room's), ``names`` (any, as ``!entra`` takes them) or ``optional``."""
    text: str = ""
    """``required`` or ``optional``: the free text after the name (an amount, dice, sheet changes)."""


CONTROLS: dict[str, Control] = {
    "siguiente": Control("siguiente"),
    "dano": Control("damage", name="character", text="required"),
    "curar": Control("heal", name="character", text="optional"),
    "ficha": Control("ficha", name="character", text="required"),
    "entra": Control("entra", name="names"),
    "sale": Control("sale", name="character"),
    "deshacer": Control("deshacer"),
    "revelar": Control("revelar", name="optional"),
    "permite": Control("permite", name="character"),
    "combate": Control("combate"),
    "iniciativa": Control("iniciativa"),
    "fin": Control("combate", words="fin"),
}


def read_form(body: bytes) -> dict[str, str]:
    """The fields of an ``application/x-www-form-urlencoded`` body; a ``FormError`` if it is not one
    (not ASCII on the wire, not UTF-8 once decoded, too many or repeated fields, control characters,
    a field too long). Unknown fields are refused too: a control posts only its own."""
    try:
        pairs = parse_qsl(body.decode("ascii"), keep_blank_values=True, encoding="utf-8", errors="strict",
                          max_num_fields=MAX_FIELDS)
    except UnicodeDecodeError:
        raise FormError("encoding") from None
    except ValueError:
        raise FormError("fields") from None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key not in FIELDS or key in fields:
            raise FormError("fields")
        if len(value) > MAX_TEXT:
            raise FormError("too_long", limit=MAX_TEXT)
        if _CONTROL.search(value):
            raise FormError("control")
        fields[key] = value.strip()
    return fields


def command_text(fields: dict[str, str], room: RoomState, find: Callable[[str], FoundCommand | None]) -> str:
    """The chat line a control stands for (``!daño Orco 2d6``), with ``find`` the room's commands."""
    control = CONTROLS.get(fields.get("accion", ""))
    if control is None:
        raise FormError("action")
    command = find(control.command)
    if command is None:
        raise FormError("no_command", command=control.command)
    words = [f"!{command.name}"]
    if control.words:
        words.append(control.words)
    name = fields.get("nombre", "")
    if control.name == "character":
        character = room.find_character(name) if name else None
        if character is None:
            raise FormError("no_name" if not name else "unknown_name", name=name)
        words.append(character.name)
    elif control.name == "names":
        if not name:
            raise FormError("no_name", name="")
        words.append(name)
    elif control.name == "optional" and name:
        character = room.find_character(name)
        if character is None:
            raise FormError("unknown_name", name=name)
        words.append(character.name)
    text = fields.get("texto", "")
    if control.text == "required" and not text:
        raise FormError("no_text")
    if control.text and text:
        words.append(text)
    return " ".join(words)
