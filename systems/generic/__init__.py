"""The generic system: plain dice expressions, no house rules."""

from systems.generic.resolver import SYSTEM, GenericSystem

__all__ = ["SYSTEM", "GenericSystem"]
