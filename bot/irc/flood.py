"""Flood control: a token bucket for every line the bot sends (servers kill a client that floods)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class TokenBucket:
    """``burst`` lines at once, then one every ``interval`` seconds."""

    def __init__(self, burst: int, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.interval = interval
        self.clock = clock
        self.tokens = float(burst)
        self._last = clock()

    def _refill(self) -> None:
        now = self.clock()
        if self.interval <= 0:
            self.tokens = float(self.burst)
        else:
            self.tokens = min(float(self.burst), self.tokens + (now - self._last) / self.interval)
        self._last = now

    def wait(self, debt: int = 0) -> float:
        """Seconds until a line may go (0: now); ``debt``: how many lines it may go ahead of the bucket
        (the lines after it wait for them)."""
        self._refill()
        need = 1 - debt
        return 0.0 if self.tokens >= need else (need - self.tokens) * self.interval

    def take(self) -> None:
        self._refill()
        self.tokens -= 1


class PerSender:
    """Yes to a sender at most once every ``interval`` seconds; at most ``size`` senders remembered."""

    def __init__(self, interval: float, size: int = 1000, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.size = size
        self.clock = clock
        self._last: OrderedDict[str, float] = OrderedDict()
        """Sender -> when they were last told yes, oldest first."""

    def allow(self, sender: str) -> bool:
        now = self.clock()
        while self._last and (len(self._last) >= self.size or next(iter(self._last.values())) <= now - self.interval):
            self._last.popitem(last=False)
        if sender in self._last:
            return False
        self._last[sender] = now
        return True
