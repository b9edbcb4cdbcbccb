"""What a game may use of the table core: its hooks, records, refusal and helpers, in one module.

A game package (``bot/games/<game>/``) imports the core only from here (``tests/core/test_layers.py``
checks it), so the core's own modules can move without touching a game. Nothing here is a core
command: a game that needs what a core command does calls the helper that command calls.
"""

from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, Parsed, Rest, User, Word
from bot.core.combat import (
    advance,
    announce_turn,
    can_act,
    drop_dead,
    end_turn,
    explainer,
    first_time,
    place_late,
    require_up,
)
from bot.core.commands import CommandGroup
from bot.core.context import CombatRules, Context
from bot.core.floor import consume_grant, grant, may_act
from bot.core.game import Game, GameModule, GameRegistry, ScreenAttack, ScreenControl, Vitality
from bot.core.moderation import acknowledge
from bot.core.quiet import joinable
from bot.core.records import Pending
from bot.core.rolls import RollRequest, SheetRoll, last_roll, opponent, read_request, resolve, roller, stamp
from bot.core.rolls import answer as answer_roll
from bot.core.rolls import require_up as require_roller_up
from bot.core.sheets import Flag, YesNo, find_field, shown_name
from bot.core.state import MAX_NAME, Character, Combat, RoomState, name_key
from bot.core.targets import target_named, target_past
from systems.refusal import Refusal

__all__ = [
    "MAX_NAME",
    "Arg",
    "Character",
    "Combat",
    "CombatRules",
    "CommandGroup",
    "Context",
    "Either",
    "Flag",
    "Game",
    "GameModule",
    "GameRegistry",
    "Key",
    "Opt",
    "Parsed",
    "Pending",
    "Refusal",
    "Rest",
    "RollRequest",
    "RoomState",
    "ScreenAttack",
    "ScreenControl",
    "SheetRoll",
    "User",
    "Vitality",
    "Word",
    "YesNo",
    "acknowledge",
    "advance",
    "announce_turn",
    "answer_roll",
    "can_act",
    "consume_grant",
    "drop_dead",
    "end_turn",
    "explainer",
    "find_field",
    "first_time",
    "grant",
    "joinable",
    "last_roll",
    "may_act",
    "name_key",
    "opponent",
    "place_late",
    "read_request",
    "require_roller_up",
    "require_up",
    "resolve",
    "roller",
    "shown_name",
    "stamp",
    "target_named",
    "target_past",
    "vocab",
]
