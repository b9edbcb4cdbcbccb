"""The sombra table: combat hooks (``bot/core/combat.py`` calls them) and commands.

Every rule comes from ``systems/sombra*``; this module only reads sheets, stores results
and picks the message. What outlasts a fight lives in ``character.sheet`` (wounds, zone
armour, flotation); what belongs to one fight lives in ``combat.data`` (initiative ties,
stun counters, whose turn started last).
"""

from __future__ import annotations

from typing import Any

from bot.core import combat as rounds
from bot.core import floor
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.game import Vitality
from bot.core.state import Character, Combat
from systems.dice import DiceError
from systems.refusal import Refusal
from systems.sombra.damage import (
    BoatState,
    DamageResult,
    LocationHit,
    armour_loss,
    hit_boat,
    interior_damage,
    location_digits,
    sinking_round,
)
from systems.sombra.resolver import SombraCheck, SombraDamageRoll, SombraInitiative
from systems.sombra.rules import Attributes, Combatant, InitiativeSlot, initiative_order
from systems.sombra.syntax import (
    LOCATION_WORDS,
    MELEE_TYPES,
    TABLE_WORDS,
    Clauses,
    parse_keyword_roll,
    plain,
)
from systems.sombra.wounds import STUN_TURNS, WoundEffect, apply_wound, combined_effect

COMMANDS = CommandGroup()
SKILLS: tuple[str, ...] = ("disparo", "pelea", "arrojar", "esquivar")
MAX_SKILL = 30


class SkillValue(int):
    """A skill on the sheet: 0 to 30, the rules' range; anything else is a bad value."""

    def __new__(cls, value: str) -> SkillValue:
        number = int(str(value).strip())
        if not 0 <= number <= MAX_SKILL:
            raise ValueError(value)
        return super().__new__(cls, number)


class WeaponDamage(str):
    """A sheet's ``arma``: a damage type and bonus the system reads (``II+2``, ``0``)."""

    __slots__ = ()

    def __new__(cls, value: str) -> WeaponDamage:
        try:
            _weapon_type(value.strip())
        except DiceError:
            raise ValueError(value) from None
        return super().__new__(cls, value.strip())


class TableKind(str):
    """A sheet's ``tipo``: which hit-location table the character uses (persona, vehículo, barco)."""

    __slots__ = ()

    def __new__(cls, value: str) -> TableKind:
        if plain(value.strip()) not in TABLE_WORDS:
            raise ValueError(value)
        return super().__new__(cls, value.strip())


SHEET_FIELDS: dict[str, type] = {
    **dict.fromkeys(("fue", "res", "vit", "agi", "coo", "vel", "con", "int", "per", "inv", "log", "mem", "apa", "car",
                     "vol"), int),
    **dict.fromkeys(SKILLS, SkillValue),
    **dict.fromkeys(("pistola", "fusil", "ametralladora", "lanzar", "cuchillo", "alerta", "sigilo", "conducir",
                     "pilotar", "nadar", "trepar", "primeros_auxilios", "orientacion", "explosivos", "radio",
                     "idiomas", "mando"), SkillValue),
    "arma": WeaponDamage, "tipo": TableKind, "blindaje": int, "flotabilidad": int, "muerto": int,
}
DEAD = "muerto"
WOUNDS, ZONE_ARMOUR, FLOTATION_LOST = "heridas", "blindaje_zonas", "flotabilidad_perdida"
REQUIRED: dict[str, tuple[str, ...]] = {"persona": ("res",), "vehiculo": ("blindaje",),
                                        "barco": ("blindaje", "flotabilidad")}
UNARMED = "0"
BY_INITIATIVE = "by_initiative"
"""In ``combat.data``: the order came from VEL/AGI (``!iniciativa``), not from the GM's ``!turnos``."""


# --- sheets -------------------------------------------------------------------------------

def _int(character: Character, key: str) -> int | None:
    value = character.sheet.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _table(character: Character) -> str | None:
    """The target's hit-location table from its ``tipo`` (people by default); None if unknown."""
    return TABLE_WORDS.get(plain(str(character.sheet.get("tipo", "persona"))))


def _wounds(character: Character) -> dict[str, dict[str, Any]]:
    return dict(character.sheet.get(WOUNDS) or {})


def _effect(character: Character) -> WoundEffect:
    return combined_effect(_wounds(character))


def _target(ctx: Context, args: str) -> tuple[Character, str, list[str]]:
    """The named character with a known ``tipo`` and the sheet fields its table needs; else a refusal."""
    character, rest = ctx.named_character(args)
    table = _table(character)
    if table is None:
        raise Refusal("sombra/table_bad_kind", name=character.name, value=str(character.sheet.get("tipo"))[:30])
    _require(character, REQUIRED[table])
    return character, table, rest


def _require(character: Character, fields: tuple[str, ...]) -> None:
    """Refuse when the sheet lacks any of ``fields``, naming them."""
    absent = [f for f in fields if _int(character, f) is None]
    if absent:
        raise Refusal("sombra/table_missing", name=character.name, fields=absent)


# --- applying damage ----------------------------------------------------------------------

def _apply(ctx: Context, target: Character, table: str, damage: DamageResult) -> list[dict[str, Any]]:
    """Store what each hit of ``damage`` does to ``target``; one report per hit for the message."""
    apply = {"persona": _wound, "vehiculo": _vehicle_hit, "barco": _boat_hit}[table]
    return [apply(ctx, target, hit) for hit in damage.hits]


def _wound(ctx: Context, target: Character, hit: LocationHit) -> dict[str, Any]:
    wounds, result = apply_wound(_wounds(target), hit.key, hit.damage, _int(target, "res") or 0)
    if result.worsened:
        target.sheet[WOUNDS] = wounds
    combat = ctx.room.combat
    if result.stuns and combat is not None:
        # Counted down as each of the victim's turns ends: hurt in its own turn, that one does not count.
        own_turn = combat.started and combat.current == target.name
        combat.data.setdefault("stun", {})[target.name] = STUN_TURNS + int(own_turn)
    return {"kind": "wound", "hit": hit, "wound": result, "stun": STUN_TURNS if result.stuns else 0}


def _zone_armour(target: Character, zone: str) -> int:
    return int((target.sheet.get(ZONE_ARMOUR) or {}).get(zone, _int(target, "blindaje") or 0))


def _set_zone_armour(target: Character, zone: str, armour: int) -> None:
    target.sheet[ZONE_ARMOUR] = {**(target.sheet.get(ZONE_ARMOUR) or {}), zone: armour}


def _vehicle_hit(ctx: Context, target: Character, hit: LocationHit) -> dict[str, Any]:
    armour = _zone_armour(target, hit.key)
    lost = armour_loss(armour, hit.damage, "vehiculo")
    _set_zone_armour(target, hit.key, armour - lost)
    return {"kind": "vehicle", "hit": hit, "armour": armour - lost, "armour_lost": lost,
            "interior": interior_damage(armour, hit.damage)}


def _boat_state(target: Character, *zones: str) -> BoatState:
    return BoatState({z: _zone_armour(target, z) for z in zones}, _int(target, "flotabilidad") or 0,
                     _int(target, FLOTATION_LOST) or 0)


def _store_boat(target: Character, state: BoatState) -> None:
    for zone, armour in state.armour.items():
        _set_zone_armour(target, zone, armour)
    target.sheet["flotabilidad"] = state.flotation
    target.sheet[FLOTATION_LOST] = state.lost


def _boat_hit(ctx: Context, target: Character, hit: LocationHit) -> dict[str, Any]:
    state, result = hit_boat(_boat_state(target, hit.key), hit.key, hit.damage)
    _store_boat(target, state)
    return {"kind": "boat", "hit": hit, "boat": result, "state": state, "armour": state.armour[hit.key]}


# --- combat hooks -------------------------------------------------------------------------

def _combatant(ctx: Context, name: str) -> tuple[Combatant, bool]:
    """The combatant for ``name`` and whether VEL/AGI were missing (the default 5 is used)."""
    character = ctx.room.find_character(name)
    if character is not None and _table(character) == "barco":
        return Combatant.boat(name), False
    vel = _int(character, "vel") if character else None
    agi = _int(character, "agi") if character else None
    default = Attributes()
    return Combatant(name, default.vel if vel is None else vel, default.agi if agi is None else agi), \
        vel is None or agi is None


def _slots(ctx: Context, names: list[str]) -> list[InitiativeSlot]:
    """The initiative places of ``names`` by VEL, then AGI (full ties keep the order given)."""
    return initiative_order(_combatant(ctx, name)[0] for name in names)


class SombraCombat:
    """Initiative by VEL then AGI (ties flagged), stun counted in the victim's turns,
    sinking boats losing flotation each round, wounds and flotation on the status board."""


    def initiative(self, ctx: Context, combat: Combat) -> None:
        entries = [_combatant(ctx, name) for name in combat.order]
        slots = initiative_order(c for c, _ in entries)
        combat.order = [s.combatant.name for s in slots]
        combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        combat.data[BY_INITIATIVE] = True
        ctx.announce("sombra/table_initiative", roll=SombraInitiative(slots),
                     defaults=[c.name for c, missing in entries if missing])

    def new_round(self, ctx: Context, combat: Combat) -> None:
        if combat.data.get(BY_INITIATIVE):
            slots = _slots(ctx, combat.order)
            combat.order = [s.combatant.name for s in slots]
            combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        for name in combat.order:
            character = ctx.room.find_character(name)
            if character is None or _table(character) != "barco" or _int(character, "flotabilidad") is None:
                continue
            before = _boat_state(character)
            after = sinking_round(before)
            if after != before:
                _store_boat(character, after)
                ctx.announce("sombra/table_sinking", name=name, lost=before.flotation - after.flotation,
                             state=after)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        stun = combat.data.setdefault("stun", {})
        previous = combat.data.get("last_turn")
        if previous in stun:
            stun[previous] -= 1
            if stun[previous] <= 0:
                del stun[previous]
        combat.data["last_turn"] = actor.name
        if actor.name in stun or _effect(actor).fallen:
            ctx.announce("sombra/table_turn", name=actor.name, stun=stun.get(actor.name, 0))

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return [ctx.renderer.text("sombra/table_condition", l=label) for label in _labels(combat, actor)]

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """Placed by VEL, then AGI, among those still to act; in an order set by hand, last."""
        names = [*combat.order, character.name]
        if not combat.data.get(BY_INITIATIVE):
            rounds.place_late(combat, character.name, names)
            return None
        slots = _slots(ctx, names)
        rounds.place_late(combat, character.name, [s.combatant.name for s in slots])
        combat.data["ties"] = [s.combatant.name for s in slots if s.tied]
        if ctx.sheet_is_gms(character):
            return None
        mine, missing = _combatant(ctx, character.name)
        return ctx.renderer.text("sombra/table_join", c=mine, defaulted=missing)

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        combat.data["ties"] = [n for n in combat.data.get("ties", []) if n != name]
        combat.data.get("stun", {}).pop(name, None)

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """The rules give people no death threshold: the GM marks the dead (``!ficha NOMBRE muerto 1``)."""
        if _int(character, DEAD):
            return "dead"
        return "up" if _effect(character).can_act else "down"


def _labels(combat: Combat | None, actor: Character) -> list[dict[str, Any]]:
    data = combat.data if combat else {}
    labels: list[dict[str, Any]] = []
    if actor.name in data.get("ties", []):
        labels.append({"kind": "tie"})
    if data.get("stun", {}).get(actor.name):
        labels.append({"kind": "stunned", "turns": data["stun"][actor.name]})
    labels += [{"kind": "wound", "location": loc, **w} for loc, w in sorted(_wounds(actor).items())]
    effect = _effect(actor)
    for flag in ("unconscious", "helpless", "fallen", "arm_useless", "half_movement"):
        if getattr(effect, flag):
            labels.append({"kind": flag, "hours": effect.unconscious_hours})
    if effect.penalty:
        labels.append({"kind": "penalty", "value": effect.penalty})
    if _table(actor) == "barco" and _int(actor, "flotabilidad") is not None:
        state = _boat_state(actor)
        labels.append({"kind": "boat", "flotation": state.flotation, "sinking": state.sinking, "sunk": state.sunk})
    return labels




# --- commands -----------------------------------------------------------------------------

def _attacker(ctx: Context) -> Character | None:
    """A GM in a running combat attacks with the combatant whose turn it is; anyone else
    (or a GM outside combat) with their own character."""
    combat = ctx.room.combat
    if ctx.is_gm() and combat is not None and combat.started:
        return ctx.room.find_character(combat.current or "")
    return ctx.character


def _weapon_type(weapon: str) -> int:
    """The damage type of a sheet's ``arma`` (``II+2``), read by the system's own parser."""
    parsed = parse_keyword_roll(f"daño {weapon}")
    clauses = parsed[1] if parsed else None
    if not isinstance(clauses, Clauses) or clauses.damage is None or clauses.comment:
        raise DiceError("sombra.damage_type", text=weapon[:20])
    return clauses.damage.damage_type


@COMMANDS.command("ataque", "attack", usage="OBJETIVO [habilidad] [dificil, prisa, apuntado cabeza, rafaga 2...]",
         in_character=True, needs_args=True)
def attack_command(ctx: Context, args: str) -> None:
    attacker = _attacker(ctx)
    if attacker is None:
        raise Refusal("sombra/table_no_attacker")
    target, table, rest = _target(ctx, args)
    effect = _effect(attacker)
    if _int(attacker, DEAD):
        rounds.require_up(ctx, attacker)
    if not effect.can_act or effect.arm_useless:
        raise Refusal("sombra/table_cannot_act", name=attacker.name, effect=effect)
    weapon = str(attacker.sheet.get("arma") or UNARMED)
    skill = plain(rest[0]) if rest and plain(rest[0]) in SKILLS else None
    options = rest[1:] if skill else rest
    skill = skill or ("pelea" if _weapon_type(weapon) in MELEE_TYPES else "disparo")
    _require(attacker, (skill,))
    _resolve_attack(ctx, attacker, target, table, skill, weapon, " ".join(options), effect)


def _resolve_attack(ctx: Context, attacker: Character, target: Character, table: str, skill: str,
                    weapon: str, options: str, effect: WoundEffect) -> None:
    combat = ctx.room.combat
    stunned = bool(combat and combat.data.get("stun", {}).get(attacker.name))
    value = _int(attacker, skill) or 0
    aim = value // 2 if stunned else value
    strength = f" fue {_int(attacker, 'fue')}" if _int(attacker, "fue") is not None else ""
    penalty = f"{effect.attack_modifier:+d}" if effect.attack_modifier else ""
    text = f"3d10{penalty} vs {aim} {table} daño {weapon}{strength} {options}"
    result = ctx.system.roll(text, ctx.rng)
    assert isinstance(result, SombraCheck)
    reports = _apply(ctx, target, table, result.damage) if result.damage else []
    ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill, value=value,
              aim=aim, stunned=stunned, roll=result, reports=reports, after=_labels(combat, target))
    floor.consume_grant(ctx)


def _fixed_damage(table: str, words: list[str]) -> DamageResult | None:
    """``12 pecho``: points at a location, no roll; None when the words are no such pair."""
    if len(words) < 2 or not words[0].isdigit() or len(words[0]) > 4:
        return None
    location = LOCATION_WORDS.get(plain(" ".join(words[1:3]))) or LOCATION_WORDS.get(plain(words[1]))
    if location is None:
        raise DiceError("sombra.unknown_location", text=words[1][:20])
    if location[0] != table:
        raise DiceError("sombra.location_table", location=location[1], table=table)
    digit = location_digits(table, location[1])[0]
    return DamageResult(0, table, 0, False, (LocationHit(digit, location[1], int(words[0])),))


@COMMANDS.command("daño", "damage", usage="NOMBRE TIPO[+N] [apuntado LOC] | NOMBRE PUNTOS LOC", gm_only=True,
         needs_args=True)
def damage_command(ctx: Context, args: str) -> None:
    target, table, words = _target(ctx, args)
    if not words:
        raise Refusal("sombra/table_damage_usage")
    damage = _fixed_damage(table, words)
    roll = None
    if damage is None:
        roll = ctx.system.roll(" ".join(["daño", words[0], table, *words[1:]]), ctx.rng)
        assert isinstance(roll, SombraDamageRoll)
        damage = roll.damage
    reports = _apply(ctx, target, table, damage)
    ctx.reply("sombra/table_damage", target=target.name, roll=roll, damage=damage, reports=reports,
              after=_labels(ctx.room.combat, target))


@COMMANDS.command("heridas", "wounds", usage="NOMBRE", needs_args=True)
def wounds_command(ctx: Context, args: str) -> None:
    character, _ = ctx.named_character(args)
    ctx.reply("sombra/table_wounds", name=character.name, table=_table(character),
              labels=_labels(ctx.room.combat, character), effect=_effect(character),
              armour=character.sheet.get(ZONE_ARMOUR) or {})


@COMMANDS.command("curar", "heal", usage="NOMBRE [localización]", gm_only=True, needs_args=True)
def heal_command(ctx: Context, args: str) -> None:
    character, words = ctx.named_character(args)
    wounds, location = _wounds(character), None
    if words:
        location = LOCATION_WORDS.get(plain(" ".join(words)))
        if location is None or location[1] not in wounds:
            raise Refusal("sombra/table_not_wounded", name=character.name, location=" ".join(words)[:30])
        wounds.pop(location[1])
    else:
        wounds.clear()
        for key in (ZONE_ARMOUR, FLOTATION_LOST):
            character.sheet.pop(key, None)
    character.sheet[WOUNDS] = wounds
    combat = ctx.room.combat
    if combat is not None and "cabeza" not in wounds:
        combat.data.get("stun", {}).pop(character.name, None)
    ctx.reply("sombra/table_healed", name=character.name, location=location[1] if location else None,
              left=_labels(combat, character))
