"""Each game system's table module: its combat hooks and its own commands (imported for registration)."""

from bot.games.reino import combat as reino_table  # noqa: F401
from bot.games.savage import combat as savage_table  # noqa: F401
from bot.games.sombra import table as sombra_table  # noqa: F401
from bot.games.stormbringer import combat as stormbringer_table  # noqa: F401
