"""Parsing of the Sistema Sombra Spanish roll syntax into plain requests.

Checks: ``3d10[+-M] vs K [clauses...] [comment]``, clauses being a signed number (added to
the roll like M: ``3d10 vs 14 +3`` is ``3d10+3 vs 14``), difficulty names,
``prisa``, ``apuntado LOC``, ``dirigido LOC``, ``apuntando``, ``segundo``,
``rafaga N [paso S] [blanco T]``, ``mando N``, ``moral N``, ``esquiva N``,
``persona|vehiculo|barco`` and ``daño TIPO[+N] [fue N]``. The first word that is no
clause starts the comment. Also ``daño ...``, ``localizacion ...`` and ``iniciativa ...``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from systems.dice import MAX_TEXT, DiceError, DiceExpr, DiceTerm
from systems.sombra.damage import MELEE_TYPES, ROMAN
from systems.sombra.rules import (
    AIMED_LOCATION,
    CALLED_BLOW,
    DIFFICULTY,
    HURRY,
    MAX_BURST,
    OPPORTUNITY_INITIATIVE,
    PARRY,
    SECOND_SHOT,
    TOOK_AIM,
    Combatant,
    Modifier,
    burst_penalty,
    command_modifier,
    unarmed_difficulty,
)

MAX_ROLL_MODIFIER = 30
MAX_TARGET = 30
MAX_COMBATANTS = 30
MAX_NAME = 40

# Words naming a location, accent-free: -> (table, key). Two-word names are tried first.
LOCATION_WORDS: dict[str, tuple[str, str]] = {
    "cabeza": ("persona", "cabeza"), "pecho": ("persona", "pecho"),
    "brazo": ("persona", "brazos"), "brazos": ("persona", "brazos"),
    "brazo derecho": ("persona", "brazo_derecho"), "brazo izquierdo": ("persona", "brazo_izquierdo"),
    "abdomen": ("persona", "abdomen"), "vientre": ("persona", "abdomen"),
    "pierna": ("persona", "piernas"), "piernas": ("persona", "piernas"),
    "techo": ("vehiculo", "techo"), "chasis": ("vehiculo", "chasis_frontal"),
    "chasis frontal": ("vehiculo", "chasis_frontal"), "chasis posterior": ("vehiculo", "chasis_frontal"),
    "chasis lateral": ("vehiculo", "chasis_lateral"), "cadenas": ("vehiculo", "cadenas"),
    "ruedas": ("vehiculo", "cadenas"), "orugas": ("vehiculo", "cadenas"),
    "torreta": ("vehiculo", "torreta_frontal"), "torreta frontal": ("vehiculo", "torreta_frontal"),
    "torreta posterior": ("vehiculo", "torreta_frontal"), "torreta lateral": ("vehiculo", "torreta_lateral"),
    "bajos": ("vehiculo", "bajos"), "puente": ("barco", "puente"), "proa": ("barco", "proa"),
    "amura estribor": ("barco", "amura_estribor"), "amura babor": ("barco", "amura_babor"),
    "traves": ("barco", "traves"), "aleta estribor": ("barco", "aleta_estribor"),
    "aleta babor": ("barco", "aleta_babor"), "popa": ("barco", "popa"),
}
TABLE_WORDS = {"persona": "persona", "vehiculo": "vehiculo", "barco": "barco", "embarcacion": "barco"}
AIM_MODIFIERS = frozenset({"apuntado", "dirigido"})
TORPEDO_WORDS = frozenset({"torpedo", "bomba"})
DAMAGE_WORDS = frozenset({"dano", "danio", "damage"})
LOCATION_COMMANDS = frozenset({"localizacion", "loc", "location"})
INITIATIVE_COMMANDS = frozenset({"iniciativa", "init", "initiative"})

_VS = re.compile(r"\s+vs\.?\s*", re.IGNORECASE)
_INT = re.compile(r"[+-]?\d{1,4}")
_SIGNED = re.compile(r"[+-]\d{1,4}")
_DAMAGE_TYPE = re.compile(r"(viii|vii|vi|iv|v|iii|ii|i|[0-8])([+-]\d{1,4})?")


def _excerpt(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(word: str) -> str:
    """Lower case without accents: ``Daño`` -> ``dano``."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(slots=True)
class DamageRequest:
    damage_type: int
    bonus: int = 0
    strength: int | None = None

    @property
    def total_bonus(self) -> int:
        """The weapon bonus plus the strength adjustment (FUE-5) for unarmed and melee types."""
        if self.strength is None or self.damage_type not in MELEE_TYPES:
            return self.bonus
        return self.bonus + self.strength - 5


@dataclass(slots=True)
class Clauses:
    """Everything after the target (or after ``daño``/``localizacion``)."""

    modifiers: list[Modifier] = field(default_factory=list)
    roll_modifier: int = 0
    """Signed numbers among a check's clauses, added to the roll (``3d10 vs 14 +3``)."""
    table: str | None = None
    aimed: str | None = None
    damage: DamageRequest | None = None
    torpedo: bool = False
    """``torpedo`` or ``bomba``: below the waterline, double against a boat's flotation."""
    comment: str = ""


@dataclass(slots=True)
class CheckRequest:
    """A 3d10 roll under ``target``: ``expr_text`` is how the dice read (``3d10+2``), ``roll_modifier``
    what is added to the roll (the expression's and the clauses' signed numbers)."""

    expr_text: str
    target: int
    roll_modifier: int
    clauses: Clauses


class _Words:
    """A cursor over the words of the clause zone; the comment is what is left."""

    def __init__(self, text: str) -> None:
        head, paren, tail = text.partition("(")
        self.words = head.split()
        self.paren = (paren + tail).strip()
        self.pos = 0

    def peek(self, ahead: int = 0) -> str:
        i = self.pos + ahead
        return plain(self.words[i]) if i < len(self.words) else ""

    def take(self) -> str:
        word = self.peek()
        self.pos += 1
        return word

    def number(self, name: str, low: int, high: int) -> int:
        word = self.take()
        if not _INT.fullmatch(word):
            raise DiceError("sombra.number_missing", name=name, low=low, high=high)
        return _in_range(name, int(word), low, high)

    def comment(self) -> str:
        text = " ".join([*self.words[self.pos:], self.paren]).strip()
        if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
            text = text[1:-1].strip()
        return text


def _in_range(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise DiceError("sombra.number_range", name=name, value=value, low=low, high=high)
    return value


def parse_check(expr: DiceExpr, rest: str) -> CheckRequest | None:
    """A check if ``rest`` starts with ``vs``; None leaves the text to the generic grammar."""
    m = _VS.match(rest)
    if m is None:
        return None
    roll_modifier = _check_modifier(expr)
    words = _Words(rest[m.end():])
    if not _INT.fullmatch(words.peek()):
        raise DiceError("sombra.target_missing", text=_excerpt(rest.strip()))
    target = words.number("vs", 0, MAX_TARGET)
    clauses = parse_clauses(words, check=True)
    return CheckRequest(expr.text, target, _roll_modifier(roll_modifier + clauses.roll_modifier), clauses)


def read_check(target: int, options: str = "", modifier: int = 0, clauses: Clauses | None = None,
               extra: tuple[Modifier, ...] = ()) -> CheckRequest:
    """The table's check: 3d10 plus ``modifier`` under ``target``, with ``clauses`` the game sets, then the
    clauses a player wrote (``options``, as after ``3d10 vs K``), then the ``extra`` modifiers."""
    modifier = _roll_modifier(modifier)
    target = _in_range("vs", target, 0, MAX_TARGET)
    read = parse_clauses(_Words(options), check=True, into=clauses)
    read.modifiers.extend(extra)
    expr_text = f"3d10{modifier:+d}" if modifier else "3d10"
    return CheckRequest(expr_text, target, _roll_modifier(modifier + read.roll_modifier), read)


def _check_modifier(expr: DiceExpr) -> int:
    dice = expr.dice_terms
    if len(dice) != 1 or dice[0] != DiceTerm(1, 3, 10):
        raise DiceError("sombra.check_dice", expr=expr.text)
    return _roll_modifier(sum(t.sign * t.value for t in expr.terms if not isinstance(t, DiceTerm)))


def _roll_modifier(modifier: int) -> int:
    if abs(modifier) > MAX_ROLL_MODIFIER:
        raise DiceError("sombra.number_range", name="modificador", value=modifier,
                        low=-MAX_ROLL_MODIFIER, high=MAX_ROLL_MODIFIER)
    return modifier


def parse_clauses(words: _Words, check: bool = False, into: Clauses | None = None) -> Clauses:
    """The clauses (added to ``into``'s), then the comment; a signed number is a clause of checks only."""
    clauses = Clauses() if into is None else into
    step = _signed_clause if check else _clause
    while words.peek() and step(words, clauses):
        pass
    clauses.comment = words.comment()
    return clauses


def _signed_clause(words: _Words, c: Clauses) -> bool:
    """``+3`` or ``+ 3`` added to the roll, else any other clause."""
    word, after = words.peek(), words.peek(1)
    if word in ("+", "-") and after.isdigit() and _INT.fullmatch(after):
        text, words.pos = word + after, words.pos + 2
    elif _SIGNED.fullmatch(word):
        text, words.pos = word, words.pos + 1
    else:
        return _clause(words, c)
    c.roll_modifier = _roll_modifier(c.roll_modifier + int(text))
    return True


def _clause(words: _Words, c: Clauses) -> bool:
    """Consume one clause into ``c``; False (nothing consumed) when the comment starts."""
    word, two = words.peek(), f"{words.peek()}_{words.peek(1)}"
    if two in ("muy_facil", "muy_dificil"):
        words.pos += 2
        c.modifiers.append(Modifier(two, DIFFICULTY[two]))
    elif word in ("facil", "normal", "dificil"):
        c.modifiers.append(Modifier(words.take(), DIFFICULTY[word]))
    elif word in _FLAT:
        c.modifiers.append(Modifier(words.take(), _FLAT[word]))
    elif word in ("apuntado", "dirigido"):
        words.take()
        _aim(words, c, word)
    elif word in _NUMBERED:
        words.take()
        c.modifiers.append(_NUMBERED[word](words))
    elif word in ("rafaga", "bala"):
        words.take()
        c.modifiers.append(_burst(words))
    elif word in TABLE_WORDS:
        c.table = TABLE_WORDS[words.take()]
    elif word in TORPEDO_WORDS:
        words.take()
        c.torpedo = True
    elif word in DAMAGE_WORDS:
        words.take()
        c.damage = _damage(words)
    else:
        return False
    return True


_FLAT = {"prisa": HURRY, "apuntando": TOOK_AIM, "segundo": SECOND_SHOT, "parada": PARRY}


def _numbered(name: str, low: int, high: int, rule: Callable[[int], int] | None = None) -> Callable[[_Words], Modifier]:
    """A clause ``NAME N``; with a ``rule`` the modifier is read from N and N is kept as its param."""
    def parse(words: _Words) -> Modifier:
        value = words.number(name, low, high)
        return Modifier(name, rule(value), value) if rule else Modifier(name, value)
    return parse


_NUMBERED = {
    "mando": _numbered("mando", 3, 30, command_modifier),
    "moral": _numbered("moral", -10, 10),
    "esquiva": _numbered("esquiva", 0, 30, unarmed_difficulty),
}


def _aim(words: _Words, c: Clauses, how: str) -> None:
    two = f"{words.peek()} {words.peek(1)}"
    if two in LOCATION_WORDS:
        words.pos += 2
        table, key = LOCATION_WORDS[two]
    elif words.peek() in LOCATION_WORDS:
        table, key = LOCATION_WORDS[words.take()]
    else:
        raise DiceError("sombra.unknown_location", text=_excerpt(words.peek() or "—"))
    if c.table is not None and c.table != table:
        raise DiceError("sombra.location_table", location=key, table=c.table)
    c.table, c.aimed = table, key
    c.modifiers.append(Modifier(how, AIMED_LOCATION if how == "apuntado" else CALLED_BLOW))


def _burst(words: _Words) -> Modifier:
    bullet = words.number("rafaga", 1, 30)
    step, target = 5, 1
    while words.peek() in ("paso", "blanco"):
        if words.take() == "paso":
            step = words.number("paso", 1, 5)
        else:
            target = words.number("blanco", 1, 10)
    return Modifier("rafaga", burst_penalty(bullet, step, target), bullet)


@dataclass(frozen=True, slots=True)
class FireRequest:
    """How an attack fires: ``rafaga N [paso S] [blanco T]`` is a burst of N bullets, ``cobertura``
    declares covering fire; ``rest`` are the other words, in order, for the check."""

    bullets: int | None = None
    step: int = 5
    targets: int = 1
    covering: bool = False
    rest: tuple[str, ...] = ()

    def bullet_modifier(self, bullet: int) -> Modifier | None:
        """The check modifier of one bullet of the burst (none when it adds nothing)."""
        penalty = burst_penalty(bullet, self.step, self.targets)
        return Modifier("rafaga", penalty, bullet) if penalty else None


def parse_fire(words: list[str]) -> FireRequest:
    """The burst and covering-fire words of an attack, taken out of ``words``."""
    cursor = _Words(" ".join(words))
    bullets: int | None = None
    step, targets, covering = 5, 1, False
    rest: list[str] = []
    while cursor.pos < len(cursor.words):
        word = cursor.peek()
        if word in ("rafaga", "cobertura"):
            cursor.take()
            if word == "cobertura":
                covering = True
                continue
            bullets = cursor.number("rafaga", 1, MAX_BURST)
            while cursor.peek() in ("paso", "blanco"):
                if cursor.take() == "paso":
                    step = cursor.number("paso", 1, 5)
                else:
                    targets = cursor.number("blanco", 1, 10)
        else:
            rest.append(cursor.words[cursor.pos])
            cursor.pos += 1
    if cursor.paren:
        rest.append(cursor.paren)
    return FireRequest(bullets, step, targets, covering, tuple(rest))


def _damage(words: _Words) -> DamageRequest:
    if words.peek() == "tipo":
        words.take()
    m = _DAMAGE_TYPE.fullmatch(words.peek())
    if m is None:
        raise DiceError("sombra.damage_type", text=_excerpt(words.peek() or "—"))
    words.take()
    kind = m[1].upper()
    request = DamageRequest(int(kind) if kind.isdigit() else ROMAN.index(kind))
    if m[2]:
        request.bonus = _bounded(int(m[2]), "bonificador")
    elif re.fullmatch(r"[+-]\d{1,4}", words.peek()):
        request.bonus = _bounded(int(words.take()), "bonificador")
    if words.peek() == "fue":
        words.take()
        request.strength = words.number("fue", 1, 10)
    return request


def read_weapon(weapon: str, strength: int | None = None) -> DamageRequest:
    """A sheet's weapon (``II+2``, ``I fue 8``), with the wielder's FUE (1-10) unless it names its own."""
    words = _Words(weapon)
    request = _damage(words)
    if parse_clauses(words).comment:
        raise DiceError("sombra.damage_type", text=weapon[:20])
    if strength is not None and request.strength is None:
        request.strength = _in_range("fue", strength, 1, 10)
    return request


def read_damage(damage: str, table: str, options: str = "") -> Clauses:
    """A damage roll on ``table``: the type ``damage`` names (``II+2``), then the clauses ``options`` writes
    (``apuntado cabeza``, ``torpedo``) and the comment."""
    request = _damage(_Words(damage))
    clauses = parse_clauses(_Words(options), into=Clauses(table=table))
    clauses.damage = request
    return clauses


def _bounded(value: int, name: str, limit: int = 100) -> int:
    if abs(value) > limit:
        raise DiceError("sombra.number_range", name=name, value=value, low=-limit, high=limit)
    return value


def parse_keyword_roll(text: str) -> tuple[str, Clauses | list[Combatant]] | None:
    """``daño ...``, ``localizacion ...`` or ``iniciativa ...``; None for anything else."""
    if len(text) > MAX_TEXT:
        raise DiceError("too_long", limit=MAX_TEXT)
    first, _, rest = text.strip().partition(" ")
    command = plain(first)
    if command in DAMAGE_WORDS:
        words = _Words(rest)
        damage = _damage(words)
        clauses = parse_clauses(words)
        clauses.damage = damage
        return "damage", clauses
    if command in LOCATION_COMMANDS:
        return "location", parse_clauses(_Words(rest))
    if command in INITIATIVE_COMMANDS:
        return "initiative", parse_initiative(rest)
    return None


def parse_initiative(text: str) -> list[Combatant]:
    """``Ana 7 6, Bruno 7/8 oportunidad, Lancha barco``: name then VEL AGI, or ``barco``."""
    entries = [e.strip() for e in text.split(",") if e.strip()]
    if not entries:
        raise DiceError("sombra.initiative_empty")
    if len(entries) > MAX_COMBATANTS:
        raise DiceError("sombra.number_range", name="combatientes", value=len(entries), low=1, high=MAX_COMBATANTS)
    return [_combatant(e) for e in entries]


_COMBATANT = re.compile(
    r"(?P<name>.+?) (?:(?P<vel>\d{1,2}) ?[/ ] ?(?P<agi>\d{1,2})|(?P<boat>barco|embarcaci[oó]n))"
    r"(?P<opportunity> oportunidad)?",
    re.IGNORECASE,
)
"""Matched on whitespace-normalised text: single spaces keep it linear in the entry's length."""


def _combatant(entry: str) -> Combatant:
    m = _COMBATANT.fullmatch(" ".join(entry.split()))
    if m is None or len(m["name"]) > MAX_NAME:
        raise DiceError("sombra.initiative_entry", text=_excerpt(entry, 40))
    bonus = OPPORTUNITY_INITIATIVE if m["opportunity"] else 0
    if m["boat"]:
        return Combatant.boat(m["name"], bonus)
    vel, agi = int(m["vel"]), int(m["agi"])
    for name, value in (("vel", vel), ("agi", agi)):
        if not 1 <= value <= 10:
            raise DiceError("sombra.number_range", name=name, value=value, low=1, high=10)
    return Combatant(m["name"], vel, agi, bonus)

