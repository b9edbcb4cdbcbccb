"""Sistema Sombra wound effects on people, per hit location (the "Personas" list of rules 004).

Pure functions over plain JSON-able data: a character's wounds are a dict
``{location_key: {"severity": "light" | "serious", "damage": int}}``, one entry per location.

Readings of lines that admit more than one:
- A new wound on an already wounded location keeps the worse severity (two light chest
  wounds stay light); on equal severity the larger damage is kept.
- Penalties of different locations add up (chest light +3 and legs light +5 give +8).
- Arm wounds hinder "actions using that arm", each arm on its own (4 right, 5 left). A two-handed
  action (a rifle, a machine gun) uses both; a one-handed one (a pistol, a knife, a fist, a throw)
  uses the right arm, or the left when the right is useless, with no off-hand penalty (the rules
  give none). A light wound on an arm in use adds +3 once; a useless arm in use forbids the action.
- Stunned (light head wound) lasts the victim's next two turns and halves their skills.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from systems.sombra.damage import wound_severity

SEVERITIES: tuple[str, ...] = ("none", "light", "serious")
STUN_TURNS = 2
ARM_PENALTY = 3
RIGHT_ARM, LEFT_ARM = "brazo_derecho", "brazo_izquierdo"
ARMS = (RIGHT_ARM, LEFT_ARM)


@dataclass(frozen=True, slots=True)
class WoundEffect:
    """What a set of wounds does. ``penalty`` adds to every roll (roll-under: positive is harder)."""

    penalty: int = 0
    light_arms: frozenset[str] = frozenset()
    useless_arms: frozenset[str] = frozenset()
    stun_turns: int = 0
    half_movement: bool = False
    unconscious: bool = False
    unconscious_hours: int = 0
    helpless: bool = False
    """Down and conscious, no action but talking (serious abdomen wound)."""
    fallen: bool = False
    """On the ground, cannot stand up unaided (serious leg wound)."""

    @property
    def can_act(self) -> bool:
        return not (self.unconscious or self.helpless)

    @property
    def arm_useless(self) -> bool:
        return bool(self.useless_arms)

    def arms_in_use(self, two_handed: bool) -> tuple[str, ...]:
        """The arms an action uses: both, or the right one (the left when the right is useless)."""
        if two_handed:
            return ARMS
        return (LEFT_ARM,) if RIGHT_ARM in self.useless_arms else (RIGHT_ARM,)

    def arm_penalty(self, two_handed: bool) -> int | None:
        """The arm wounds' penalty to an action using the arms; None when an arm it needs is useless."""
        used = self.arms_in_use(two_handed)
        if any(arm in self.useless_arms for arm in used):
            return None
        return ARM_PENALTY if any(arm in self.light_arms for arm in used) else 0


def _effect(location: str, severity: str, damage: int) -> WoundEffect:
    light = severity == "light"
    if location == "cabeza":
        return WoundEffect(penalty=3, stun_turns=STUN_TURNS) if light else \
            WoundEffect(unconscious=True, unconscious_hours=damage)
    if location == "pecho":
        return WoundEffect(penalty=3 if light else 5)
    if location in ARMS:
        arm = frozenset({location})
        return WoundEffect(light_arms=arm) if light else WoundEffect(useless_arms=arm)
    if location == "abdomen":
        return WoundEffect(penalty=3, half_movement=True) if light else WoundEffect(helpless=True)
    if location == "piernas":
        return WoundEffect(penalty=5, half_movement=True) if light else WoundEffect(fallen=True)
    raise ValueError(location)


def combined_effect(wounds: dict[str, dict[str, Any]]) -> WoundEffect:
    """The effect of every wound at once (penalties add, flags join)."""
    total = WoundEffect()
    for location, wound in wounds.items():
        e = _effect(location, wound["severity"], wound["damage"])
        total = WoundEffect(
            total.penalty + e.penalty, total.light_arms | e.light_arms, total.useless_arms | e.useless_arms,
            max(total.stun_turns, e.stun_turns), total.half_movement or e.half_movement,
            total.unconscious or e.unconscious, max(total.unconscious_hours, e.unconscious_hours),
            total.helpless or e.helpless, total.fallen or e.fallen,
        )
    return total


@dataclass(frozen=True, slots=True)
class WoundResult:
    """One hit on a person: its severity, and whether it changed the stored wounds."""

    location: str
    damage: int
    resistance: int
    severity: str
    worsened: bool
    stuns: bool
    pain: int = 0
    """Points ignored by the victim's pain resistance (VOL/2)."""

    @property
    def felt(self) -> int:
        """The points that count against RES."""
        return max(self.damage - self.pain, 0)


def pain_resistance(vol: int) -> int:
    """Resistir dolor (VOL/2, rounded down): points of a wound the victim ignores."""
    return vol // 2


def apply_wound(wounds: dict[str, dict[str, Any]], location: str, damage: int,
                resistance: int, pain: int = 0) -> tuple[dict[str, dict[str, Any]], WoundResult]:
    """New wounds after a hit of ``damage`` points at ``location`` on someone with RES ``resistance``,
    ``pain`` of them ignored (pain resistance); the wound keeps the points felt."""
    received, pain = damage, min(pain, damage)
    damage = received - pain
    severity = wound_severity(damage, resistance)
    old = wounds.get(location)
    rank = SEVERITIES.index(severity)
    old_key = (SEVERITIES.index(old["severity"]), old["damage"]) if old else (0, 0)
    worsened = rank > 0 and (rank, damage) > old_key
    new = {**wounds, location: {"severity": severity, "damage": damage}} if worsened else dict(wounds)
    stuns = worsened and _effect(location, severity, damage).stun_turns > 0
    return new, WoundResult(location, received, resistance, severity, worsened, stuns, pain)
