"""El Reino de la Sombra at the table: action points, the surprise round, dying saves, states."""

from importlib.resources import files

from bot.core.api import (
    Game,
    ScreenAttack,
)
from bot.games.reino.combat import ReinoCombat
from bot.games.reino.commands import COMMANDS
from bot.games.reino.rolls import ReinoSheetRules
from bot.games.reino.sheet import ALIASES, NAMES, SHEET_FIELDS
from systems.reino import SYSTEM

__all__ = ["GAME"]

GAME = Game(
    "reino", SYSTEM, ReinoCombat(), SHEET_FIELDS, COMMANDS,
    templates=files("templates") / "reino", cards=files("systems") / "reino" / "cards.toml",
    sheet_rules=ReinoSheetRules(), sheet_names=NAMES, sheet_aliases=ALIASES,
    sheet_starting=frozenset({"pr", "rp", "pa"}), sheet_state=frozenset({"pr", "rp", "pa"}), sheet_roles=frozenset({"secuaz"}),
    screen_attack=ScreenAttack(options=(frozenset({"+2", "+1", "-1", "-2"}),)),
    sheet_derived=frozenset({"defensa", "esquiva", "rd", "umbral", "pr_max", "iniciativa", "fortaleza", "ataque"}),
)
