"""What the table already read this fight (issue 30: an explanation is not repeated within a combat).

A message's template asks ``first(KEY)`` before it shows a long explanation (what a failed parry means,
how to answer a blow); the first time in the fight it is True, later False, and the template shows the
short form. ``seen`` is the combat's stored list of keys, kept by each game's state module; the answer is
judged against the list as it was when the message started, so the room's copy and the GMs' copy of one
message, rendered one after the other, say the same.
"""

from __future__ import annotations

__all__ = ["Explained"]


class Explained:
    """``first(key)``: whether ``key`` is explained for the first time this fight (it is then noted)."""

    __slots__ = ("_before", "_seen")

    def __init__(self, seen: list[str] | None) -> None:
        """``seen`` None: no fight is running, every explanation is given."""
        self._seen = seen
        self._before = frozenset(seen or ())

    def __call__(self, key: str) -> bool:
        if self._seen is None:
            return True
        if key not in self._seen:
            self._seen.append(key)
        return key not in self._before
