"""Savage Worlds' sheet: its fields and value types, how each is shown, and the sheet read as the rules'
character (conditions, Wild Card, edges, group) and written back.
"""

from __future__ import annotations

import re

from bot.core.api import Character, Flag, YesNo
from systems.savage.state import SavageCharacter
from systems.savage.syntax import fold

_DIE = re.compile(r"^d(4|6|8|10|12|20)([+-]\d{1,2})?$")


class TraitDie(str):
    """A trait's die as the sheet keeps it (``d8``, ``d12+1``); anything else is a bad value."""

    __slots__ = ()
    valid = "savage.trait_die"

    def __new__(cls, value: str) -> TraitDie:
        die = value.strip().lower()
        if not _DIE.match(die):
            raise ValueError(value)
        return super().__new__(cls, die)


class Toughness(int):
    """Dureza, a number; pasted as ``Dureza 7 (2)`` the number in parentheses is its armour (Armadura)."""

    valid = "savage.toughness"
    inner = "armadura"


ATTRIBUTES = ("agilidad", "astucia", "espiritu", "fuerza", "vigor")


SKILLS = (
    "atletismo", "conocimientos_generales", "notar", "persuadir", "sigilo", "academicas", "apostar", "batalla",
    "cabalgar", "ciencia", "conducir", "disparar", "electronica", "fe", "hechiceria", "idiomas", "interpretar",
    "intimidar", "investigar", "latrocinio", "navegar", "ocultismo", "pelear", "pilotar", "provocar", "psionica",
    "reparar", "sanar", "supervivencia", "concentracion", "ciencia_extrana", "informatica",
)


SHEET_FIELDS: dict[str, type] = {
    **dict.fromkeys(ATTRIBUTES, TraitDie), **dict.fromkeys(SKILLS, TraitDie),
    "parada": int, "dureza": Toughness, "armadura": int, "paso": int, "municion": int, "cargador": int,
    "bennies": int, "heridas": int, "fatiga": int,
    "nervios_de_acero": int, "arma": str, "arma_tipo": str, "arma_dano": str,
    "comodin": YesNo, "grupo": str, "rapido": str, "temple": str,
    **dict.fromkeys(("aturdido", "incapacitado", "desangrando", "muerto", "fuera"), Flag),
}


_FLAGS = {"aturdido": "shaken", "incapacitado": "incapacitated", "desangrando": "bleeding", "muerto": "dead", "fuera": "out"}


_NO = ("no", "0", "n", "false", "extra")


def savage_of(character: Character) -> SavageCharacter:
    """The resolver's view of a character's sheet (missing fields take the resolver's defaults)."""
    sheet = character.sheet
    base = SavageCharacter(character.name)
    return SavageCharacter(
        character.name,
        wild_card=is_wild_card(character),
        parry=parry_of(character),
        toughness=int(sheet.get("dureza", base.toughness)),
        bennies=max(0, int(sheet.get("bennies", 0))),
        wounds=min(max(0, int(sheet.get("heridas", 0))), 3),
        fatigue=min(max(0, int(sheet.get("fatiga", 0))), 2),
        **{attr: bool(sheet.get(key, 0)) for key, attr in _FLAGS.items()},
    )


def parry_of(character: Character) -> int:
    """Parada from the sheet; without it, 2 plus half the Pelear die, 2 without Pelear (000: «2 más la mitad
    del dado de Pelear, 2 a secas en el caso de que no tenga dicha habilidad»); a die's bonus counts half,
    rounded down."""
    if "parada" in character.sheet:
        return int(character.sheet["parada"])
    die = sheet_die(character, "pelear")
    if die is None:
        return SavageCharacter(character.name).parry
    sides, _, bonus = die[1:].partition("+")
    return 2 + int(sides.partition("-")[0]) // 2 + int(bonus or 0) // 2


def is_wild_card(character: Character) -> bool:
    """``Comodín`` on the sheet decides; without it, a player's character is a Wild Card and an NPC the
    GM created (``!pnj``, ``!turnos``, ``!iniciativa``, even one lent to a player) an Extra."""
    default = "no" if character.npc or character.lent else "si"
    return fold(str(character.sheet.get("comodin") or default).strip()) not in _NO


def nerves_of(character: Character) -> int:
    """How many wounds Nervios de acero lets the character ignore in its rolls (0 without the edge)."""
    try:
        return max(0, int(str(character.sheet.get("nervios_de_acero", 0))))
    except ValueError:
        return 0


def store(character: Character, savage: SavageCharacter) -> None:
    """Write the resolver's state back: counters always, condition flags only while set."""
    sheet = character.sheet
    sheet.update(bennies=savage.bennies, heridas=savage.wounds, fatiga=savage.fatigue)
    for key, attr in _FLAGS.items():
        if getattr(savage, attr):
            sheet[key] = 1
        else:
            sheet.pop(key, None)


def sheet_die(character: Character, key: str) -> str | None:
    """A trait die from the sheet (``d8``, ``d6+1``), or None when missing or malformed."""
    return normal_die(str(character.sheet.get(key, "")))


def normal_die(text: str) -> str | None:
    die = text.strip().lower()
    return die if _DIE.match(die) else None


def edges_of(character: Character) -> tuple[int, bool]:
    """The initiative edges on the sheet: Temple's extra cards (``sí`` 1, ``mejorado`` 2) and Rápido."""
    temple = str(character.sheet.get("temple", "no")).strip().lower()
    extra = 0 if temple in _NO else 2 if temple in ("mejorado", "2") else 1
    return extra, str(character.sheet.get("rapido", "no")).strip().lower() not in _NO


def group_of(character: Character) -> str:
    """Extras sharing a card have the same ``grupo``; anyone else is their own group."""
    return str(character.sheet.get("grupo") or character.name)


NAMES = {
    "agilidad": "Agilidad", "astucia": "Astucia", "espiritu": "Espíritu", "fuerza": "Fuerza", "vigor": "Vigor",
    "atletismo": "Atletismo", "conocimientos_generales": "Conocimientos Generales", "notar": "Notar",
    "persuadir": "Persuadir", "sigilo": "Sigilo", "academicas": "Académicas", "apostar": "Apostar",
    "batalla": "Batalla", "cabalgar": "Cabalgar", "ciencia": "Ciencia", "conducir": "Conducir",
    "disparar": "Disparar", "electronica": "Electrónica", "fe": "Fe", "hechiceria": "Hechicería",
    "idiomas": "Idiomas", "interpretar": "Interpretar", "intimidar": "Intimidar", "investigar": "Investigar",
    "latrocinio": "Latrocinio", "navegar": "Navegar", "ocultismo": "Ocultismo", "pelear": "Pelear",
    "pilotar": "Pilotar", "provocar": "Provocar", "psionica": "Psiónica", "reparar": "Reparar", "sanar": "Sanar",
    "supervivencia": "Supervivencia", "concentracion": "Concentración", "ciencia_extrana": "Ciencia Extraña",
    "informatica": "Informática", "parada": "Parada", "dureza": "Dureza", "armadura": "Armadura",
    "paso": "Paso", "municion": "Munición", "cargador": "Cargador", "bennies": "Bennies",
    "heridas": "Heridas", "fatiga": "Fatiga", "comodin": "Comodín", "grupo": "Grupo", "rapido": "Rápido", "temple": "Temple",
    "aturdido": "Aturdido", "incapacitado": "Incapacitado", "desangrando": "Desangrando", "muerto": "Muerto",
    "fuera": "Fuera",
    "nervios_de_acero": "Nervios de acero", "arma": "Arma", "arma_tipo": "Tipo de arma", "arma_dano": "Daño",
}


ALIASES = {
    "agi": "agilidad", "ast": "astucia", "esp": "espiritu", "fue": "fuerza", "vig": "vigor",
    "pelea": "pelear", "disparo": "disparar", "disparos": "disparar", "atletismo_lanzar": "atletismo",
    "lanzar": "atletismo", "arrojar": "atletismo", "conocimientos": "conocimientos_generales",
    "conocimiento_general": "conocimientos_generales", "saber": "academicas", "sanacion": "sanar", "medicina": "sanar",
    "curar": "sanar", "montar": "cabalgar", "robar": "latrocinio", "hackear": "informatica", "hacker": "informatica",
    "tacticas": "batalla", "nervios": "nervios_de_acero", "dano": "arma_dano", "danio": "arma_dano", "dano_del_arma": "arma_dano",
    "dano_arma": "arma_dano",
    "tipo": "arma_tipo", "pa": "paso", "balas": "municion",
}
