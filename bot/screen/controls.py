"""The GM's screen's controls: a posted form read into the chat command it stands for.

A form is read whole before anything happens; what is wrong with it is a ``FormError`` (its
Spanish message is ``templates/web/screen_form_error.txt``) and nothing is sent to the table.
Each field takes only what it names, so what the GM typed never adds a word the command would read
otherwise: ``nombre`` is one of the room's characters, sent as the room calls it; ``entra``'s names
are separated by commas, each of letters, digits, spaces, hyphens and apostrophes and none holding a
word a command reads as an option (``OPTION_WORDS``, the game's own: ``oculta``, ``contra``, ``x3``),
sent so that the command splits them at the commas alone; ``texto`` after a name never makes it another
character's, and that of a damage or a healing is an amount or dice and the game's locations."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from bot.core import words_es as vocab
from bot.core.context import FoundCommand
from bot.core.records import ScreenAttack
from bot.core.records import ScreenControl as Control
from bot.core.state import MAX_NAME, Character, RoomState, has_visible_letter, name_key

MAX_FORM_BYTES = 4096
"""The largest body a control posts (a few short fields); a larger one is refused unread."""
MAX_FIELDS = 10
MAX_TEXT = 200
"""The longest text field (an amount, dice, sheet changes, names)."""
OPTION_FIELDS = ("op1", "op2", "op3", "op4")
"""The attack control's options, one per list of the game's ``ScreenAttack.options``, in that order."""
FIELDS = frozenset({"nonce", "accion", "nombre", "texto", "atacante", "antes", "jugador", *OPTION_FIELDS})
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TERM = r"(?:\d{1,3}|\d{0,2}d\d{1,3})"
AMOUNT = re.compile(rf"{_TERM}(?:[+-]{_TERM}){{0,5}}", re.IGNORECASE)
"""An amount or dice (``7``, ``2d6+1``, ``1d12+1d6``): numbers of at most three digits, six terms."""
NAME_MARKS = frozenset(" -'’")
"""What a name of ``entra`` may hold besides letters and digits: spaces, hyphens, apostrophes."""
OPTION_WORDS: frozenset[tuple[str, ...]] = frozenset(
    tuple(phrase.split()) for words in (vocab.AGAINST, vocab.HIDDEN, vocab.END, vocab.NEW, vocab.RESTART, vocab.DELETE,
                                        vocab.ON, vocab.OFF, vocab.ALL, vocab.GROUP, vocab.MACRO) for phrase in words
) | frozenset(vocab.NO_STATE)
"""The words (and phrases) commands read as an option after a name, folded: never part of a name the
screen sends. A count (``x3``, as ``!pnj`` reads it) and the game's own words (``GameWords``) neither."""
_COUNT = re.compile(r"[x\u00d7]\d{1,6}")
CHANGE = re.compile(r"[+-]\d{1,2}")
"""A signed count (``+3``, ``-1``): what a ``change`` text takes."""
PLAYER = re.compile(r"@[^\s:]{1,100}:\S{1,200}")
"""A player's id as ``!pj`` takes it (``@dani:servidor``)."""


class FormError(Exception):
    """What is wrong with a posted form: ``code`` and what the message names."""

    def __init__(self, code: str, **context: Any) -> None:
        super().__init__(code)
        self.code = code
        self.context = context


@dataclass(frozen=True, slots=True)
class GameWords:
    """What the room's game reads after a name, folded: its hit locations (``brazo derecho``) and its
    own options (``!pnj``'s ``comodin``)."""

    locations: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    attack: ScreenAttack | None = None
    """The game's attack control (None: it has none)."""
    turn: tuple[str, ...] = ()
    """Who acts in the current turn (several for a group of Extras): the attack's attacker is one of them."""
    controls: dict[str, Control] = field(default_factory=dict)
    """The game's own controls (``Game.screen_controls``), by the form's ``accion``."""


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
    "ataque": Control("attack", name="character", text="optional"),
    "orden": Control("orden", name="character"),
    "rehacer": Control("rehacer"),
    "pj": Control("pj", name="new"),
}
EXTRA_FIELDS = {"ataque": frozenset({"atacante", *OPTION_FIELDS}), "orden": frozenset({"antes"}),
                "pj": frozenset({"jugador"})}
"""The fields a control posts besides ``nombre`` and ``texto``."""
SHOWN = frozenset({"estado", "detalle"})
"""The core's commands (with their fixed words, folded) whose answer the screen shows all the time: the
board holds everything ``!estado`` shows, and the last rolls as the GMs see them stand for ``!detalle``.
A game adds its own (``Game.screen_shows``)."""


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


def command_text(fields: dict[str, str], room: RoomState, find: Callable[[str], FoundCommand | None],
                 words: GameWords = GameWords()) -> str:
    """The chat line a control stands for (``!daño Orco 2d6``), with ``find`` the room's commands and
    ``words`` what its game reads after a name."""
    control = CONTROLS.get(fields.get("accion", "")) or words.controls.get(fields.get("accion", ""))
    if control is None:
        raise FormError("action")
    if ("nombre" in fields and not control.name) or ("texto" in fields and not control.text):
        raise FormError("fields")
    if any(key in fields for key in FIELDS - {"nonce", "accion", "nombre", "texto"} - EXTRA_FIELDS.get(
            fields.get("accion", ""), frozenset())):
        raise FormError("fields")
    command = find(control.command)
    if command is None:
        raise FormError("no_command", command=control.command)
    parts = [f"!{command.name}"]
    if control.command == "attack":
        parts.append(_attacker(fields, room, words))
    if control.words:
        parts.append(control.words)
    name = fields.get("nombre", "")
    character: Character | None = None
    if control.name == "names":
        parts.append(_names(name, words))
    elif control.name == "new":
        parts.append(_new_name(name, words))
        parts.append(_player(fields))
    elif control.name == "character" or (control.name == "optional" and name):
        character = room.find_character(name) if name else None
        if character is None:
            raise FormError("no_name" if not name else "unknown_name", name=name)
        parts.append(character.name)
    if control.after:
        parts.append(control.after)
    if control.command == "orden":
        parts.append(_before(fields, room))
    text = fields.get("texto", "")
    if control.text in ("required", "change") and not text:
        raise FormError("no_text")
    if control.text and text:
        if control.command in ("damage", "heal"):
            _require_amount(text, words)
        if control.text == "change" and not CHANGE.fullmatch(text):
            raise FormError("change", text=text)
        if control.command == "attack" and (words.attack is None or not words.attack.weapon or _option_in(
                name_key(text).split(), words) or not all(c.isalnum() or c == " " for c in text)):
            raise FormError("weapon", text=text)
        if character is not None:
            _require_same_character(room, character, text)
        parts.append(text)
    if control.command == "attack":
        parts += _attack_options(fields, words)
    return " ".join(parts)


def _attacker(fields: dict[str, str], room: RoomState, words: GameWords) -> str:
    """``ATACANTE contra`` for a game whose attacker is named, one of the current turn's members; for
    another, the attacker is the one whose turn it is and the field, if given, must name them."""
    attack = words.attack
    if attack is None:
        raise FormError("no_command", command="ataque")
    name = fields.get("atacante", "")
    character = room.find_character(name) if name else None
    if name and (character is None or character.name not in words.turn):
        raise FormError("not_in_turn", name=name, turn=list(words.turn))
    if not attack.by_name or character is None:
        return ""
    return f"{character.name} {vocab.AGAINST[0]}"


def _before(fields: dict[str, str], room: RoomState) -> str:
    """``antes de B`` of ``!orden``: B one of the room's characters."""
    name = fields.get("antes", "")
    character = room.find_character(name) if name else None
    if character is None:
        raise FormError("no_name" if not name else "unknown_name", name=name)
    return f"antes de {character.name}"


def _attack_options(fields: dict[str, str], words: GameWords) -> list[str]:
    """The options posted, each one of the words of its list in the game's ``ScreenAttack``."""
    lists = words.attack.options if words.attack else ()
    chosen = []
    for key, allowed in zip(OPTION_FIELDS, (*lists, *([frozenset()] * len(OPTION_FIELDS)))):
        value = fields.get(key, "")
        if value and value not in allowed:
            raise FormError("option", text=value)
        if value:
            chosen.append(value)
    return chosen


def _new_name(said: str, words: GameWords) -> str:
    """One name for ``!pj``, checked as ``entra``'s names are (no commas: one character)."""
    if "," in said:
        raise FormError("name_chars", name=said)
    _names(said, words)
    return " ".join(said.split())


def _player(fields: dict[str, str]) -> str:
    """``!pj``'s player: an id of the chat network (``@dani:servidor``)."""
    player = fields.get("jugador", "")
    if not PLAYER.fullmatch(player):
        raise FormError("player", text=player)
    return player


def _names(field: str, words: GameWords) -> str:
    """``entra``'s names as the command reads them at its commas alone (a lone name of several words
    ends with one: ``Lobo Negro,``, where the chat's ``!entra`` would read two names)."""
    if not field:
        raise FormError("no_name", name="")
    names = [name.strip() for name in field.split(",")]
    for name in names:
        if not name:
            raise FormError("empty_name")
        if len(name) > MAX_NAME:
            raise FormError("name_too_long", limit=MAX_NAME)
        if not all(c.isalpha() or c.isdigit() or c in NAME_MARKS for c in name):
            raise FormError("name_chars", name=name)
        if not has_visible_letter(name):
            raise FormError("no_letter", name=name)
        option = _option_in(name_key(name).split(), words)
        if option:
            raise FormError("option_word", name=name, word=option)
    return ", ".join(" ".join(name.split()) for name in names) + ("," if len(names) == 1 and " " in names[0] else "")


def _option_in(folded: list[str], words: GameWords) -> str:
    """The first word (or phrase) of ``folded`` a command reads as an option, else ``""``."""
    for start, word in enumerate(folded):
        if _COUNT.fullmatch(word) or word in words.options or word in words.locations:
            return word
        for phrase in OPTION_WORDS:
            if tuple(folded[start:start + len(phrase)]) == phrase:
                return " ".join(phrase)
        if " ".join(folded[start:start + 2]) in words.locations:
            return " ".join(folded[start:start + 2])
    return ""


def _require_amount(text: str, words: GameWords) -> None:
    """``text`` is an amount or dice and then the game's locations (each of one or two words)."""
    folded = name_key(text).split()
    if folded and AMOUNT.fullmatch(folded[0]):
        folded = folded[1:]
    elif not folded or not words.locations:
        raise FormError("not_amount", text=text, locations=bool(words.locations))
    while folded:
        two = " ".join(folded[:2])
        used = 2 if len(folded) > 1 and two in words.locations else 1 if folded[0] in words.locations else 0
        if not used:
            raise FormError("not_amount", text=text, locations=bool(words.locations))
        folded = folded[used:]


def _require_same_character(room: RoomState, character: Character, text: str) -> None:
    """The text after the name leaves it the same character: a command reading the longest known
    name first would take ``Orco`` and ``1 dureza 9`` for ``Orco 1``."""
    said = f"{character.name} {text}".split()
    found, used = room.leading_character(said)
    if found is not character or used != len(character.name.split()):
        raise FormError("other_name", name=found.name if found else character.name)
