"""Sistema Sombra's damage applied to a target: wounds on a person, armour lost by a vehicle, a boat's
zones, flotation and engine; what each hit did, for the message."""

from __future__ import annotations

from typing import Any

from bot.core.api import (
    Character,
    Context,
)
from bot.games.sombra.sheet import ENGINE, FLOTATION_LOST, WOUNDS, ZONE_ARMOUR, sheet_int, wounds_of
from bot.games.sombra.state import SombraState
from systems.dice import DiceError
from systems.sombra.damage import (
    BoatState,
    DamageResult,
    LocationHit,
    armour_loss,
    engine_hit,
    hit_boat,
    interior_damage,
    location_digits,
    location_key,
)
from systems.sombra.syntax import LOCATION_WORDS, TORPEDO_WORDS, plain
from systems.sombra.wounds import STUN_TURNS, apply_wound, pain_resistance


def apply_damage(ctx: Context, target: Character, table: str, damage: DamageResult) -> list[dict[str, Any]]:
    """Store what each hit of ``damage`` does to ``target``; one report per hit for the message."""
    apply = {"persona": _wound, "vehiculo": _vehicle_hit, "barco": _boat_hit}[table]
    return [apply(ctx, target, hit, damage) for hit in damage.hits]


def _wound(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
    vol = sheet_int(target, "vol")
    pain = pain_resistance(vol) if vol is not None else 0
    wounds, result = apply_wound(wounds_of(target), hit.key, hit.damage, sheet_int(target, "res") or 0, pain)
    if result.worsened:
        target.sheet[WOUNDS] = wounds
    combat = ctx.room.combat
    if result.stuns and combat is not None:
        # Counted down as each of the victim's turns ends: hurt in its own turn, that one does not count.
        state = SombraState.of(combat)
        state.stun_counts()[target.name] = STUN_TURNS
        fresh = [n for n in state.stun_fresh if n != target.name]
        if combat.started and combat.current == target.name:
            fresh.append(target.name)
        state.stun_fresh = fresh
    return {"kind": "wound", "hit": hit, "wound": result, "stun": STUN_TURNS if result.stuns else 0}


def _zone_armour(target: Character, zone: str) -> int:
    return int((target.sheet.get(ZONE_ARMOUR) or {}).get(zone, sheet_int(target, "blindaje") or 0))


def _set_zone_armour(target: Character, zone: str, armour: int) -> None:
    target.sheet[ZONE_ARMOUR] = {**(target.sheet.get(ZONE_ARMOUR) or {}), zone: armour}


def _vehicle_hit(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
    armour = _zone_armour(target, hit.key)
    lost = armour_loss(armour, hit.damage, "vehiculo")
    _set_zone_armour(target, hit.key, armour - lost)
    return {"kind": "vehicle", "hit": hit, "armour": armour - lost, "armour_lost": lost,
            "interior": interior_damage(armour, hit.damage)}


def boat_state(target: Character, *zones: str) -> BoatState:
    return BoatState({z: _zone_armour(target, z) for z in zones}, sheet_int(target, "flotabilidad") or 0,
                     sheet_int(target, FLOTATION_LOST) or 0)


def store_boat(target: Character, state: BoatState) -> None:
    for zone, armour in state.armour.items():
        _set_zone_armour(target, zone, armour)
    target.sheet["flotabilidad"] = state.flotation
    target.sheet[FLOTATION_LOST] = state.lost


def _boat_hit(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
    state, result = hit_boat(boat_state(target, hit.key), hit.key, hit.damage,
                             below_waterline=damage.below_waterline)
    store_boat(target, state)
    engine = sheet_int(target, ENGINE)
    adrift = False
    if engine is not None:
        left = engine_hit(hit.key, result.equipment, engine)
        target.sheet[ENGINE] = left
        adrift = engine > 0 and left == 0
    return {"kind": "boat", "hit": hit, "boat": result, "state": state, "armour": state.armour[hit.key],
            "torpedo": damage.below_waterline, "adrift": adrift}


def fixed_damage(table: str, words: list[str]) -> DamageResult | None:
    """``12 pecho``: points at a location, no roll; None when the words are no such pair."""
    if len(words) < 2 or not words[0].isdigit() or len(words[0]) > 4:
        return None
    location = LOCATION_WORDS.get(plain(" ".join(words[1:3]))) or LOCATION_WORDS.get(plain(words[1]))
    if location is None:
        raise DiceError("sombra.unknown_location", text=words[1][:20])
    if location[0] != table:
        raise DiceError("sombra.location_table", location=location[1], table=table)
    digit = location_digits(table, location[1])[0]
    torpedo = any(plain(w) in TORPEDO_WORDS for w in words[2:])
    if torpedo and table != "barco":
        raise DiceError("sombra.torpedo_table", table=table)
    return DamageResult(0, table, 0, False, (LocationHit(digit, location_key(table, digit), int(words[0])),),
                        torpedo)
