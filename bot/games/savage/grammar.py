"""The savage table's own grammar for what its commands take as a ``Rest`` or a name: who is named
first (a character of the room), an area's dice and targets, a surprise's two sides."""

from __future__ import annotations

from bot.core.api import MAX_NAME, Character, Context
from systems.savage.syntax import fold

AGAINST = " contra "
ROF_WORDS = ("rof", "cdf", "cadencia")
"""The words of a rate of fire (``rof 3``), in ``!tiro`` and ``!ataque``."""


def actor_and_rest(ctx: Context, text: str) -> tuple[Character, str]:
    """``NOMBRE resto`` or, without a known name, the one acting for the sender; and the rest."""
    character, words = ctx.own_or_named(text)
    return character, " ".join(words)


def named(ctx: Context, text: str) -> tuple[Character | None, str]:
    """A known character at the start of ``text`` (or None) and the rest."""
    character, words = ctx.split_name(text)
    return character, " ".join(words)


def rate_of_fire(text: str) -> tuple[int | None, str]:
    """``... rof 3 ...`` (``cdf 3``, ``cadencia 3``) anywhere in an attack's words: the rate, and the words
    without it; (None, text) without one."""
    words = text.split()
    for i, word in enumerate(words[:-1]):
        if fold(word) in ROF_WORDS and words[i + 1].isdigit() and len(words[i + 1]) <= 2:
            return int(words[i + 1]), " ".join([*words[:i], *words[i + 2:]])
    return None, text


def two_names(ctx: Context, text: str, first_default: Character | None) -> tuple[Character | None,
                                                                                  Character | None, str]:
    """``[QUIEN] NOMBRE resto``: who does it (``first_default`` when one name is given), to whom, the rest."""
    first, rest = named(ctx, text)
    second, extra = named(ctx, rest) if first and rest else (None, rest)
    return (first, second, extra) if second else (first_default, first, extra)


def area_parts(text: str) -> tuple[str, list[str]]:
    """``DADOS [aumento] contra NOMBRE, NOMBRE...``: the dice and the names."""
    dice, _, names = text.partition(AGAINST)
    return dice.strip(), [name.strip() for name in names.split(",") if name.strip()]


def surprise_sides(text: str) -> tuple[list[str], list[str]] | None:
    """``ATACANTES / SORPRENDIDOS``: both lists of names (no victims without the ``/``), or None when
    there is no attacker or a name is too long."""
    attackers_text, _, victims_text = text.partition("/")
    attackers, victims = _names(attackers_text), _names(victims_text)
    return (attackers, victims) if attackers and victims is not None else None


def _names(text: str) -> list[str] | None:
    names = [" ".join(n.split()) for n in text.split(",") if n.strip()]
    return names if all(len(n) <= MAX_NAME for n in names) else None


def attacker(ctx: Context, text: str) -> tuple[Character | None, str]:
    """``ATACANTE contra OBJETIVO ...`` (as in ``!tiro``) or just ``OBJETIVO ...`` for the one acting."""
    words = text.split()
    folded = [fold(w) for w in words]
    if "contra" in folded[1:]:
        cut = folded.index("contra", 1)
        found, rest = ctx.split_name(" ".join(words[:cut]))
        if found is not None and not rest:
            return found, " ".join(words[cut + 1:])
    return ctx.acting_character(), text
