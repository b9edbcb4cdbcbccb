"""Sistema Sombra / Comandos de Guerra (3d10 roll-under): pure rules, resolver and rule cards."""

from systems.sombra.resolver import SYSTEM, SombraSystem

__all__ = ["SYSTEM", "SombraSystem"]
