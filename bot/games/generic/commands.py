"""The generic game's commands: none of its own (the core's commands serve it)."""

from bot.core.api import CommandGroup

COMMANDS = CommandGroup()
