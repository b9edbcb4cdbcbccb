"""The generic game's data in ``combat.data``."""

from __future__ import annotations

ROLLS = "rolls"
"""In ``combat.data``: each initiative roll as ``[total, bonus, name]``."""
