"""A scripted RNG for exact tests: it yields chosen faces through ``random()``.

The engine turns ``random()`` into a face with ``int(x * sides) + 1``; feeding
``(face - 0.5) / sides`` makes it produce exactly ``face``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import product


class FaceRng:
    def __init__(self, rolls: Iterable[tuple[int, int]]) -> None:
        """``rolls``: (face, sides) pairs in the order the engine will roll them."""
        self._floats: Iterator[float] = iter([(f - 0.5) / s for f, s in rolls])

    def random(self) -> float:
        try:
            return next(self._floats)
        except StopIteration:
            raise AssertionError("the engine rolled more dice than scripted") from None

    def exhausted(self) -> bool:
        return next(self._floats, None) is None


def faces(sides: int, *values: int) -> FaceRng:
    """Shorthand when every die has the same number of sides."""
    return FaceRng((v, sides) for v in values)


def all_faces(*sides: int) -> Iterator[tuple[int, ...]]:
    """Every combination of faces for dice with these numbers of sides."""
    return product(*(range(1, s + 1) for s in sides))
