"""Stormbringer / Elric (BRP, d100): pure rules, resolver and rule cards."""

from systems.stormbringer.resolver import SYSTEM, StormbringerSystem

__all__ = ["SYSTEM", "StormbringerSystem"]
