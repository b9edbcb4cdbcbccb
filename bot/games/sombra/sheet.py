"""Sistema Sombra's sheet: attributes, skills (0-30), the weapon and the hit-location table (fields,
value types, how each is shown) and how the table reads them (wounds, zone armour, weapon damage).
"""

from __future__ import annotations

from typing import Any

from bot.core.api import (
    Character,
    Context,
    Flag,
)
from systems.dice import DiceError
from systems.refusal import Refusal
from systems.sombra.rules import BAYONET_FALLBACK, MELEE_SKILLS
from systems.sombra.syntax import MELEE_TYPES, TABLE_WORDS, plain, read_weapon
from systems.sombra.wounds import WoundEffect, combined_effect

ATTRIBUTES = ("fue", "res", "vit", "agi", "coo", "vel", "con", "int", "per", "inv", "log", "mem", "apa", "car", "vol")
ATTACK_SKILLS = ("disparo", "pelea", "arrojar", "pistola", "fusil", "ametralladora", "lanzar", "cuchillo", "bayoneta")
SKILLS = ("disparo", "pelea", "arrojar", "esquivar", "pistola", "fusil", "ametralladora", "lanzar", "cuchillo", "bayoneta",
          "alerta", "sigilo", "conducir", "pilotar", "nadar", "trepar", "primeros_auxilios", "orientacion", "explosivos", "radio",
          "idiomas", "mando")
"""Every skill of the sheet (0-30), in the order ``!ficha`` lists them. 004's names are these or their aliases:
«armas blancas» is ``cuchillo`` (the key sheets were stored with), «lucha desarmado» ``pelea``, «bayoneta» its own."""
MAX_SKILL = 30
NAMES = {
    "fue": "FUE", "res": "RES", "vit": "VIT", "agi": "AGI", "coo": "COO", "vel": "VEL", "con": "CON", "int": "INT",
    "per": "PER", "inv": "INV", "log": "LOG", "mem": "MEM", "apa": "APA", "car": "CAR", "vol": "VOL",
    "disparo": "Disparo", "pelea": "Pelea", "arrojar": "Arrojar", "pistola": "Pistola", "fusil": "Fusil",
    "ametralladora": "Ametralladora", "lanzar": "Lanzar", "cuchillo": "Armas blancas", "bayoneta": "Bayoneta",
    "esquivar": "Esquivar",
    "alerta": "Alerta", "sigilo": "Sigilo", "conducir": "Conducir", "pilotar": "Pilotar", "nadar": "Nadar",
    "trepar": "Trepar", "primeros_auxilios": "Primeros auxilios", "orientacion": "Orientación",
    "explosivos": "Explosivos", "radio": "Radio", "idiomas": "Idiomas", "mando": "Mando", "arma": "Arma",
    "tipo": "Tipo", "blindaje": "Blindaje", "flotabilidad": "Flotabilidad", "muerto": "Muerto",
    "motor": "Motor", "encasquillada": "Encasquillada", "volcado": "Volcado", "umbral": "Umbral mortal",
}
ALIASES = {
    "lucha": "pelea", "desarmado": "pelea", "lucha_desarmado": "pelea", "lucha_desarmada": "pelea",
    "pilotar_barcas": "pilotar", "pilotar_buques": "pilotar",
    "fuerza": "fue", "resistencia": "res", "vitalidad": "vit", "agilidad": "agi", "coordinacion": "coo",
    "velocidad": "vel", "concentracion": "con", "intuicion": "int", "percepcion": "per", "inventiva": "inv",
    "logica": "log", "memoria": "mem", "apariencia": "apa", "carisma": "car", "voluntad": "vol",
    "disparar": "disparo", "subfusil": "fusil", "granada": "lanzar", "esquiva": "esquivar", "curar": "primeros_auxilios",
}
DEAD, JAMMED, CAPSIZED, ENGINE, THRESHOLD = "muerto", "encasquillada", "volcado", "motor", "umbral"
WOUNDS, ZONE_ARMOUR, FLOTATION_LOST = "heridas", "blindaje_zonas", "flotabilidad_perdida"
REQUIRED: dict[str, tuple[str, ...]] = {"persona": ("res",), "vehiculo": ("blindaje",),
                                        "barco": ("blindaje", "flotabilidad")}
UNARMED, KNIFE = "0", "I"


class SkillValue(int):
    """A skill on the sheet: 0 to 30, the rules' range; anything else is a bad value."""

    valid = "sombra.skill"

    def __new__(cls, value: str) -> SkillValue:
        number = int(str(value).strip())
        if not 0 <= number <= MAX_SKILL:
            raise ValueError(value)
        return super().__new__(cls, number)


class WeaponDamage(str):
    """A sheet's ``arma``: a damage type and bonus the system reads (``II+2``, ``0``)."""

    __slots__ = ()
    valid = "sombra.weapon"

    def __new__(cls, value: str) -> WeaponDamage:
        try:
            weapon_type(value.strip())
        except DiceError:
            raise ValueError(value) from None
        return super().__new__(cls, value.strip())


class TableKind(str):
    """A sheet's ``tipo``: which hit-location table the character uses (persona, vehículo, barco)."""

    __slots__ = ()
    valid = "sombra.table"

    def __new__(cls, value: str) -> TableKind:
        if plain(value.strip()) not in TABLE_WORDS:
            raise ValueError(value)
        return super().__new__(cls, value.strip())


SHEET_FIELDS: dict[str, type] = {
    **dict.fromkeys(("fue", "res", "vit", "agi", "coo", "vel", "con", "int", "per", "inv", "log", "mem", "apa", "car",
                     "vol"), int),
    **dict.fromkeys(SKILLS, SkillValue),
    "arma": WeaponDamage, "tipo": TableKind, "blindaje": int, "flotabilidad": int, "muerto": Flag,
    "motor": int, "encasquillada": int, "volcado": int, "umbral": Flag,
}


def sheet_int(character: Character, key: str) -> int | None:
    value = character.sheet.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def table_of(character: Character) -> str | None:
    """The target's hit-location table from its ``tipo`` (people by default); None if unknown."""
    return TABLE_WORDS.get(plain(str(character.sheet.get("tipo", "persona"))))


def wounds_of(character: Character) -> dict[str, dict[str, Any]]:
    return dict(character.sheet.get(WOUNDS) or {})


def wound_effect(character: Character) -> WoundEffect:
    return combined_effect(wounds_of(character))


def target_with_table(ctx: Context, args: str) -> tuple[Character, str, list[str]]:
    """The named character with a known ``tipo`` and the sheet fields its table needs; else a refusal."""
    character, rest = ctx.named_character(args)
    table = table_of(character)
    if table is None:
        raise Refusal("sombra/table_bad_kind", name=character.name, value=str(character.sheet.get("tipo"))[:30])
    require_fields(character, REQUIRED[table])
    return character, table, rest


def require_fields(character: Character, fields: tuple[str, ...]) -> None:
    """Refuse when the sheet lacks any of ``fields``, naming them."""
    absent = [f for f in fields if sheet_int(character, f) is None]
    if absent:
        raise Refusal("sombra/table_missing", name=character.name, fields=absent)


FIRE_SKILLS = ("disparo", "pistola", "fusil", "ametralladora")
"""The firearm skills of 004 («Pistola», «Fusil/Subfusil», «Ametralladora») and the generic one."""


GENERIC_FIRE = "disparo"
"""The generic firearm skill: a sheet without it shoots with its own firearm's (``fire_skill``)."""


def fire_skill(character: Character, target: str | None) -> str:
    """The firearm skill of an attack (at ``target``; None: a plain ``!tiro disparo``) that names none: the
    sheet's only one; with several, a refusal that lists them (in the sheet's order); with none, one that
    says to name the weapon or paste its skill."""
    held = [(skill, value) for skill in character.sheet
            if skill in FIRE_SKILLS and (value := sheet_int(character, skill)) is not None]
    if len(held) == 1:
        return held[0][0]
    raise Refusal("sombra/table_weapon_skill", name=character.name, target=target, skills=held)


def weapon_type(weapon: str) -> int:
    """The damage type of a sheet's ``arma`` (``II+2``)."""
    return read_weapon(weapon).damage_type


def sheet_weapon(character: Character) -> str:
    return str(character.sheet.get("arma") or UNARMED)


def weapon_for(character: Character, skill: str) -> str:
    """The sheet's weapon, but bare hands for Pelea and a knife (type I) for a blade's skill when it is a gun."""
    weapon = sheet_weapon(character)
    if skill in MELEE_SKILLS and weapon_type(weapon) not in MELEE_TYPES:
        return UNARMED if skill == "pelea" else KNIFE
    return weapon


def dodge_value(character: Character) -> int:
    """The Esquivar capacity: the sheet's, else 2×AGI+VEL; a refusal naming it when neither is there."""
    value = sheet_int(character, "esquivar")
    if value is not None:
        return value
    agi, vel = sheet_int(character, "agi"), sheet_int(character, "vel")
    if agi is None or vel is None:
        raise Refusal("sombra/table_missing", name=character.name, fields=["esquivar"])
    return min(2 * agi + vel, MAX_SKILL)


def fighting_skill(character: Character) -> str:
    """Cuchillo with a blade in hand (type I) when the sheet has it, else Pelea."""
    armed = weapon_type(sheet_weapon(character)) == 1 and sheet_int(character, "cuchillo") is not None
    return "cuchillo" if armed else "pelea"




def skill_word(key: str) -> str:
    """A skill as the messages name it: its sheet name in lower case (``cuchillo`` is «armas blancas»)."""
    return NAMES.get(key, key).lower()


def bayonet_skill(character: Character) -> tuple[str, bool]:
    """The skill a bayonet attack (or a charge received) rolls, and whether it is fixed on another skill's
    weapon: the bayonet's own (004: «tirar por la habilidad de bayoneta»), else armas blancas, else fusil
    (one point harder); a refusal naming ``bayoneta`` when the sheet has none of them."""
    if sheet_int(character, "bayoneta") is not None:
        return "bayoneta", False
    for skill in BAYONET_FALLBACK:
        if sheet_int(character, skill) is not None:
            return skill, True
    raise Refusal("sombra/table_missing", name=character.name, fields=["bayoneta"])


def bayonet_weapon(character: Character) -> str:
    """A bayonet's damage: the sheet's weapon when it is a blade or a blow, else a knife's (type I)."""
    weapon = sheet_weapon(character)
    return weapon if weapon_type(weapon) in MELEE_TYPES else KNIFE
