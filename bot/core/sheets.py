"""Character sheets in and out: field names, pasting a whole sheet, exporting it the same way.

A game lists its fields (``Game.sheet_fields``: key -> type), how each is shown (``sheet_names``) and
other names for them (``sheet_aliases``). Names are matched without case or accents. A sheet can be
given as ``campo valor campo valor`` (one-word values, as always) or pasted as
``Campo valor, Campo: valor; Campo=valor`` over one or more lines, with ``Macro NOMBRE = EXPRESIÓN``
lines; the export (``!ficha NOMBRE``) is ``Campo valor, ...``, so it pastes back to the same sheet. The
valid fields of a paste are set and each other one comes back as a ``Rejected`` (an unknown name, with
the field it looks like; a bad value, with what the field takes).

Who sets what: a GM any field; a player the fields of their own character but the game's
``gm_fields`` (the table's state and the roles), which in a paste are left as they are and named. A
player's change of a derived number (``sheet_derived``) or a starting one (``sheet_starting``: PV,
bennies) already on the sheet is told to the GMs; set for the first time it is no change.

Each character has one sheet per game (``Character.game``, ``other_sheets``): ``play_in`` puts the
room's sheets in the game it plays, so no key of one game is ever read by another.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from bot.core import words_es as vocab
from bot.core.context import GameHooks
from bot.core.rolls import check_macro
from bot.core.state import Character, RoomState, name_key
from systems.refusal import Refusal

MAX_FIELD_WORDS = 4
MAX_VALUE = 40
MAX_NUMBER = 10_000
SKIPPED_LINES = ("(", "📜")
"""Lines of an exported sheet that are not pasted back: its title and the state the table keeps."""
MACROS = "macros"
"""The sheet key of a character's macros (name -> expression)."""


def field_key(text: str) -> str:
    """How a field name is compared: folded, words joined by ``_`` (``Conocimientos Generales``)."""
    return name_key(text).replace(" ", "_")


def find_field(game: GameHooks, name: str) -> str | None:
    """The key of the game's field called ``name`` (its key, its shown name or an alias), or None."""
    key = field_key(name)
    if key in game.sheet_fields:
        return key
    if key in game.sheet_aliases:
        return game.sheet_aliases[key]
    return next((k for k, shown in game.sheet_names.items() if field_key(shown) == key), None)


def shown_name(game: GameHooks, key: str) -> str:
    return game.sheet_names.get(key) or key.replace("_", " ")


FIELD_SEPARATORS = ":="
"""What may stand between a pasted field's name and its value besides a space (``Campo: valor``)."""
ENTRY_SEPARATORS = ",;"
"""What may stand between two pasted fields besides a new line."""
MAX_GUESSES = 1
GUESS_CUTOFF = 0.8


class YesNo(str):
    """A yes-or-no field (``sí``, ``si``, ``no``; ``s``/``n`` too), kept as written."""

    __slots__ = ()
    valid = "yes_no"

    def __new__(cls, value: str) -> YesNo:
        if name_key(value) not in (*vocab.YES, *vocab.NO):
            raise ValueError(value)
        return super().__new__(cls, value.strip())


class Flag(int):
    """A state the table sets on or off (Aturdido, Muerto...): ``sí``/``si``/``no`` or ``1``/``0``."""

    valid = "flag"

    def __new__(cls, value: str | int) -> Flag:
        word = name_key(str(value))
        if word in vocab.YES or word == "1":
            return super().__new__(cls, 1)
        if word in vocab.NO or word == "0":
            return super().__new__(cls, 0)
        raise ValueError(value)


def valid_code(field_type: type) -> str:
    """Which line of ``templates/core/sheet_valid.txt`` (or a game's ``sheet_valid.txt``, for a code
    ``<game>.<code>``) says what a field of ``field_type`` takes."""
    code = getattr(field_type, "valid", None)
    if isinstance(code, str):
        return code
    return "int" if issubclass(field_type, int) else "text"


def coerce(key: str, value: str, field_type: type) -> Any:
    """A field's value from text, or a refusal naming the field (by its key: ``read_edit`` names it
    as the game shows it)."""
    try:
        if field_type is int:
            number = int(value)
            if abs(number) > MAX_NUMBER:
                raise ValueError(value)
            return number
        if not value or len(value) > MAX_VALUE or not value.isprintable():
            raise ValueError(value)
        return value if field_type is str else field_type(value)
    except ValueError:
        raise Refusal("bad_sheet_value", field=key[:30], value=value[:30]) from None


@dataclass(frozen=True)
class Rejected:
    """A field of a paste that was not set, and why: ``unknown_field`` (``field`` as written, ``guess``
    the game's field it looks like) or ``bad_value`` (``field`` as the game shows it, ``valid`` the code
    of what it takes, see ``valid_code``)."""

    reason: str
    field: str
    value: str
    valid: str = ""
    guess: str = ""


@dataclass(frozen=True)
class SheetEdit:
    """What one ``!ficha`` line sets: field values and macros, and the fields it could not set."""

    values: dict[str, Any]
    macros: dict[str, str]
    rejected: tuple[Rejected, ...] = ()


def _leading_field(game: GameHooks, words: list[str]) -> tuple[str | None, int]:
    """The longest field name at the start of ``words`` and how many words it takes."""
    for cut in range(min(len(words), MAX_FIELD_WORDS), 0, -1):
        key = find_field(game, " ".join(words[:cut]))
        if key is not None:
            return key, cut
    return None, 0


def guess_field(game: GameHooks, name: str) -> str:
    """The game's field (as it shows it) whose name, short form or key is closest to a misspelt
    ``name``, or empty. Names are bounded (``MAX_FIELD_WORDS`` words, 30 characters)."""
    names = {field_key(shown): key for key, shown in game.sheet_names.items()}
    names.update({key: key for key in game.sheet_fields})
    names.update(game.sheet_aliases)
    from difflib import get_close_matches  # with the first misspelt field: a run may never need it

    close = get_close_matches(field_key(name[:30]), list(names), MAX_GUESSES, GUESS_CUTOFF)
    return shown_name(game, names[close[0]]) if close else ""


def _unknown(game: GameHooks, words: list[str]) -> Rejected:
    """An entry that starts with no field: its name is every word but the value (the last)."""
    name = " ".join(words[:-1][:MAX_FIELD_WORDS]) if len(words) > 1 else " ".join(words)
    value = words[-1] if len(words) > 1 else ""
    return Rejected("unknown_field", name[:30], value[:30], guess=guess_field(game, name))


def read_edit(game: GameHooks, text: str) -> SheetEdit:
    """The fields and macros in ``text`` (either form), and the fields it names that cannot be set. A
    line with no separator that does not read as pairs is one ``Campo valor`` whose value has several
    words: the export of a one-field sheet (``Arma Rifle de asalto``); if it is not that either, the
    pairs are the answer."""
    words = text.split()
    if any(mark in text for mark in (*ENTRY_SEPARATORS, "\n")) or (words and name_key(words[0]) in vocab.MACRO):
        return _read_entries(game, _pasted_entries(game, text))
    paired = _read_entries(game, _paired_entries(game, text))
    if not paired.rejected:
        return paired
    whole = _read_entries(game, _pasted_entries(game, text))
    return whole if not whole.rejected else paired


def _read_entries(game: GameHooks, entries: list[Any]) -> SheetEdit:
    values: dict[str, Any] = {}
    macros: dict[str, str] = {}
    rejected: list[Rejected] = []
    for entry in entries:
        if isinstance(entry, tuple) and entry[0] is None:
            name, _, expression = entry[1].partition("=")
            macro_name, expression = check_macro(name, expression)
            macros[macro_name] = expression
            continue
        words = entry if isinstance(entry, list) else []
        key, used = _leading_field(game, words)
        if key is None:
            rejected.append(_unknown(game, words))
            continue
        value = " ".join(words[used:])
        try:
            values.update(_field_values(game, key, value))
        except Refusal:
            rejected.append(Rejected("bad_value", shown_name(game, key), value[:30],
                                     valid_code(game.sheet_fields[key])))
    return SheetEdit(values, macros, tuple(rejected))


def _field_values(game: GameHooks, key: str, value: str) -> dict[str, Any]:
    """What ``Campo valor`` sets: the field, and for a field whose type names an ``inner`` field a
    value in parentheses sets that one too (Savage's ``Dureza 7 (2)``: Toughness and its armour)."""
    field_type = game.sheet_fields[key]
    inner = getattr(field_type, "inner", None)
    head, opening, tail = value.partition("(")
    if inner in game.sheet_fields and opening and tail.endswith(")"):
        return {key: coerce(key, head.strip(), field_type), inner: coerce(inner, tail[:-1].strip(),
                                                                          game.sheet_fields[inner])}
    return {key: coerce(key, value, field_type)}


def _pasted_entries(game: GameHooks, text: str) -> list[Any]:
    """``Campo valor, Campo: valor; Campo=valor`` lines; ``Macro NOMBRE = EXPR`` lines whole."""
    entries: list[Any] = []
    for line in text.splitlines():
        words = line.split()
        if not words or line.lstrip().startswith(SKIPPED_LINES):
            continue
        if name_key(words[0]) in vocab.MACRO:
            entries.append((None, " ".join(words[1:])))
            continue
        for part in line.replace(";", ",").split(","):
            if part.strip():
                entries.append(_entry_words(game, part))
    return entries


def _entry_words(game: GameHooks, part: str) -> list[str]:
    """One pasted field's words: ``Campo: valor`` and ``Campo=valor``, unless what comes before the mark
    is a field and its value (a value may hold a colon: ``Arma M4:A1``)."""
    cut = next((i for i, char in enumerate(part) if char in FIELD_SEPARATORS), -1)
    head = part[:cut].split()
    if cut > 0 and (find_field(game, " ".join(head)) is not None or _leading_field(game, head)[0] is None):
        return [*head, *part[cut + 1:].split()]
    return part.split()


def _paired_entries(game: GameHooks, text: str) -> list[Any]:
    """``campo valor campo valor``: a field name (maybe several words) and a one-word value; ``campo:``
    and ``campo=valor`` read the same, and a value's ``(parenthesis)`` goes with it (``Dureza 7 (2)``). A
    word that starts no field takes the next word as its value, unless that one starts a field."""
    words = [piece for word in text.split() for piece in _split_marks(word) if piece]
    entries: list[Any] = []
    while words:
        key, used = _leading_field(game, words)
        if key is None:
            used = 1 if len(words) > 1 and _leading_field(game, words[1:])[0] is not None else min(2, len(words))
            entries.append(words[:used])
            words = words[used:]
            continue
        if len(words) > used + 1 and words[used + 1].startswith("("):
            used = next((i for i in range(used + 1, len(words)) if words[i].endswith(")")), len(words) - 1)
        entries.append(words[:used + 1])
        words = words[used + 1:]
    return entries


def _split_marks(word: str) -> list[str]:
    """A word with ``:`` or ``=`` in it, split there (``Agilidad:`` ``d8``, ``Pelear=d6``)."""
    for mark in FIELD_SEPARATORS:
        word = word.replace(mark, " ")
    return word.split()


def starts_fields(game: GameHooks, words: list[str]) -> bool:
    """Whether ``words`` start a sheet's fields: a field's name (``Pelear``, ``Pelear:``) and a value after
    it. What ``!pnj`` and ``!ficha`` read after a new name starts there (``Orco x3 Pelear d8, Parada 6``)."""
    head = [word.rstrip(FIELD_SEPARATORS + ENTRY_SEPARATORS) for word in words[:MAX_FIELD_WORDS + 1]]
    key, used = _leading_field(game, [word for word in head if word])
    return key is not None and len(words) > used and bool(" ".join(words[used:]).strip(FIELD_SEPARATORS + " "))


def fields_start(game: GameHooks, words: list[str], first: int = 1) -> int | None:
    """Where a sheet's fields start in ``words`` after a new name (``first`` words at least): at the first
    field name with a value after it, or, when a name would hold a separator (``,``, ``:``; a misspelt
    field in a paste), at the word before it: a name never holds one. None: no field at all."""
    for at in range(first, len(words)):
        if starts_fields(game, words[at:]):
            return at
        if has_separator(words[at]):
            return max(first, at - 1)
    return None


def has_separator(word: str) -> bool:
    """Whether ``word`` holds a mark that separates a paste's fields or a field from its value."""
    return any(mark in word for mark in FIELD_SEPARATORS + ENTRY_SEPARATORS)


def players_part(game: GameHooks, character: Character, edit: SheetEdit) -> tuple[SheetEdit, list[str]]:
    """What of a player's ``edit`` they may set, and the GM-only fields it would have changed (a paste
    of the sheet as exported carries them unchanged). An edit of nothing but GM-only fields is refused,
    naming the first."""
    kept = [key for key, value in edit.values.items() if key in game.gm_fields and character.sheet.get(key) != value]
    if kept and not edit.macros and all(key in game.gm_fields for key in edit.values):
        kind = "sheet_role_gm_only" if kept[0] in game.sheet_roles else "sheet_state_gm_only"
        raise Refusal(kind, name=character.name, field=shown_name(game, kept[0]))
    allowed = {key: value for key, value in edit.values.items() if key not in game.gm_fields}
    return replace(edit, values=allowed), kept


def derived_changes(game: GameHooks, character: Character, values: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The derived and starting numbers ``values`` changes on the sheet, as (shown name, old, new); one set
    for the first time is no change."""
    told = game.sheet_derived | game.sheet_starting
    return [(shown_name(game, key), character.sheet[key], value) for key, value in values.items()
            if key in told and key in character.sheet and character.sheet[key] != value]


def fits(value: Any, field_type: type) -> bool:
    """Whether a stored value is one ``field_type`` accepts (stored as its JSON type, and ``coerce``
    takes its text)."""
    stored_as = int if issubclass(field_type, int) else str
    if isinstance(value, bool) or not isinstance(value, stored_as):
        return False
    try:
        coerce("", str(value), field_type)
    except Refusal:
        return False
    return True


def play_in(room: RoomState, game: GameHooks, games: Iterable[GameHooks]) -> None:
    """Put the room's sheets, and what its combat keeps for a game, in ``game``: each character's sheet
    of the game it was in goes to ``other_sheets`` and its sheet of ``game`` (empty the first time) comes
    back. A sheet in no game yet (stored before sheets were kept per game, or just made) is taken as
    this game's, but for the keys that are fields of another game only (and fit it): those go to that
    game's sheet, since a ``!sistema`` on an older rolbot left both games' keys in one sheet."""
    for character in room.characters.values():
        if character.game is None:
            _place(character, game, games)
        elif character.game != game.key:
            if character.sheet:
                character.other_sheets[character.game] = character.sheet
            character.sheet = character.other_sheets.pop(game.key, {})
            character.game = game.key
    combat = room.combat
    if combat is not None and combat.game != game.key:
        if combat.game is not None:
            combat.other_data[combat.game] = combat.data
            combat.data = combat.other_data.pop(game.key, {})
        combat.game = game.key


def _place(character: Character, game: GameHooks, games: Iterable[GameHooks]) -> None:
    """The other games are listed (so loaded: ``Games``) only for a key ``game`` does not take: a new
    character's empty sheet loads none."""
    others: list[GameHooks] | None = None
    for key, value in list(character.sheet.items()):
        if key in game.sheet_fields and fits(value, game.sheet_fields[key]):
            continue
        if others is None:
            others = list(games)
        home = next((other.key for other in others if other.key != game.key and key in other.sheet_fields
                     and fits(value, other.sheet_fields[key])), None)
        if home is not None:
            character.other_sheets.setdefault(home, {})[key] = character.sheet.pop(key)
    character.game = game.key


def kept_state(game: GameHooks, character: Character) -> str:
    """What the table keeps on the sheet besides its fields (states, counters), shown, not pasted."""
    return ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in sorted(character.sheet.items())
                     if key not in game.sheet_fields and not key.startswith("_") and key != MACROS
                     and isinstance(value, (str, int)) and not isinstance(value, bool))


def export(game: GameHooks, character: Character) -> tuple[str, list[str]]:
    """The sheet as it pastes back: ``Campo valor, ...`` in the game's field order, and one
    ``Macro NOMBRE = EXPR`` line per macro."""
    sheet = character.sheet
    pairs = [f"{shown_name(game, key)} {sheet[key]}" for key in game.sheet_fields
             if key in sheet and isinstance(sheet[key], (str, int)) and not isinstance(sheet[key], bool)]
    macros = sheet.get(MACROS)
    lines = [f"Macro {name} = {expr}" for name, expr in macros.items()] if isinstance(macros, dict) else []
    return ", ".join(pairs), lines
