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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Protocol

from systems.jsonable import Jsonable, JsonShape
from systems.refusal import Refusal

MAX_TEXT = 500
MAX_TERMS = 30
MAX_DICE = 1000
MAX_SIDES = 1000
MAX_FACES = 5000
MAX_EXPLOSIONS = MAX_FACES - MAX_DICE
"""Extra faces from explosions per roll: with at most MAX_DICE dice, at most MAX_FACES faces."""
MAX_CHAIN = 50
MAX_CONSTANT = 1_000_000


class Rng(Protocol):
    def random(self) -> float: ...


class DiceError(Refusal, ValueError):
    """A bad roll, answered with ``templates/core/dice_error.txt``: ``code`` picks the line there
    (a game's codes are ``<game>.<code>``, in ``templates/<game>/errors.txt``); ``params`` fill it."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__("dice_error", **params)
        self.code = code

    def context(self) -> dict[str, Any]:
        return {"code": self.code, "params": self.params}

    def __str__(self) -> str:
        return f"{self.code} {self.params}" if self.params else self.code


@dataclass(slots=True)
class Die(Jsonable):
    """One die as rolled: an exploding die keeps every face of its chain."""

    json_shape: ClassVar[JsonShape] = JsonShape("sides", "value", "faces", "exploded", "kept",
                                                derived={"faces": lambda die: list(die.faces)})
    sides: int
    faces: tuple[int, ...]
    value: int
    exploded: bool = False
    kept: bool = True

    @property
    def is_min(self) -> bool:
        return self.faces[0] == 1


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

    def roll_raw(self, rnd: Callable[[], float], budget: list[int]) -> RawTerm:
        """The term rolled as plain integers (the hot path; see ``TermResult`` for the structure)."""
        sides, explode_at = self.sides, self.explode_at
        if not explode_at:
            if self.count == 1:
                value = int(rnd() * sides) + 1
                return [value], None, _NOTHING_DROPPED, self.sign * value
            values = [int(rnd() * sides) + 1 for _ in range(self.count)]
            chains = None
        else:
            chains = [self.roll_chain(rnd, budget) for _ in range(self.count)]
            values = list(map(sum, chains))
        if self.keep:
            dropped = self._dropped(values)
            subtotal = sum(v for i, v in enumerate(values) if i not in dropped)
        else:
            dropped, subtotal = _NOTHING_DROPPED, sum(values)
        return values, chains, dropped, self.sign * subtotal

    def roll_chain(self, rnd: Callable[[], float], budget: list[int]) -> tuple[int, ...]:
        """One die of this term: a single face, or the whole chain when it explodes."""
        face = int(rnd() * self.sides) + 1
        return (face,) if face < self.explode_at else self.explode_from(face, rnd, budget)

    def explode_from(self, face: int, rnd: Callable[[], float], budget: list[int]) -> tuple[int, ...]:
        """The chain that starts with an exploding ``face``; its extra faces come out of ``budget``."""
        sides, explode_at = self.sides, self.explode_at
        faces = [face]
        while face >= explode_at and len(faces) <= MAX_CHAIN:
            face = int(rnd() * sides) + 1
            faces.append(face)
        budget[0] -= len(faces) - 1
        if budget[0] < 0:
            raise DiceError("too_many_dice", limit=MAX_FACES)
        return tuple(faces)

    def _dropped(self, values: list[int]) -> frozenset[int]:
        n = self.keep_n
        order = sorted(range(len(values)), key=values.__getitem__)
        if self.keep == "kh":
            return frozenset(order[: len(values) - n])
        if self.keep == "kl":
            return frozenset(order[n:])
        if self.keep == "dh":
            return frozenset(order[len(values) - n:])
        return frozenset(order[:n])


_NOTHING_DROPPED: frozenset[int] = frozenset()
RawTerm = tuple[list[int], "list[tuple[int, ...]] | None", "frozenset[int] | None", int]
"""values, exploding chains (or None), dropped indexes (None: derived from the keep rule), subtotal."""


@dataclass(frozen=True, slots=True)
class ConstantTerm:
    sign: int
    value: int

    @property
    def text(self) -> str:
        return str(self.value)

    def roll_raw(self, rnd: Callable[[], float], budget: list[int]) -> RawTerm:
        return [], None, _NOTHING_DROPPED, self.sign * self.value


class TermResult:
    """One term as rolled. Rolling keeps only integers; ``dice`` builds the
    structured ``Die`` objects on first access, which keeps hot rolls cheap."""

    __slots__ = ("_dice", "chains", "dropped", "term", "total", "values")

    def __init__(self, term: DiceTerm | ConstantTerm, values: list[int],
                 chains: list[tuple[int, ...]] | None, dropped: frozenset[int] | None, total: int) -> None:
        self.term = term
        self.values = values
        self.chains = chains
        self.dropped = term._dropped(values) if dropped is None else dropped  # type: ignore[union-attr]
        self.total = total
        self._dice: list[Die] | None = None

    @property
    def is_dice(self) -> bool:
        return isinstance(self.term, DiceTerm)

    @property
    def dice(self) -> list[Die]:
        if self._dice is None:
            sides = getattr(self.term, "sides", 0)
            chains = self.chains or [(v,) for v in self.values]
            self._dice = [
                Die(sides, chain, value, len(chain) > 1, i not in self.dropped)
                for i, (chain, value) in enumerate(zip(chains, self.values))
            ]
        return self._dice

    @property
    def faces(self) -> list[int]:
        return [f for chain in self.chains for f in chain] if self.chains else list(self.values)


UNROLL = 20
"""Terms of up to this many dice are rolled by inline code, without a loop."""
Roller = Callable[[Callable[[], float]], "RollResult"]


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed expression: immutable, cached, rolled many times."""

    terms: tuple[DiceTerm | ConstantTerm, ...]
    comment: str = ""
    roller: Roller | None = field(default=None, compare=False, repr=False)

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
        return (self.roller or _compile_into(self))(rng.random)


@lru_cache(maxsize=4096)
def _compile(terms: tuple[DiceTerm | ConstantTerm, ...]) -> Callable[[DiceExpr], Roller]:
    """Generate one straight-line function rolling these terms, made for each expression with them
    (``!tiro d20 prueba 1``, ``!tiro d20 prueba 2``: one compilation, whatever the comment).

    Rolling is the hot path (the engine must beat Avrae's d20 tenfold); plain
    dice become inline arithmetic, exploding and keep/drop terms call their
    ``roll_raw``. Only integers from the parser are interpolated.
    """
    env: dict[str, object] = {"E": _NOTHING_DROPPED, "RollResult": RollResult,
                              "int": int, "sum": sum, "sorted": sorted}
    body = [f"budget = [{MAX_EXPLOSIONS}]"]
    for i, term in enumerate(terms):
        env[f"t{i}"] = term
        minus = "-" if term.sign < 0 else ""
        if isinstance(term, ConstantTerm):
            env[f"c{i}"] = term.roll_raw(lambda: 0.0, [0])
            body.append(f"r{i} = c{i}")
        elif term.count > UNROLL or (term.keep and term.explode_at):
            body.append(f"r{i} = t{i}.roll_raw(rnd, budget)")
        elif term.keep:
            faces = ", ".join([f"int(rnd() * {term.sides}) + 1"] * term.count)
            body.append(f"v{i} = [{faces}]")
            body.append(f"r{i} = (v{i}, None, None, {minus}sum(sorted(v{i}){_kept_slice(term)}))")
        elif term.explode_at:
            for j in range(term.count):
                body.append(f"f = int(rnd() * {term.sides}) + 1")
                body.append(f"c{i}_{j} = (f,) if f < {term.explode_at} else t{i}.explode_from(f, rnd, budget)")
            chains = ", ".join(f"c{i}_{j}" for j in range(term.count))
            body.append(f"h{i} = [{chains}]")
            body.append(f"v{i} = [sum(c) for c in h{i}]")
            body.append(f"r{i} = (v{i}, h{i}, E, {minus}sum(v{i}))")
        else:
            faces = ", ".join([f"int(rnd() * {term.sides}) + 1"] * term.count)
            body.append(f"v{i} = [{faces}]")
            body.append(f"r{i} = (v{i}, None, E, {minus}{'v' + str(i) + '[0]' if term.count == 1 else f'sum(v{i})'})")
    if not any("budget)" in line for line in body):
        body.pop(0)
    results = ", ".join(f"r{i}" for i in range(len(terms)))
    total = " + ".join(f"r{i}[3]" for i in range(len(terms)))
    source = ("def make(expr):\n def roll(rnd):\n    " + "\n    ".join(body)
              + f"\n    return RollResult(expr, [{results}], {total})\n return roll\n")
    exec(compile(source, "<dice>", "exec"), env)
    return env["make"]  # type: ignore[return-value]


class RollResult(Jsonable):
    """A rolled expression. ``terms`` (with their ``Die`` objects) are built on first access."""

    __slots__ = ("_comment", "_terms", "expr", "raws", "total")
    json_shape: ClassVar[JsonShape] = JsonShape(
        "expr=expr.text", "comment", "total", "dice=faces", "detail",
        derived={"detail": lambda result: [die.as_json() for die in result.dice]})

    def __init__(self, expr: DiceExpr, raws: list[RawTerm], total: int) -> None:
        # ``_terms`` and ``_comment`` stay unset until needed: this runs on every roll.
        self.expr = expr
        self.raws = raws
        self.total = total

    @property
    def comment(self) -> str:
        return getattr(self, "_comment", "") or self.expr.comment

    @comment.setter
    def comment(self, value: str) -> None:
        self._comment = value

    @property
    def terms(self) -> list[TermResult]:
        terms = getattr(self, "_terms", None)
        if terms is None:
            terms = self._terms = [TermResult(t, *raw) for t, raw in zip(self.expr.terms, self.raws)]
        return terms

    @property
    def dice(self) -> list[Die]:
        return [d for t in self.terms for d in t.dice]

    @property
    def faces(self) -> list[int]:
        """Every face rolled, in order, explosions included."""
        return [f for t in self.terms for f in t.faces]



_TERM = re.compile(
    r"\s*(?P<op>[+-])?\s*(?:"
    r"(?P<count>\d*)d(?P<sides>\d+|%)(?P<mods>(?:!|e\d*|k[hl]?\d+|d[hl]\d+)*)"
    r"|(?P<const>\d+)(?![\w%]))",
    re.IGNORECASE,
)
_MOD = re.compile(r"!|e(\d*)|(k[hl]?|d[hl])(\d+)", re.IGNORECASE)
_OPERATOR_LEFT = re.compile(r"\s*[+-]")
PHONE_MINUS = "‐‑‒–—―−﹣－"
"""Dashes a phone or a word processor types for ``-`` (en dash, em dash, minus sign, figure dash...)."""
_PHONE_MINUS = re.compile(f"[{PHONE_MINUS}](?=\\d)")


def minus_signs(text: str) -> str:
    """``text`` with every phone dash right before a digit read as ``-`` (``d8—5`` is ``d8-5``): what
    every system does first with a roll's text. One character class and a one-character lookahead:
    linear."""
    return _PHONE_MINUS.sub("-", text)


def _kept_slice(term: DiceTerm) -> str:
    """The slice of the sorted values that a keep/drop rule keeps."""
    n, k = term.count, term.keep_n
    return {"kh": f"[{n - k}:]", "kl": f"[:{k}]", "dh": f"[:{n - k}]", "dl": f"[{k}:]"}[term.keep]


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
    return _parse_prefix(minus_signs(text))


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
    expr, rest = parse_prefix(minus_signs(text).strip())
    comment = parse_comment(rest)
    return DiceExpr(expr.terms, comment) if comment else expr


def roll(text: str, rng: Rng) -> RollResult:
    """Parse (cached; over-long texts are refused there) and roll."""
    expr = parse(text)
    return (expr.roller or _compile_into(expr))(rng.random)


def _compile_into(expr: DiceExpr) -> Roller:
    roller = _compile(expr.terms)(expr)
    object.__setattr__(expr, "roller", roller)
    return roller


def _excerpt(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
