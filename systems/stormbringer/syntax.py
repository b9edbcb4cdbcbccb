"""Parsing of the Spanish Stormbringer roll syntax into plain requests (no dice rolled here).

Keywords match case- and accent-insensitively; whatever follows the recognised options
is the roll's comment, as in the generic grammar.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from systems.dice import ConstantTerm, DiceError, DiceExpr, DiceTerm, parse_comment, parse_prefix
from systems.stormbringer.rules import (
    LOWER_GROUND_PENALTY,
    MAX_ACTIONS_IN_ROUND,
    MAX_MODIFIER,
    MAX_SKILL,
    Modifier,
    bounded,
)

MAX_CHARACTERISTIC = 99
MAX_THRESHOLD = 999
_FOLD = str.maketrans("áéíóúüÁÉÍÓÚÜ", "aeiouuAEIOUU")
_END = r"(?![^\s(])"

HEADS = {
    "ataque": "attack", "atacar": "attack", "ataca": "attack",
    "parada": "parry", "parar": "parry", "para": "parry",
    "esquiva": "dodge", "esquivar": "dodge", "evitar": "dodge", "evita": "dodge",
    "daño": "damage", "daños": "damage", "dano": "damage", "danos": "damage",
    "experiencia": "experience", "exp": "experience",
    "entrenamiento": "training", "entrenar": "training", "maestro": "training",
    "emboscada": "ambush",
    "sorpresa": "surprise",
    "iniciativa": "initiative",
    "demonio": "demon",
}
ORDINAL_WORDS = {"primer": 1, "segund": 2, "tercer": 3, "cuart": 4, "quint": 5}


@dataclass(slots=True)
class SkillRequest:
    """A d100 roll under a skill: check, attack, parry, dodge or ambush."""

    kind: str
    base: int
    modifiers: list[Modifier] = field(default_factory=list)
    ordinal: int = 1
    second_weapon: bool = False
    ambidextrous: bool = False
    riposte: bool = False
    factor: str = ""
    missile: str = ""
    against_critical: bool = False
    comment: str = ""


@dataclass(slots=True)
class DamageRequest:
    weapon: DiceExpr
    bonus: DiceExpr | None = None
    armour: DiceExpr | None = None
    critical: bool = False
    threshold: int | None = None
    comment: str = ""


@dataclass(slots=True)
class ExperienceRequest:
    skill: int
    intelligence: int = 12
    comment: str = ""


@dataclass(slots=True)
class TrainingRequest:
    attack: int | None = None
    parry: int | None = None
    comment: str = ""


@dataclass(slots=True)
class InitiativeRequest:
    attacker_dex: int
    defender_dex: int
    comment: str = ""


@dataclass(slots=True)
class PlainRequest:
    """A roll with no numbers of its own: ``sorpresa`` or ``demonio``."""

    kind: str
    comment: str = ""


Request = SkillRequest | DamageRequest | ExperienceRequest | TrainingRequest | InitiativeRequest | PlainRequest


class Scanner:
    """Walks the text: ``folded`` (accents removed, same length) is matched, ``text`` kept."""

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.folded = text.translate(_FOLD)
        self.pos = pos

    def take(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        m = pattern.match(self.folded, self.pos)
        if m:
            self.pos = m.end()
        return m

    def number(self, limit: int, what: str) -> int:
        m = self.take(_NUMBER)
        if m is None:
            raise DiceError("stormbringer.missing_number", what=what, text=_excerpt(self.rest))
        return _int(m[1], limit, "number_too_big")

    def expr(self) -> DiceExpr:
        expr, rest = parse_prefix(self.text[self.pos:])
        self.pos = len(self.text) - len(rest)
        return expr

    def dice_or_constant(self) -> DiceExpr:
        m = self.take(_NUMBER)
        if m:
            return DiceExpr((ConstantTerm(1, _int(m[1], MAX_THRESHOLD, "number_too_big")),))
        return self.expr()

    @property
    def rest(self) -> str:
        return self.text[self.pos:]

    def comment(self) -> str:
        return parse_comment(self.rest)


def _int(digits: str, limit: int, code: str) -> int:
    if len(digits) > len(str(limit)):
        raise DiceError(f"stormbringer.{code}", limit=limit)
    return bounded(int(digits), limit, code)


def _excerpt(text: str, limit: int = 20) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _opt(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\s*(?:" + pattern + ")" + _END, re.IGNORECASE)


_HEAD = re.compile(r"\s*([^\W\d_]+)" + _END, re.IGNORECASE)
_NUMBER = re.compile(r"\s*(\d+)%?" + _END)
_VS = re.compile(r"\s*(?:vs\.?|contra)" + _END, re.IGNORECASE)
_MODIFIER = _opt(r"([+-])\s*(\d+)%?")
_SECOND_WEAPON = _opt(r"dos\s+armas|2\s+armas|segunda\s+arma")
_AMBIDEXTROUS = _opt(r"ambidiestr[oa]")
_ORDINAL = _opt(r"x(\d+)|(\d+)[ªºao]|(primer|segund|tercer|cuart|quint)(?:[oa]|ero)?")
_RIPOSTE = _opt(r"respuesta|replica")
_HALF = _opt(r"mitad|fortificacion|fortificado")
_DOUBLE = _opt(r"doble|sorprendido|desprevenido")
_LOWER = _opt(r"(?:desde\s+)?abajo")
_MISSILE = _opt(r"proyectil|disparo|tiro|arrojadiza|lanzada")
_ARROW = _opt(r"flechas?|honda")
_VS_CRITICAL = _opt(r"(?:vs\.?\s+|contra\s+)?criti(?:co|ca)")
_BONUS = _opt(r"bf|bd|bonus|fue")
_ARMOUR = _opt(r"armadura|arm|proteccion")
_CRITICAL = _opt(r"criti(?:co|ca)|crit")
_THRESHOLD = _opt(r"grave|herida(?:\s+grave)?")
_INTELLIGENCE = _opt(r"int|inteligencia")


def parse_named(text: str) -> Request | None:
    """The request for a Spanish named roll, or None when the text starts with no keyword."""
    scan = Scanner(text)
    m = scan.take(_HEAD)
    if m is None or m[1].lower() not in HEADS:
        return None
    kind = HEADS[m[1].lower()]
    return _PARSERS[kind](scan, kind)


def parse_check(text: str) -> SkillRequest | None:
    """``d100 vs 46`` / ``d% vs 46%`` / ``vs 46``; None when the text is no check."""
    scan = Scanner(text)
    if not scan.take(_VS):
        expr = scan.expr()
        if not scan.take(_VS):
            return None
        _require_d100(expr)
    return _skill(scan, "check")


def _require_d100(expr: DiceExpr) -> None:
    term = expr.terms[0] if len(expr.terms) == 1 else None
    if not (isinstance(term, DiceTerm) and term.sign > 0 and term.count == 1 and term.sides == 100
            and not term.explode_at and not term.keep):
        raise DiceError("stormbringer.check_needs_d100", expr=expr.text)


def read_skill(kind: str, options: str, base: int | None = None) -> SkillRequest:
    """A roll of ``kind`` (check, attack, parry, dodge) under ``base`` from a sheet, or else under the
    percentage ``options`` starts with, and the options it writes (``+10``, ``dos armas``, ``flecha``…)."""
    return _skill(Scanner(options), kind, base)


def read_damage(options: str) -> DamageRequest:
    """The damage a GM writes: ``DADOS|PUNTOS [bf X] [armadura A] [grave N] [crítico]``."""
    return _parse_damage(Scanner(options), "damage")


def weapon_damage(weapon: str, bonus: str | None) -> DamageRequest:
    """The damage of a sheet's weapon (``daño``) and damage bonus (``bf``)."""
    if not weapon.strip():
        raise DiceError("stormbringer.missing_damage")
    return DamageRequest(Scanner(weapon).dice_or_constant(), Scanner(bonus).expr() if bonus else None)


def experience(skill: int, intelligence: int | None) -> ExperienceRequest:
    """The experience roll of a skill at ``skill`` for a character of INT ``intelligence`` (12 unknown)."""
    req = ExperienceRequest(_int(str(skill), MAX_SKILL, "number_too_big"))
    if intelligence is not None:
        req.intelligence = _int(str(intelligence), MAX_CHARACTERISTIC, "number_too_big")
    return req


def _skill(scan: Scanner, kind: str, base: int | None = None) -> SkillRequest:
    number = scan.number(MAX_SKILL, kind) if base is None else _int(str(base), MAX_SKILL, "number_too_big")
    req = SkillRequest(kind, number)
    options = _SKILL_OPTIONS[kind]
    while any(_apply(scan, req, pattern, handler) for pattern, handler in options):
        pass
    req.comment = scan.comment()
    return req


OptionHandler = Callable[[SkillRequest, re.Match[str]], None]


def _apply(scan: Scanner, req: SkillRequest, pattern: re.Pattern[str], handler: OptionHandler) -> bool:
    m = scan.take(pattern)
    if m:
        handler(req, m)
    return m is not None


def _add_modifier(req: SkillRequest, m: re.Match[str]) -> None:
    value = _int(m[2], MAX_MODIFIER, "modifier_too_big")
    req.modifiers.append(Modifier("user", -value if m[1] == "-" else value))


def _set_ordinal(req: SkillRequest, m: re.Match[str]) -> None:
    digits = m[1] or m[2]
    n = ORDINAL_WORDS[m[3].lower()] if m[3] else _int(digits, 99, "too_many_actions")
    if not 1 <= n <= MAX_ACTIONS_IN_ROUND:
        raise DiceError("stormbringer.too_many_actions", limit=MAX_ACTIONS_IN_ROUND)
    req.ordinal = n


def _set(attr: str, value: object) -> OptionHandler:
    def handler(req: SkillRequest, m: re.Match[str]) -> None:
        setattr(req, attr, value)
    return handler


def _lower_ground(req: SkillRequest, m: re.Match[str]) -> None:
    req.modifiers.append(Modifier("lower_ground", -LOWER_GROUND_PENALTY))


def _arrow_dodge(req: SkillRequest, m: re.Match[str]) -> None:
    raise DiceError("stormbringer.cannot_dodge_arrow")


_SKILL_OPTIONS: dict[str, list[tuple[re.Pattern[str], OptionHandler]]] = {
    "check": [(_MODIFIER, _add_modifier)],
    "ambush": [(_MODIFIER, _add_modifier)],
    "attack": [
        (_MODIFIER, _add_modifier),
        (_SECOND_WEAPON, _set("second_weapon", True)),
        (_AMBIDEXTROUS, _set("ambidextrous", True)),
        (_ORDINAL, _set_ordinal),
        (_RIPOSTE, _set("riposte", True)),
        (_HALF, _set("factor", "half")),
        (_DOUBLE, _set("factor", "double")),
        (_LOWER, _lower_ground),
    ],
    "parry": [
        (_MODIFIER, _add_modifier),
        (_ORDINAL, _set_ordinal),
        (_VS_CRITICAL, _set("against_critical", True)),
        (_ARROW, _set("missile", "arrow")),
        (_MISSILE, _set("missile", "missile")),
        (_LOWER, _lower_ground),
    ],
    "dodge": [
        (_MODIFIER, _add_modifier),
        (_VS_CRITICAL, _set("against_critical", True)),
        (_ARROW, _arrow_dodge),
        (_MISSILE, _set("missile", "thrown")),
    ],
}


def _parse_damage(scan: Scanner, kind: str) -> DamageRequest:
    if not scan.rest.strip():
        raise DiceError("stormbringer.missing_damage")
    req = DamageRequest(scan.dice_or_constant())
    while True:
        if scan.take(_BONUS):
            req.bonus = scan.expr()
        elif scan.take(_ARMOUR):
            req.armour = scan.dice_or_constant()
        elif scan.take(_CRITICAL):
            req.critical = True
        elif scan.take(_THRESHOLD):
            req.threshold = scan.number(MAX_THRESHOLD, "threshold")
        else:
            break
    req.comment = scan.comment()
    return req


def _parse_experience(scan: Scanner, kind: str) -> ExperienceRequest:
    req = ExperienceRequest(scan.number(MAX_SKILL, kind))
    if scan.take(_INTELLIGENCE):
        req.intelligence = scan.number(MAX_CHARACTERISTIC, "intelligence")
    req.comment = scan.comment()
    return req


def _parse_training(scan: Scanner, kind: str) -> TrainingRequest:
    req = TrainingRequest()
    if scan.take(_NUMBER_AHEAD):
        req.attack = scan.number(MAX_SKILL, "attack")
        req.parry = scan.number(MAX_SKILL, "parry")
    req.comment = scan.comment()
    return req


def _parse_initiative(scan: Scanner, kind: str) -> InitiativeRequest:
    attacker = scan.number(MAX_CHARACTERISTIC, "initiative")
    if not scan.take(_VS):
        raise DiceError("stormbringer.missing_number", what="initiative", text=_excerpt(scan.rest))
    defender = scan.number(MAX_CHARACTERISTIC, "initiative")
    return InitiativeRequest(attacker, defender, scan.comment())


def _parse_plain(scan: Scanner, kind: str) -> PlainRequest:
    return PlainRequest(kind, scan.comment())


_NUMBER_AHEAD = re.compile(r"(?=\s*\d+%?" + _END + ")")

_PARSERS: dict[str, Callable[[Scanner, str], Request]] = {
    "attack": _skill,
    "parry": _skill,
    "dodge": _skill,
    "ambush": _skill,
    "damage": _parse_damage,
    "experience": _parse_experience,
    "training": _parse_training,
    "initiative": _parse_initiative,
    "surprise": _parse_plain,
    "demon": _parse_plain,
}
