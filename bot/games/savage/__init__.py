"""Savage Worlds at the table: the action deck, bennies, damage and soak, hold and interrupt."""

from importlib.resources import files

from bot.core.api import Game, ScreenAttack, ScreenControl
from bot.games.savage.bennies import new_character, screen_notes, session_start
from bot.games.savage.burst import with_damage
from bot.games.savage.combat import SavageCombatRules
from bot.games.savage.commands import COMMANDS
from bot.games.savage.rolls import SavageSheetRules
from bot.games.savage.sheet import ALIASES, NAMES, SHEET_FIELDS, group_of
from systems.savage import SYSTEM

__all__ = ["GAME"]

GAME = Game(
    "savage", SYSTEM, SavageCombatRules(), SHEET_FIELDS, COMMANDS,
    templates=files("templates") / "savage", cards=files("systems") / "savage" / "cards.toml",
    sheet_rules=SavageSheetRules(burst=with_damage), sheet_names=NAMES, sheet_aliases=ALIASES,
    sheet_starting=frozenset({"bennies"}),
    sheet_state=frozenset({"bennies", "heridas", "fatiga", "aturdido", "incapacitado", "desangrando", "muerto", "fuera"}),
    sheet_roles=frozenset({"grupo", "comodin"}), sheet_derived=frozenset({"parada", "dureza", "armadura", "paso"}),
    screen_attack=ScreenAttack(by_name=True, options=(
        frozenset(f"apuntado {spot}" for spot in ("cabeza", "vitales", "cara", "extremidad", "mano")),
        frozenset({"distancia media", "distancia larga"}), frozenset({"multi 2", "multi 3"}),
        frozenset({"rof 2", "rof 3"}))),
    npc_words={"comodin": ("comodin", "si"), "wildcard": ("comodin", "si")},
    turn_group=group_of, new_character=new_character, session_start=session_start,
    screen_controls={"beni": ScreenControl("beni", name="character", text="change"),
                     "cerrar": ScreenControl("absorber", name="character", after="no")},
    screen_shows=frozenset({"beni master"}), screen_notes=screen_notes,
)
