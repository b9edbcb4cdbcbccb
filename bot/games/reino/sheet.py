"""Reino's sheet: attributes, skills, saves and the weapon (fields, value types, how each is shown) and
how the table reads them (minions, bonuses from the sheet or the attribute behind them).
"""

from __future__ import annotations

from typing import Any

from bot.core.api import (
    YesNo,
    name_key,
)
from systems.dice import DiceError, parse
from systems.reino.resolver import MAX_MULTIPLIER, grip_named
from systems.reino.rules import Grip


class DamageDice(str):
    """A weapon's damage on the sheet (``Daño del arma 1d8+1``): a dice expression, checked when set."""

    __slots__ = ()

    def __new__(cls, value: str) -> DamageDice:
        try:
            parse(value)
        except DiceError:
            raise ValueError(value) from None
        return super().__new__(cls, value)


class WeaponGrip(str):
    """How the sheet's weapon is used (``una mano``, ``dos manos``, ``secundaria``, ``arrojadiza``,
    ``proyectil``, ``proyectil preparado``): the share of Strength its damage adds."""

    __slots__ = ()

    def __new__(cls, value: str) -> WeaponGrip:
        if sheet_grip(value) is None:
            raise ValueError(value)
        return super().__new__(cls, value)


def sheet_grip(value: object) -> Grip | None:
    """The grip a sheet's Tipo de arma names (``dos manos`` or ``dos_manos``), or None."""
    return grip_named(str(value).replace("_", " "))


class CriticalMultiplier(int):
    """The weapon's critical multiplier (``Crítico x3``, ``×3`` or ``3``), from 1 to the system's limit."""

    def __new__(cls, value: str | int) -> CriticalMultiplier:
        number = int(str(value).strip().lstrip("x×"))
        if not 1 <= number <= MAX_MULTIPLIER:
            raise ValueError(value)
        return super().__new__(cls, number)


SHEET_FIELDS: dict[str, type] = {
    "fuerza": int, "destreza": int, "constitucion": int, "inteligencia": int, "sabiduria": int, "carisma": int,
    "acrobacias": int, "atletismo": int, "conocimiento": int, "enganar": int, "intimidar": int, "medicina": int,
    "percepcion": int, "persuadir": int, "sigilo": int, "supervivencia": int, "montar": int, "juego_de_manos": int,
    "trato_con_animales": int, "concentracion": int, "buscar": int,
    "defensa": int, "esquiva": int, "rd": int, "pr": int, "rp": int, "pr_max": int, "umbral": int,
    "iniciativa": int, "fortaleza": int, "reflejos": int, "voluntad": int, "pa": int, "ataque": int, "secuaz": YesNo,
    "arma": str, "arma_dano": DamageDice, "arma_tipo": WeaponGrip, "arma_critico": CriticalMultiplier,
}


SAVES = {"fortaleza": "constitucion", "reflejos": "destreza", "voluntad": "sabiduria"}
"""The three saves and the attribute a sheet without the save uses."""


DEFAULT_CRITICAL = 2
"""A weapon's critical multiplier when the sheet gives none (003 leaves it to the weapon's stats)."""


STATES = "estados"


UNCONSCIOUS = "inconsciente"


DEAD = "muerto"


_YES = frozenset({"si", "s", "yes", "y", "true", "1", "x"})


def normalise_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``rp`` is the English spelling of ``pr``: the latest one set wins and is kept as ``pr``."""
    if "rp" in sheet:
        sheet["pr"] = sheet.pop("rp")
    return sheet


def is_minion(sheet: dict[str, Any], gms: bool) -> bool:
    """003: «A no ser que el Director de Juego lo especifique, los enemigos en combate ... siguen la regla
    de Secuaces»: a GM-owned sheet (``gms``) is a minion unless its Secuaz says no; a player's only
    when the GM says so."""
    given = sheet.get("secuaz")
    return gms if given is None else name_key(str(given)) in _YES


def sheet_bonus(sheet: dict[str, Any], key: str, fallback: dict[str, str]) -> tuple[int, str]:
    """The sheet's bonus for ``key`` and the field it came from: a missing one uses its attribute's
    modifier (``fallback``), or +0."""
    value = sheet.get(key)
    if isinstance(value, int):
        return value, key
    attribute = fallback.get(key)
    if attribute is not None and isinstance(sheet.get(attribute), int):
        return int(sheet[attribute]), attribute
    return 0, key


ATTRIBUTES = ("fuerza", "destreza", "constitucion", "inteligencia", "sabiduria", "carisma")


SKILLS = {
    "acrobacias": "destreza", "atletismo": "fuerza", "conocimiento": "inteligencia", "enganar": "carisma",
    "intimidar": "carisma", "medicina": "sabiduria", "percepcion": "sabiduria", "persuadir": "carisma",
    "sigilo": "destreza", "supervivencia": "sabiduria", "montar": "destreza", "juego_de_manos": "destreza",
    "trato_con_animales": "sabiduria", "concentracion": "constitucion", "buscar": "inteligencia",
}


FALLBACK = {**SKILLS, **SAVES}
"""What a roll named by a skill or save the sheet lacks adds instead: its attribute."""


NAMES = {
    "fuerza": "Fuerza", "destreza": "Destreza", "constitucion": "Constitución", "inteligencia": "Inteligencia",
    "sabiduria": "Sabiduría", "carisma": "Carisma", "acrobacias": "Acrobacias", "atletismo": "Atletismo",
    "conocimiento": "Conocimiento", "enganar": "Engañar", "intimidar": "Intimidar", "medicina": "Medicina",
    "percepcion": "Percepción", "persuadir": "Persuadir", "sigilo": "Sigilo", "supervivencia": "Supervivencia",
    "montar": "Montar", "juego_de_manos": "Juego de manos", "trato_con_animales": "Trato con animales",
    "concentracion": "Concentración", "buscar": "Buscar", "defensa": "Defensa", "esquiva": "Esquiva",
    "rd": "RD", "pr": "PR", "rp": "RP", "pr_max": "PR máx", "umbral": "Umbral", "iniciativa": "Iniciativa",
    "fortaleza": "Fortaleza", "reflejos": "Reflejos", "voluntad": "Voluntad", "pa": "PA", "ataque": "Ataque",
    "secuaz": "Secuaz", "arma": "Arma", "arma_dano": "Daño del arma", "arma_tipo": "Tipo de arma",
    "arma_critico": "Crítico del arma",
}


ALIASES = {
    "fue": "fuerza", "des": "destreza", "con": "constitucion", "int": "inteligencia", "sab": "sabiduria",
    "car": "carisma", "engano": "enganar", "percibir": "percepcion", "observar": "percepcion",
    "curar": "medicina", "defensa_total": "defensa", "reduccion_de_dano": "rd", "pv": "pr",
    "puntos_de_resistencia": "pr", "puntos_de_accion": "pa", "umbral_de_herida": "umbral",
    "ref": "reflejos", "vol": "voluntad", "fort": "fortaleza", "dano_del_arma": "arma_dano",
    "critico_del_arma": "arma_critico", "critico": "arma_critico", "tipo_de_arma": "arma_tipo",
}
