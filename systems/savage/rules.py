"""Savage Worlds (SWADE house rules, files 000 and 001): the pure rule tables and judgements.

Everything here takes plain numbers or outcome names and returns plain data.
Outcome names are the contract values: ``critical_failure``, ``failure``,
``success``, ``raise``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from systems.dice import DiceError

DEFAULT_TN = 4
RAISE_STEP = 4
MAX_WILD_CARD_WOUNDS = 3
MAX_ACTIONS = 3
MAX_SUPPORT_BONUS = 4
CRITICAL_INJURY_TABLE = "Tabla de Heridas Críticas"

CRITICAL_FAILURE = "critical_failure"
FAILURE = "failure"
SUCCESS = "success"
RAISE = "raise"
SUCCESSES = (SUCCESS, RAISE)

COVER = {"ligera": -1, "media": -2, "pesada": -4, "casi total": -6, "total": -6}
LIGHT = {"penumbra": -1, "tenue": -1, "oscuridad": -2, "oscuridad total": -4, "a ciegas": -4}
RANGE = {"corta": 0, "media": -2, "larga": -4}
PRONE = COVER["media"]
"""000: cobertura media's −2 «se aplica también cuando se ataca a oponentes cuerpo a tierra»."""
RECOIL = -2
MOVING_FIRE = -2
UNSKILLED = -2
JOKER_BONUS = 2
FUMBLED_SUPPORT = -2

AMMO_BY_ROF = {1: 1, 2: 5, 3: 10, 4: 20, 5: 40, 6: 50}


@dataclass(frozen=True, slots=True)
class CalledShot:
    """A called shot (001 "Ataques apuntados"): attack penalty and its effect."""

    target: str
    penalty: int
    damage_bonus: int = 0
    effect: str = ""  # "disarm", "ignore_armor" or ""


CALLED_SHOTS = {
    "cabeza": CalledShot("cabeza", -4, 4),
    "vitales": CalledShot("vitales", -4, 4),
    "cara": CalledShot("cara", -5, 4),
    "casco": CalledShot("cara", -5, 4),
    "extremidad": CalledShot("extremidad", -2),
    "brazo": CalledShot("extremidad", -2),
    "pierna": CalledShot("extremidad", -2),
    "mano": CalledShot("mano", -4, 0, "disarm"),
}
GM_SIZED_CALLED_SHOTS = {"objeto": "", "zona": "ignore_armor"}


def resolve(total: int, tn: int, snake_eyes: bool) -> tuple[str, int]:
    """Outcome and raises of a trait total against a TN; snake eyes beats any modifier."""
    if snake_eyes:
        return CRITICAL_FAILURE, 0
    if total < tn:
        return FAILURE, 0
    raises = (total - tn) // RAISE_STEP
    return (RAISE if raises else SUCCESS), raises


def multi_action_penalty(actions: int) -> int:
    """-2 for each action beyond the first, at most three actions."""
    if not 1 <= actions <= MAX_ACTIONS:
        raise DiceError("savage.bad_multi_action", value=actions, limit=MAX_ACTIONS)
    return -2 * (actions - 1)


def wound_penalty(wounds: int) -> int:
    if not 0 <= wounds <= MAX_WILD_CARD_WOUNDS:
        raise DiceError("savage.bad_wounds", value=wounds, limit=MAX_WILD_CARD_WOUNDS)
    return -wounds


def fatigue_penalty(level: int) -> int:
    if not 0 <= level <= 2:
        raise DiceError("savage.bad_fatigue", value=level)
    return -level


def support_bonus(outcome: str, raises: int = 0) -> int:
    """What one support roll gives the helped trait: +1, +2 on a raise, -2 on a fumble."""
    if outcome == CRITICAL_FAILURE:
        return FUMBLED_SUPPORT
    if outcome == FAILURE:
        return 0
    return 2 if raises else 1


def support_total(bonuses: list[int], strength: bool = False) -> int:
    """Bonuses from helpers add up to +4 at most (no cap on Strength); penalties always count."""
    gained = sum(b for b in bonuses if b > 0)
    lost = sum(b for b in bonuses if b < 0)
    return (gained if strength else min(gained, MAX_SUPPORT_BONUS)) + lost


def ammo_for_rof(rof: int) -> int:
    if rof not in AMMO_BY_ROF:
        raise DiceError("savage.bad_rof", value=rof, limit=max(AMMO_BY_ROF))
    return AMMO_BY_ROF[rof]


@dataclass(slots=True)
class TraitModifiers:
    """Every named modifier of a trait roll; ``items()`` lists the non-zero ones in a fixed order."""

    actions: int = 1
    unskilled: bool = False
    wounds: int = 0
    fatigue: int = 0
    joker: bool = False
    support: list[int] = field(default_factory=list)
    strength: bool = False
    cover: str = ""
    light: str = ""
    range: str = ""
    prone: bool = False
    recoil: bool = False
    moving: bool = False
    called_shot: CalledShot | None = None

    def items(self) -> list[tuple[str, int]]:
        pairs = [
            ("multi", multi_action_penalty(self.actions)),
            ("sin_entrenar", UNSKILLED if self.unskilled else 0),
            ("heridas", wound_penalty(self.wounds)),
            ("fatiga", fatigue_penalty(self.fatigue)),
            ("comodin", JOKER_BONUS if self.joker else 0),
            ("apoyo", support_total(self.support, self.strength)),
            ("cobertura", COVER.get(self.cover, 0)),
            ("luz", LIGHT.get(self.light, 0)),
            ("distancia", RANGE.get(self.range, 0)),
            ("cuerpo_a_tierra", PRONE if self.prone else 0),
            ("retroceso", RECOIL if self.recoil else 0),
            ("movimiento", MOVING_FIRE if self.moving else 0),
            ("apuntado", self.called_shot.penalty if self.called_shot else 0),
        ]
        return [(name, value) for name, value in pairs if value]

    @property
    def total(self) -> int:
        return sum(value for _, value in self.items())


@dataclass(frozen=True, slots=True)
class DamageEffect:
    """What a damage total does against Toughness."""

    margin: int
    shaken: bool
    wounds: int

    @property
    def outcome(self) -> str:
        if self.wounds:
            return "wounds"
        return "shaken" if self.shaken else "no_effect"


def damage_effect(total: int, toughness: int, already_shaken: bool = False) -> DamageEffect:
    """Success: Shaken (a wound if already Shaken); each raise: a wound, and Shaken."""
    margin = total - toughness
    if margin < 0:
        return DamageEffect(margin, False, 0)
    raises = margin // RAISE_STEP
    if raises:
        return DamageEffect(margin, True, raises)
    return DamageEffect(margin, True, 1 if already_shaken else 0)


@dataclass(frozen=True, slots=True)
class SoakResult:
    incoming: int
    soaked: int

    @property
    def remaining(self) -> int:
        return self.incoming - self.soaked

    @property
    def clears_shaken(self) -> bool:
        """Soaking every wound of the attack also removes Shaken."""
        return self.incoming > 0 and self.remaining == 0


def soak(incoming: int, outcome: str, raises: int) -> SoakResult:
    """A soak (Vigor) roll removes one wound on a success and one more per raise."""
    removed = 1 + raises if outcome in SUCCESSES else 0
    return SoakResult(incoming, min(incoming, removed))


def best_soak(kept: SoakResult, reroll: SoakResult) -> SoakResult:
    """A second benny re-rolls the soak's Vigor roll, as any trait roll: the better result stands."""
    return reroll if reroll.soaked > kept.soaked else kept


@dataclass(frozen=True, slots=True)
class IncapacitationResult:
    """The Vigor roll on being incapacitated; ``table`` is the one the GM rolls on."""

    dies: bool
    injury: str  # "", "permanent", "until_healed", "24h"
    bleeding: bool
    table: str = CRITICAL_INJURY_TABLE


def incapacitation(total: int, outcome: str) -> IncapacitationResult:
    """Total 1 or less: death; failure: permanent injury and bleeding; success/raise: temporary."""
    if total <= 1:
        return IncapacitationResult(True, "", False, "")
    if outcome == RAISE:
        return IncapacitationResult(False, "24h", False)
    if outcome == SUCCESS:
        return IncapacitationResult(False, "until_healed", False)
    return IncapacitationResult(False, "permanent", True)


def bleeding_out(outcome: str) -> str:
    """The Vigor roll at the start of each round: ``dies``, ``continues`` or ``stable``."""
    if outcome == RAISE:
        return "stable"
    return "continues" if outcome == SUCCESS else "dies"


def spirit_recovery(outcome: str) -> bool:
    """True when the Spirit roll at the start of the turn ends Shaken."""
    return outcome in SUCCESSES


def opposed(first: int, second: int) -> str:
    """Opposed roll (hold and interrupt, Stealth vs Notice): ``first``, ``second`` or ``tie``."""
    if first == second:
        return "tie"
    return "first" if first > second else "second"
