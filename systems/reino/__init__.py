"""El Reino de la Sombra (simplified d20): pure rules, resolver and rule cards."""

from systems.reino.resolver import SYSTEM, ReinoSystem

__all__ = ["SYSTEM", "ReinoSystem"]
