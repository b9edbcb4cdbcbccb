"""The dice grammar shared by every game system.

Grammar (case-insensitive, spaces allowed around operators)::

    expr     := term (("+" | "-") term)* [comment]
    term     := dice | integer
    dice     := [count] "d" (sides | "%") modifier*
    modifier := "!" | "e" [n]          explode on the maximum (or on n or more)
              | "kh" n | "kl" n | "k" n  keep the highest / lowest n
              | "dh" n | "dl" n          drop the highest / lowest n
    comment  := anything after whitespace, or "(...)"

An exploding die is one chain of faces: its value is their sum (Savage Worlds
"aces"), so keep/drop act on whole chains. The RNG is injected: anything with a
``random()`` method returning floats in [0, 1), such as ``random.Random``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Protocol

MAX_TEXT = 500
MAX_TERMS = 30
MAX_DICE = 1000
MAX_SIDES = 1000
MAX_FACES = 5000
MAX_CHAIN = 50
MAX_CONSTANT = 1_000_000


class Rng(Protocol):
    def random(self) -> float: ...


class DiceError(ValueError):
    """A bad expression. ``code`` names the template message; ``params`` fill it."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return f"{self.code} {self.params}" if self.params else self.code


@dataclass(slots=True)
class Die:
    """One die as rolled: an exploding die keeps every face of its chain."""

    sides: int
    faces: tuple[int, ...]
    value: int
    exploded: bool = False
    kept: bool = True

    @property
    def is_max(self) -> bool:
        return self.faces[0] == self.sides

    @property
    def is_min(self) -> bool:
        return self.faces[0] == 1

    def as_json(self) -> dict:
        return {
            "sides": self.sides,
            "value": self.value,
            "faces": list(self.faces),
            "exploded": self.exploded,
            "kept": self.kept,
        }


@dataclass(frozen=True, slots=True)
class DiceTerm:
    sign: int
    count: int
    sides: int
    explode_at: int = 0
    keep: str = ""  # "kh", "kl", "dh", "dl" or ""
    keep_n: int = 0
    percent: bool = False

    @property
    def text(self) -> str:
        out = f"{self.count}d{'%' if self.percent else self.sides}"
        if self.explode_at:
            out += "!" if self.explode_at == self.sides else f"e{self.explode_at}"
        if self.keep:
            out += f"{self.keep}{self.keep_n}"
        return out

    def roll(self, rnd: Callable[[], float], budget: list[int]) -> TermResult:
        sides, explode_at = self.sides, self.explode_at
        dice: list[Die] = []
        append = dice.append
        for _ in range(self.count):
            face = int(rnd() * sides) + 1
            if explode_at and face >= explode_at:
                faces = [face]
                while face >= explode_at and len(faces) <= MAX_CHAIN:
                    face = int(rnd() * sides) + 1
                    faces.append(face)
                budget[0] -= len(faces)
                append(Die(sides, tuple(faces), sum(faces), True))
            else:
                budget[0] -= 1
                append(Die(sides, (face,), face))
        if budget[0] < 0:
            raise DiceError("too_many_dice", limit=MAX_FACES)
        if self.keep:
            self._mark_dropped(dice)
            subtotal = sum(d.value for d in dice if d.kept)
        else:
            subtotal = sum(d.value for d in dice)
        return TermResult(self, dice, self.sign * subtotal)

    def _mark_dropped(self, dice: list[Die]) -> None:
        n = self.keep_n
        order = sorted(range(len(dice)), key=lambda i: dice[i].value)
        if self.keep == "kh":
            dropped = order[: len(dice) - n]
        elif self.keep == "kl":
            dropped = order[n:]
        elif self.keep == "dh":
            dropped = order[len(dice) - n:]
        else:
            dropped = order[:n]
        for i in dropped:
            dice[i].kept = False


@dataclass(frozen=True, slots=True)
class ConstantTerm:
    sign: int
    value: int

    @property
    def text(self) -> str:
        return str(self.value)

    def roll(self, rnd: Callable[[], float], budget: list[int]) -> TermResult:
        return TermResult(self, [], self.sign * self.value)


@dataclass(slots=True)
class TermResult:
    term: DiceTerm | ConstantTerm
    dice: list[Die]
    total: int

    @property
    def is_dice(self) -> bool:
        return isinstance(self.term, DiceTerm)


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed expression: immutable, cached, rolled many times."""

    terms: tuple[DiceTerm | ConstantTerm, ...]
    comment: str = ""

    @property
    def text(self) -> str:
        out = ""
        for i, term in enumerate(self.terms):
            if term.sign < 0:
                out += "-"
            elif i:
                out += "+"
            out += term.text
        return out

    @property
    def dice_terms(self) -> tuple[DiceTerm, ...]:
        return tuple(t for t in self.terms if isinstance(t, DiceTerm))

    def roll(self, rng: Rng) -> RollResult:
        rnd = rng.random
        budget = [MAX_FACES]
        results = [term.roll(rnd, budget) for term in self.terms]
        return RollResult(self, results, sum(r.total for r in results))


@dataclass(slots=True)
class RollResult:
    expr: DiceExpr
    terms: list[TermResult]
    total: int
    comment: str = field(default="")

    def __post_init__(self) -> None:
        if not self.comment:
            self.comment = self.expr.comment

    @property
    def dice(self) -> list[Die]:
        return [d for t in self.terms for d in t.dice]

    @property
    def faces(self) -> list[int]:
        """Every face rolled, in order, explosions included."""
        return [f for t in self.terms for d in t.dice for f in d.faces]

    def as_json(self) -> dict:
        return {
            "expr": self.expr.text,
            "comment": self.comment,
            "total": self.total,
            "dice": self.faces,
            "detail": [d.as_json() for d in self.dice],
        }


_TERM = re.compile(
    r"\s*(?P<op>[+-])?\s*(?:"
    r"(?P<count>\d*)d(?P<sides>\d+|%)(?P<mods>(?:!|e\d*|k[hl]?\d+|d[hl]\d+)*)"
    r"|(?P<const>\d+)(?![\w%]))",
    re.IGNORECASE,
)
_MOD = re.compile(r"!|e(\d*)|(k[hl]?|d[hl])(\d+)", re.IGNORECASE)
_OPERATOR_LEFT = re.compile(r"\s*[+-]")


def _int(digits: str, limit: int, code: str) -> int:
    if len(digits) > len(str(limit)) or int(digits) > limit:
        raise DiceError(code, limit=limit)
    return int(digits)


def _dice_term(sign: int, m: re.Match[str]) -> DiceTerm:
    count = _int(m["count"], MAX_DICE, "too_many_dice") if m["count"] else 1
    percent = m["sides"] == "%"
    sides = 100 if percent else _int(m["sides"], MAX_SIDES, "too_many_sides")
    if count < 1:
        raise DiceError("zero_dice")
    if sides < 1:
        raise DiceError("zero_sides")
    explode_at, keep, keep_n = 0, "", 0
    for mod in _MOD.finditer(m["mods"]):
        text = mod[0].lower()
        if text == "!" or text.startswith("e"):
            explode_at = _int(mod[1], MAX_SIDES, "too_many_sides") if mod[1] else sides
            if sides == 1 or explode_at <= 1:
                raise DiceError("endless_explosion", expr=m[0].strip())
            explode_at = min(explode_at, sides)
        else:
            keep = {"k": "kh"}.get(mod[2].lower(), mod[2].lower())
            keep_n = _int(mod[3], MAX_DICE, "too_many_dice")
            if keep_n > count:
                raise DiceError("keep_too_many", keep=keep_n, count=count)
    return DiceTerm(sign, count, sides, explode_at, keep, keep_n, percent)


def parse_prefix(text: str) -> tuple[DiceExpr, str]:
    """Parse the dice expression at the start of ``text``; return it and the rest."""
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return _parse_prefix(text)


@lru_cache(maxsize=4096)
def _parse_prefix(text: str) -> tuple[DiceExpr, str]:
    terms: list[DiceTerm | ConstantTerm] = []
    pos, dice_count = 0, 0
    while True:
        m = _TERM.match(text, pos)
        if m is None or (terms and not m["op"]):
            break
        sign = -1 if m["op"] == "-" else 1
        if m["const"] is not None:
            terms.append(ConstantTerm(sign, _int(m["const"], MAX_CONSTANT, "too_big")))
        else:
            term = _dice_term(sign, m)
            dice_count += term.count
            if dice_count > MAX_DICE:
                raise DiceError("too_many_dice", limit=MAX_DICE)
            terms.append(term)
        if len(terms) > MAX_TERMS:
            raise DiceError("too_many_terms", limit=MAX_TERMS)
        pos = m.end()
    rest = text[pos:]
    if not terms:
        raise DiceError("not_an_expression", text=_excerpt(text))
    if _OPERATOR_LEFT.match(rest):
        raise DiceError("dangling_operator", text=_excerpt(rest.strip()))
    if not any(isinstance(t, DiceTerm) for t in terms):
        raise DiceError("no_dice")
    return DiceExpr(tuple(terms)), rest


def parse_comment(rest: str) -> str:
    """The trailing comment: ``(chequeo)`` or ``chequeo``; anything glued to the dice is an error."""
    if rest and not rest[0].isspace() and rest[0] != "(":
        raise DiceError("unexpected_text", text=_excerpt(rest))
    comment = rest.strip()
    if comment.startswith("(") and comment.endswith(")"):
        comment = comment[1:-1].strip()
    return comment


@lru_cache(maxsize=4096)
def parse(text: str) -> DiceExpr:
    """Parse a full roll: an expression and an optional comment."""
    expr, rest = parse_prefix(text.strip())
    comment = parse_comment(rest)
    return DiceExpr(expr.terms, comment) if comment else expr


def roll(text: str, rng: Rng) -> RollResult:
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    return parse(text).roll(rng)


def _excerpt(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
