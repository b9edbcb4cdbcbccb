"""Stormbringer commands: the round's stages (declarations, ``!acciones``, a change of weapon), attacks
(one a round per weapon), parries and dodges with the round counters, the blows waiting for their
damage, broken weapons, disarming, ambush and POD saves, experience. Every roll goes through the pure
resolver."""

from __future__ import annotations

import re

from bot.core import combat as rounds
from bot.core import floor
from bot.core.args import Arg, Parsed
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.room_commands import next_command as core_next
from bot.core.state import Character, Combat, name_key
from bot.games.stormbringer import sheet as sh
from bot.games.stormbringer import state as st
from bot.games.stormbringer.actions import (
    Weapon,
    able,
    add_blow,
    attack_weapon,
    check_slot,
    check_weapon,
    defences,
    fitness,
    missed,
    open_blow,
    refuse,
)
from bot.games.stormbringer.combat import begin_actions
from bot.games.stormbringer.sheet import SKILL_KEYS, WEAPON_SKILLS
from systems.dice import DiceExpr
from systems.refusal import Refusal
from systems.stormbringer.combat import WEAPON_HIT_POINTS, SurpriseState, ambush_succeeds, weapon_survives_critical
from systems.stormbringer.outcomes import AmbushRoll, SkillCheck
from systems.stormbringer.resolver import (
    parse_as,
    resolve_attack,
    resolve_check,
    resolve_damage_roll,
    resolve_dodge,
    resolve_experience,
    resolve_parry,
)
from systems.stormbringer.rules import DefenceEffect, roll_die
from systems.stormbringer.syntax import DamageRequest, ExperienceRequest, Scanner, SkillRequest

COMMANDS = CommandGroup()
SKILL_FIELDS = ("ataque", "parada", "esquiva", "emboscada", "ver")
ATTACK_WORDS = ("ataque", *WEAPON_SKILLS)
PARRY_WORDS = ("parada", "escudo")
MAX_VICTIMS = 20
SIDES = {"jugadores": "players", "pj": "players", "pjs": "players", "players": "players",
         "master": "gm", "dj": "gm", "gm": "gm", "pnj": "gm"}
_AGAINST = re.compile(r" (?:contra|vs\.?) ", re.IGNORECASE)
"""Split on whitespace-normalised text: single spaces keep it linear in the text's length."""
RIPOSTE_WORDS = ("respuesta", "replica")


# -- argument helpers -------------------------------------------------------------------------

def skill_value(character: Character, words: list[str], default: str,
                accepted: tuple[str, ...] = SKILL_FIELDS) -> tuple[str, str | None, list[str]]:
    """The percentage (a number or a sheet skill among ``accepted``, else ``default``), the skill used,
    the rest."""
    if words and words[0].rstrip("%").isdigit():
        return words[0], None, words[1:]
    skill = default
    if words and name_key(words[0]) in accepted:
        skill, words = name_key(words[0]), words[1:]
    if not isinstance(character.sheet.get(skill), int):
        raise refuse("no_skill", name=character.name, skill=skill)
    return str(character.sheet[skill]), skill, words


# -- attacks and defences ---------------------------------------------------------------------

@COMMANDS.command("ataque", "attack", usage="[OBJETIVO] [habilidad|arma|%] [opciones: +10, dos armas, mitad, doble, "
                  "respuesta…]", in_character=True)
def attack_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    target, words = ctx.split_name(args)
    attacker = attacking(ctx, combat, words)
    riposte_only = ctx.on_grant and ctx.room.grant_only.get(ctx.sender) == name_key("ataque")
    if riposte_only:
        target = riposte_target(ctx, combat, attacker, target)
    rounds.require_up(ctx, attacker)
    able(combat, attacker, "attack")
    value, skill, words = skill_value(attacker, words, "ataque", ATTACK_WORDS)
    count = st.counter(combat, attacker.name)
    req = parse_as(" ".join(["ataque", value, *words]), SkillRequest)
    req.riposte = req.riposte or riposte_only
    weapon = attack_weapon(attacker, skill, req.second_weapon, req.ambidextrous, req.riposte)
    check_weapon(combat, attacker, weapon)
    check_slot(count, attacker, weapon)
    req.second_weapon = weapon.slot == "second"
    req.ambidextrous = sh.yes(attacker, "ambidiestro")
    req.ordinal = count.attacks + 1
    req.modifiers[:0] = fitness(attacker, weapon, req.base)
    caught = st.StormbringerState.of(combat).unaware
    if target is not None and name_key(target.name) in caught:
        req.factor = "double"
        caught.remove(name_key(target.name))
    result = resolve_attack(req, ctx.rng)
    count.record_attack(slot=weapon.slot, shield=weapon.shield)
    st.save_counter(combat, attacker.name, count)
    st.StormbringerState.of(combat).riposte = None
    blow = None
    if result.roll.succeeded:
        blow = add_blow(combat, attacker, target, skill, result.roll.outcome == "critical", weapon)
    else:
        missed(combat)
    ctx.reply("stormbringer/table_action", who=attacker.name, roll=result, blow=blow, action="attack", hidden=False,
              shield=False, riposte=False, defences=defences(ctx, combat, blow) if blow else None, broken=[])
    floor.consume_grant(ctx)


def attacking(ctx: Context, combat: Combat, words: list[str]) -> Character:
    """Who attacks: the player's character; for the GM, the combatant whose turn it is, or for a
    riposte (``respuesta``) the master who has just parried."""
    if not ctx.is_gm():
        return ctx.own_character()
    pending = st.StormbringerState.of(combat).riposte
    if pending and any(name_key(w) in RIPOSTE_WORDS for w in words):
        return ctx.character_named(pending["by"])
    return ctx.character_named(combat.current or "")


def riposte_target(ctx: Context, combat: Combat, attacker: Character, target: Character | None) -> Character:
    """Out of turn, the grant a master's successful parry gives covers only the riposte: an attack by
    that master on the attacker just parried."""
    pending = st.StormbringerState.of(combat).riposte
    if not pending or name_key(pending["by"]) != name_key(attacker.name):
        raise refuse("riposte_only", name=attacker.name, against=None)
    against = ctx.character_named(pending["against"])
    if target is not None and target is not against:
        raise refuse("riposte_only", name=attacker.name, against=against.name)
    return against


def defender_and_blow(ctx: Context, combat: Combat, args: str, action: str) -> tuple[Character, list[str], dict]:
    """Who defends (the player's character; for the GM a named one or the blow's target) and the
    latest blow of the round at them still to be defended."""
    named, words = ctx.split_name(args)
    if ctx.is_gm():
        blow = open_blow(ctx, combat, named)
        defender = named or (ctx.room.find_character(blow["target"]) if blow["target"] else None)
        if defender is None:
            raise refuse("who_defends")
    else:
        defender = ctx.own_character()
        if named is not None and named is not defender:
            raise Refusal("not_your_character", name=named.name)
        blow = open_blow(ctx, combat, defender)
    able(combat, defender, action)
    return defender, words, blow


def settle_blow(blow: dict, defender: Character, stops: bool) -> None:
    blow.update(target=defender.name, defended=True, landed=not stops)


@COMMANDS.command("parada", "parry", usage="[NOMBRE] [parada|escudo|%] [opciones: +10, proyectil, flecha…]")
def parry_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, args, "parry")
    rounds.require_up(ctx, defender)
    count = st.counter(combat, defender.name)
    if not count.can_parry():
        raise refuse("no_more_parries", name=defender.name)
    arrow = blow.get("weapon") in sh.UNDODGEABLE_KINDS
    if arrow and not sh.has_shield(defender):
        raise refuse("arrow_needs_shield", name=defender.name)
    value, skill, words = skill_value(defender, words, "parada", PARRY_WORDS)
    weapon = parrying_weapon(defender, skill)
    check_weapon(combat, defender, weapon)
    req = parse_as(" ".join(["parada", value, *words]), SkillRequest)
    shield = count.parries > 0 and not count.shield_used and sh.weapon_kind(defender, "arma2") == "shield"
    req.ordinal = 1 if shield else count.parries + 1
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("arrow" if arrow else "missile" if blow["missile"] else "")
    req.modifiers[:0] = fitness(defender, weapon, req.base)
    result = resolve_parry(req, ctx.rng)
    count.record_parry(result.effect.stops_blow, sh.master(defender), free=shield)
    count.shield_used = count.shield_used or shield
    st.save_counter(combat, defender.name, count)
    settle_blow(blow, defender, result.effect.stops_blow)
    broken = break_weapons(ctx, blow, defender, weapon, result.effect, result.roll.succeeded)
    riposte = result.effect.stops_blow and sh.master(defender)
    if riposte:
        st.StormbringerState.of(combat).riposte = {"by": defender.name, "against": blow["attacker"]}
        if defender.owner:
            floor.grant(ctx, defender.owner, "ataque")  # the master's riposte needs no !permite
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="parry", hidden=False,
              shield=shield, riposte=riposte, defences=None, broken=broken)


def parrying_weapon(defender: Character, skill: str | None) -> Weapon:
    """``escudo`` parries with the shield (``arma2`` when that is the shield); else the weapon in hand."""
    field = "arma2" if skill == "escudo" and sh.weapon_kind(defender, "arma2") == "shield" else "arma"
    return Weapon(field, "shield" if skill == "escudo" else sh.weapon_kind(defender, field), "parry")


def break_weapons(ctx: Context, blow: dict, defender: Character, weapon: Weapon, effect: DefenceEffect,
                  parried: bool) -> list[str]:
    """Weapons a parry breaks, recorded on the sheets (``arma_rota``): a critical parry breaks the
    attacking weapon, a critical parried by a critical destroys both; a critical parried by a plain
    success waits for its damage to decide whether the parrying weapon holds."""
    attacker = ctx.room.find_character(blow["attacker"])
    broken = []
    if attacker is not None and (effect.attacker_weapon_breaks or effect.both_weapons_destroyed):
        attacker.sheet[f"{blow['field']}_rota"] = "sí"
        broken.append(attacker.name)
    if effect.both_weapons_destroyed:
        defender.sheet[f"{weapon.field}_rota"] = "sí"
        broken.append(defender.name)
    elif blow["critical"] and parried:
        blow["parried_with"] = weapon.field
    return broken


@COMMANDS.command("esquiva", "dodge", usage="[NOMBRE] [habilidad|%] [opciones: +10, arrojadiza…]")
def dodge_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, args, "dodge")
    rounds.require_up(ctx, defender)
    if blow.get("weapon") in sh.UNDODGEABLE_KINDS:
        raise refuse("cannot_dodge", weapon=blow["weapon"])
    value, _, words = skill_value(defender, words, "esquiva")
    req = parse_as(" ".join(["esquiva", value, *words]), SkillRequest)
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("thrown" if blow["missile"] else "")
    result = resolve_dodge(req, ctx.rng)
    settle_blow(blow, defender, result.effect.stops_blow)
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="dodge", hidden=False,
              shield=False, riposte=False, defences=None, broken=[])


# -- the round: declarations of intent, change of weapon --------------------------------------

@COMMANDS.takes("siguiente", "next", spec=(), lenient=True)
def next_command(ctx: Context, got: Parsed) -> None:
    """As every room's ``!siguiente``; after the last declaration of intent, the attacks start."""
    combat = ctx.running_combat()
    if not (st.declaring(combat) and st.last_declarer(ctx, combat)):
        core_next(ctx, got)
        return
    actor = ctx.room.find_character(combat.current or "")
    if not ctx.is_gm() and (actor is None or actor.owner != ctx.sender):
        raise Refusal("not_your_turn_to_end", actor=combat.current)
    start_actions(ctx, combat)


@COMMANDS.takes("acciones", "actions", spec=(), gm_only=True, lenient=True)
def actions_command(ctx: Context, got: Parsed) -> None:
    """The GM closes the declarations of intent (all made, or none to make): the attacks start."""
    combat = ctx.running_combat()
    if not st.declaring(combat):
        raise refuse("not_declaring")
    start_actions(ctx, combat)


def start_actions(ctx: Context, combat: Combat) -> None:
    begin_actions(ctx, combat)
    rounds.advance(ctx, combat)


@COMMANDS.command("arma", "weapon", usage="[NOMBRE] ARMA (al declarar: cambia de arma con -5 a la DES este asalto)",
                  in_character=True, needs_args=True)
def weapon_command(ctx: Context, args: str) -> None:
    """«debe declararlo al principio del asalto. El personaje sufrirá un malus de 5 puntos a la DES»:
    drawing or picking up a weapon is declared with the intent; it attacks in its phase with -5 DEX."""
    combat = ctx.running_combat()
    named, words = ctx.split_name(args)
    character = (named or ctx.character_named(combat.current or "")) if ctx.is_gm() else ctx.own_character()
    if named is not None and not ctx.is_gm() and named is not character:
        raise Refusal("not_your_character", name=named.name)
    if not st.declaring(combat):
        raise refuse("change_at_start", name=character.name)
    if not words:
        raise ctx.usage("arma")
    weapon = " ".join(words)[:40]
    for field in ("arma_tipo", "arma_rota", "arma_fue", "arma_des", "arma_pv"):
        character.sheet.pop(field, None)
    character.sheet["arma"] = weapon
    state = st.StormbringerState.of(combat)
    state.change_weapon(name_key(character.name))
    disarmed = state.disarmed
    if name_key(character.name) in disarmed:
        disarmed.remove(name_key(character.name))
    ctx.reply("stormbringer/table_weapon", name=character.name, weapon=weapon, phase=sh.phase_kind(character))
    floor.consume_grant(ctx)


# -- damage -----------------------------------------------------------------------------------

def weapon_text(ctx: Context, blow: dict) -> str:
    """The attacker's sheet damage (``daño`` and ``bf``) for a landed blow, or nothing."""
    attacker = ctx.room.find_character(blow["attacker"])
    if attacker is None or "dano" not in attacker.sheet:
        return ""
    bonus = attacker.sheet.get("bf")
    return f"{attacker.sheet['dano']} bf {bonus}" if bonus else str(attacker.sheet["dano"])


def dice(text: object) -> DiceExpr:
    return Scanner(str(text)).dice_or_constant()


@COMMANDS.command("daño", "damage", usage="NOMBRE [DADOS|PUNTOS [bf X] [armadura A] [grave N] [crítico]]",
         gm_only=True, needs_args=True)
def damage_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    combat = ctx.room.combat
    blow = st.pending_blow(combat, target.name)
    if not words and blow is None:
        raise refuse("no_pending_blow", name=target.name)
    req = parse_as(" ".join(["daño", *words]) if words else "daño " + weapon_text(ctx, blow or {}), DamageRequest)
    if req.armour is None and "armadura" in target.sheet:
        req.armour = dice(target.sheet["armadura"])
    if req.threshold is None and isinstance(target.sheet.get("grave"), int):
        req.threshold = target.sheet["grave"]
    req.critical = req.critical or bool(blow and blow["critical"])
    result = resolve_damage_roll(req, ctx.rng)
    before = target.sheet.get("pv")
    if isinstance(before, int):
        target.sheet["pv"] = before - result.result.hp_lost
    parry_broke = False
    if combat is not None:
        record_wounds(combat, target, result.result.major_wound, result.result.stunned)
        if blow is not None:
            st.blows(combat).remove(blow)
            mark_experience(ctx, blow)
            parry_broke = parrying_weapon_breaks(target, blow, result.result.rolled)
    ctx.reply("stormbringer/table_damage", name=target.name, roll=result, before=before,
              after=target.sheet.get("pv"), parry_broke=parry_broke)
    if combat is not None:
        declarer_fell(ctx, combat, target)


def declarer_fell(ctx: Context, combat: Combat, character: Character) -> None:
    """The last to declare, just stunned or killed on their declaring turn: the round goes on to its
    attacks (left to the core, the turn would pass to a new round)."""
    if (st.declaring(combat) and combat.current == character.name and not rounds.can_act(ctx, character.name)
            and st.last_declarer(ctx, combat)):
        rounds.drop_dead(ctx, combat)
        start_actions(ctx, combat)


def parrying_weapon_breaks(target: Character, blow: dict, rolled: int) -> bool:
    """A critical parried with a plain success: the parrying weapon breaks when the damage it took
    (``rolled``, doubled) is more than its points (``arma_pv``, 20 by default)."""
    field = blow.get("parried_with")
    if not isinstance(field, str):
        return False
    if weapon_survives_critical(rolled, sh.sheet_int(target, f"{field}_pv", WEAPON_HIT_POINTS)):
        return False
    target.sheet[f"{field}_rota"] = "sí"
    return True


def record_wounds(combat: Combat, target: Character, major: bool | None, stunned: bool) -> None:
    if major:
        st.add_wound(combat, target.name, "major")
    if stunned:
        st.add_wound(combat, target.name, "stunned")


def mark_experience(ctx: Context, blow: dict) -> None:
    """A blow that hit and was not parried marks the attacker's skill for experience."""
    attacker = ctx.room.find_character(blow["attacker"])
    if attacker is not None and blow["skill"]:
        sh.set_marks(attacker, [*sh.marks(attacker), blow["skill"]])


# -- surprise ---------------------------------------------------------------------------------

def victims(ctx: Context, text: str) -> list[Character]:
    """Names split by commas, or by spaces matching the longest known names first."""
    found: list[Character] = []
    parts = [p.strip() for p in text.split(",")] if "," in text else [text]
    for part in parts:
        words = part.split()
        while words:
            character, words = ctx.split_name(" ".join(words))
            found.append(character or ctx.character_named(part))
    if not found or len(found) > MAX_VICTIMS:
        raise refuse("bad_victims")
    return list({c.name: c for c in found}.values())


def split_against(text: str) -> list[str]:
    """``JEFE contra VÍCTIMAS``: the two sides (one part when there is no ``contra``/``vs``)."""
    return _AGAINST.split(" ".join(text.split()), maxsplit=1)


def ambushers(ctx: Context, text: str) -> list[tuple[str | None, str]]:
    """``JEFE`` / ``A, B`` (each with Emboscada on the sheet) or one percentage: (name, value) each."""
    words = text.split()
    if len(words) == 1 and words[0].rstrip("%").isdigit():
        return [(None, words[0])]
    return [(c.name, skill_value(c, [], "emboscada")[0]) for c in victims(ctx, text)]


@COMMANDS.command("emboscada", "ambush", usage="EMBOSCADOR[, EMBOSCADOR…]|% contra VÍCTIMA[, VÍCTIMA…]", gm_only=True,
                  needs_args=True)
def ambush_command(ctx: Context, args: str) -> None:
    """«Se tirará 1D100 bajo la habilidad de Emboscada de cada combatiente»: every ambusher rolls; one
    failure gives the ambush away (the rules are silent: one seen ambusher is enough to be seen)."""
    combat = ctx.declared_combat()
    parts = split_against(args)
    if len(parts) != 2:
        raise refuse("bad_ambush")
    hidden = ambushers(ctx, parts[0].strip())
    targets = victims(ctx, parts[1])
    blind = [v.name for v in targets if not isinstance(v.sheet.get("ver"), int)]
    if blind:
        raise refuse("no_notice", names=blind)
    rolls = [(name, ambush_check(value, ctx)) for name, value in hidden]
    first = rolls[0][1]
    spotted = []
    if ambush_succeeds([r.roll.outcome for _, r in rolls]):
        first.rounds_face = roll_die(ctx.rng, 4)
        for victim in targets:
            st.set_surprise(combat, victim.name, SurpriseState("ambush", first.rounds))
    else:
        for victim in targets:
            check = resolve_check(parse_as(f"vs {victim.sheet['ver']}", SkillRequest), ctx.rng)
            kind = "spotted" if check.roll.succeeded else "unaware"
            st.set_surprise(combat, victim.name, SurpriseState(kind, master=sh.master(victim)))
            spotted.append((victim.name, check))
    ctx.reply("stormbringer/table_ambush", roll=first, ambushers=rolls, victims=[v.name for v in targets],
              spotted=spotted)


def ambush_check(value: str, ctx: Context) -> AmbushRoll:
    check = resolve_check(parse_as(f"vs {value}", SkillRequest), ctx.rng)
    return AmbushRoll(check.target, check.roll)


# -- POD saves, disarming ----------------------------------------------------------------------

@COMMANDS.command("indefenso", "helpless", usage="ATACANTE contra VÍCTIMA", gm_only=True, needs_args=True)
def helpless_command(ctx: Context, args: str) -> None:
    """«la víctima morirá a menos que consiga una tirada inferior o igual a su POD en 1D100»: saved,
    the attacker's damage lands and the victim may defend from the next round on; failed, it dies."""
    combat = ctx.running_combat()
    attacker, victim = attacker_and_victim(ctx, args)
    check = pod_save(ctx, victim)
    if check.roll.succeeded:
        st.set_surprise(combat, victim.name, SurpriseState("helpless_saved"))
        add_blow(combat, attacker, victim, None, False, Weapon("arma", sh.weapon_kind(attacker), "main"))
        st.blows(combat)[-1]["defended"] = True
    else:
        victim.sheet["pv"] = min(0, sh.sheet_int(victim, "pv"))
    ctx.reply("stormbringer/table_pod", save="helpless", roll=check, attacker=attacker.name, victim=victim.name)
    declarer_fell(ctx, combat, victim)


@COMMANDS.command("espalda", "behind", usage="VÍCTIMA (golpe por la espalda en plena pelea)", gm_only=True,
                  needs_args=True)
def behind_command(ctx: Context, args: str) -> None:
    """«siempre tendrá derecho a una tirada de salvación bajo su POD. Si se falla la tirada, el porcentaje
    del atacante al asestar el golpe será multiplicado por dos»: the next attack at the victim."""
    combat = ctx.running_combat()
    victim = ctx.character_named(args)
    check = pod_save(ctx, victim)
    if not check.roll.succeeded:
        st.StormbringerState.of(combat).catch_unaware(name_key(victim.name))
    ctx.reply("stormbringer/table_pod", save="behind", roll=check, attacker=None, victim=victim.name)


def attacker_and_victim(ctx: Context, args: str) -> tuple[Character, Character]:
    parts = split_against(args)
    if len(parts) != 2:
        raise ctx.usage("indefenso")
    return ctx.character_named(parts[0].strip()), ctx.character_named(parts[1].strip())


def pod_save(ctx: Context, victim: Character) -> SkillCheck:
    """1D100 under the POD (as a percentage)."""
    if not isinstance(victim.sheet.get("pod"), int):
        raise refuse("no_skill", name=victim.name, skill="pod")
    return resolve_check(parse_as(f"vs {victim.sheet['pod']}", SkillRequest), ctx.rng)


@COMMANDS.command("desarmar", "disarm", usage="[VÍCTIMA] (tras un crítico que no paran: desarmar en vez de dañar)")
def disarm_command(ctx: Context, args: str) -> None:
    """«En caso de conseguir una tirada crítica en ataque, el atacante debe decir si su intención es dañar
    a la víctima o desarmarla»: the critical blow that landed disarms instead of hurting."""
    combat = ctx.running_combat()
    named = ctx.character_named(args) if args.strip() else None
    mine = None if ctx.is_gm() else ctx.own_character()
    blow = next((b for b in reversed(st.blows(combat)) if b["critical"] and b["landed"]
                 and (mine is None or name_key(b["attacker"]) == name_key(mine.name))
                 and (named is None or st.aims_at(b, named.name))), None)
    victim = named or (ctx.room.find_character(blow["target"]) if blow and blow["target"] else None)
    if blow is None or victim is None:
        raise refuse("no_critical")
    st.blows(combat).remove(blow)
    st.StormbringerState.of(combat).disarm(name_key(victim.name))
    ctx.reply("stormbringer/table_disarm", attacker=blow["attacker"], victim=victim.name)


@COMMANDS.takes("primero", "first", spec=(Arg("jugadores|máster"),), gm_only=True)
def first_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.declared_combat()
    said = got.text("jugadores|máster")
    side = SIDES.get(name_key(said))
    if side is None:
        raise refuse("bad_side", value=said[:20])
    st.StormbringerState.of(combat).first = side
    ctx.reply("stormbringer/table_first", side=side)


# -- experience -------------------------------------------------------------------------------

@COMMANDS.command("experiencia", "experience", usage="NOMBRE [habilidad…]", gm_only=True, needs_args=True)
def experience_command(ctx: Context, args: str) -> None:
    character, words = ctx.named_character(args)
    marked = sh.marks(character)
    skills = list(dict.fromkeys(name_key(w) for w in words)) or marked
    if not skills:
        raise refuse("no_marks", name=character.name)
    for skill in skills:
        if skill not in SKILL_KEYS or not isinstance(character.sheet.get(skill), int):
            raise refuse("no_skill", name=character.name, skill=skill[:20])
    intelligence = f" int {character.sheet['int']}" if isinstance(character.sheet.get("int"), int) else ""
    rolls = []
    for skill in skills:
        result = resolve_experience(
            parse_as(f"experiencia {character.sheet[skill]}{intelligence}", ExperienceRequest), ctx.rng)
        if result.improved:
            character.sheet[skill] = result.new_skill
        rolls.append((skill, result))
    sh.set_marks(character, [m for m in marked if m not in skills])
    ctx.reply("stormbringer/table_experience", name=character.name, rolls=rolls)
