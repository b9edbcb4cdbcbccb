"""Parsing of the Spanish Savage Worlds roll syntax into plain requests (no rolling here).

    [verbo] dados [palabras clave...] [comentario]

Verbs: ``daño``, ``rof N`` / ``cdf N``, ``apoyar``, ``absorber``, ``espiritu``,
``incapacitado``, ``desangrar``; none means a trait roll. Keywords may appear in
any order after the dice; words that are not keywords form the comment. A signed
number among them (``d8 vs 6 +1``) is a modifier added to the dice, as in ``d8+1 vs 6``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from systems.dice import MAX_TEXT, ConstantTerm, DiceError, DiceExpr, minus_signs, parse_prefix
from systems.savage.rules import (
    CALLED_SHOTS,
    DEFAULT_TN,
    GM_SIZED_CALLED_SHOTS,
    CalledShot,
    TraitModifiers,
    ammo_for_rof,
)

MAX_TN = 999
MAX_MODIFIER = 999
MAX_SUPPORT_STEP = 4
MAX_TARGETS = 6
MAX_TARGET_NAME = 40
MIN_TRAIT_DIE, MAX_TRAIT_DIE = 4, 12
"""A trait roll with no ``vs`` is one of these dice (docs/contracts.md#3.1); a d20 or a d100 alone is plain dice."""

VERBS = {
    "dano": "damage", "danio": "damage", "damage": "damage",
    "rof": "rof", "cdf": "rof", "cadencia": "rof",
    "apoyar": "support", "apoyo": "support", "support": "support",
    "absorber": "soak", "absorcion": "soak", "soak": "soak",
    "espiritu": "recovery", "recuperar": "recovery", "recuperacion": "recovery",
    "incapacitado": "incapacitation", "incapacitacion": "incapacitation",
    "desangrar": "bleeding", "desangrado": "bleeding", "desangrandose": "bleeding",
}
_VERB = re.compile(r"\s*(" + "|".join(sorted(VERBS, key=len, reverse=True)) + r")(?![a-z])\s*")
_ROF_VALUE = re.compile(r"(\d+)\s*")
_STRENGTH_LABEL = re.compile(r"\bfue(?:rza)?\s+(?=\d*d\d)", re.IGNORECASE)

_NUM = r"([+-]?\d+)"
_SPOTS = r"(?:cabeza|cara|casco|vitales|mano|brazo|pierna|extremidad)"
"""The called shots said as «a la cabeza», «al brazo», «a los vitales»."""
NUMBER_WORDS = {"una": "1", "dos": "2", "tres": "3"}
DECLARED_ACTIONS = re.compile(r"acciones?\s+(\d+)|(\d+|una|dos|tres)\s+acci(?:on|ones)")
"""The actions of a turn said in words (``acciones 2``, ``2 acciones``, ``dos acciones``), folded."""


def actions_said(match: re.Match[str]) -> str:
    """The digits of a ``DECLARED_ACTIONS`` match (``dos`` -> ``2``)."""
    return match[1] or NUMBER_WORDS.get(match[2], match[2])
KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("tn", rf"(?:vs|vo|contra|dif)\s*{_NUM}\b"),
        ("tn_missing", r"(?:vs|vo|dif)\b"),
        ("extra", r"extra\b"),
        ("multi", r"(?:(?:multiacciones|multiaccion|multi|ma)\s*(\d+)|" + DECLARED_ACTIONS.pattern + r")\b"),
        ("unskilled", r"(?:sin entrenar|sin entrenamiento|hse)\b"),
        ("wounds", r"heridas?\s*(\d+)\b"),
        ("fatigue", r"fatiga(?:\s*(\d+))?\b"),
        ("joker", r"(?:comodin|joker)\b"),
        ("support", rf"apoyos?\s*{_NUM}\b"),
        ("strength", r"fuerza\b"),
        ("cover", r"cobertura\s+(casi total|ligera|media|pesada|total|\w+)\b"),
        ("light", r"(?:luz\s+(tenue|penumbra|\w+)|(penumbra|oscuridad total|oscuridad|a ciegas|a oscuras))\b"),
        ("range", r"(?:a\s+)?(?:distancia\s+(corta|media|larga|\w+)|(corta|media|larga)\s+distancia)\b"),
        ("prone", r"cuerpo\s+a\s+tierra\b"),
        ("recoil", r"retroceso\b"),
        ("bipod", r"bipode\b"),
        ("moving", r"(?:movimiento|en movimiento|pen\.?\s?mov)\b"),
        ("called", rf"(?:apuntado(?:\s*:\s*|\s+)|(?:a\s+la|al|a\s+los|a\s+las)\s+(?={_SPOTS}\b))(\w+)(?:\s*{_NUM}\b)?"),
        ("raise", r"(?:aumento|con aumento)\b"),
        ("shaken", r"aturdido\b"),
        ("armor", r"armadura\s*(\d+)\b"),
        ("incoming", r"recibe\s*(\d+)\b"),
        ("targets", r"(?:objetivos|objetivo|blancos)\s*:?\s*(.+)$"),
        ("modifier", r"([+-])\s*(\d+)\b"),
    )
)
UNPRICED: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (hint, re.compile(pattern))
    for hint, pattern in (
        ("moving", r"(?:moviendose|moviendome|moviendo|corriendo|me muevo|se mueve)\b"),
        ("prone", r"(?:tumbad[oa]s?|tendid[oa]s?|agachad[oa]s?|en el suelo|pecho a tierra)\b"),
        ("light", r"(?:luz|oscur[oa]s?|de noche|sin luz)\b"),
        ("range", r"(?:distancia|lejos|a lo lejos)\b"),
        ("cover", r"(?:cobertura|cubiert[oa]s?|parapetad[oa]s?)\b"),
        ("called", r"(?:apuntado|apuntando|apunto)\b"),
    )
)
"""Words that look like a modifier the rules do not price as said (``moviendo``, or a keyword's head
without its value): refused with a hint to the words that are, never taken as a comment."""
TRAIT_KEYS = frozenset(
    {"tn", "extra", "multi", "unskilled", "wounds", "fatigue", "joker", "support", "strength",
     "cover", "light", "range", "prone", "recoil", "moving", "called", "modifier"}
)
ALLOWED = {
    "trait": TRAIT_KEYS,
    "support": TRAIT_KEYS,
    "recovery": TRAIT_KEYS,
    "incapacitation": TRAIT_KEYS,
    "bleeding": TRAIT_KEYS,
    "soak": TRAIT_KEYS | {"incoming"},
    "rof": TRAIT_KEYS | {"bipod", "targets"},
    "damage": frozenset({"tn", "joker", "called", "raise", "shaken", "armor", "modifier"}),
}


def fold(text: str) -> str:
    """Lower case without accents, one character per character (positions stay aligned)."""
    return "".join(unicodedata.normalize("NFD", c)[0] for c in text.lower())


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    dice: int | None = None  # dice assigned to this target, or None: hits follow the declared order


@dataclass(slots=True)
class SavageRequest:
    """A parsed roll. ``kind`` is the verb; the fields not used by that verb keep their defaults."""

    kind: str
    expr: DiceExpr
    comment: str = ""
    tn: int = DEFAULT_TN
    wild: bool = True
    modifiers: TraitModifiers = field(default_factory=TraitModifiers)
    rof: int = 1
    bipod: bool = False
    targets: tuple[Target, ...] = ()
    incoming: int = 1
    with_raise: bool = False
    target_shaken: bool = False
    toughness: int | None = None
    armor: int = 0
    """The part of the Toughness that is armour (``Dureza 7 (2)``): a called shot to an unarmoured spot
    ignores it."""
    keywords: frozenset[str] = frozenset()
    """The keywords the roll gives (``wounds``, ``fatigue``, ...), not counting its comment."""

    _plan: TraitPlan | None = field(default=None, repr=False, compare=False)

    @property
    def trait_sides(self) -> int:
        return self.expr.dice_terms[0].sides

    @property
    def constant(self) -> int:
        return sum(t.sign * t.value for t in self.expr.terms if isinstance(t, ConstantTerm))

    def plan(self) -> TraitPlan:
        """What every roll of this (cached) request shares, computed once."""
        if self._plan is None:
            items = self.modifiers.items()
            self._plan = TraitPlan(self.expr.text, self.trait_sides, items, self.constant + sum(v for _, v in items))
        return self._plan


@dataclass(frozen=True, slots=True)
class TraitPlan:
    text: str
    trait_sides: int
    modifiers: list[tuple[str, int]]
    bonus: int


def parse_savage(text: str) -> SavageRequest | None:
    """The request for ``text``, or None when it is a plain generic expression."""
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return _parse(minus_signs(text).strip())


@lru_cache(maxsize=4096)
def _parse(text: str) -> SavageRequest | None:
    folded = fold(text)
    verb_match = _VERB.match(folded)
    kind = VERBS[verb_match[1]] if verb_match else "trait"
    pos = verb_match.end() if verb_match else 0
    rof = 1
    if kind == "rof":
        rof, pos = _rof_value(folded, pos)
    return _body(kind, rof, text[pos:])


def parse_damage(text: str) -> SavageRequest:
    """The request of a damage roll's dice and keywords (``2d6+1 aumento``: what follows ``daño``)."""
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    request = _body("damage", 1, minus_signs(text).strip())
    if request is None:
        raise TypeError("a damage roll takes any dice")
    return request


def _body(kind: str, rof: int, body: str) -> SavageRequest | None:
    """What follows the verb: the dice, then the keywords and the comment."""
    if kind == "damage":
        body = _STRENGTH_LABEL.sub("", body)
    expr, rest = parse_prefix(body)
    if kind != "damage" and not _is_trait_die(expr):
        if kind == "trait":
            return None
        raise DiceError("savage.not_a_trait_die", expr=expr.text)
    found, comment = _scan(rest, kind)
    if kind == "trait" and "tn" not in found and not MIN_TRAIT_DIE <= expr.dice_terms[0].sides <= MAX_TRAIT_DIE:
        return None
    return _build(kind, expr, rof, found, comment)


def _rof_value(folded: str, pos: int) -> tuple[int, int]:
    m = _ROF_VALUE.match(folded, pos)
    if m is None:
        raise DiceError("savage.missing_rof")
    rof = bounded(m[1], 1, 6, "savage.bad_rof")
    return rof, m.end()


def _is_trait_die(expr: DiceExpr) -> bool:
    dice = expr.dice_terms
    if len(dice) != 1:
        return False
    die = dice[0]
    plain = not (die.explode_at or die.keep or die.percent)
    return die.sign > 0 and die.count == 1 and plain and die.sides >= 2


def bounded(digits: str, low: int, high: int, code: str) -> int:
    """``digits`` as a number from ``low`` to ``high``, or the error ``code``."""
    value = int(digits) if len(digits.lstrip("+-")) <= 6 else high + 1
    if not low <= value <= high:
        raise DiceError(code, value=digits[:8], low=low, limit=high)
    return value


def _scan(rest: str, kind: str) -> tuple[dict[str, list[tuple[str | None, ...]]], str]:
    """Keywords anywhere in ``rest``; the other words (and anything in parentheses) are the comment."""
    if rest and not rest[0].isspace() and rest[0] != "(":
        raise DiceError("unexpected_text", text=rest.strip()[:20])
    folded = fold(rest)
    found: dict[str, list[tuple[str | None, ...]]] = {}
    comment: list[str] = []
    pos = 0
    while pos < len(rest):
        if rest[pos].isspace():
            pos += 1
            continue
        if rest[pos] == "(":
            end = rest.find(")", pos)
            end = len(rest) if end < 0 else end + 1
            comment.append(rest[pos + 1:end].rstrip(")").strip())
            pos = end
            continue
        pos = _take_word(rest, folded, pos, kind, found, comment)
    return found, " ".join(c for c in comment if c)


def _take_word(rest: str, folded: str, pos: int, kind: str, found: dict, comment: list[str]) -> int:
    for name, pattern in KEYWORDS:
        m = pattern.match(folded, pos)
        if m is None:
            continue
        if name == "tn_missing":
            raise DiceError("savage.missing_tn")
        if name not in ALLOWED[kind]:
            raise DiceError("savage.keyword_not_here", word=rest[m.start():m.end()].strip()[:20], kind=kind)
        end = m.end() if name != "targets" else _targets_end(folded, m.start(1))
        groups = m.groups() if name != "targets" else (rest[m.start(1):end].rstrip(),)
        found.setdefault(name, []).append(groups)
        return end
    end = pos
    while end < len(rest) and not rest[end].isspace():
        end += 1
    for hint, pattern in UNPRICED:
        if (m := pattern.match(folded, pos)) is not None:
            raise DiceError("savage.unpriced_word", word=rest[pos:m.end()][:20], hint=hint)
    comment.append(rest[pos:end])
    return end


_WORD_START = re.compile(r"(?<![^\s,])\S")


def _targets_end(folded: str, start: int) -> int:
    """Where a target list ends: at the first word after it that is a keyword (``cobertura media``,
    ``heridas 1``, ``+1``), so no modifier becomes part of a name. Each word start is tried once."""
    for word in _WORD_START.finditer(folded, start):
        pos = word.start()
        if any(name != "targets" and pattern.match(folded, pos) for name, pattern in KEYWORDS):
            return pos
    return len(folded)


def _last(found: dict, name: str) -> tuple | None:
    values = found.get(name)
    return values[-1] if values else None


def _build(kind: str, expr: DiceExpr, rof: int, found: dict, comment: str) -> SavageRequest:
    request = SavageRequest(kind, _with_late_modifiers(expr, found.get("modifier", [])), comment, rof=rof,
                            keywords=frozenset(found))
    request.wild = "extra" not in found
    if tn := _last(found, "tn"):
        value = bounded(tn[0], -MAX_TN, MAX_TN, "savage.bad_tn")
        if kind == "damage":
            request.toughness = value
        else:
            request.tn = value
    request.modifiers = _modifiers(found, kind, rof)
    request.bipod = "bipod" in found
    request.with_raise = "raise" in found
    request.target_shaken = "shaken" in found
    if armor := _last(found, "armor"):
        request.armor = bounded(armor[0], 0, MAX_TN, "savage.bad_armor")
    if incoming := _last(found, "incoming"):
        request.incoming = bounded(incoming[0], 1, 20, "savage.bad_incoming")
    if targets := _last(found, "targets"):
        request.targets = _targets(targets[0], rof)
    if kind == "rof":
        ammo_for_rof(rof)
    return request


def _with_late_modifiers(expr: DiceExpr, late: list[tuple[str, str]]) -> DiceExpr:
    """``d8 vs 6 +1`` is ``d8+1 vs 6``: a modifier written among the keywords joins the dice's constant."""
    values = [bounded(sign + digits, -MAX_MODIFIER, MAX_MODIFIER, "savage.bad_modifier") for sign, digits in late]
    terms = [ConstantTerm(-1 if value < 0 else 1, abs(value)) for value in values]
    return DiceExpr((*expr.terms, *terms), expr.comment) if terms else expr


def _modifiers(found: dict, kind: str, rof: int) -> TraitModifiers:
    mods = TraitModifiers()
    if multi := _last(found, "multi"):
        mods.actions = bounded(multi[0] or multi[1] or NUMBER_WORDS.get(multi[2], multi[2]), 1, 3,
                               "savage.bad_multi_action")
    if wounds := _last(found, "wounds"):
        mods.wounds = bounded(wounds[0], 0, 3, "savage.bad_wounds")
    if fatigue := _last(found, "fatigue"):
        mods.fatigue = bounded(fatigue[0] or "1", 0, 2, "savage.bad_fatigue")
    mods.unskilled = "unskilled" in found
    mods.joker = "joker" in found
    mods.strength = "strength" in found
    mods.support = [
        bounded(s[0], -MAX_SUPPORT_STEP, MAX_SUPPORT_STEP, "savage.bad_support") for s in found.get("support", [])
    ]
    covers = ("ligera", "media", "pesada", "casi total", "total")
    mods.cover = _choice(_last(found, "cover"), covers, "savage.unknown_cover")
    light = _last(found, "light")
    lights = ("tenue", "penumbra", "oscuridad", "oscuridad total", "a ciegas")
    said_light = (light[0] or light[1]).replace("a oscuras", "oscuridad") if light else ""
    mods.light = _choice((said_light,) if light else None, lights, "savage.unknown_light")
    distance = _last(found, "range")
    mods.range = _choice((distance[0] or distance[1],) if distance else None, ("corta", "media", "larga"),
                         "savage.unknown_range")
    mods.prone = "prone" in found
    mods.recoil = "recoil" in found or (kind == "rof" and rof > 1 and "bipod" not in found)
    mods.moving = "moving" in found
    if called := _last(found, "called"):
        mods.called_shot = _called_shot(called)
    return mods


def _choice(groups: tuple | None, allowed: tuple[str, ...], code: str) -> str:
    if groups is None:
        return ""
    if groups[0] not in allowed:
        raise DiceError(code, value=groups[0][:20], known=list(allowed))
    return groups[0]


def _called_shot(groups: tuple) -> CalledShot:
    target, penalty = groups
    if target in CALLED_SHOTS:
        return CALLED_SHOTS[target]
    if target in GM_SIZED_CALLED_SHOTS:
        if penalty is None:
            raise DiceError("savage.called_shot_needs_penalty", target=target)
        value = bounded(penalty, -8, 0, "savage.bad_called_penalty")
        return CalledShot(target, value, 0, GM_SIZED_CALLED_SHOTS[target])
    raise DiceError("savage.unknown_called_shot", value=target[:20], known=[*CALLED_SHOTS, *GM_SIZED_CALLED_SHOTS])


_TARGET_DICE = re.compile(r"^(.*?) ?(?:[x×*] ?(\d+))?$")
"""Matched on whitespace-normalised text: single spaces keep it linear in the part's length."""


def _targets(text: str, rof: int) -> tuple[Target, ...]:
    """``cercano x2, lejano``: the targets in declared order.

    Without any ``xN`` the hits follow the declared order (house rule); with some, every
    target without one gets one die and the dice must add up to the RoF.
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > MAX_TARGETS:
        raise DiceError("savage.too_many_targets", limit=MAX_TARGETS)
    targets = []
    for part in parts:
        m = _TARGET_DICE.match(" ".join(part.split()))
        name = m[1].strip()[:MAX_TARGET_NAME] if m else part[:MAX_TARGET_NAME]
        dice = bounded(m[2], 1, rof, "savage.bad_target_dice") if m and m[2] else None
        targets.append(Target(name or "?", dice))
    if all(t.dice is None for t in targets):
        return tuple(targets)
    counted = tuple(Target(t.name, t.dice or 1) for t in targets)
    assigned = sum(t.dice or 0 for t in counted)
    if assigned != rof:
        raise DiceError("savage.target_dice_mismatch", rof=rof, assigned=assigned)
    return counted
