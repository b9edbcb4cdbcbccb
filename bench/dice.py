"""Rolls per second of rolbot's dice engine against Avrae's d20 library, same run.

    pip install d20   # only for this benchmark (or: pip install -e .[bench])
    python bench/dice.py [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import d20

from bot.games import GAMES
from systems.dice import roll

WINDOWS = 6

# (label, rolbot expression, equivalent d20 expression)
PAIRS = [
    ("1d20+5", "1d20+5", "1d20+5"),
    ("4d6kh3", "4d6kh3", "4d6kh3"),
    ("2d6 explosivos + 1d8", "2d6!+1d8", "2d6e6+1d8"),
    ("3d10", "3d10", "3d10"),
    ("10d6 + 3", "10d6+3", "10d6+3"),
]
# Savage trait roll d8 with the wild die, the semantics of d20's (1d8e8,1d6e6)kh1.
SAVAGE = ("rasgo SW d8 + dado salvaje", "d8", "(1d8e8,1d6e6)kh1")


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``fn`` over one window."""
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            fn()
        n += 100
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def compare(ours: Callable[[], object], theirs: Callable[[], object], seconds: float) -> tuple[float, float, float]:
    """Alternating windows, so machine load hits both alike: best rates and the median ratio of pairs."""
    pairs = [(rate(ours, seconds / WINDOWS), rate(theirs, seconds / WINDOWS)) for _ in range(WINDOWS)]
    ratio = statistics.median(o / t for o, t in pairs)
    return max(o for o, _ in pairs), max(t for _, t in pairs), ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.5)
    args = parser.parse_args()
    rng = random.Random(1)
    rows = [(label, (lambda e=ours: roll(e, rng)), (lambda e=theirs: d20.roll(e))) for label, ours, theirs in PAIRS]
    savage = GAMES["savage"].system
    rows.append((SAVAGE[0], lambda: savage.roll(SAVAGE[1], rng), lambda: d20.roll(SAVAGE[2])))
    print(f"{'expresión':32} {'rolbot/s':>12} {'d20/s':>12} {'ratio':>8}")
    ratios = []
    for label, ours, theirs in rows:
        r_ours, r_theirs, ratio = compare(ours, theirs, args.seconds)
        ratios.append(ratio)
        print(f"{label:32} {r_ours:12,.0f} {r_theirs:12,.0f} {ratio:7.1f}x")
    print("(ratio: mediana de ventanas alternas rolbot/d20)")
    print(f"{'mínimo':32} {'':12} {'':12} {min(ratios):7.1f}x  (objetivo >= 10x)")


if __name__ == "__main__":
    main()
