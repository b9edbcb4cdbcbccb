"""Pure game-system resolvers: data in, data out, RNG injected, no I/O."""

from __future__ import annotations

import importlib

from systems.base import GameSystem

SYSTEM_KEYS: tuple[str, ...] = ("generic", "savage", "stormbringer", "reino", "sombra")


def get_system(key: str) -> GameSystem:
    """The system registered under ``key`` (each lives in ``systems/<key>.py`` as ``SYSTEM``)."""
    if key not in SYSTEM_KEYS:
        raise KeyError(key)
    return importlib.import_module(f"systems.{key}.resolver").SYSTEM
