"""El Reino de la Sombra (simplified d20): the roll syntax and the system entry point.

The rules themselves live in ``systems.reino.rules``; the results in ``systems.reino.outcomes``.
The syntax (Spanish keywords, English aliases) is documented in ``docs/players.md`` («Sistemas»).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, is_dataclass, replace
from functools import lru_cache

from systems.base import Outcome, roll_dice
from systems.dice import MAX_TEXT, DiceError, DiceExpr, DiceTerm, Rng, minus_signs, parse_comment, parse_prefix
from systems.reino.outcomes import (
    ReinoAttack,
    ReinoCheck,
    ReinoDamage,
    ReinoDyingSave,
    ReinoInitiative,
    ReinoOpposed,
    ReinoWoundSave,
)
from systems.reino.rules import (
    DEFAULT_DC,
    AttackResult,
    CheckResult,
    DyingSaveResult,
    Grip,
    OpposedResult,
    recovery_test,
    roll_d20,
    serious_wound_dc,
)

MAX_NUMBER = 1000
MAX_MULTIPLIER = 10

_DC_WORD = r"vs\.?(?:\s*(?:cd|dc|def(?:ensa)?)(?!\w))?|cd|dc"
_AGAINST_WORD = r"contra|vs\.?"
_GRIP_WORDS: tuple[tuple[str, Grip], ...] = (
    (r"(?:a\s+)?dos\s+manos|2\s*manos|two[- ]?handed", Grip.TWO_HANDS),
    (r"(?:a\s+)?una\s+mano|1\s*mano|one[- ]?handed", Grip.ONE_HAND),
    (r"secundaria|torpe|off[- ]?hand", Grip.OFF_HAND),
    (r"arrojadiza|lanzada|thrown", Grip.THROWN),
    (r"proyectil(?:es)?\s+preparad[oa]s?|prepared", Grip.PREPARED_PROJECTILE),
    (r"proyectil(?:es)?|projectile", Grip.PROJECTILE),
)
_SAVE_PURPOSE: tuple[tuple[str, str], ...] = (
    (r"fortaleza|fort|fortitude", "fortaleza"),
    (r"reflejos|ref|reflex", "reflejos"),
    (r"voluntad|vol|will", "voluntad"),
)


@lru_cache(maxsize=256)
def _word_re(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\s*(?:" + pattern + r")(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=16)
def _symbol_re(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\s*(?:" + pattern + r")", re.IGNORECASE)


_NUMBER_RE = re.compile(r"\s*(?:([+-])\s*)?(\d+)(?!\w)")
_GLUED_NUMBER_RE = re.compile(r"\s*[+-]?\s*\d+[^\W\d]", re.UNICODE)
_STRAY_SIGN_RE = re.compile(r"\s*[+-]")
_DC_WORD_ALONE = re.compile(r"\s*(?:vs\.?|cd|dc)(?:\s*$|\s+(?!\d*d))", re.IGNORECASE)
"""``d20 vs`` with no number: the DC was meant and is missing (not a comment)."""
_CHECK_TAIL = re.compile(r"\s*(?:" + _DC_WORD + r")\s*[+-]?\d", re.IGNORECASE)
_OPPOSED_TAIL = re.compile(r"\s*contra(?!\w)", re.IGNORECASE)


class _Scanner:
    """Reads keywords and bounded numbers from the front of a roll text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    @property
    def rest(self) -> str:
        return self.text[self.pos:]

    def word(self, pattern: str) -> bool:
        m = _word_re(pattern).match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m is not None

    def symbol(self, pattern: str) -> bool:
        """Like ``word`` but the keyword may be glued to what follows (``x2``)."""
        m = _symbol_re(pattern).match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m is not None

    def number(self, signed: bool = True) -> int | None:
        """An integer (sign optional) bounded by MAX_NUMBER, or None when none is next."""
        if _GLUED_NUMBER_RE.match(self.text, self.pos):
            raise DiceError("unexpected_text", text=_excerpt(self.rest.strip()))
        m = _NUMBER_RE.match(self.text, self.pos)
        if m is None or (m[1] and not signed):
            return None
        if len(m[2]) > len(str(MAX_NUMBER)) or int(m[2]) > MAX_NUMBER:
            raise DiceError("reino.too_big", limit=MAX_NUMBER)
        self.pos = m.end()
        return -int(m[2]) if m[1] == "-" else int(m[2])

    def required(self, code: str, signed: bool = False) -> int:
        value = self.number(signed)
        if value is None:
            raise DiceError(code, text=_excerpt(self.rest.strip()))
        return value

    def option_number(self, pattern: str, code: str, signed: bool = False) -> int | None:
        """``pattern N``: the number N when the keyword is next, else None."""
        return self.required(code, signed) if self.word(pattern) else None

    def comment(self) -> str:
        """The trailing comment; a stray sign or number there is a mistake, not a comment."""
        if _STRAY_SIGN_RE.match(self.rest):
            raise DiceError("unexpected_text", text=_excerpt(self.rest.strip()))
        return parse_comment(self.rest)


def _excerpt(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(value: int) -> int:
    if abs(value) > MAX_NUMBER:
        raise DiceError("reino.too_big", limit=MAX_NUMBER)
    return value


def _d20_modifier(expr: DiceExpr) -> int:
    """The M of ``d20+M`` (constants may be several); anything but a single plain d20 is refused."""
    dice = expr.dice_terms
    if len(dice) != 1 or dice[0] != DiceTerm(1, 1, 20):
        raise DiceError("reino.needs_d20", text=_excerpt(expr.text))
    return _bounded(sum(t.sign * t.value for t in expr.terms if not isinstance(t, DiceTerm)))


def _dc(scan: _Scanner) -> int:
    dc = scan.option_number(_DC_WORD, "reino.missing_dc")
    return DEFAULT_DC if dc is None else dc


def _modifier(scan: _Scanner) -> int:
    value = scan.number()
    return 0 if value is None else value


def _late_modifier(scan: _Scanner) -> int:
    """Signed numbers written after the DC or Defense (``d20 vs 12 +2``): added to the d20 like M."""
    total = 0
    while _STRAY_SIGN_RE.match(scan.rest) and (value := scan.number()) is not None:
        total = _bounded(total + value)
    return total


# --- one parser per roll kind ----------------------------------------------------------


def _check(scan: _Scanner, rng: Rng) -> ReinoCheck:
    modifier = _modifier(scan)
    dc = _dc(scan)
    modifier = _bounded(modifier + _late_modifier(scan))
    return ReinoCheck(CheckResult(roll_d20(rng), modifier, dc), "prueba", scan.comment())


def _opposed(scan: _Scanner, rng: Rng) -> ReinoOpposed:
    first = _modifier(scan)
    scan.word(_AGAINST_WORD)
    second = scan.required("reino.missing_opponent", signed=True)
    comment = scan.comment()
    return ReinoOpposed(OpposedResult(roll_d20(rng), first, roll_d20(rng), second), comment)


def _attack(scan: _Scanner, rng: Rng) -> ReinoAttack:
    bonus = _modifier(scan)
    defense = scan.option_number(_DC_WORD + r"|def(?:ensa)?", "reino.missing_defense")
    if defense is None:
        raise DiceError("reino.missing_defense", text=_excerpt(scan.rest.strip()))
    bonus = _bounded(bonus + _late_modifier(scan))
    reduction, minion = 0, False
    while True:
        if (dr := scan.option_number(r"rd|dr", "reino.missing_number")) is not None:
            reduction = dr
        elif scan.word(r"secuaz|minion"):
            minion = True
        else:
            break
    result = AttackResult(roll_d20(rng), bonus, defense, reduction, minion)
    return ReinoAttack(result, scan.comment())


@dataclass(slots=True)
class _DamageOptions:
    strength: int = 0
    grip: Grip = Grip.ONE_HAND
    multiplier: int = 1
    threshold: int | None = None
    minion: bool = False


def _multiplier(scan: _Scanner) -> int:
    value = scan.required("reino.missing_multiplier")
    if not 1 <= value <= MAX_MULTIPLIER:
        raise DiceError("reino.bad_multiplier", limit=MAX_MULTIPLIER)
    return value


def _grip(scan: _Scanner) -> Grip | None:
    return next((grip for pattern, grip in _GRIP_WORDS if scan.word(pattern)), None)


def _damage_option(scan: _Scanner, options: _DamageOptions) -> bool:
    """Read one damage option into ``options``; False when none is next."""
    if (strength := scan.option_number(r"fue|fuerza|str", "reino.missing_number", signed=True)) is not None:
        options.strength = strength
    elif (grip := _grip(scan)) is not None:
        options.grip = grip
    elif scan.word(r"cr[ií]tico|crit"):
        scan.symbol(r"[x×]")
        options.multiplier = _multiplier(scan)
    elif scan.symbol(r"[x×](?=\s*\d)"):
        options.multiplier = _multiplier(scan)
    elif (threshold := scan.option_number(r"umbral|threshold", "reino.missing_number")) is not None:
        options.threshold = threshold
    elif scan.word(r"secuaz|minion"):
        options.minion = True
    else:
        return False
    return True


def grip_named(text: str) -> Grip | None:
    """The grip a whole text names (``dos manos``, ``arrojadiza``...), as the damage syntax reads it."""
    scan = _Scanner(text)
    grip = _grip(scan)
    return grip if grip is not None and not scan.rest.strip() else None


def weapon_damage(expr: DiceExpr, strength: int, grip: Grip, multiplier: int, rng: Rng) -> ReinoDamage:
    """A landed blow's damage: the weapon's dice, the Strength share for its grip, times the critical
    multiplier (1 on a plain hit)."""
    if not 1 <= multiplier <= MAX_MULTIPLIER:
        raise DiceError("reino.bad_multiplier", limit=MAX_MULTIPLIER)
    return ReinoDamage(expr.roll(rng), _bounded(strength), grip, multiplier)


def _damage(scan: _Scanner, rng: Rng) -> ReinoDamage:
    expr, rest = parse_prefix(scan.rest)
    scan = _Scanner(rest)
    options = _DamageOptions()
    while _damage_option(scan, options):
        pass
    roll = expr.roll(rng)
    roll.comment = scan.comment()
    return ReinoDamage(roll, options.strength, options.grip, options.multiplier, options.threshold, options.minion)


def _initiative(scan: _Scanner, rng: Rng) -> ReinoInitiative:
    bonus = _modifier(scan)
    return ReinoInitiative(roll_d20(rng), bonus, scan.comment())


def _save(scan: _Scanner, rng: Rng) -> ReinoCheck | ReinoWoundSave:
    scan.word(r"salvaci[oó]n|save")
    purpose = next((p for pattern, p in _SAVE_PURPOSE if scan.word(pattern)), "")
    if not purpose:
        raise DiceError("reino.unknown_save", text=_excerpt(scan.rest.strip()))
    modifier = _modifier(scan)
    if purpose == "fortaleza" and scan.word(r"da[ñn]o|danio|damage"):
        return _wound_after(scan, rng, modifier)
    dc = _dc(scan)
    modifier = _bounded(modifier + _late_modifier(scan))
    return ReinoCheck(CheckResult(roll_d20(rng), modifier, dc), purpose, scan.comment())


def _wound_after(scan: _Scanner, rng: Rng, modifier: int) -> ReinoWoundSave:
    damage = scan.required("reino.missing_damage")
    test = CheckResult(roll_d20(rng), modifier, serious_wound_dc(damage))
    return ReinoWoundSave(test, damage, scan.comment())


def _wound(scan: _Scanner, rng: Rng) -> ReinoWoundSave:
    modifier = _modifier(scan)
    if not scan.word(r"da[ñn]o|danio|damage"):
        raise DiceError("reino.missing_damage", text=_excerpt(scan.rest.strip()))
    return _wound_after(scan, rng, modifier)


def _dying(scan: _Scanner, rng: Rng) -> ReinoDyingSave:
    modifier = _modifier(scan)
    previous = scan.option_number(r"previas|prev|previous", "reino.missing_number")
    result = DyingSaveResult(roll_d20(rng), modifier, previous or 0)
    return ReinoDyingSave(result, scan.comment())


def _stabilize(scan: _Scanner, rng: Rng) -> ReinoCheck:
    modifier = _modifier(scan)
    return ReinoCheck(CheckResult(roll_d20(rng), modifier, DEFAULT_DC), "estabilizar", scan.comment())


def _recovery(scan: _Scanner, rng: Rng) -> ReinoCheck:
    fortitude = _modifier(scan)
    minutes = scan.option_number(r"minutos?|min", "reino.missing_number")
    minutes = 1 if minutes is None else minutes
    if minutes < 1:
        raise DiceError("reino.bad_minutes")
    test = recovery_test(roll_d20(rng), fortitude, minutes)
    return ReinoCheck(test, "consciencia", scan.comment(), minutes)


_COMMANDS: tuple[tuple[str, Callable[[_Scanner, Rng], Outcome]], ...] = (
    (r"prueba|check", _check),
    (r"enfrentadas?|opuestas?|opposed", _opposed),
    (r"ataque|atacar|atq|attack", _attack),
    (r"da[ñn]o|danio|damage|dmg", _damage),
    (r"iniciativa|init|initiative", _initiative),
    (r"herida(?:\s+grave)?|wound", _wound),
    (r"moribundo|dying", _dying),
    (r"estabilizar|stabilize", _stabilize),
    (r"consciencia|despertar|recover", _recovery),
)
_SAVE_START = re.compile(
    r"\s*(?:salvaci[oó]n|save|fortaleza|fort|fortitude|reflejos|ref|reflex|voluntad|vol|will)(?!\w)",
    re.IGNORECASE,
)


# --- plain d20 expressions -------------------------------------------------------------


def _expression(text: str, rng: Rng) -> Outcome:
    """``d20+M vs DC``, ``d20+M contra d20+N``, or any generic expression."""
    expr, rest = parse_prefix(text.strip())
    if _CHECK_TAIL.match(rest):
        modifier = _d20_modifier(expr)
        scan = _Scanner(rest)
        dc = _dc(scan)
        modifier = _bounded(modifier + _late_modifier(scan))
        return ReinoCheck(CheckResult(roll_d20(rng), modifier, dc), "prueba", scan.comment())
    if _OPPOSED_TAIL.match(rest):
        return _expression_opposed(expr, rest, rng)
    if _DC_WORD_ALONE.match(rest):
        raise DiceError("reino.missing_dc")
    return roll_dice(text, rng, SYSTEM.key)


def _expression_opposed(expr: DiceExpr, rest: str, rng: Rng) -> ReinoOpposed:
    first = _d20_modifier(expr)
    scan = _Scanner(rest)
    scan.word(_AGAINST_WORD)
    if re.match(r"\s*\d*d", scan.rest, re.IGNORECASE):
        other, tail = parse_prefix(scan.rest.strip())
        second, scan = _d20_modifier(other), _Scanner(tail)
    else:
        second = scan.required("reino.missing_opponent", signed=True)
    comment = scan.comment()
    return ReinoOpposed(OpposedResult(roll_d20(rng), first, roll_d20(rng), second), comment)


@dataclass(frozen=True)
class ReinoSystem:
    key: str = "reino"
    name: str = "El Reino de la Sombra"

    def roll(self, text: str, rng: Rng) -> Outcome:
        """Resolve one roll text; bad input raises ``DiceError`` (generic or ``reino.*`` code)."""
        if len(text) > MAX_TEXT:
            raise DiceError("too_long", limit=MAX_TEXT)
        text = minus_signs(text)
        scan = _Scanner(text)
        if _SAVE_START.match(text):
            return _save(scan, rng)
        for pattern, parse_kind in _COMMANDS:
            if scan.word(pattern):
                return parse_kind(scan, rng)
        return _expression(text, rng)

    def roll_with(self, text: str, rng: Rng, named: tuple[tuple[str, int], ...] = ()) -> Outcome:
        """``roll``, with the modifiers the table added to it named in the outcome (``named``)."""
        outcome = self.roll(text, rng)
        if named and is_dataclass(outcome) and not isinstance(outcome, type) and hasattr(outcome, "named"):
            return replace(outcome, named=named)
        return outcome


SYSTEM = ReinoSystem()
