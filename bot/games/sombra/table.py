"""The sombra table: combat hooks (``bot/core/combat.py`` calls them) and commands.

Every rule comes from ``systems/sombra*``; this module only reads sheets, stores results
and picks the message. What outlasts a fight lives in ``character.sheet`` (wounds, zone
armour, flotation, engine, a jammed weapon, a capsized boat); what belongs to one fight lives in
``combat.data`` (initiative ties, stun counters, whose turn started last, the round's shots and
declared defences, manoeuvre states, death thresholds, who watches for opportunity fire).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core import combat as rounds
from bot.core import floor
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.game import Vitality
from bot.core.sheets import Flag
from bot.core.state import Character, Combat
from bot.games.sombra.sheet import (
    ATTACK_SKILLS,
    DISADVANTAGE,
    DOWN,
    HELD,
    SKILLS,
    STATE_PENALTY,
    STATES,
    UNBALANCED,
    leading_skill,
)
from systems.dice import DiceError
from systems.refusal import Refusal
from systems.sombra.damage import (
    AREAS,
    BoatState,
    DamageResult,
    LocationHit,
    armour_loss,
    damage_from_dice,
    engine_hit,
    hit_boat,
    interior_damage,
    location_digits,
    location_key,
    sinking_round,
)
from systems.sombra.resolver import SombraCheck, SombraDamageRoll, SombraInitiative, SombraSystem
from systems.sombra.rules import (
    BURST_SKILLS,
    FIREARM_SKILLS,
    MELEE_SKILLS,
    OPPORTUNITY_INITIATIVE,
    TWO_HANDED_SKILLS,
    Attributes,
    Combatant,
    InitiativeSlot,
    capsizes,
    fight_winner,
    initiative_order,
    knockdown_penalty,
    shot_limit,
    shot_penalty,
    unarmed_difficulty,
)
from systems.sombra.syntax import (
    LOCATION_WORDS,
    MELEE_TYPES,
    TABLE_WORDS,
    TORPEDO_WORDS,
    Clauses,
    DamageRequest,
    parse_fire,
    parse_keyword_roll,
    plain,
)
from systems.sombra.wounds import STUN_TURNS, WoundEffect, apply_wound, combined_effect, pain_resistance

COMMANDS = CommandGroup()
MAX_SKILL = 30


class SkillValue(int):
    """A skill on the sheet: 0 to 30, the rules' range; anything else is a bad value."""

    valid = "sombra.skill"

    def __new__(cls, value: str) -> SkillValue:
        number = int(str(value).strip())
        if not 0 <= number <= MAX_SKILL:
            raise ValueError(value)
        return super().__new__(cls, number)


class WeaponDamage(str):
    """A sheet's ``arma``: a damage type and bonus the system reads (``II+2``, ``0``)."""

    __slots__ = ()
    valid = "sombra.weapon"

    def __new__(cls, value: str) -> WeaponDamage:
        try:
            _weapon_type(value.strip())
        except DiceError:
            raise ValueError(value) from None
        return super().__new__(cls, value.strip())


class TableKind(str):
    """A sheet's ``tipo``: which hit-location table the character uses (persona, vehículo, barco)."""

    __slots__ = ()
    valid = "sombra.table"

    def __new__(cls, value: str) -> TableKind:
        if plain(value.strip()) not in TABLE_WORDS:
            raise ValueError(value)
        return super().__new__(cls, value.strip())


SHEET_FIELDS: dict[str, type] = {
    **dict.fromkeys(("fue", "res", "vit", "agi", "coo", "vel", "con", "int", "per", "inv", "log", "mem", "apa", "car",
                     "vol"), int),
    **dict.fromkeys(SKILLS, SkillValue),
    "arma": WeaponDamage, "tipo": TableKind, "blindaje": int, "flotabilidad": int, "muerto": Flag,
    "motor": int, "encasquillada": int, "volcado": int,
}
DEAD, JAMMED, CAPSIZED, ENGINE = "muerto", "encasquillada", "volcado", "motor"
WOUNDS, ZONE_ARMOUR, FLOTATION_LOST = "heridas", "blindaje_zonas", "flotabilidad_perdida"
REQUIRED: dict[str, tuple[str, ...]] = {"persona": ("res",), "vehiculo": ("blindaje",),
                                        "barco": ("blindaje", "flotabilidad")}
UNARMED, KNIFE = "0", "I"
THIS_ROUND, STUN_FRESH, OPPORTUNITY, THRESHOLD = "this_round", "stun_fresh", "opportunity", "death_threshold"
MANEUVERS = ("derribar", "placar", "apresar", "carga")
CHARGE, BAYONET_STANDING, FIXED_BAYONET, ESCAPES = -2, 5, 1, 2
KNOCKDOWN_SCALE = 3
"""An attribute (1-10) rolled as a check counts three times (the rules' checks go from 3 to 30)."""
"""In ``combat.data``: what the round under way has seen (see ``_round_state``); who was stunned in
their own turn (that turn does not count down the stun); who watches a spot for opportunity fire."""
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
    return [apply(ctx, target, hit, damage) for hit in damage.hits]


def _wound(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
    vol = _int(target, "vol")
    pain = pain_resistance(vol) if vol is not None else 0
    wounds, result = apply_wound(_wounds(target), hit.key, hit.damage, _int(target, "res") or 0, pain)
    if result.worsened:
        target.sheet[WOUNDS] = wounds
    combat = ctx.room.combat
    vit = _int(target, "vit")
    if combat is not None and vit is not None and not combined_effect(wounds).can_act:
        combat.data.setdefault(THRESHOLD, {}).setdefault(target.name, vit)
    if result.stuns and combat is not None:
        # Counted down as each of the victim's turns ends: hurt in its own turn, that one does not count.
        combat.data.setdefault("stun", {})[target.name] = STUN_TURNS
        fresh = [n for n in combat.data.get(STUN_FRESH, []) if n != target.name]
        if combat.started and combat.current == target.name:
            fresh.append(target.name)
        combat.data[STUN_FRESH] = fresh
    return {"kind": "wound", "hit": hit, "wound": result, "stun": STUN_TURNS if result.stuns else 0}


def _zone_armour(target: Character, zone: str) -> int:
    return int((target.sheet.get(ZONE_ARMOUR) or {}).get(zone, _int(target, "blindaje") or 0))


def _set_zone_armour(target: Character, zone: str, armour: int) -> None:
    target.sheet[ZONE_ARMOUR] = {**(target.sheet.get(ZONE_ARMOUR) or {}), zone: armour}


def _vehicle_hit(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
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


def _boat_hit(ctx: Context, target: Character, hit: LocationHit, damage: DamageResult) -> dict[str, Any]:
    state, result = hit_boat(_boat_state(target, hit.key), hit.key, hit.damage,
                             below_waterline=damage.below_waterline)
    _store_boat(target, state)
    engine = _int(target, ENGINE)
    adrift = False
    if engine is not None:
        left = engine_hit(hit.key, result.equipment, engine)
        target.sheet[ENGINE] = left
        adrift = engine > 0 and left == 0
    return {"kind": "boat", "hit": hit, "boat": result, "state": state, "armour": state.armour[hit.key],
            "torpedo": damage.below_waterline, "adrift": adrift}


# --- combat hooks -------------------------------------------------------------------------

def _combatant(ctx: Context, name: str) -> tuple[Combatant, bool]:
    """The combatant for ``name`` and whether VEL/AGI were missing (the default 5 is used)."""
    character = ctx.room.find_character(name)
    combat = ctx.room.combat
    bonus = OPPORTUNITY_INITIATIVE if combat is not None and name in combat.data.get(OPPORTUNITY, []) else 0
    if character is not None and _table(character) == "barco":
        return Combatant.boat(name, bonus), False
    vel = _int(character, "vel") if character else None
    agi = _int(character, "agi") if character else None
    default = Attributes()
    return Combatant(name, default.vel if vel is None else vel, default.agi if agi is None else agi, bonus), \
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
        _count_thresholds(ctx, combat)
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
        fresh = combat.data.get(STUN_FRESH, [])
        if previous in fresh:
            fresh.remove(previous)
        elif previous in stun:
            stun[previous] -= 1
            if stun[previous] <= 0:
                del stun[previous]
        held = combat.data.get(STATES, {}).get(previous)
        if held and held["kind"] != HELD:
            if held["fresh"]:
                held["fresh"] = False
            else:
                del combat.data[STATES][previous]
        combat.data["last_turn"] = actor.name
        if actor.name in stun or _effect(actor).fallen:
            ctx.announce("sombra/table_turn", name=actor.name, stun=stun.get(actor.name, 0))

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return [ctx.renderer.text("sombra/table_condition", l=label) for label in _labels(ctx, combat, actor)]

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
        combat.data[STUN_FRESH] = [n for n in combat.data.get(STUN_FRESH, []) if n != name]
        combat.data.get(STATES, {}).pop(name, None)
        combat.data.get(THRESHOLD, {}).pop(name, None)

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """The rules give people no death threshold: the GM marks the dead (``!ficha NOMBRE muerto 1``)."""
        if _int(character, DEAD):
            return "dead"
        return "up" if _effect(character).can_act else "down"


def _count_thresholds(ctx: Context, combat: Combat) -> None:
    """Each new round, one round of the death threshold (VIT) of who is down from a serious wound;
    at 0 they die. Whoever can act again (healed) stops counting."""
    counts = combat.data.get(THRESHOLD, {})
    for name in list(counts):
        character = ctx.room.find_character(name)
        if character is None or _effect(character).can_act or _int(character, DEAD):
            del counts[name]
            continue
        counts[name] -= 1
        if counts[name] <= 0:
            del counts[name]
            character.sheet[DEAD] = 1
        ctx.announce("sombra/table_threshold", name=name, left=counts.get(name, 0))


def _labels(ctx: Context, combat: Combat | None, actor: Character) -> list[dict[str, Any]]:
    data = combat.data if combat else {}
    labels: list[dict[str, Any]] = []
    if actor.name in data.get("ties", []):
        labels.append({"kind": "tie"})
    if data.get("stun", {}).get(actor.name):
        labels.append({"kind": "stunned", "turns": data["stun"][actor.name]})
    if actor.name in data.get(THRESHOLD, {}):
        # The rounds left are VIT counted down: an NPC's stay the GMs' (the round's notice tells them).
        labels.append({"kind": "threshold", "rounds": data[THRESHOLD][actor.name], "secret": ctx.sheet_is_gms(actor)})
    held = data.get(STATES, {}).get(actor.name)
    if held:
        labels.append({"kind": "state", "state": held["kind"], "by": held.get("by")})
    labels += [{"kind": "wound", "location": loc, **w} for loc, w in sorted(_wounds(actor).items())]
    effect = _effect(actor)
    for flag in ("unconscious", "helpless", "fallen", "half_movement"):
        if getattr(effect, flag):
            labels.append({"kind": flag, "hours": effect.unconscious_hours})
    labels += [{"kind": "arm_useless", "arm": arm} for arm in sorted(effect.useless_arms)]
    labels += [{"kind": flag} for flag in (JAMMED, CAPSIZED) if _int(actor, flag)]
    if _int(actor, ENGINE) == 0:
        labels.append({"kind": "adrift"})
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


def _weapon_request(weapon: str) -> DamageRequest:
    """A weapon's damage (``II+2``, ``I fue 8``), read by the system's own parser."""
    parsed = parse_keyword_roll(f"daño {weapon}")
    clauses = parsed[1] if parsed else None
    if not isinstance(clauses, Clauses) or clauses.damage is None or clauses.comment:
        raise DiceError("sombra.damage_type", text=weapon[:20])
    return clauses.damage


def _weapon_type(weapon: str) -> int:
    """The damage type of a sheet's ``arma`` (``II+2``)."""
    return _weapon_request(weapon).damage_type


@COMMANDS.command("ataque", "attack", usage="OBJETIVO [habilidad] [dificil, prisa, apuntado cabeza, rafaga 3, cobertura...]",
         in_character=True, needs_args=True)
def attack_command(ctx: Context, args: str) -> None:
    """A firearm shoots within its rate of fire (a burst is one roll per bullet); melee against a person
    is a fight between both rolls, the defender's declared dodge or parry included."""
    attacker = _attacker(ctx)
    if attacker is None:
        raise Refusal("sombra/table_no_attacker")
    target, table, rest = _target(ctx, args)
    if _int(attacker, DEAD):
        rounds.require_up(ctx, attacker)
    effect = _effect(attacker)
    if not effect.can_act:
        raise Refusal("sombra/table_cannot_act", name=attacker.name, effect=effect, two_handed=False)
    skill, used = leading_skill(ctx, rest, ATTACK_SKILLS)
    bayonet = skill == "cuchillo" and plain(rest[0]) == "bayoneta"
    skill = skill or ("pelea" if _weapon_type(_sheet_weapon(attacker)) in MELEE_TYPES else "disparo")
    held = _state_of(ctx, attacker)
    if held in (DOWN, HELD):
        raise Refusal("sombra/table_held", name=attacker.name, state=held)
    _require(attacker, (skill,))
    state = _round_state(ctx.room.combat)
    if state is not None and state["defence"].get(attacker.name):
        raise Refusal("sombra/table_defending", name=attacker.name, stance=state["defence"][attacker.name])
    weapon = _weapon_for(attacker, skill)
    options = rest[used:]
    fixed = skill == "fusil" and any(plain(w) == "bayoneta" for w in options)
    if fixed:
        options = [w for w in options if plain(w) != "bayoneta"]
        weapon = weapon if _weapon_type(weapon) in MELEE_TYPES else KNIFE
    if (skill in MELEE_SKILLS or fixed) and table == "persona":
        _melee(ctx, attacker, target, skill, weapon, options, bayonet or fixed, fixed)
    else:
        _fire(ctx, attacker, target, table, skill, weapon, options)
    if state is not None and attacker.name not in state["attacked"]:
        state["attacked"].append(attacker.name)
    floor.consume_grant(ctx)


def _round_state(combat: Combat | None) -> dict[str, Any] | None:
    """What the round under way has seen (shots, declared defences, who attacked); None out of combat."""
    if combat is None or not combat.started:
        return None
    state = combat.data.get(THIS_ROUND)
    if not state or state.get("round") != combat.round:
        state = {"round": combat.round, "fire": {}, "defence": {}, "attacked": []}
        combat.data[THIS_ROUND] = state
    return state


def _sheet_weapon(character: Character) -> str:
    return str(character.sheet.get("arma") or UNARMED)


def _weapon_for(character: Character, skill: str) -> str:
    """The sheet's weapon, but bare hands for Pelea and a knife (type I) for Cuchillo when it is a gun."""
    weapon = _sheet_weapon(character)
    if skill in MELEE_SKILLS and _weapon_type(weapon) not in MELEE_TYPES:
        return UNARMED if skill == "pelea" else KNIFE
    return weapon


def _strength(character: Character) -> str:
    return f" fue {_int(character, 'fue')}" if _int(character, "fue") is not None else ""


def _check(ctx: Context, who: Character, value: int, clauses: str, *, arms: bool | None,
           extra: tuple[tuple[str, int], ...] = ()) -> tuple[SombraCheck, int, bool]:
    """``who`` rolls 3d10 under ``value`` with the clauses; the wounds' penalty added, the arms'
    too when the action uses them (``arms``: two-handed or not; None: no arm), halved when stunned.
    Returns the roll, the number aimed at and whether stunned."""
    combat = ctx.room.combat
    effect = _effect(who)
    hands = effect.arm_penalty(arms) if arms is not None else 0
    if hands is None:
        raise Refusal("sombra/table_cannot_act", name=who.name, effect=effect, two_handed=bool(arms))
    stunned = bool(combat and combat.data.get("stun", {}).get(who.name))
    aim = value // 2 if stunned else value
    modifier = effect.penalty + hands
    penalty = f"{modifier:+d}" if modifier else ""
    system = ctx.system
    assert isinstance(system, SombraSystem)
    result = system.roll_with(f"3d10{penalty} vs {aim} {clauses}", ctx.rng, extra)
    assert isinstance(result, SombraCheck)
    return result, aim, stunned


def _fire(ctx: Context, attacker: Character, target: Character, table: str, skill: str, weapon: str,
          options: list[str]) -> None:
    """Shots and bursts within the turn's rate of fire (in combat), one message per bullet."""
    fire = parse_fire(options)
    if fire.bullets is not None and skill not in BURST_SKILLS:
        raise Refusal("sombra/table_no_burst", name=attacker.name, skill=skill)
    if skill in FIREARM_SKILLS and _int(attacker, JAMMED):
        raise Refusal("sombra/table_jammed", name=attacker.name)
    state = _round_state(ctx.room.combat)
    second = ""
    covering = False
    if state is not None and skill in FIREARM_SKILLS:
        fired = state["fire"].get(attacker.name) or {"shots": 0, "covering": False, "burst": False}
        covering = fired["covering"] or (fired["shots"] == 0 and fire.covering)
        limit = shot_limit(skill, covering)
        if fired["burst"] or fired["shots"] >= limit or (fire.bullets is not None and fired["shots"]):
            raise Refusal("sombra/table_rate_of_fire", name=attacker.name, skill=skill, covering=covering,
                          shots=fired["shots"], burst=fired["burst"])
        shot = fired["shots"] + 1
        state["fire"][attacker.name] = {"shots": shot, "covering": covering, "burst": fire.bullets is not None}
        second = "segundo" if shot_penalty(shot) else ""
    value = _int(attacker, skill) or 0
    for bullet in range(1, (fire.bullets or 1) + 1):
        clause = fire.bullet_clause(bullet) if fire.bullets else ""
        words = [table, "daño", weapon + _strength(attacker), second, clause, *fire.rest]
        result, aim, stunned = _check(ctx, attacker, value, " ".join(w for w in words if w),
                                      arms=skill in TWO_HANDED_SKILLS, extra=_state_penalty(ctx, attacker))
        reports = _apply(ctx, target, table, result.damage) if result.damage else []
        jams = skill in FIREARM_SKILLS and result.outcome == "fumble"
        if jams:
            attacker.sheet[JAMMED] = 1
        ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill, value=value,
                  aim=aim, stunned=stunned, roll=result, reports=reports, after=_after(ctx, target, reports),
                  bullet=bullet if fire.bullets else None, bullets=fire.bullets, covering=fire.covering and covering,
                  melee=False, jams=jams, maneuver=None)
        if jams:
            break


def _dodge(character: Character) -> int:
    """The Esquivar capacity: the sheet's, else 2×AGI+VEL; a refusal naming it when neither is there."""
    value = _int(character, "esquivar")
    if value is not None:
        return value
    agi, vel = _int(character, "agi"), _int(character, "vel")
    if agi is None or vel is None:
        raise Refusal("sombra/table_missing", name=character.name, fields=["esquivar"])
    return min(2 * agi + vel, MAX_SKILL)


def _fighting_skill(character: Character) -> str:
    """Cuchillo with a blade in hand (type I) when the sheet has it, else Pelea."""
    armed = _weapon_type(_sheet_weapon(character)) == 1 and _int(character, "cuchillo") is not None
    return "cuchillo" if armed else "pelea"


def _difficulty(rival: Character) -> tuple[tuple[str, int], ...]:
    """The difficulty the rival's Esquivar gives a melee action (none when it is normal)."""
    value = unarmed_difficulty(_dodge(rival))
    return (("esquiva", value),) if value else ()


def _melee_damage(character: Character, weapon: str, result: SombraCheck, doubled: bool = False) -> DamageResult:
    """The blow of the winner of a fight, from its own dice (a critical does the maximum); a received
    charge that wins does double."""
    request = _weapon_request(weapon + _strength(character))
    dice = result.check.dice
    digit = dice.location if result.hit_digit is None else result.hit_digit
    damage = damage_from_dice(request.damage_type, dice, "persona", request.total_bonus,
                              maximum=result.check.level == "critical", first_digit=digit)
    if not doubled:
        return damage
    return replace(damage, hits=tuple(replace(h, damage=2 * h.damage) for h in damage.hits))


def _melee(ctx: Context, attacker: Character, target: Character, skill: str, weapon: str,
           options: list[str], bayonet: bool, fixed: bool = False) -> None:
    """Both roll; the better result strikes. A declared dodge rolls Esquivar and a parry the fighting
    skill at -4: they only avoid the blow. A defender who cannot act does not roll. A manoeuvre
    (derribar, placar, apresar) replaces the blow; a bayonet charge strikes and knocks down."""
    words = [plain(w) for w in options]
    chosen = [m for m in MANEUVERS if m in words]
    if len(chosen) > 1:
        raise Refusal("sombra/table_one_maneuver", chosen=chosen)
    maneuver = chosen[0] if chosen else None
    options = [w for w in options if plain(w) != maneuver]
    if maneuver == "carga" and not bayonet:
        raise Refusal("sombra/table_charge_needs_bayonet", name=attacker.name)
    if maneuver in ("derribar", "carga"):
        _require(target, ("coo",))
    state = _round_state(ctx.room.combat)
    stance = state["defence"].get(target.name) if state else None
    value = _int(attacker, skill) or 0
    extra = _difficulty(target) + _state_penalty(ctx, attacker)
    if fixed:
        extra += (("bayoneta_calada", FIXED_BAYONET),)
    if bayonet:
        extra += ((("carga", CHARGE),) if stance != "recepcion" else ()) if maneuver == "carga" \
            else (("bayoneta_parado", BAYONET_STANDING),)
    attack, aim, stunned = _check(ctx, attacker, value, " ".join(options), arms=fixed, extra=extra)
    ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill, value=value,
              aim=aim, stunned=stunned, roll=attack, reports=[], after=[], bullet=None, bullets=None,
              covering=False, melee=True, jams=False, maneuver=maneuver)
    effect = _effect(target)
    defence: SombraCheck | None = None
    defender_skill, defender_value, defender_aim, defender_stunned = None, 0, 0, False
    if effect.can_act and _state_of(ctx, target) is None and \
            (stance == "esquiva" or effect.arm_penalty(False) is not None):
        if stance == "esquiva":
            defender_value = _dodge(target)
            defence, defender_aim, defender_stunned = _check(ctx, target, defender_value, "", arms=None,
                                                             extra=_state_penalty(ctx, target))
        else:
            defender_skill = {"parada": "pelea", "recepcion": "cuchillo"}.get(stance or "") or _fighting_skill(target)
            _require(target, (defender_skill,))
            defender_value = _int(target, defender_skill) or 0
            clauses, against = ("parada", ()) if stance == "parada" else ("", _difficulty(attacker))
            defence, defender_aim, defender_stunned = _check(
                ctx, target, defender_value, clauses, arms=False, extra=against + _state_penalty(ctx, target))
    winner = _fight_winner(attack, defence)
    struck, damage, reports, doubled = None, None, [], False
    if winner == 0 and maneuver in (None, "carga"):
        struck, damage = target, _melee_damage(attacker, weapon, attack)
    elif winner == 1 and stance in (None, "recepcion") and defence is not None:
        doubled = stance == "recepcion" and maneuver == "carga"
        struck = attacker
        damage = _melee_damage(target, _weapon_for(target, defender_skill or "pelea"), defence, doubled)
    if struck is not None and damage is not None:
        reports = _apply(ctx, struck, "persona", damage)
    outcome = _maneuver_outcome(ctx, attacker, target, maneuver, winner == 0)
    winner_name = {0: attacker.name, 1: target.name}.get(winner)
    ctx.reply("sombra/table_defence", roll=defence, attacker=attacker.name, defender=target.name, stance=stance,
              skill=defender_skill, value=defender_value, aim=defender_aim, stunned=defender_stunned,
              winner=winner_name, struck=struck.name if struck else None, damage=damage, reports=reports,
              after=_after(ctx, struck, reports) if struck else [], doubled=doubled, maneuver=maneuver,
              outcome=outcome)
    if winner == 0 and maneuver in ("derribar", "carga"):
        _knockdown(ctx, attacker, target, attack)


def _maneuver_outcome(ctx: Context, attacker: Character, target: Character, maneuver: str | None,
                      won: bool) -> str | None:
    """What a won (or a failed grab) manoeuvre leaves: the states it sets, named for the message."""
    if maneuver == "placar" and won:
        _set_state(ctx, target, DOWN)
        _set_state(ctx, attacker, DOWN)
        return "tackled"
    if maneuver == "apresar":
        if won:
            _set_state(ctx, target, HELD, by=attacker.name)
            return "held"
        _set_state(ctx, attacker, DISADVANTAGE)
        return "grab_failed"
    return None


def _knockdown(ctx: Context, winner: Character, loser: Character, winning: SombraCheck) -> None:
    """The loser rolls Coordinación (3×COO) with the winner's low die as a penalty: a failure throws
    them down, a success leaves them unbalanced (+5 to their rolls)."""
    penalty = knockdown_penalty(winning.check)
    value = min(KNOCKDOWN_SCALE * (_int(loser, "coo") or 0), MAX_SKILL)
    result, aim, stunned = _check(ctx, loser, value, "", arms=None, extra=(("dado_menor", penalty),))
    fell = not result.check.succeeded
    _set_state(ctx, loser, DOWN if fell else UNBALANCED)
    ctx.reply("sombra/table_knockdown", roll=result, name=loser.name, value=value, aim=aim, stunned=stunned,
              fell=fell)


def _fight_winner(attack: SombraCheck, defence: SombraCheck | None) -> int:
    """0 the attacker, 1 the defender, -1 nobody (``systems.sombra.rules.fight_winner``)."""
    return fight_winner(attack.check, defence.check if defence is not None else None)


STANCES: dict[str, str | None] = {"esquiva": "esquiva", "esquivar": "esquiva", "parada": "parada",
                                   "parar": "parada", "recepcion": "recepcion", "recepcion de carga": "recepcion",
                                   "ninguna": None, "nada": None}


@COMMANDS.command("defensa", "defend", usage="[NOMBRE] esquiva|parada|recepcion|ninguna")
def defence_command(ctx: Context, args: str) -> None:
    """Declared for the round under way: a dodge or a parry against melee, instead of attacking."""
    character, words = ctx.own_or_named(args)
    ctx.may_manage(character)
    word = plain(" ".join(words))
    if word not in STANCES:
        raise ctx.usage("defensa")
    state = _round_state(ctx.running_combat())
    assert state is not None
    stance = STANCES[word]
    if stance is None:
        state["defence"].pop(character.name, None)
    else:
        if character.name in state["attacked"]:
            raise Refusal("sombra/table_defence_late", name=character.name)
        if stance == "esquiva":
            _dodge(character)
        else:
            _require(character, ("cuchillo",) if stance == "recepcion" else ("pelea",))
        state["defence"][character.name] = stance
    ctx.reply("sombra/table_defence_declared", name=character.name, stance=stance)


@COMMANDS.command("desencasquillar", "unjam", in_character=True)
def unjam_command(ctx: Context, args: str) -> None:
    """Clearing a jammed firearm (a fumble jams it) takes the turn's fire."""
    shooter = _attacker(ctx)
    if shooter is None:
        raise Refusal("sombra/table_no_attacker")
    if not _int(shooter, JAMMED):
        raise Refusal("sombra/table_not_jammed", name=shooter.name)
    del shooter.sheet[JAMMED]
    state = _round_state(ctx.room.combat)
    if state is not None:
        state["fire"][shooter.name] = {"shots": 0, "covering": False, "burst": True}
    ctx.reply("sombra/table_unjammed", name=shooter.name, in_combat=state is not None)
    floor.consume_grant(ctx)


@COMMANDS.command("giro", "turn", usage="BARCO [PILOTO] [dificil...]", in_character=True, needs_args=True)
def turn_boat_command(ctx: Context, args: str) -> None:
    """A boat turning against high waves: its pilot (named, or who acts for the sender) rolls Pilotar;
    a medium failure or a fumble capsizes it."""
    boat, words = ctx.named_character(args)
    if _table(boat) != "barco":
        raise Refusal("sombra/table_not_boat", name=boat.name)
    named, rest = ctx.split_name(" ".join(words))
    if named is not None:
        ctx.may_manage(named)
        pilot: Character | None = named
        words = rest
    else:
        pilot = _attacker(ctx)
    if pilot is None or pilot.name == boat.name:
        raise Refusal("sombra/table_no_attacker")
    _require(pilot, ("pilotar",))
    value = _int(pilot, "pilotar") or 0
    result, aim, stunned = _check(ctx, pilot, value, " ".join(words), arms=None)
    overturned = capsizes(result.outcome)
    if overturned:
        boat.sheet[CAPSIZED] = 1
    ctx.reply("sombra/table_boat_turn", roll=result, boat=boat.name, pilot=pilot.name, value=value, aim=aim,
              stunned=stunned, capsized=overturned)
    floor.consume_grant(ctx)


@COMMANDS.command("oportunidad", "overwatch", usage="NOMBRE [fin]", needs_args=True)
def opportunity_command(ctx: Context, args: str) -> None:
    """Watching one spot: +5 to VEL in the order from the next ``!iniciativa`` or round; ``fin`` ends it."""
    character, words = ctx.named_character(args)
    ctx.may_manage(character)
    ending = plain(" ".join(words))
    if ending not in ("", "fin"):
        raise ctx.usage("oportunidad")
    combat = ctx.declared_combat()
    watching = [n for n in combat.data.get(OPPORTUNITY, []) if n != character.name]
    if not ending:
        watching.append(character.name)
    combat.data[OPPORTUNITY] = watching
    ctx.reply("sombra/table_opportunity", name=character.name, watching=not ending, bonus=OPPORTUNITY_INITIATIVE)


def _states(ctx: Context) -> dict[str, dict[str, Any]]:
    combat = ctx.room.combat
    return combat.data.setdefault(STATES, {}) if combat is not None else {}


def _state_of(ctx: Context, character: Character) -> str | None:
    """The manoeuvre state on ``character`` (down, unbalanced, at a disadvantage, held), if any."""
    state = _states(ctx).get(character.name)
    return str(state["kind"]) if state else None


def _set_state(ctx: Context, character: Character, kind: str, by: str | None = None) -> None:
    """Set in ``character``'s own turn, that turn does not count: it lasts through their next one."""
    combat = ctx.room.combat
    if combat is None:
        return
    fresh = combat.started and combat.current == character.name
    _states(ctx)[character.name] = {"kind": kind, "fresh": fresh, "by": by, "escapes": 0}


def _state_penalty(ctx: Context, character: Character) -> tuple[tuple[str, int], ...]:
    kind = _state_of(ctx, character)
    return ((kind, STATE_PENALTY),) if kind in (UNBALANCED, DISADVANTAGE) else ()


@COMMANDS.command("forcejeo", "struggle", in_character=True)
def struggle_command(ctx: Context, args: str) -> None:
    """The held one struggles: an opposed roll of 3×FUE; two wins in a row set them free."""
    held = _attacker(ctx)
    if held is None:
        raise Refusal("sombra/table_no_attacker")
    state = _states(ctx).get(held.name)
    holder = ctx.room.find_character(str(state.get("by") or "")) if state and state["kind"] == HELD else None
    if state is None or holder is None:
        raise Refusal("sombra/table_not_held", name=held.name)
    _require(held, ("fue",))
    _require(holder, ("fue",))
    mine, _, _ = _check(ctx, held, min(KNOCKDOWN_SCALE * (_int(held, "fue") or 0), MAX_SKILL), "", arms=None)
    theirs, _, _ = _check(ctx, holder, min(KNOCKDOWN_SCALE * (_int(holder, "fue") or 0), MAX_SKILL), "",
                          arms=None)
    won = _fight_winner(mine, theirs) == 0
    state["escapes"] = state["escapes"] + 1 if won else 0
    free = state["escapes"] >= ESCAPES
    if free:
        del _states(ctx)[held.name]
    ctx.reply("sombra/table_struggle", roll=mine, name=held.name, holder=holder.name, won=won, free=free,
              escapes=state["escapes"], needed=ESCAPES)
    ctx.reply("sombra/table_struggle_holder", roll=theirs, name=holder.name)
    floor.consume_grant(ctx)


def _after(ctx: Context, target: Character, reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The target's state after a blow; a stun the blow just announced is not stated twice."""
    labels = _labels(ctx, ctx.room.combat, target)
    if any(rep.get("stun") for rep in reports):
        labels = [label for label in labels if label["kind"] != "stunned"]
    return labels


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
    torpedo = any(plain(w) in TORPEDO_WORDS for w in words[2:])
    if torpedo and table != "barco":
        raise DiceError("sombra.torpedo_table", table=table)
    return DamageResult(0, table, 0, False, (LocationHit(digit, location_key(table, digit), int(words[0])),),
                        torpedo)


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
              after=_after(ctx, target, reports))


@COMMANDS.command("heridas", "wounds", usage="NOMBRE", needs_args=True)
def wounds_command(ctx: Context, args: str) -> None:
    character, _ = ctx.named_character(args)
    ctx.reply("sombra/table_wounds", name=character.name, table=_table(character),
              labels=_labels(ctx, ctx.room.combat, character), effect=_effect(character),
              armour=character.sheet.get(ZONE_ARMOUR) or {})


@COMMANDS.command("curar", "heal", usage="NOMBRE [localización]", gm_only=True, needs_args=True)
def heal_command(ctx: Context, args: str) -> None:
    character, words = ctx.named_character(args)
    wounds, location = _wounds(character), None
    if words:
        location = LOCATION_WORDS.get(plain(" ".join(words)))
        healed = [key for key in AREAS.get(location[1], (location[1],)) if key in wounds] if location else []
        if location is None or not healed:
            raise Refusal("sombra/table_not_wounded", name=character.name, location=" ".join(words)[:30])
        for key in healed:
            wounds.pop(key)
    else:
        wounds.clear()
        for key in (ZONE_ARMOUR, FLOTATION_LOST):
            character.sheet.pop(key, None)
    character.sheet[WOUNDS] = wounds
    combat = ctx.room.combat
    if combat is not None and combined_effect(wounds).can_act:
        combat.data.get(THRESHOLD, {}).pop(character.name, None)
    if combat is not None and "cabeza" not in wounds:
        combat.data.get("stun", {}).pop(character.name, None)
        combat.data[STUN_FRESH] = [n for n in combat.data.get(STUN_FRESH, []) if n != character.name]
    ctx.reply("sombra/table_healed", name=character.name, location=location[1] if location else None,
              left=_labels(ctx, combat, character))
