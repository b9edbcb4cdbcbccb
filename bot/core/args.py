"""A command's arguments as a spec: what it takes, read from the text after its name, and its usage.

``Arg("NOMBRE")`` is the text the other elements leave (one word or more, as typed), ``Key(vocab.END)``
one keyword of the vocabulary (any of its words, shown by the first; ``gm=True``: a GM's part of the
command), ``User("@usuario")`` one word that starts with ``@``, ``Word("dN", r"d\\d+")`` one word of a
form (a count, a die), ``Rest("EXPR")`` all the text after the elements before it, untouched, for a
grammar of the command's own (a roll, a sheet), ``Opt(...)`` any of them or nothing.
``usage`` writes what ``!ayuda`` shows (``[fin]``, ``NOMBRE``, ``[nueva]``); ``parse`` gives what
was said, or None when the text does not fit (the command then answers with its usage)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.state import name_key

_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Arg:
    """The rest of the text, as typed (one word or more), shown as ``shown``."""

    shown: str


@dataclass(frozen=True, slots=True)
class Key:
    """One word of ``words`` (folded as ``name_key`` folds it), shown by the first (or by ``label``:
    ``arduo|dificil|compleja``). ``gm``: the alternative it starts is the GM's (``!acta borrar``), refused
    to a player before its words are read."""

    words: tuple[str, ...]
    gm: bool = False
    label: str = ""

    @property
    def shown(self) -> str:
        return self.label or self.words[0]


@dataclass(frozen=True, slots=True)
class User:
    """One word that starts with ``@`` (a user id, checked by the command), shown as ``shown``."""

    shown: str


@dataclass(frozen=True, slots=True)
class Word:
    """One word whose folded form (as ``name_key`` folds it) is all of ``pattern`` (``[+-]\\d{1,2}``,
    ``d\\d+``), given folded; shown as ``shown``."""

    shown: str
    pattern: str

    def fits(self, word: str) -> str | None:
        """``word`` folded when it is of the form, else None."""
        folded = name_key(word)
        return folded if re.fullmatch(self.pattern, folded) else None


@dataclass(frozen=True, slots=True)
class Rest:
    """The text after the elements before it (the last one of its sequence), exactly as typed: its
    spaces and line breaks kept, for the command's own grammar to read; shown as ``shown``, or not at
    all when ``shown`` is empty (``Opt(Rest())``: words after a keyword that the command ignores)."""

    shown: str = ""


@dataclass(frozen=True, slots=True)
class Opt:
    """``element`` or nothing, shown in brackets; with ``brackets=False`` shown as the element is, for a
    ``Rest`` whose grammar brackets its own parts (``[OBJETIVO] [habilidad|%]``) and reads no text too."""

    element: Arg | Key | User | Word | Rest
    brackets: bool = True

    @property
    def shown(self) -> str:
        return f"[{self.element.shown}]" if self.element.shown and self.brackets else self.element.shown


Element = Arg | Key | User | Word | Rest | Opt
Sequence = tuple[Element, ...]


@dataclass(frozen=True, slots=True)
class Either:
    """One of several sequences, shown ``A | B``; read trying first those that start with a keyword,
    so a keyword wins over a name (``reiniciar Orco`` restarts, with Orco)."""

    alternatives: tuple[Sequence, ...]

    def __init__(self, *alternatives: Sequence) -> None:
        object.__setattr__(self, "alternatives", alternatives)


Spec = Sequence | Either


@dataclass(frozen=True, slots=True)
class Parsed:
    """What the text said: each ``Arg``'s (``User``'s, ``Word``'s) text and each ``Key`` given (its word
    folded as its text: which of ``arduo|dificil|compleja``), by how the spec shows them."""

    texts: dict[str, str]
    keys: frozenset[str]

    def text(self, shown: str) -> str:
        """The text of ``Arg(shown)``, ``Word(shown)`` or ``Rest(shown)``; empty when an optional one was not
        given."""
        return self.texts.get(shown, "")

    def has(self, key: Key) -> bool:
        return key.shown in self.keys


def usage(spec: Spec) -> str:
    if isinstance(spec, Either):
        return " | ".join(shown for alternative in spec.alternatives if (shown := usage(alternative)))
    return " ".join(element.shown for element in spec if element.shown)


def required(spec: Spec) -> bool:
    """The spec takes something: a command with nothing after its name answers with its usage."""
    if isinstance(spec, Either):
        return all(required(alternative) for alternative in spec.alternatives)
    return any(not isinstance(element, Opt) for element in spec)


def gm_leads(spec: Spec) -> frozenset[str]:
    """The keywords that start an alternative of the GM's (a ``Key`` with ``gm``), as the vocabulary spells
    them: found once, when a command is declared (``gm_word`` reads them on every run)."""
    words: set[str] = set()
    for alternative in spec.alternatives if isinstance(spec, Either) else (spec,):
        lead = alternative[0].element if alternative and isinstance(alternative[0], Opt) else next(iter(alternative), None)
        if isinstance(lead, Key) and lead.gm:
            words.update(lead.words)
    return frozenset(words)


def gm_word(leads: frozenset[str], text: str) -> str | None:
    """The keyword ``text`` starts with when it is one of ``leads`` (``gm_leads``: it starts an alternative of
    the GM's); else None. A spec with none reads no word."""
    if not leads:
        return None
    first = next(_WORD.finditer(text), None)
    if first is None:
        return None
    word = name_key(first[0])
    return word if word in leads else None


def parse(spec: Spec, text: str) -> Parsed | None:
    """Read ``text`` by ``spec`` (``_sequence``; an ``Either`` by its first alternative that fits)."""
    if not isinstance(spec, Either):
        return _sequence(spec, text)
    keyed = sorted(spec.alternatives, key=lambda alternative: not (alternative and isinstance(alternative[0], Key)))
    return next((got for alternative in keyed if (got := _sequence(alternative, text)) is not None), None)


def _sequence(spec: Sequence, text: str) -> Parsed | None:
    """Read ``text`` by ``spec``: the elements before its ``Arg`` from the left and those after it from
    the right, one word each, and the ``Arg`` the words between (as typed); words left over, or a
    required element missing, make it None. One pass over the words (the text is bounded)."""
    end = spec[-1].element if spec and isinstance(spec[-1], Opt) else (spec[-1] if spec else None)
    if isinstance(end, Rest):
        return _rest(spec[:-1], end, isinstance(spec[-1], Opt), text)
    words = list(_WORD.finditer(text))
    split = next((i for i, e in enumerate(spec) if isinstance(e.element if isinstance(e, Opt) else e, Arg)), None)
    before, after = (spec, ()) if split is None else (spec[:split], spec[split + 1:])
    arg = None if split is None else spec[split]
    inner = arg.element if isinstance(arg, Opt) else arg
    least = 1 if isinstance(arg, Arg) else 0
    texts: dict[str, str] = {}
    keys: set[str] = set()
    first, last = 0, len(words)
    for element in before:
        taken = _one(element, words[first][0] if first < last else None, texts, keys)
        if taken is None:
            return None
        first += taken
    for element in reversed(after):
        taken = _one(element, words[last - 1][0] if last - first > least else None, texts, keys)
        if taken is None:
            return None
        last -= taken
    if inner is not None and first < last:
        texts[inner.shown] = text[words[first].start():words[last - 1].end()]
        first = last
    if first < last or (isinstance(arg, Arg) and arg.shown not in texts):
        return None
    return Parsed(texts, frozenset(keys))


def _rest(spec: Sequence, rest: Rest, optional: bool, text: str) -> Parsed | None:
    """Read ``text`` by ``spec`` (keywords, users, words) from the left, one word per element, and give
    ``rest`` the text after them, untouched (required: some word of it)."""
    texts: dict[str, str] = {}
    keys: set[str] = set()
    words = _WORD.finditer(text)
    word = next(words, None)
    end = 0
    for element in spec:
        taken = _one(element, word[0] if word else None, texts, keys)
        if taken is None:
            return None
        if taken and word is not None:
            end, word = word.end(), next(words, None)
    if word is None and not optional:
        return None
    if word is not None and rest.shown:
        texts[rest.shown] = text[end:]
    return Parsed(texts, frozenset(keys))


def _one(element: Element, word: str | None, texts: dict[str, str], keys: set[str]) -> int | None:
    """How many words (0 or 1) ``element`` takes of ``word``; None when it is required and ``word`` is
    not one."""
    optional = isinstance(element, Opt)
    inner = element.element if isinstance(element, Opt) else element
    if word is not None and isinstance(inner, Key) and (said := name_key(word)) in inner.words:
        keys.add(inner.shown)
        texts[inner.shown] = said
        return 1
    if word is not None and isinstance(inner, User) and word.startswith("@"):
        texts[inner.shown] = word
        return 1
    if word is not None and isinstance(inner, Word) and (folded := inner.fits(word)) is not None:
        texts[inner.shown] = folded
        return 1
    return 0 if optional else None
