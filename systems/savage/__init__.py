"""Savage Worlds (SWADE house rules + XCOM variant): pure rules, resolver and rule cards."""

from systems.savage.resolver import SYSTEM, SavageSystem

__all__ = ["SYSTEM", "SavageSystem"]
