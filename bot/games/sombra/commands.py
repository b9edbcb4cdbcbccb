"""The sombra table's commands: attacks, defences, manoeuvres, boats, damage, wounds and healing.

Every rule comes from ``systems/sombra*``; this module only reads sheets, stores results
and picks the message. What outlasts a fight lives in ``character.sheet`` (``sheet.py``: wounds, zone
armour, flotation, engine, a jammed weapon, a capsized boat); what belongs to one fight lives in
``combat.data`` (``state.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core import combat as rounds
from bot.core import floor
from bot.core.args import Parsed
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.state import Character
from bot.games.sombra.combat import status_labels
from bot.games.sombra.damage import apply_damage
from bot.games.sombra.rolls import leading_skill
from bot.games.sombra.sheet import (
    ATTACK_SKILLS,
    CAPSIZED,
    DEAD,
    FLOTATION_LOST,
    JAMMED,
    KNIFE,
    MAX_SKILL,
    WOUNDS,
    ZONE_ARMOUR,
    dodge_value,
    fighting_skill,
    require_fields,
    sheet_int,
    sheet_weapon,
    strength_clause,
    table_of,
    target_with_table,
    weapon_for,
    weapon_request,
    weapon_type,
    wound_effect,
    wounds_of,
)
from bot.games.sombra.state import (
    DISADVANTAGE,
    DOWN,
    HELD,
    UNBALANCED,
    SombraState,
    manoeuvres,
    round_state,
    set_state,
    state_of,
    state_penalty,
)
from systems.dice import DiceError
from systems.refusal import Refusal
from systems.sombra.damage import AREAS, DamageResult, LocationHit, damage_from_dice, location_digits, location_key
from systems.sombra.resolver import SombraCheck, SombraDamageRoll, SombraSystem
from systems.sombra.rules import (
    BURST_SKILLS,
    FIREARM_SKILLS,
    MELEE_SKILLS,
    OPPORTUNITY_INITIATIVE,
    TWO_HANDED_SKILLS,
    capsizes,
    fight_winner,
    knockdown_penalty,
    shot_limit,
    shot_penalty,
    unarmed_difficulty,
)
from systems.sombra.syntax import LOCATION_WORDS, MELEE_TYPES, TORPEDO_WORDS, parse_fire, plain
from systems.sombra.wounds import combined_effect

COMMANDS = CommandGroup()


MANEUVERS = ("derribar", "placar", "apresar", "carga")
CHARGE, BAYONET_STANDING, FIXED_BAYONET, ESCAPES = -2, 5, 1, 2
KNOCKDOWN_SCALE = 3
"""An attribute (1-10) rolled as a check counts three times (the rules' checks go from 3 to 30)."""


# --- sheets -------------------------------------------------------------------------------


# --- applying damage ----------------------------------------------------------------------


# --- combat hooks -------------------------------------------------------------------------


# --- commands -----------------------------------------------------------------------------

def _attacker(ctx: Context) -> Character | None:
    """A GM in a running combat attacks with the combatant whose turn it is; anyone else
    (or a GM outside combat) with their own character."""
    combat = ctx.room.combat
    if ctx.is_gm() and combat is not None and combat.started:
        return ctx.room.find_character(combat.current or "")
    return ctx.character


@COMMANDS.command("ataque", "attack", usage="OBJETIVO [habilidad] [dificil, prisa, apuntado cabeza, rafaga 3, cobertura...]",
         in_character=True, needs_args=True)
def attack_command(ctx: Context, args: str) -> None:
    """A firearm shoots within its rate of fire (a burst is one roll per bullet); melee against a person
    is a fight between both rolls, the defender's declared dodge or parry included."""
    attacker = _attacker(ctx)
    if attacker is None:
        raise Refusal("sombra/table_no_attacker")
    target, table, rest = target_with_table(ctx, args)
    if sheet_int(attacker, DEAD):
        rounds.require_up(ctx, attacker)
    effect = wound_effect(attacker)
    if not effect.can_act:
        raise Refusal("sombra/table_cannot_act", name=attacker.name, effect=effect, two_handed=False)
    skill, used = leading_skill(ctx, rest, ATTACK_SKILLS)
    bayonet = skill == "cuchillo" and plain(rest[0]) == "bayoneta"
    skill = skill or ("pelea" if weapon_type(sheet_weapon(attacker)) in MELEE_TYPES else "disparo")
    held = state_of(ctx, attacker)
    if held in (DOWN, HELD):
        raise Refusal("sombra/table_held", name=attacker.name, state=held)
    require_fields(attacker, (skill,))
    state = round_state(ctx.room.combat)
    if state is not None and state["defence"].get(attacker.name):
        raise Refusal("sombra/table_defending", name=attacker.name, stance=state["defence"][attacker.name])
    weapon = weapon_for(attacker, skill)
    options = rest[used:]
    fixed = skill == "fusil" and any(plain(w) == "bayoneta" for w in options)
    if fixed:
        options = [w for w in options if plain(w) != "bayoneta"]
        weapon = weapon if weapon_type(weapon) in MELEE_TYPES else KNIFE
    if (skill in MELEE_SKILLS or fixed) and table == "persona":
        _melee(ctx, attacker, target, skill, weapon, options, bayonet or fixed, fixed)
    else:
        _fire(ctx, attacker, target, table, skill, weapon, options)
    if state is not None and attacker.name not in state["attacked"]:
        state["attacked"].append(attacker.name)
    floor.consume_grant(ctx)


def _check(ctx: Context, who: Character, value: int, clauses: str, *, arms: bool | None,
           extra: tuple[tuple[str, int], ...] = ()) -> tuple[SombraCheck, int, bool]:
    """``who`` rolls 3d10 under ``value`` with the clauses; the wounds' penalty added, the arms'
    too when the action uses them (``arms``: two-handed or not; None: no arm), halved when stunned.
    Returns the roll, the number aimed at and whether stunned."""
    combat = ctx.room.combat
    effect = wound_effect(who)
    hands = effect.arm_penalty(arms) if arms is not None else 0
    if hands is None:
        raise Refusal("sombra/table_cannot_act", name=who.name, effect=effect, two_handed=bool(arms))
    stunned = bool(combat and SombraState.of(combat).stunned(who.name))
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
    if skill in FIREARM_SKILLS and sheet_int(attacker, JAMMED):
        raise Refusal("sombra/table_jammed", name=attacker.name)
    state = round_state(ctx.room.combat)
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
    value = sheet_int(attacker, skill) or 0
    for bullet in range(1, (fire.bullets or 1) + 1):
        clause = fire.bullet_clause(bullet) if fire.bullets else ""
        words = [table, "daño", weapon + strength_clause(attacker), second, clause, *fire.rest]
        result, aim, stunned = _check(ctx, attacker, value, " ".join(w for w in words if w),
                                      arms=skill in TWO_HANDED_SKILLS, extra=state_penalty(ctx, attacker))
        reports = apply_damage(ctx, target, table, result.damage) if result.damage else []
        jams = skill in FIREARM_SKILLS and result.outcome == "fumble"
        if jams:
            attacker.sheet[JAMMED] = 1
        ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill, value=value,
                  aim=aim, stunned=stunned, roll=result, reports=reports, after=_after(ctx, target, reports),
                  bullet=bullet if fire.bullets else None, bullets=fire.bullets, covering=fire.covering and covering,
                  melee=False, jams=jams, maneuver=None)
        if jams:
            break


def _difficulty(rival: Character) -> tuple[tuple[str, int], ...]:
    """The difficulty the rival's Esquivar gives a melee action (none when it is normal)."""
    value = unarmed_difficulty(dodge_value(rival))
    return (("esquiva", value),) if value else ()


def _melee_damage(character: Character, weapon: str, result: SombraCheck, doubled: bool = False) -> DamageResult:
    """The blow of the winner of a fight, from its own dice (a critical does the maximum); a received
    charge that wins does double."""
    request = weapon_request(weapon + strength_clause(character))
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
        require_fields(target, ("coo",))
    state = round_state(ctx.room.combat)
    stance = state["defence"].get(target.name) if state else None
    value = sheet_int(attacker, skill) or 0
    extra = _difficulty(target) + state_penalty(ctx, attacker)
    if fixed:
        extra += (("bayoneta_calada", FIXED_BAYONET),)
    if bayonet:
        extra += ((("carga", CHARGE),) if stance != "recepcion" else ()) if maneuver == "carga" \
            else (("bayoneta_parado", BAYONET_STANDING),)
    attack, aim, stunned = _check(ctx, attacker, value, " ".join(options), arms=fixed, extra=extra)
    ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill, value=value,
              aim=aim, stunned=stunned, roll=attack, reports=[], after=[], bullet=None, bullets=None,
              covering=False, melee=True, jams=False, maneuver=maneuver)
    effect = wound_effect(target)
    defence: SombraCheck | None = None
    defender_skill, defender_value, defender_aim, defender_stunned = None, 0, 0, False
    if effect.can_act and state_of(ctx, target) is None and \
            (stance == "esquiva" or effect.arm_penalty(False) is not None):
        if stance == "esquiva":
            defender_value = dodge_value(target)
            defence, defender_aim, defender_stunned = _check(ctx, target, defender_value, "", arms=None,
                                                             extra=state_penalty(ctx, target))
        else:
            defender_skill = {"parada": "pelea", "recepcion": "cuchillo"}.get(stance or "") or fighting_skill(target)
            require_fields(target, (defender_skill,))
            defender_value = sheet_int(target, defender_skill) or 0
            clauses, against = ("parada", ()) if stance == "parada" else ("", _difficulty(attacker))
            defence, defender_aim, defender_stunned = _check(
                ctx, target, defender_value, clauses, arms=False, extra=against + state_penalty(ctx, target))
    winner = _fight_winner(attack, defence)
    struck, damage, reports, doubled = None, None, [], False
    if winner == 0 and maneuver in (None, "carga"):
        struck, damage = target, _melee_damage(attacker, weapon, attack)
    elif winner == 1 and stance in (None, "recepcion") and defence is not None:
        doubled = stance == "recepcion" and maneuver == "carga"
        struck = attacker
        damage = _melee_damage(target, weapon_for(target, defender_skill or "pelea"), defence, doubled)
    if struck is not None and damage is not None:
        reports = apply_damage(ctx, struck, "persona", damage)
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
        set_state(ctx, target, DOWN)
        set_state(ctx, attacker, DOWN)
        return "tackled"
    if maneuver == "apresar":
        if won:
            set_state(ctx, target, HELD, by=attacker.name)
            return "held"
        set_state(ctx, attacker, DISADVANTAGE)
        return "grab_failed"
    return None


def _knockdown(ctx: Context, winner: Character, loser: Character, winning: SombraCheck) -> None:
    """The loser rolls Coordinación (3×COO) with the winner's low die as a penalty: a failure throws
    them down, a success leaves them unbalanced (+5 to their rolls)."""
    penalty = knockdown_penalty(winning.check)
    value = min(KNOCKDOWN_SCALE * (sheet_int(loser, "coo") or 0), MAX_SKILL)
    result, aim, stunned = _check(ctx, loser, value, "", arms=None, extra=(("dado_menor", penalty),))
    fell = not result.check.succeeded
    set_state(ctx, loser, DOWN if fell else UNBALANCED)
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
    state = round_state(ctx.running_combat())
    assert state is not None
    stance = STANCES[word]
    if stance is None:
        state["defence"].pop(character.name, None)
    else:
        if character.name in state["attacked"]:
            raise Refusal("sombra/table_defence_late", name=character.name)
        if stance == "esquiva":
            dodge_value(character)
        else:
            require_fields(character, ("cuchillo",) if stance == "recepcion" else ("pelea",))
        state["defence"][character.name] = stance
    ctx.reply("sombra/table_defence_declared", name=character.name, stance=stance)


@COMMANDS.takes("desencasquillar", "unjam", spec=(), in_character=True, lenient=True)
def unjam_command(ctx: Context, got: Parsed) -> None:
    """Clearing a jammed firearm (a fumble jams it) takes the turn's fire."""
    shooter = _attacker(ctx)
    if shooter is None:
        raise Refusal("sombra/table_no_attacker")
    if not sheet_int(shooter, JAMMED):
        raise Refusal("sombra/table_not_jammed", name=shooter.name)
    del shooter.sheet[JAMMED]
    state = round_state(ctx.room.combat)
    if state is not None:
        state["fire"][shooter.name] = {"shots": 0, "covering": False, "burst": True}
    ctx.reply("sombra/table_unjammed", name=shooter.name, in_combat=state is not None)
    floor.consume_grant(ctx)


@COMMANDS.command("giro", "turn", usage="BARCO [PILOTO] [dificil...]", in_character=True, needs_args=True)
def turn_boat_command(ctx: Context, args: str) -> None:
    """A boat turning against high waves: its pilot (named, or who acts for the sender) rolls Pilotar;
    a medium failure or a fumble capsizes it."""
    boat, words = ctx.named_character(args)
    if table_of(boat) != "barco":
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
    require_fields(pilot, ("pilotar",))
    value = sheet_int(pilot, "pilotar") or 0
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
    state = SombraState.of(combat)
    watching = [n for n in state.watching if n != character.name]
    if not ending:
        watching.append(character.name)
    state.watching = watching
    ctx.reply("sombra/table_opportunity", name=character.name, watching=not ending, bonus=OPPORTUNITY_INITIATIVE)


@COMMANDS.takes("forcejeo", "struggle", spec=(), in_character=True, lenient=True)
def struggle_command(ctx: Context, got: Parsed) -> None:
    """The held one struggles: an opposed roll of 3×FUE; two wins in a row set them free."""
    held = _attacker(ctx)
    if held is None:
        raise Refusal("sombra/table_no_attacker")
    state = manoeuvres(ctx).get(held.name)
    holder = ctx.room.find_character(str(state.get("by") or "")) if state and state["kind"] == HELD else None
    if state is None or holder is None:
        raise Refusal("sombra/table_not_held", name=held.name)
    require_fields(held, ("fue",))
    require_fields(holder, ("fue",))
    mine, _, _ = _check(ctx, held, min(KNOCKDOWN_SCALE * (sheet_int(held, "fue") or 0), MAX_SKILL), "", arms=None)
    theirs, _, _ = _check(ctx, holder, min(KNOCKDOWN_SCALE * (sheet_int(holder, "fue") or 0), MAX_SKILL), "",
                          arms=None)
    won = _fight_winner(mine, theirs) == 0
    state["escapes"] = state["escapes"] + 1 if won else 0
    free = state["escapes"] >= ESCAPES
    if free:
        del manoeuvres(ctx)[held.name]
    ctx.reply("sombra/table_struggle", roll=mine, name=held.name, holder=holder.name, won=won, free=free,
              escapes=state["escapes"], needed=ESCAPES)
    ctx.reply("sombra/table_struggle_holder", roll=theirs, name=holder.name)
    floor.consume_grant(ctx)


def _after(ctx: Context, target: Character, reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The target's state after a blow; a stun the blow just announced is not stated twice."""
    labels = status_labels(ctx, ctx.room.combat, target)
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
    target, table, words = target_with_table(ctx, args)
    if not words:
        raise Refusal("sombra/table_damage_usage")
    damage = _fixed_damage(table, words)
    roll = None
    if damage is None:
        roll = ctx.system.roll(" ".join(["daño", words[0], table, *words[1:]]), ctx.rng)
        assert isinstance(roll, SombraDamageRoll)
        damage = roll.damage
    reports = apply_damage(ctx, target, table, damage)
    ctx.reply("sombra/table_damage", target=target.name, roll=roll, damage=damage, reports=reports,
              after=_after(ctx, target, reports))


@COMMANDS.command("heridas", "wounds", usage="NOMBRE", needs_args=True)
def wounds_command(ctx: Context, args: str) -> None:
    character, _ = ctx.named_character(args)
    ctx.reply("sombra/table_wounds", name=character.name, table=table_of(character),
              labels=status_labels(ctx, ctx.room.combat, character), effect=wound_effect(character),
              armour=character.sheet.get(ZONE_ARMOUR) or {})


@COMMANDS.command("curar", "heal", usage="NOMBRE [localización]", gm_only=True, needs_args=True)
def heal_command(ctx: Context, args: str) -> None:
    character, words = ctx.named_character(args)
    wounds, location = wounds_of(character), None
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
        SombraState.of(combat).end_threshold(character.name)
    if combat is not None and "cabeza" not in wounds:
        SombraState.of(combat).end_stun(character.name)
    ctx.reply("sombra/table_healed", name=character.name, location=location[1] if location else None,
              left=status_labels(ctx, combat, character))
