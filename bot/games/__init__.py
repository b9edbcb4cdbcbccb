"""The games a table offers: one line each (see docs/architecture.md, "Adding a game"), its key and its
package, imported when a room first needs that game.

The first is the default of a room with no ``system`` set.
"""

from bot.core.api import GameModule, GameRegistry

__all__ = ["GAMES"]

GAMES = GameRegistry(
    GameModule("generic", "bot.games.generic"),
    GameModule("savage", "bot.games.savage"),
    GameModule("stormbringer", "bot.games.stormbringer"),
    GameModule("reino", "bot.games.reino"),
    GameModule("sombra", "bot.games.sombra"),
)
