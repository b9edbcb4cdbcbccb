"""Each game system's table module: its combat hooks and its own commands (imported for registration)."""

from bot.games.reino import combat as reino_table
from bot.games.savage import combat as savage_table
from bot.games.sombra import table as sombra_table
from bot.games.stormbringer import combat as stormbringer_table  # noqa: F401
