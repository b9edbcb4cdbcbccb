"""The sombra table's commands: attacks, defences, manoeuvres, boats, damage, wounds and healing.

Every rule comes from ``systems/sombra*``; this module only reads sheets, stores results
and picks the message. What outlasts a fight lives in ``character.sheet`` (``sheet.py``: wounds, zone
armour, flotation, engine, a jammed weapon, a capsized boat); what belongs to one fight lives in
``combat.data`` (``state.py``).
"""

from __future__ import annotations

from bot.core.api import (
    Arg,
    Character,
    CommandGroup,
    Context,
    Key,
    Opt,
    Parsed,
    Refusal,
    Rest,
    consume_grant,
    require_up,
)
from bot.games.sombra.combat import (
    ESCAPES,
    KNOCKDOWN_SCALE,
    after_blow,
    attacker_of,
    fire_shots,
    melee,
    status_labels,
    taken_aim,
    winner_of,
)
from bot.games.sombra.damage import apply_damage, fixed_damage
from bot.games.sombra.rolls import leading_skill, roll_check
from bot.games.sombra.sheet import (
    ATTACK_SKILLS,
    CAPSIZED,
    DEAD,
    FLOTATION_LOST,
    GENERIC_FIRE,
    JAMMED,
    MAX_SKILL,
    THRESHOLD,
    WOUNDS,
    ZONE_ARMOUR,
    bayonet_skill,
    bayonet_weapon,
    dodge_value,
    fire_skill,
    require_fields,
    sheet_int,
    sheet_weapon,
    table_of,
    target_with_table,
    weapon_for,
    weapon_type,
    wound_effect,
    wounds_of,
)
from bot.games.sombra.state import (
    DOWN,
    HELD,
    Aims,
    SombraState,
    manoeuvres,
    round_state,
    state_of,
)
from systems.dice import DiceError
from systems.sombra.damage import AREAS
from systems.sombra.resolver import damage_request, damage_roll
from systems.sombra.rules import (
    BAYONET_FALLBACK,
    MELEE_SKILLS,
    OPPORTUNITY_INITIATIVE,
    capsizes,
)
from systems.sombra.syntax import LOCATION_WORDS, MELEE_TYPES, plain

COMMANDS = CommandGroup()
ATTACK = Rest("OBJETIVO [habilidad] [dificil, prisa, apuntado cabeza, rafaga 3, cobertura...]")
DEFENCE = Rest("[NOMBRE] esquiva|parada|recepcion|ninguna")
TURN = Rest("BARCO [PILOTO] [dificil...]")
AIM_AT = Rest("[LOC]")
END = Key(("fin",))
DAMAGE = Rest("NOMBRE TIPO[+N] [apuntado LOC] | NOMBRE PUNTOS LOC")
HEAL = Rest("NOMBRE [localización]")
"""A ``Rest`` is read by the game's grammar: the longest known character name first, then the system's
clauses (``systems/sombra/syntax.py``)."""




# --- sheets -------------------------------------------------------------------------------


# --- applying damage ----------------------------------------------------------------------


# --- combat hooks -------------------------------------------------------------------------


# --- commands -----------------------------------------------------------------------------


@COMMANDS.takes("ataque", "attack", spec=(ATTACK,), in_character=True, changes=True)
def attack_command(ctx: Context, got: Parsed) -> None:
    """A firearm shoots within its rate of fire (a burst is one roll per bullet); melee against a person
    is a fight between both rolls, the defender's declared dodge or parry included."""
    attacker = attacker_of(ctx)
    if attacker is None:
        raise Refusal("sombra/table_no_attacker")
    target, table, rest = target_with_table(ctx, got.text(ATTACK.shown))
    if sheet_int(attacker, DEAD):
        require_up(ctx, attacker)
    effect = wound_effect(attacker)
    if not effect.can_act:
        raise Refusal("sombra/table_cannot_act", name=attacker.name, effect=effect, two_handed=False)
    skill, used = leading_skill(ctx, rest, ATTACK_SKILLS)
    options = rest[used:]
    if skill is None or (skill == GENERIC_FIRE and sheet_int(attacker, skill) is None):
        # 004 names each firearm's skill, no generic one: «disparo» is the sheet's firearm (``fusil 13``).
        armed = skill is None and weapon_type(sheet_weapon(attacker)) in MELEE_TYPES
        skill = "pelea" if armed else fire_skill(attacker, target.name)
    bayonet, fixed = skill == "bayoneta", False
    if bayonet:
        skill, fixed = bayonet_skill(attacker)
    elif skill in BAYONET_FALLBACK and any(plain(w) == "bayoneta" for w in options):
        options = [w for w in options if plain(w) != "bayoneta"]
        bayonet, fixed = True, True
    held = state_of(ctx, attacker)
    if held in (DOWN, HELD):
        raise Refusal("sombra/table_held", name=attacker.name, state=held)
    require_fields(attacker, (skill,))
    state = round_state(ctx.room.combat)
    if state is not None and state["defence"].get(attacker.name):
        raise Refusal("sombra/table_defending", name=attacker.name, stance=state["defence"][attacker.name])
    weapon = bayonet_weapon(attacker) if bayonet else weapon_for(attacker, skill)
    options, aim = taken_aim(ctx, attacker, options)
    if (skill in MELEE_SKILLS or bayonet) and table == "persona":
        melee(ctx, attacker, target, skill, weapon, options, bayonet, fixed)
    else:
        fire_shots(ctx, attacker, target, table, skill, weapon, options, aim)
    if aim is not None:
        Aims(ctx.running_combat()).end(attacker.name)
    if state is not None and attacker.name not in state["attacked"]:
        state["attacked"].append(attacker.name)
    consume_grant(ctx)


@COMMANDS.takes("apuntar", "aim", spec=(Opt(AIM_AT, brackets=False),), in_character=True, changes=True)
def aim_command(ctx: Context, got: Parsed) -> None:
    """004, Fusil: «Se pueden obtener beneficios por apuntar (un turno y aumentar un -5 el modificador)»: the turn
    goes in aiming, no shot; the next turn's first shot gets the -5 (and, at a location, its ``apuntado``)."""
    shooter = attacker_of(ctx)
    if shooter is None:
        raise Refusal("sombra/table_no_attacker")
    state = round_state(ctx.running_combat())
    assert state is not None
    words = got.text(AIM_AT.shown).split()
    location = plain(" ".join(words)) if words else None
    if location is not None and location not in LOCATION_WORDS:
        raise DiceError("sombra.unknown_location", text=" ".join(words)[:20])
    effect = wound_effect(shooter)
    if not effect.can_act:
        raise Refusal("sombra/table_cannot_act", name=shooter.name, effect=effect, two_handed=False)
    if state["defence"].get(shooter.name):
        raise Refusal("sombra/table_defending", name=shooter.name, stance=state["defence"][shooter.name])
    if shooter.name in state["attacked"] or shooter.name in state["fire"]:
        raise Refusal("sombra/table_aim_late", name=shooter.name)
    Aims(ctx.running_combat()).take(shooter.name, location)
    ctx.reply("sombra/table_aim", name=shooter.name, location=LOCATION_WORDS[location][1] if location else None)
    consume_grant(ctx)


STANCES: dict[str, str | None] = {"esquiva": "esquiva", "esquivar": "esquiva", "parada": "parada",
                                   "parar": "parada", "recepcion": "recepcion", "recepcion de carga": "recepcion",
                                   "ninguna": None, "nada": None}


@COMMANDS.takes("defensa", "defend", spec=(Opt(DEFENCE, brackets=False),))
def defence_command(ctx: Context, got: Parsed) -> None:
    """Declared for the round under way: a dodge or a parry against melee, instead of attacking."""
    character, words = ctx.own_or_named(got.text(DEFENCE.shown))
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
        elif stance == "recepcion":
            bayonet_skill(character)
        else:
            require_fields(character, ("pelea",))
        state["defence"][character.name] = stance
    ctx.reply("sombra/table_defence_declared", name=character.name, stance=stance)


@COMMANDS.takes("desencasquillar", "unjam", spec=(), in_character=True, lenient=True)
def unjam_command(ctx: Context, got: Parsed) -> None:
    """Clearing a jammed firearm (a fumble jams it) takes the turn's fire."""
    shooter = attacker_of(ctx)
    if shooter is None:
        raise Refusal("sombra/table_no_attacker")
    if not sheet_int(shooter, JAMMED):
        raise Refusal("sombra/table_not_jammed", name=shooter.name)
    del shooter.sheet[JAMMED]
    state = round_state(ctx.room.combat)
    if state is not None:
        state["fire"][shooter.name] = {"shots": 0, "covering": False, "burst": True}
    ctx.reply("sombra/table_unjammed", name=shooter.name, in_combat=state is not None)
    consume_grant(ctx)


@COMMANDS.takes("giro", "turn", spec=(TURN,), in_character=True)
def turn_boat_command(ctx: Context, got: Parsed) -> None:
    """A boat turning against high waves: its pilot (named, or who acts for the sender) rolls Pilotar;
    a medium failure or a fumble capsizes it."""
    boat, words = ctx.named_character(got.text(TURN.shown))
    if table_of(boat) != "barco":
        raise Refusal("sombra/table_not_boat", name=boat.name)
    named, rest = ctx.split_name(" ".join(words))
    if named is not None:
        ctx.may_manage(named)
        pilot: Character | None = named
        words = rest
    else:
        pilot = attacker_of(ctx)
    if pilot is None or pilot.name == boat.name:
        raise Refusal("sombra/table_no_attacker")
    require_fields(pilot, ("pilotar",))
    value = sheet_int(pilot, "pilotar") or 0
    result, aim, stunned = roll_check(ctx, pilot, value, " ".join(words), arms=None)
    overturned = capsizes(result.outcome)
    if overturned:
        boat.sheet[CAPSIZED] = 1
    ctx.reply("sombra/table_boat_turn", roll=result, boat=boat.name, pilot=pilot.name, value=value, aim=aim,
              stunned=stunned, capsized=overturned)
    consume_grant(ctx)


@COMMANDS.takes("oportunidad", "overwatch", spec=(Arg("NOMBRE"), Opt(END)))
def opportunity_command(ctx: Context, got: Parsed) -> None:
    """Watching one spot: +5 to VEL in the order from the next ``!iniciativa`` or round; ``fin`` ends it."""
    character, words = ctx.named_character(got.text("NOMBRE"))
    ctx.may_manage(character)
    ending = got.has(END)
    if words:
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
    held = attacker_of(ctx)
    if held is None:
        raise Refusal("sombra/table_no_attacker")
    state = manoeuvres(ctx).get(held.name)
    holder = ctx.room.find_character(str(state.get("by") or "")) if state and state["kind"] == HELD else None
    if state is None or holder is None:
        raise Refusal("sombra/table_not_held", name=held.name)
    require_fields(held, ("fue",))
    require_fields(holder, ("fue",))
    mine, _, _ = roll_check(ctx, held, min(KNOCKDOWN_SCALE * (sheet_int(held, "fue") or 0), MAX_SKILL), arms=None)
    theirs, _, _ = roll_check(ctx, holder, min(KNOCKDOWN_SCALE * (sheet_int(holder, "fue") or 0), MAX_SKILL),
                          arms=None)
    won = winner_of(mine, theirs) == 0
    state["escapes"] = state["escapes"] + 1 if won else 0
    free = state["escapes"] >= ESCAPES
    if free:
        del manoeuvres(ctx)[held.name]
    ctx.reply("sombra/table_struggle", roll=mine, name=held.name, holder=holder.name, won=won, free=free,
              escapes=state["escapes"], needed=ESCAPES)
    ctx.reply("sombra/table_struggle_holder", roll=theirs, name=holder.name)
    consume_grant(ctx)


@COMMANDS.takes("daño", "damage", spec=(DAMAGE,), gm_only=True, changes=True)
def damage_command(ctx: Context, got: Parsed) -> None:
    target, table, words = target_with_table(ctx, got.text(DAMAGE.shown))
    if not words:
        raise Refusal("sombra/table_damage_usage")
    damage = fixed_damage(table, words)
    roll = None
    if damage is None:
        roll = damage_roll(damage_request(words[0], table, " ".join(words[1:])), ctx.rng)
        damage = roll.damage
    reports = apply_damage(ctx, target, table, damage)
    ctx.reply("sombra/table_damage", target=target.name, roll=roll, damage=damage, reports=reports,
              after=after_blow(ctx, target, reports))


@COMMANDS.takes("heridas", "wounds", spec=(Arg("NOMBRE"),))
def wounds_command(ctx: Context, got: Parsed) -> None:
    character, _ = ctx.named_character(got.text("NOMBRE"))
    ctx.reply("sombra/table_wounds", name=character.name, table=table_of(character),
              labels=status_labels(ctx, ctx.room.combat, character), effect=wound_effect(character),
              armour=character.sheet.get(ZONE_ARMOUR) or {})


@COMMANDS.takes("curar", "heal", spec=(HEAL,), gm_only=True, changes=True)
def heal_command(ctx: Context, got: Parsed) -> None:
    character, words = ctx.named_character(got.text(HEAL.shown))
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
    character.sheet.pop(THRESHOLD, None)
    combat = ctx.room.combat
    if combat is not None:
        SombraState.of(combat).end_threshold(character.name)
    if combat is not None and "cabeza" not in wounds:
        SombraState.of(combat).end_stun(character.name)
    ctx.reply("sombra/table_healed", name=character.name, location=location[1] if location else None,
              left=status_labels(ctx, combat, character))
