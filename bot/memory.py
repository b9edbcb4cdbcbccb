"""Giving the start-up's freed memory back to the system (docs/performance.md, memory).

The start-up (imports, the stored rooms, the first sync's JSON) leaves freed blocks inside glibc's
heap that it keeps for later: once the bot is ready, a full collection and ``malloc_trim`` return
them, so the resident size at rest is what the bot holds, not what it once parsed.
"""

from __future__ import annotations

import ctypes
import gc


def release_freed_memory() -> None:
    """A full garbage collection, then glibc's ``malloc_trim(0)`` (only the collection on another libc)."""
    gc.collect()
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
