"""Savage Worlds combat state as plain dataclasses (JSON round-trip via to_dict/from_dict).

Functions return new states; nothing is mutated in place, so the table core can
store the result in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from systems.dice import DiceError
from systems.record import Record
from systems.savage.rules import (
    CRITICAL_FAILURE,
    FAILURE,
    MAX_WILD_CARD_WOUNDS,
    SUCCESSES,
    DamageEffect,
    IncapacitationResult,
    SoakResult,
    bleeding_out,
    spirit_recovery,
)


@dataclass(slots=True)
class SavageCharacter(Record):
    """One combatant: a Wild Card (player hero, named villain) or an Extra."""

    name: str
    wild_card: bool = True
    parry: int = 2
    toughness: int = 4
    bennies: int = 0
    shaken: bool = False
    wounds: int = 0
    fatigue: int = 0
    incapacitated: bool = False
    bleeding: bool = False
    dead: bool = False
    out: bool = False

    @property
    def can_act(self) -> bool:
        return not (self.incapacitated or self.dead or self.out)


def spend_benny(character: SavageCharacter) -> SavageCharacter:
    if character.bennies <= 0:
        raise DiceError("savage.no_bennies", name=character.name)
    return replace(character, bennies=character.bennies - 1)


def gain_benny(character: SavageCharacter, count: int = 1) -> SavageCharacter:
    return replace(character, bennies=character.bennies + count)


def apply_damage(character: SavageCharacter, effect: DamageEffect) -> SavageCharacter:
    """Shaken and wounds; an Extra with a wound is out; a Wild Card past 3 wounds is incapacitated."""
    if not effect.shaken and not effect.wounds:
        return character
    if not effect.wounds:
        return replace(character, shaken=True)
    if not character.wild_card:
        return replace(character, shaken=True, out=True, incapacitated=True)
    total = character.wounds + effect.wounds
    return replace(
        character,
        shaken=True,
        wounds=min(total, MAX_WILD_CARD_WOUNDS),
        incapacitated=character.incapacitated or total > MAX_WILD_CARD_WOUNDS,
    )


def soak_damage(
    character: SavageCharacter, effect: DamageEffect, result: SoakResult
) -> tuple[SavageCharacter, DamageEffect]:
    """Spend the benny of a soak roll and return the state and the effect left to apply.

    Soaking every wound also clears Shaken, even a Shaken from an earlier cause.
    """
    paid = spend_benny(character)
    if result.clears_shaken:
        return replace(paid, shaken=False), DamageEffect(effect.margin, False, 0)
    return paid, DamageEffect(effect.margin, effect.shaken, result.remaining)


def recover_at_turn_start(character: SavageCharacter, outcome: str) -> SavageCharacter:
    """The Spirit roll of a Shaken character at the start of their turn."""
    if character.shaken and spirit_recovery(outcome):
        return replace(character, shaken=False)
    return character


def unshake_with_benny(character: SavageCharacter) -> SavageCharacter:
    """A benny ends Shaken at any time, even right after a failed Spirit roll."""
    return replace(spend_benny(character), shaken=False)


def apply_incapacitation(character: SavageCharacter, result: IncapacitationResult) -> SavageCharacter:
    return replace(character, incapacitated=True, dead=result.dies, bleeding=result.bleeding)


def apply_bleeding_roll(character: SavageCharacter, outcome: str) -> SavageCharacter:
    """Vigor at the start of each round while bleeding out."""
    verdict = bleeding_out(outcome)
    if verdict == "dies":
        return replace(character, dead=True, bleeding=False)
    return replace(character, bleeding=verdict == "continues")


def stop_bleeding(character: SavageCharacter, healing_outcome: str) -> SavageCharacter:
    """Another character's successful Healing roll stabilises (only stops the bleeding)."""
    if healing_outcome in SUCCESSES:
        return replace(character, bleeding=False)
    return character


DRAMATIC_TASKS = {"arduo": (4, 3), "dificil": (6, 4), "compleja": (8, 5)}


@dataclass(slots=True)
class DramaticTask(Record):
    """Gather ``needed`` task tokens within ``rounds`` rounds."""

    needed: int
    rounds: int
    tokens: int = 0
    round: int = 0

    @classmethod
    def preset(cls, difficulty: str) -> DramaticTask:
        if difficulty not in DRAMATIC_TASKS:
            raise DiceError("savage.unknown_task", value=difficulty, known=list(DRAMATIC_TASKS))
        needed, rounds = DRAMATIC_TASKS[difficulty]
        return cls(needed, rounds)

    @classmethod
    def for_group(cls, helpers: int, rounds: int) -> DramaticTask:
        """The GM's base for a group: one token per helper and round, over 3 to 5 rounds."""
        if not 3 <= rounds <= 5 or helpers < 1:
            raise DiceError("savage.bad_task", helpers=helpers, rounds=rounds)
        return cls(helpers * rounds, rounds)

    @property
    def status(self) -> str:
        if self.tokens >= self.needed:
            return "success"
        return "failure" if self.round >= self.rounds else "in_progress"

    def add_roll(self, outcome: str, raises: int = 0) -> DramaticTask:
        """One skill roll: a token per success and raise, none on failure, -1 on a fumble."""
        if self.status != "in_progress":
            raise DiceError("savage.task_over", status=self.status)
        if outcome == CRITICAL_FAILURE:
            gained = -1 if self.tokens else 0
        elif outcome == FAILURE:
            gained = 0
        else:
            gained = 1 + raises
        return replace(self, tokens=self.tokens + gained)

    def end_round(self) -> DramaticTask:
        return replace(self, round=self.round + 1)


@dataclass(slots=True)
class ExplorationTurn(Record):
    """The XCOM free turn out of combat: everyone acts once, in any order."""

    players: list[str]
    acted: list[str] = field(default_factory=list)

    def act(self, name: str) -> ExplorationTurn:
        if name not in self.players:
            raise DiceError("savage.not_exploring", name=name)
        if name in self.acted:
            raise DiceError("savage.already_acted", name=name)
        return replace(self, acted=[*self.acted, name])

    @property
    def complete(self) -> bool:
        return set(self.acted) >= set(self.players)

    def interrupt(self) -> tuple[ExplorationTurn, list[str]]:
        """Enemies spotted: the turn stops and those who had not acted lose their action."""
        lost = [p for p in self.players if p not in self.acted]
        return replace(self, acted=list(self.players)), lost


@dataclass(slots=True)
class Overwatch(Record):
    """XCOM overwatch: held to shoot the first alien in sight, one single shot, no burst."""

    watchers: list[str] = field(default_factory=list)

    def enter(self, name: str) -> Overwatch:
        return self if name in self.watchers else replace(self, watchers=[*self.watchers, name])

    def trigger(self) -> tuple[Overwatch, list[str]]:
        """An alien enters line of sight: every watcher fires once (RoF 1), then leaves overwatch."""
        return replace(self, watchers=[]), list(self.watchers)
