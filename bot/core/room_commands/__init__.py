"""The commands every room has (docs/contracts.md#3.3), one module per subject."""

from __future__ import annotations

from bot.core.commands import CommandGroup
from bot.core.room_commands import acta, characters, combat, rolls, room, screen
from bot.core.room_commands.room import help_topics

__all__ = ["COMMANDS", "help_topics"]

COMMANDS = CommandGroup.joined(room.COMMANDS, rolls.COMMANDS, characters.COMMANDS, combat.COMMANDS, acta.COMMANDS,
                               screen.COMMANDS)
