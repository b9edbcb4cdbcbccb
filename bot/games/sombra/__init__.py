"""Sistema Sombra at the table: initiative by VEL/AGI, attacks with hit locations, wounds, boats."""

from importlib.resources import files

from bot.core.api import (
    Game,
    ScreenAttack,
)
from bot.games.sombra.combat import SombraCombat
from bot.games.sombra.commands import COMMANDS
from bot.games.sombra.rolls import SombraSheetRules
from bot.games.sombra.sheet import ALIASES, NAMES, SHEET_FIELDS
from systems.sombra import SYSTEM
from systems.sombra.syntax import LOCATION_WORDS

__all__ = ["GAME"]

GAME = Game(
    "sombra", SYSTEM, SombraCombat(), SHEET_FIELDS, COMMANDS,
    templates=files("templates") / "sombra", cards=files("systems") / "sombra" / "cards.toml",
    sheet_rules=SombraSheetRules(), sheet_names=NAMES, sheet_aliases=ALIASES,
    sheet_state=frozenset({"muerto", "encasquillada", "volcado", "umbral"}), sheet_roles=frozenset({"tipo"}),
    sheet_derived=frozenset({"blindaje", "flotabilidad", "motor"}), locations=frozenset(LOCATION_WORDS),
    screen_attack=ScreenAttack(weapon=True, options=(
        frozenset(f"apuntado {spot}" for spot in ("cabeza", "torso", "abdomen", "brazo", "pierna")),
        frozenset({"dificil", "muy dificil", "facil"}), frozenset({"prisa", "apuntando"}),
        frozenset(f"rafaga {n}" for n in range(2, 11)))),
)
