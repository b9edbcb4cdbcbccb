"""The generic game: plain dice, initiative 1d20 plus the sheet's ``iniciativa``, no conditions."""

from importlib.resources import files

from bot.core.api import Game
from bot.games.generic.combat import GenericCombat
from bot.games.generic.commands import COMMANDS
from bot.games.generic.sheet import SHEET_FIELDS
from systems.generic import SYSTEM

__all__ = ["GAME"]

GAME = Game("generic", SYSTEM, GenericCombat(), SHEET_FIELDS, COMMANDS, templates=files("templates") / "generic")
