"""A command's arguments as a spec: what it takes, read from the text after its name, and its usage.

``Arg("NOMBRE")`` is the rest of the text (one word or more, as typed), ``Key(vocab.END)`` one keyword
of the vocabulary (any of its words, shown by the first), ``Opt(...)`` either of them or nothing.
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
    """One word of ``words`` (folded as ``name_key`` folds it), shown by the first."""

    words: tuple[str, ...]

    @property
    def shown(self) -> str:
        return self.words[0]


@dataclass(frozen=True, slots=True)
class Opt:
    """``element`` or nothing."""

    element: Arg | Key

    @property
    def shown(self) -> str:
        return f"[{self.element.shown}]"


Element = Arg | Key | Opt
Spec = tuple[Element, ...]


@dataclass(frozen=True, slots=True)
class Parsed:
    """What the text said: each ``Arg``'s text and each ``Key`` given, by how the spec shows them."""

    texts: dict[str, str]
    keys: frozenset[str]

    def text(self, shown: str) -> str:
        """The text of ``Arg(shown)``; empty when an optional one was not given."""
        return self.texts.get(shown, "")

    def has(self, key: Key) -> bool:
        return key.shown in self.keys


def usage(spec: Spec) -> str:
    return " ".join(element.shown for element in spec)


def required(spec: Spec) -> bool:
    """The spec takes something: a command with nothing after its name answers with its usage."""
    return any(not isinstance(element, Opt) for element in spec)


def parse(spec: Spec, text: str) -> Parsed | None:
    """Read ``text`` by ``spec``, left to right: a keyword takes one word, an ``Arg`` the rest; words
    left over, or a required element missing, make it None."""
    words = list(_WORD.finditer(text))
    at = 0
    texts: dict[str, str] = {}
    keys: set[str] = set()
    for element in spec:
        optional = isinstance(element, Opt)
        inner = element.element if isinstance(element, Opt) else element
        if isinstance(inner, Key):
            if at < len(words) and name_key(words[at][0]) in inner.words:
                keys.add(inner.shown)
                at += 1
            elif not optional:
                return None
        elif at < len(words):
            texts[inner.shown] = text[words[at].start():words[-1].end()]
            at = len(words)
        elif not optional:
            return None
    return Parsed(texts, frozenset(keys)) if at == len(words) else None
