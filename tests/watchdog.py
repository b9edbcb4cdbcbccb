"""A hang detector for tests: an input that takes far too long fails instead of stalling CI.

It is not a speed check (speed lives in ``bench/``): the bound is generous on purpose."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

HANG_SECONDS = 10


@contextmanager
def watchdog(what: str, seconds: int = HANG_SECONDS) -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise AssertionError(f"no answer in {seconds} s: {what!r}"[:300])

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
