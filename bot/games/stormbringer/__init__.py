"""Stormbringer at the table: statement of intent, phases, parries and dodges, damage, ambush."""

from importlib.resources import files

from bot.core.api import (
    Game,
    ScreenAttack,
)
from bot.games.stormbringer.combat import StormbringerCombat
from bot.games.stormbringer.commands import COMMANDS
from bot.games.stormbringer.rolls import StormbringerSheetRules
from bot.games.stormbringer.sheet import ALIASES, NAMES, SHEET_FIELDS
from systems.stormbringer import SYSTEM

__all__ = ["GAME"]

GAME = Game(
    "stormbringer", SYSTEM, StormbringerCombat(), SHEET_FIELDS, COMMANDS,
    templates=files("templates") / "stormbringer", cards=files("systems") / "stormbringer" / "cards.toml",
    sheet_rules=StormbringerSheetRules(), sheet_names=NAMES, sheet_aliases=ALIASES,
    sheet_starting=frozenset({"pv"}), sheet_state=frozenset({"pv", "arma_rota", "arma2_rota", "aturdido"}),
    sheet_derived=frozenset({"grave", "armadura", "bf"}),
    screen_attack=ScreenAttack(weapon=True, options=(frozenset({"+10", "+20", "-10", "-20"}),)),
)
