"""Reino combatants at the table: the rules' ``ReinoCharacter`` read from a sheet and a combat, and back.

Where each piece lives (all JSON-able, so a restart keeps it):

- ``character.sheet``: the stats ``!ficha`` sets (see ``SHEET_FIELDS``), the current ``pr`` and
  ``pa`` and the lasting wound states as one readable string (``estados``), since wounds outlast
  a fight.
- ``combat.data``: what only a fight means. ``fighters`` (per name key: ``stunned_round`` from
  Malherido/Incapacitado, ``stunned_since`` of a table Aturdido, ``dying_saves``, ``unconscious_since``:
  the round it fell unconscious, for the wake-up roll every 10 rounds), ``taken`` (per name key: the
  actions spent this round), ``unaware`` (name keys surprised), ``surprise_round``, ``sequence`` (the
  rules' ``CombatSequence``), ``pending`` (per attacker's name key: the landed blows whose damage
  ``!daño`` rolls, oldest first, each with its ``target``, ``multiplier`` and the turn it landed in,
  ``stamp``: one of an earlier turn is owed) and ``halvable`` (the last hit's damage its victim may still
  halve with ``!pa mitad``, see ``HalvableHit``). The explanations already read this fight are the
  core's (``first_time``, ``explainer``).
- ``room.rerolls`` (the core's record of each character's last roll): what ``!pa éxito`` turns into a
  bare success, its ``text`` in the form ``replay_text`` writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, NotRequired, TypedDict

from bot.core.api import (
    Character,
    Combat,
    Context,
    RoomState,
    name_key,
)
from bot.games.reino.sheet import DEAD, SAVES, STATES, UNCONSCIOUS, is_minion, normalise_sheet, sheet_bonus
from systems.reino.rules import (
    ACTION_PENALTY,
    ROUNDS_PER_MINUTE,
    Action,
    ActionBudget,
    CombatSequence,
    Condition,
    ReinoCharacter,
    ReinoRuleError,
    budget_for,
)


class Fighter(TypedDict, total=False):
    """What a fight keeps of one combatant (``combat.data["fighters"]``, by name key)."""

    stunned_round: int | None
    """The round Malherido/Incapacitado stuns it for."""
    stunned_since: int | None
    """The round a table Aturdido began."""
    dying_saves: int
    unconscious_since: int
    """The round it fell unconscious, for the wake-up roll every 10 rounds."""


class PendingBlow(TypedDict):
    """A landed blow whose damage ``!daño`` rolls (``combat.data["pending"]``, listed by the attacker's name
    key)."""

    target: str
    multiplier: int
    stamp: NotRequired[list[int | str] | None]
    """The turn it landed in (``stamp``): a blow of an earlier turn is owed, rolled when the GM allows."""


class HalvableHit(TypedDict):
    """The last hit's damage, which its victim may still halve with an Action Point (``combat.data
    ["halvable"]``): until another roll, a wound state applied or the turn's end."""

    target: str
    points: int
    stamp: list[int | str] | None
    natural: int | None
    """The d20 of its wound save, read again against the halved damage's DC."""
    before: dict[str, Any]
    """The victim's ``pr``, ``pa`` and ``estados`` before the hit (None: not on the sheet)."""
    fighter: dict[str, Any]
    """What the fight kept of the victim before the hit."""


@dataclass
class ReinoState:
    """Reino's keys in ``combat.data``, typed. A view over the combat's own dict: what it reads and
    writes is the stored JSON as it always was (the layout is in this module's docstring)."""

    combat: Combat

    @classmethod
    def of(cls, combat: Combat) -> ReinoState:
        return cls(combat)

    @property
    def _data(self) -> dict[str, Any]:
        return self.combat.data

    def fighter(self, character: Character) -> Fighter:
        """The fight's data of ``character``, kept (added when missing)."""
        return self._data.setdefault("fighters", {}).setdefault(name_key(character.name), {})

    def set_fighter(self, character: Character, kept: dict[str, Any]) -> None:
        """What the fight keeps of ``character``, put back as it was (``kept``)."""
        self._data.setdefault("fighters", {})[name_key(character.name)] = dict(kept)

    def fighters(self) -> list[Fighter]:
        return list(self._data.get("fighters", {}).values())

    def start(self, sequence: CombatSequence) -> None:
        """The initiative rolled: the sequence, whether a surprise round comes first, no actions taken."""
        self._data.update(sequence=sequence.to_dict(), surprise_round=sequence.surprise_round, taken={})

    @property
    def sequence(self) -> CombatSequence | None:
        """The rules' initiative sequence; None when the GM set the order by hand (``!turnos``)."""
        stored = self._data.get("sequence")
        return None if stored is None else CombatSequence.from_dict(stored)

    @sequence.setter
    def sequence(self, sequence: CombatSequence) -> None:
        self._data["sequence"] = sequence.to_dict()

    @property
    def surprise_round(self) -> bool:
        return bool(self._data.get("surprise_round"))

    @surprise_round.setter
    def surprise_round(self, value: bool) -> None:
        self._data["surprise_round"] = value

    @property
    def unaware(self) -> list[str]:
        """The name keys of the surprised."""
        return self._data.get("unaware", [])

    @unaware.setter
    def unaware(self, keys: list[str]) -> None:
        self._data["unaware"] = keys

    def taken(self, character: Character) -> list[str]:
        """The actions ``character`` spent this round."""
        return self._data.get("taken", {}).get(name_key(character.name), [])

    def take(self, character: Character, taken: list[str]) -> None:
        self._data.setdefault("taken", {})[name_key(character.name)] = taken

    def new_round(self) -> None:
        """No actions taken yet."""
        self._data["taken"] = {}

    def pending_seen(self) -> dict[str, list[PendingBlow]]:
        """``pending`` only read: nothing is added (a look at the fight changes no state)."""
        return {key: _listed(kept) for key, kept in self._data.get("pending", {}).items()}

    def pending(self) -> dict[str, list[PendingBlow]]:
        """The landed blows waiting for ``!daño``, by attacker, oldest first, kept (added when missing)."""
        blows = self._data.setdefault("pending", {})
        for key, kept in blows.items():
            blows[key] = _listed(kept)
        return blows

    @property
    def halvable(self) -> HalvableHit | None:
        return self._data.get("halvable")

    @halvable.setter
    def halvable(self, hit: HalvableHit | None) -> None:
        if hit is None:
            self._data.pop("halvable", None)
        else:
            self._data["halvable"] = hit


def _listed(kept: list[PendingBlow] | PendingBlow) -> list[PendingBlow]:
    """A stored attacker's blows as a list (one blow alone was stored before blows could be owed)."""
    return kept if isinstance(kept, list) else [kept]


def close_halving(ctx: Context) -> None:
    """Another roll, or a wound state applied: the last hit's damage can no longer be halved."""
    if ctx.room.combat is not None:
        ReinoState.of(ctx.room.combat).halvable = None


def fighter_data(combat: Combat | None, character: Character) -> Fighter:
    return ReinoState.of(combat).fighter(character) if combat is not None else {}


def load(ctx: Context, character: Character) -> ReinoCharacter:
    """The rules' view of ``character`` now: its sheet and what the room's combat keeps of it."""
    combat = ctx.room.combat
    sheet = normalise_sheet(character.sheet)
    labels = [label.strip() for label in str(sheet.get(STATES, "")).split(",") if label.strip()]
    fighter = fighter_data(combat, character)
    resistance = int(sheet.get("pr", sheet.get("pr_max", 0)))
    return ReinoCharacter(
        name=character.name,
        resistance=resistance,
        max_resistance=int(sheet.get("pr_max", resistance)),
        threshold=int(sheet.get("umbral", 0)),
        defense=int(sheet.get("defensa", 10)),
        dodge=int(sheet.get("esquiva", 0)),
        damage_reduction=int(sheet.get("rd", 0)),
        initiative=int(sheet.get("iniciativa", 0)),
        fortitude=sheet_bonus(sheet, "fortaleza", SAVES)[0],
        action_points=int(sheet.get("pa", 0)),
        minion=is_minion(sheet, ctx.sheet_is_gms(character)),
        conditions=tuple(c.value for c in Condition if c.value in labels),
        stunned_round=fighter.get("stunned_round"),
        unconscious=UNCONSCIOUS in labels,
        dead=DEAD in labels,
        dying_saves=int(fighter.get("dying_saves", 0)),
    )


def save(character: Character, combat: Combat | None, rc: ReinoCharacter) -> None:
    sheet = character.sheet
    if "pr" in sheet:
        sheet.setdefault("pr_max", rc.max_resistance)  # the full PR, before any damage (rules 003)
        sheet["pr"] = rc.resistance
    if "pa" in sheet or rc.action_points:
        sheet["pa"] = rc.action_points
    labels = [*rc.conditions, *([UNCONSCIOUS] if rc.unconscious else []), *([DEAD] if rc.dead else [])]
    if labels:
        sheet[STATES] = ", ".join(labels)
    else:
        sheet.pop(STATES, None)
    if combat is not None:
        fighter = fighter_data(combat, character)
        if not rc.unconscious:
            fighter.pop("unconscious_since", None)
        elif fighter.get("unconscious_since") is None:
            fighter["unconscious_since"] = combat.round
        fighter.update({"stunned_round": rc.stunned_round, "dying_saves": rc.dying_saves})


def in_round(combat: Combat | None) -> bool:
    return combat is not None and combat.started


def surprised(combat: Combat | None, character: Character) -> bool:
    """Unaware during the surprise round: no action, and Defense without the Dodge bonus."""
    if combat is None or not in_round(combat) or not ReinoState.of(combat).surprise_round:
        return False
    return name_key(character.name) in ReinoState.of(combat).unaware


def budget(combat: Combat, character: Character, rc: ReinoCharacter) -> ActionBudget:
    state = ReinoState.of(combat)
    taken = state.taken(character)
    fresh = budget_for(rc, combat.round, surprise_round=state.surprise_round)
    return replace(fresh, taken=tuple(taken))


def check_action(
    combat: Combat | None, character: Character, rc: ReinoCharacter, action: Action
) -> ActionBudget | None:
    """The budget after ``action`` (not stored yet), None out of combat; raises when it is not allowed."""
    if not in_round(combat):
        return None
    assert combat is not None
    if surprised(combat, character):
        raise ReinoRuleError("reino.action_not_allowed", action=action.value, reason="surprised")
    return budget(combat, character, rc).take(action)


def commit_action(combat: Combat | None, character: Character, spent: ActionBudget | None) -> None:
    if combat is not None and spent is not None:
        ReinoState.of(combat).take(character, list(spent.taken))


def combatants(room: RoomState, combat: Combat) -> list[Character]:
    found = (room.find_character(name) for name in combat.order)
    return [c for c in found if c is not None]


def labels(ctx: Context, character: Character, combat: Combat | None, gms_sheet: bool = False,
           points: bool = True) -> list[str]:
    """Short labels for the status board and ``!salud`` (rendered from a template); ``gms_sheet``: the
    GM's character seen by the room, without its sheet's numbers (resistance, action points) nor its
    role (a minion or not is the GM's to know); ``points`` False: without PR and PA (a damage message
    shows the PR's change)."""
    rc = load(ctx, character)
    text = ctx.renderer.text(
        "reino/table_labels", rc=rc, sheet={} if gms_sheet else character.sheet, gms_sheet=gms_sheet, points=points,
        surprised=surprised(combat, character),
        stunned=bool(combat and combat.started and rc.stunned_round == combat.round),
    )
    return [line.strip() for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class Rescue:
    """A failed d20 test as ``!pa éxito`` reads it back from the roller's last roll."""

    purpose: str
    modifier: int
    dc: int


_REPLAY = re.compile(r"^([a-z]{1,12}) ([+-]\d{1,4}) vs (\d{1,4})$")


def replay_text(purpose: str, modifier: int, dc: int) -> str:
    """A failed test kept for ``!pa éxito``: ``prueba +5 vs 15`` (for checks, saves and attacks also the
    system text that rolls it again)."""
    return f"{purpose} {modifier:+d} vs {dc}"


def read_replay(text: object) -> Rescue | None:
    """What ``replay_text`` wrote, or None for anything else."""
    m = _REPLAY.match(text) if isinstance(text, str) else None
    return Rescue(m[1], int(m[2]), int(m[3])) if m else None


def wound_penalty(rc: ReinoCharacter) -> tuple[tuple[str, int], ...]:
    """The worst wound state's penalty to every action (Malherido -2, Incapacitado -5), named, or none."""
    worst = next((c for c in (Condition.INCAPACITADO, Condition.MALHERIDO) if rc.has(c)), None)
    return ((worst.value, ACTION_PENALTY[worst]),) if worst is not None else ()


def unconscious_minutes(combat: Combat | None, character: Character) -> int:
    """The minute (10 rounds) of unconsciousness under way: 1 out of combat or in the first 10 rounds."""
    since = fighter_data(combat, character).get("unconscious_since")
    if combat is None or since is None:
        return 1
    return max(1, (combat.round - since) // ROUNDS_PER_MINUTE)
