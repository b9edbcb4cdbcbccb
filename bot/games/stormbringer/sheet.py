"""Stormbringer's sheet: characteristics, skills and weapons (fields, value types, how each is shown) and
how the table reads them (weapon kinds, yes-or-no fields, experience marks).
"""

from __future__ import annotations

from bot.core.api import (
    Character,
    name_key,
)
from systems.stormbringer.rules import is_master

WEAPON_KINDS = {
    "cuerpo": "melee", "cuerpo a cuerpo": "melee", "melee": "melee",
    "proyectil": "missile", "tiro": "missile", "distancia": "missile", "missile": "missile",
    "arrojadiza": "thrown", "lanzada": "thrown", "thrown": "thrown",
    "arco": "bow", "flechas": "bow", "bow": "bow",
    "ballesta": "crossbow", "crossbow": "crossbow",
    "honda": "sling", "sling": "sling",
    "escudo": "shield", "shield": "shield",
    "ninguna": "none", "ninguno": "none", "sin": "none", "none": "none",
}
"""Sheet values of ``arma`` and ``arma2`` (the second weapon) -> weapon kind."""


class WeaponKind(str):
    """A sheet's ``arma`` or ``arma2``: one of the weapon kinds (``WEAPON_KINDS``), as written; anything
    else is a bad value (the kind decides the round's phase, dodging and parrying)."""

    __slots__ = ()
    valid = "stormbringer.weapon_kind"

    def __new__(cls, value: str) -> WeaponKind:
        if name_key(value) not in WEAPON_KINDS:
            raise ValueError(value)
        return super().__new__(cls, value.strip())


YES = ("si", "yes", "1", "true")


NO = ("no", "0", "false")


class YesNo(str):
    """A sheet's yes-or-no field (``ambidiestro``, ``arma_rota``): kept as «sí» or «no»."""

    __slots__ = ()

    def __new__(cls, value: str) -> YesNo:
        folded = name_key(value)
        if folded not in YES + NO:
            raise ValueError(value)
        return super().__new__(cls, "sí" if folded in YES else "no")


MISSILE_KINDS = ("missile", "thrown", "bow", "sling", "crossbow")


UNDODGEABLE_KINDS = ("bow", "sling", "crossbow")
"""Arrows, crossbow bolts (taken as arrows: the rules name only arrows) and sling stones cannot be
dodged, and only a shield parries them."""


SKILL_KINDS = {"arco": "bow", "honda": "sling", "ballesta": "crossbow", "escudo": "shield"}
"""A weapon skill that names its weapon's kind; the other weapon skills are melee weapons."""


MARKS_FIELD = "marcas"


def sheet_int(character: Character, field: str, default: int = 0) -> int:
    value = character.sheet.get(field, default)
    return value if isinstance(value, int) else default


def weapon_kind(character: Character, field: str = "arma") -> str:
    """The kind of the sheet's weapon (``arma``) or second weapon (``arma2``, "none" when unset): its
    ``arma_tipo`` / ``arma2_tipo``, else the weapon itself when it names a kind (``Arma arco``)."""
    default = "cuerpo" if field == "arma" else "ninguna"
    kind = character.sheet.get(f"{field}_tipo", character.sheet.get(field, default))
    return WEAPON_KINDS.get(name_key(str(kind)), "melee")


def phase_kind(character: Character) -> str:
    """The round phase the weapon attacks in: "missile", "melee" or "none"."""
    kind = weapon_kind(character)
    return "missile" if kind in MISSILE_KINDS else "none" if kind == "none" else "melee"


def yes(character: Character, field: str) -> bool:
    return name_key(str(character.sheet.get(field, "no"))) in YES


def unfit(character: Character, field: str = "arma") -> bool:
    """The weapon needs more FUE or DES (``arma_fue``, ``arma_des``) than the character has."""
    return any(isinstance(character.sheet.get(f"{field}_{stat}"), int)
               and sheet_int(character, stat) < sheet_int(character, f"{field}_{stat}") for stat in ("fue", "des"))


def has_shield(character: Character) -> bool:
    return "shield" in (weapon_kind(character), weapon_kind(character, "arma2"))


def master(character: Character) -> bool:
    return is_master(sheet_int(character, "ataque"), sheet_int(character, "parada"))


def marks(character: Character) -> list[str]:
    return [m for m in str(character.sheet.get(MARKS_FIELD, "")).split(",") if m]


def set_marks(character: Character, skills: list[str]) -> None:
    if skills:
        character.sheet[MARKS_FIELD] = ",".join(dict.fromkeys(skills))
    else:
        character.sheet.pop(MARKS_FIELD, None)


SHEET_FIELDS: dict[str, type] = {
    "fue": int, "con": int, "tam": int, "int": int, "pod": int, "des": int, "car": int, "pv": int, "grave": int,
    "armadura": str, "arma": str, "arma_tipo": WeaponKind, "arma2": str, "arma2_tipo": WeaponKind, "dano": str,
    "arma2_dano": str, "bf": str,
    "ataque": int, "parada": int, "esquiva": int, "emboscada": int, "ambidiestro": YesNo,
    "arma_fue": int, "arma_des": int, "arma2_fue": int, "arma2_des": int, "arma_pv": int, "arma2_pv": int,
    "arma_rota": YesNo, "arma2_rota": YesNo, "aturdido": YesNo,
    **dict.fromkeys(("ver", "escuchar", "otear", "buscar", "rastrear", "trepar", "saltar", "nadar", "esconderse",
                     "moverse_en_silencio", "equilibrio", "persuadir", "oratoria", "primeros_auxilios", "montar",
                     "navegar", "lanzar", "memorizar", "evaluar", "idioma_comun", "conocimiento_de_plantas",
                     "conocimiento_de_venenos", "musica", "cantar", "espada", "daga", "hacha", "lanza", "maza",
                     "arco", "honda", "ballesta", "escudo"), int),
}


CHARACTERISTICS = ("fue", "con", "tam", "int", "pod", "des", "car")


COMBAT_SKILLS = ("ataque", "parada", "esquiva", "emboscada")


WEAPON_SKILLS = ("espada", "daga", "hacha", "lanza", "maza", "arco", "honda", "ballesta", "escudo")


SKILLS = (
    "ver", "escuchar", "otear", "buscar", "rastrear", "trepar", "saltar", "nadar", "esconderse",
    "moverse_en_silencio", "equilibrio", "persuadir", "oratoria", "primeros_auxilios", "montar", "navegar",
    "lanzar", "memorizar", "evaluar", "idioma_comun", "conocimiento_de_plantas", "conocimiento_de_venenos",
    "musica", "cantar",
)


ATTACK_SKILLS = frozenset({"ataque", *WEAPON_SKILLS} - {"escudo"})


PARRY_SKILLS = frozenset({"parada", "escudo"})


NAMES = {
    "fue": "FUE", "con": "CON", "tam": "TAM", "int": "INT", "pod": "POD", "des": "DES", "car": "CAR",
    "pv": "PV", "grave": "Grave", "armadura": "Armadura", "arma": "Arma", "arma_tipo": "Tipo de arma", "arma2": "Arma2",
    "arma2_tipo": "Tipo de arma2", "dano": "Daño", "arma2_dano": "Daño del arma2",
    "bf": "BF", "ataque": "Ataque", "parada": "Parada", "esquiva": "Esquiva", "emboscada": "Emboscada",
    "ver": "Ver", "escuchar": "Escuchar", "otear": "Otear", "buscar": "Buscar", "rastrear": "Rastrear",
    "trepar": "Trepar", "saltar": "Saltar", "nadar": "Nadar", "esconderse": "Esconderse",
    "moverse_en_silencio": "Moverse en silencio", "equilibrio": "Equilibrio", "persuadir": "Persuadir",
    "oratoria": "Oratoria", "primeros_auxilios": "Primeros auxilios", "montar": "Montar", "navegar": "Navegar",
    "lanzar": "Lanzar", "memorizar": "Memorizar", "evaluar": "Evaluar", "idioma_comun": "Idioma común",
    "conocimiento_de_plantas": "Conocimiento de plantas", "conocimiento_de_venenos": "Conocimiento de venenos",
    "musica": "Música", "cantar": "Cantar", "espada": "Espada", "daga": "Daga", "hacha": "Hacha", "lanza": "Lanza",
    "maza": "Maza", "arco": "Arco", "honda": "Honda", "ballesta": "Ballesta", "escudo": "Escudo",
    "ambidiestro": "Ambidiestro", "arma_fue": "FUE del arma", "arma_des": "DES del arma", "arma2_fue": "FUE del arma2",
    "arma2_des": "DES del arma2", "arma_pv": "PV del arma", "arma2_pv": "PV del arma2", "arma_rota": "Arma rota",
    "arma2_rota": "Arma2 rota", "aturdido": "Aturdido",
}


ALIASES = {
    "fuerza": "fue", "constitucion": "con", "tamano": "tam", "inteligencia": "int", "poder": "pod",
    "destreza": "des", "carisma": "car", "puntos_de_vida": "pv", "herida_grave": "grave", "sigilo": "moverse_en_silencio",
    "esconder": "esconderse", "escuchar_ruidos": "escuchar", "primeros_auxilios": "primeros_auxilios",
    "curar": "primeros_auxilios", "danio": "dano", "arma_dano": "dano", "arma_danio": "dano",
    "dano2": "arma2_dano", "danio2": "arma2_dano", "arma2_danio": "arma2_dano",
    "tipo": "arma_tipo", "tipo_arma": "arma_tipo", "tipo_arma2": "arma2_tipo", "tipo2": "arma2_tipo",
    "ambidextro": "ambidiestro", "fue_del_arma": "arma_fue", "des_del_arma": "arma_des", "fue_del_arma2": "arma2_fue",
    "des_del_arma2": "arma2_des", "pv_del_arma": "arma_pv", "pv_del_arma2": "arma2_pv",
}


SKILL_KEYS = frozenset({*COMBAT_SKILLS, *WEAPON_SKILLS, *SKILLS})
