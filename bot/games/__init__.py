"""The games a table offers: one line each (see docs/architecture.md, "Adding a game").

The first is the default of a room with no ``system`` set.
"""

from bot.core.api import GameRegistry
from bot.games import generic, reino, savage, sombra, stormbringer

__all__ = ["GAMES"]

GAMES = GameRegistry(
    generic.GAME,
    savage.GAME,
    stormbringer.GAME,
    reino.GAME,
    sombra.GAME,
)
