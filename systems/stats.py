"""Dice statistics: how a room's rolls of each die size compare with a fair die (``!dados``).

The chi-square p-value is the regularised upper incomplete gamma function Q(k/2, x/2), computed in
closed form (a finite sum, plus ``erfc`` for odd degrees of freedom), not approximated by a table."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


def chi_square_p_value(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``degrees`` degrees of freedom."""
    if degrees < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if statistic <= 0:
        return 1.0
    half = statistic / 2
    if degrees % 2 == 0:
        terms = (math.exp(i * math.log(half) - half - math.lgamma(i + 1)) for i in range(degrees // 2))
        return min(1.0, math.fsum(terms))
    terms = (math.exp((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5)) for i in range(1, (degrees + 1) // 2))
    return min(1.0, math.erfc(math.sqrt(half)) + math.fsum(terms))


@dataclass(frozen=True, slots=True)
class DieStats:
    """The faces rolled on dice of one size, against a fair die of that size."""

    sides: int
    counts: tuple[int, ...]
    """How many times each face (1..sides) came up."""

    @property
    def rolled(self) -> int:
        return sum(self.counts)

    @property
    def mean(self) -> float:
        return sum(face * n for face, n in enumerate(self.counts, start=1)) / self.rolled

    @property
    def expected_mean(self) -> float:
        return (self.sides + 1) / 2

    @property
    def chi_square(self) -> float:
        expected = self.rolled / self.sides
        return sum((n - expected) ** 2 for n in self.counts) / expected

    @property
    def p_value(self) -> float:
        return chi_square_p_value(self.chi_square, self.sides - 1)


def die_stats(faces: Iterable[tuple[int, int]]) -> list[DieStats]:
    """One ``DieStats`` per die size among ``(sides, face)`` pairs, smallest size first. Faces out
    of range are ignored (a stored record is data, not trusted)."""
    return counted_die_stats((sides, face, 1) for sides, face in faces)


def counted_die_stats(counted: Iterable[tuple[int, int, int]]) -> list[DieStats]:
    """``die_stats`` from ``(sides, face, how_many)`` triples."""
    counts: dict[int, list[int]] = {}
    for sides, face, number in counted:
        if 2 <= sides <= 1000 and 1 <= face <= sides and number > 0:
            counts.setdefault(sides, [0] * sides)[face - 1] += number
    return [DieStats(sides, tuple(counts[sides])) for sides in sorted(counts)]
