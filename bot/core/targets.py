"""Naming a character: the names closest to one that names none (``¿querías decir Guerrero 1?``, matched
as ``closest_command`` matches a command's name), and a command's target read from its words or refused.
A target that names no character is never read as a comment: the command is refused before it spends
anything."""

from __future__ import annotations

from collections.abc import Callable

from bot.core.state import MAX_NAME, MAX_NAME_WORDS, Character, RoomState, clean_name, name_key
from systems.refusal import Refusal

MAX_SUGGESTIONS = 3
"""How many close names a refusal suggests."""
_NUMBER_START = "0123456789+-%"
"""A first word that starts a number, a modifier or a percentage is no name."""


def edit_distance(a: str, b: str) -> int:
    """Levenshtein's: the insertions, deletions and substitutions that make ``a`` into ``b``."""
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, start=1):
        current = [i]
        for j, other in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]


def typos_allowed(name: str) -> int:
    """How many edits still make a typo of ``name`` (folded): one up to 4 letters, two beyond."""
    return 1 if len(name) <= 4 else 2


def closest_names(room: RoomState, words: list[str]) -> tuple[str, list[str]]:
    """The words at the start of ``words`` that come closest to a character's name (the first word when
    none does) and the names a typo away from them, closest first (at most ``MAX_SUGGESTIONS``). Names and
    words are bounded (``MAX_NAME``, ``MAX_NAME_WORDS``)."""
    found: list[tuple[int, int, str, str]] = []
    for order, character in enumerate(room.characters.values()):
        key = name_key(character.name)[:MAX_NAME]
        typed = " ".join(words[:min(len(character.name.split()), MAX_NAME_WORDS)])
        edits = edit_distance(name_key(typed)[:MAX_NAME], key)
        if edits <= typos_allowed(key):
            found.append((edits, order, character.name, typed))
    found.sort()
    typed = found[0][3] if found else (words[0] if words else "")
    return typed, [name for _, _, name, _ in found[:MAX_SUGGESTIONS]]


def unknown_name(room: RoomState, words: list[str], shown: str | None = None) -> Refusal:
    """The refusal for ``words`` that start with no character's name: the closest names (quoting the
    words that come closest), else the room's characters (quoting ``shown``, by default the first word)."""
    typed, closest = closest_names(room, words)
    quoted = typed if closest or shown is None else shown
    return Refusal("unknown_character", name=clean_name(quoted)[:MAX_NAME], known=room.character_names(),
                   closest=closest)


def target_named(room: RoomState, words: list[str],
                 reads: Callable[[list[str]], bool] | None = None) -> tuple[Character | None, list[str]]:
    """The character named at the start of ``words`` (the longest known name) and the words after it; no
    one (None and all the words) when there are no words, or they start with a number, a modifier, a
    percentage or what the command itself ``reads`` (its skills, weapons, options). Anything else names
    no character: refused with the closest names."""
    character, used = room.leading_character(words)
    if character is not None:
        return character, words[used:]
    if not words or words[0][0] in _NUMBER_START or (reads is not None and reads(words)):
        return None, words
    raise unknown_name(room, words)


def target_past(room: RoomState, attacker: Character, target: Character,
                words: list[str]) -> tuple[Character, list[str]]:
    """The target of ``attacker``'s blow when ``target_named`` read ``target`` and ``words``: the attacker's own
    name comes first when the GM names who acts (``!ataque Orco Kira`` on Orco's turn), so the target is the
    name after it; with no other name after it the blow would hit the attacker itself: refused."""
    if name_key(target.name) != name_key(attacker.name):
        return target, words
    following, rest = target_named(room, words, lambda _words: True)
    if following is None or name_key(following.name) == name_key(attacker.name):
        raise Refusal("self_target", name=attacker.name)
    return following, rest
