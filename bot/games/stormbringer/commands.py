"""Stormbringer commands: attacks, parries and dodges with the round counters, damage to hit
points, ambush surprise and experience. Every roll goes through the pure resolver."""

from __future__ import annotations

import re
from typing import Any

from bot.core import combat as rounds
from bot.core import floor
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.state import Character, Combat, name_key
from bot.games.stormbringer import state as st
from systems.dice import DiceExpr
from systems.refusal import Refusal
from systems.stormbringer.combat import SurpriseState
from systems.stormbringer.resolver import (
    parse_as,
    resolve_ambush,
    resolve_attack,
    resolve_check,
    resolve_damage_roll,
    resolve_dodge,
    resolve_experience,
    resolve_parry,
)
from systems.stormbringer.syntax import DamageRequest, ExperienceRequest, Scanner, SkillRequest

COMMANDS = CommandGroup()
SKILL_FIELDS = ("ataque", "parada", "esquiva", "emboscada", "ver")
MAX_VICTIMS = 20
SIDES = {"jugadores": "players", "pj": "players", "pjs": "players", "players": "players",
         "master": "gm", "dj": "gm", "gm": "gm", "pnj": "gm"}
_AGAINST = re.compile(r" (?:contra|vs\.?) ", re.IGNORECASE)
"""Split on whitespace-normalised text: single spaces keep it linear in the text's length."""
RIPOSTE_WORDS = ("respuesta", "replica")
SECOND_WEAPON = re.compile(r"\b(?:dos|2)\s+armas\b|\bsegunda\s+arma\b", re.IGNORECASE)


def refuse(code: str, **params: Any) -> Refusal:
    """A stormbringer rule or argument problem (``templates/stormbringer/table_refused.txt``)."""
    return Refusal("stormbringer/table_refused", code=code, **params)


# -- argument helpers -------------------------------------------------------------------------

def skill_value(character: Character, words: list[str], default: str) -> tuple[str, str | None, list[str]]:
    """The percentage (a number or a sheet skill, else ``default``), the skill used, the rest."""
    if words and words[0].rstrip("%").isdigit():
        return words[0], None, words[1:]
    skill = default
    if words and name_key(words[0]) in SKILL_FIELDS:
        skill, words = name_key(words[0]), words[1:]
    if not isinstance(character.sheet.get(skill), int):
        raise refuse("no_skill", name=character.name, skill=skill)
    return str(character.sheet[skill]), skill, words


def able(combat: Combat, character: Character, action: str) -> None:
    """Stunned or surprised combatants may not do ``action`` ("attack", "parry", "dodge")."""
    if st.stunned(combat, character.name):
        raise refuse("stunned", name=character.name)
    if not getattr(st.limits(combat, character.name), action):
        raise refuse("surprised", name=character.name, action=action)


# -- attacks and defences ---------------------------------------------------------------------

@COMMANDS.command("ataque", "attack", usage="[OBJETIVO] [habilidad|%] [opciones: +10, mitad, doble, respuesta…]",
         in_character=True)
def attack_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    target, words = ctx.split_name(args)
    attacker = attacking(ctx, combat, words)
    riposte_only = ctx.on_grant and ctx.room.grant_only.get(ctx.sender) == name_key("ataque")
    if riposte_only:
        target = riposte_target(ctx, combat, attacker, target)
    rounds.require_up(ctx, attacker)
    able(combat, attacker, "attack")
    value, skill, words = skill_value(attacker, words, "ataque")
    count = st.counter(combat, attacker.name)
    req = parse_as(" ".join(["ataque", value, *words]), SkillRequest)
    req.riposte = req.riposte or riposte_only
    req.ordinal = count.attacks + 1
    if req.riposte and not count.ripostes_earned:
        raise refuse("no_riposte", name=attacker.name)
    shield_attack = req.second_weapon and st.weapon_kind(attacker, "arma2") == "shield"
    if shield_attack and count.shield_used:
        raise refuse("shield_spent", name=attacker.name)
    result = resolve_attack(req, ctx.rng)
    count.record_attack(req.riposte)
    count.shield_used = count.shield_used or shield_attack
    st.save_counter(combat, attacker.name, count)
    combat.data.pop("riposte", None)
    blow = None
    if result.roll.succeeded:
        kind = st.weapon_kind(attacker)
        blow = {"attacker": attacker.name, "target": target.name if target else None, "skill": skill,
                "critical": result.roll.outcome == "critical", "weapon": kind,
                "missile": kind in st.MISSILE_KINDS, "defended": False, "landed": True}
        combat.data["blow"] = blow
    else:
        combat.data.pop("blow", None)
    ctx.reply("stormbringer/table_action", who=attacker.name, roll=result, blow=blow, action="attack", hidden=False,
              shield=False, riposte=False)
    floor.consume_grant(ctx)


def attacking(ctx: Context, combat: Combat, words: list[str]) -> Character:
    """Who attacks: the player's character; for the GM, the combatant whose turn it is, or for a
    riposte (``respuesta``) the master who has just parried."""
    if not ctx.is_gm():
        return ctx.own_character()
    pending = combat.data.get("riposte")
    if pending and any(name_key(w) in RIPOSTE_WORDS for w in words):
        return ctx.character_named(pending["by"])
    return ctx.character_named(combat.current or "")


def riposte_target(ctx: Context, combat: Combat, attacker: Character, target: Character | None) -> Character:
    """Out of turn, the grant a master's successful parry gives covers only the riposte: an attack by
    that master on the attacker just parried."""
    pending = combat.data.get("riposte")
    if not pending or name_key(pending["by"]) != name_key(attacker.name):
        raise refuse("riposte_only", name=attacker.name, against=None)
    against = ctx.character_named(pending["against"])
    if target is not None and target is not against:
        raise refuse("riposte_only", name=attacker.name, against=against.name)
    return against


def defender_and_blow(ctx: Context, combat: Combat, args: str, action: str) -> tuple[Character, list[str], dict]:
    """Who defends (the player's character; for the GM a named one or the blow's target)."""
    named, words = ctx.split_name(args)
    blow = combat.data.get("blow")
    if blow is None:
        raise refuse("no_blow")
    if ctx.is_gm():
        defender = named or (ctx.room.find_character(blow["target"]) if blow["target"] else None)
        if defender is None:
            raise refuse("who_defends")
    else:
        defender = ctx.own_character()
        if named is not None and named is not defender:
            raise Refusal("not_your_character", name=named.name)
    if blow["target"] and name_key(blow["target"]) != name_key(defender.name):
        raise refuse("not_target", name=defender.name, target=blow["target"], attacker=blow["attacker"])
    if blow["defended"]:
        raise refuse("already_defended", name=blow["target"])
    able(combat, defender, action)
    return defender, words, blow


def settle_blow(blow: dict, defender: Character, stops: bool) -> None:
    blow.update(target=defender.name, defended=True, landed=not stops)


@COMMANDS.command("parada", "parry", usage="[NOMBRE] [habilidad|%] [opciones: +10, proyectil, flecha…]")
def parry_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, args, "parry")
    rounds.require_up(ctx, defender)
    count = st.counter(combat, defender.name)
    if not count.can_parry():
        raise refuse("no_more_parries", name=defender.name)
    arrow = blow.get("weapon") in st.UNDODGEABLE_KINDS
    if arrow and not st.has_shield(defender):
        raise refuse("arrow_needs_shield", name=defender.name)
    value, _, words = skill_value(defender, words, "parada")
    req = parse_as(" ".join(["parada", value, *words]), SkillRequest)
    shield = count.parries > 0 and not count.shield_used and st.weapon_kind(defender, "arma2") == "shield"
    req.ordinal = 1 if shield else count.parries + 1
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("arrow" if arrow else "missile" if blow["missile"] else "")
    result = resolve_parry(req, ctx.rng)
    count.record_parry(result.effect.stops_blow, st.master(defender), free=shield)
    count.shield_used = count.shield_used or shield
    st.save_counter(combat, defender.name, count)
    settle_blow(blow, defender, result.effect.stops_blow)
    riposte = result.effect.stops_blow and st.master(defender)
    if riposte:
        combat.data["riposte"] = {"by": defender.name, "against": blow["attacker"]}
        if defender.owner:
            floor.grant(ctx, defender.owner, "ataque")  # the master's riposte needs no !permite
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="parry", hidden=False,
              shield=shield, riposte=riposte)


@COMMANDS.command("esquiva", "dodge", usage="[NOMBRE] [habilidad|%] [opciones: +10, arrojadiza…]")
def dodge_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, args, "dodge")
    rounds.require_up(ctx, defender)
    if blow.get("weapon") in st.UNDODGEABLE_KINDS:
        raise refuse("cannot_dodge", weapon=blow["weapon"])
    value, _, words = skill_value(defender, words, "esquiva")
    req = parse_as(" ".join(["esquiva", value, *words]), SkillRequest)
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("thrown" if blow["missile"] else "")
    result = resolve_dodge(req, ctx.rng)
    settle_blow(blow, defender, result.effect.stops_blow)
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="dodge", hidden=False,
              shield=False, riposte=False)


# -- damage -----------------------------------------------------------------------------------

def landed_blow(combat: Combat | None, target: Character) -> dict | None:
    """The last blow if it hit ``target`` (or nobody in particular) and was not stopped."""
    blow = combat.data.get("blow") if combat else None
    if blow and blow["landed"] and name_key(blow["target"] or target.name) == name_key(target.name):
        return blow
    return None


def weapon_text(ctx: Context, blow: dict | None) -> str:
    """The attacker's sheet damage (``daño`` and ``bf``) for a landed blow, or nothing."""
    attacker = ctx.room.find_character(blow["attacker"]) if blow else None
    if attacker is None or "dano" not in attacker.sheet:
        return ""
    bonus = attacker.sheet.get("bf")
    return f"{attacker.sheet['dano']} bf {bonus}" if bonus else str(attacker.sheet["dano"])


def dice(text: object) -> DiceExpr:
    return Scanner(str(text)).dice_or_constant()


@COMMANDS.command("daño", "damage", usage="NOMBRE [DADOS [bf X] [armadura A] [grave N] [crítico]]",
         gm_only=True, needs_args=True)
def damage_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    combat = ctx.room.combat
    blow = landed_blow(combat, target)
    req = parse_as(" ".join(["daño", *words]) if words else "daño " + weapon_text(ctx, blow), DamageRequest)
    if req.armour is None and "armadura" in target.sheet:
        req.armour = dice(target.sheet["armadura"])
    if req.threshold is None and isinstance(target.sheet.get("grave"), int):
        req.threshold = target.sheet["grave"]
    req.critical = req.critical or bool(blow and blow["critical"])
    result = resolve_damage_roll(req, ctx.rng)
    before = target.sheet.get("pv")
    if isinstance(before, int):
        target.sheet["pv"] = before - result.result.hp_lost
    if combat is not None:
        record_wounds(combat, target, result.result.major_wound, result.result.stunned)
        if blow is not None:
            combat.data.pop("blow")
            mark_experience(ctx, blow)
    ctx.reply("stormbringer/table_damage", name=target.name, roll=result, before=before,
              after=target.sheet.get("pv"))


def record_wounds(combat: Combat, target: Character, major: bool | None, stunned: bool) -> None:
    if major:
        st.add_wound(combat, target.name, "major")
    if stunned:
        st.add_wound(combat, target.name, "stunned")


def mark_experience(ctx: Context, blow: dict) -> None:
    """A blow that hit and was not parried marks the attacker's skill for experience."""
    attacker = ctx.room.find_character(blow["attacker"])
    if attacker is not None and blow["skill"]:
        st.set_marks(attacker, [*st.marks(attacker), blow["skill"]])


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


def ambusher_value(ctx: Context, text: str) -> str:
    words = text.split()
    if len(words) == 1 and words[0].rstrip("%").isdigit():
        return words[0]
    leader = ctx.character_named(text)
    return skill_value(leader, [], "emboscada")[0]


@COMMANDS.command("emboscada", "ambush", usage="JEFE|% contra VÍCTIMA[, VÍCTIMA…]", gm_only=True, needs_args=True)
def ambush_command(ctx: Context, args: str) -> None:
    combat = ctx.declared_combat()
    parts = split_against(args)
    if len(parts) != 2:
        raise refuse("bad_ambush")
    value = ambusher_value(ctx, parts[0].strip())
    targets = victims(ctx, parts[1])
    blind = [v.name for v in targets if not isinstance(v.sheet.get("ver"), int)]
    if blind:
        raise refuse("no_notice", names=blind)
    result = resolve_ambush(parse_as(f"emboscada {value}", SkillRequest), ctx.rng)
    spotted = []
    if result.roll.succeeded:
        for victim in targets:
            st.set_surprise(combat, victim.name, SurpriseState("ambush", result.rounds))
    else:
        for victim in targets:
            check = resolve_check(parse_as(f"vs {victim.sheet['ver']}", SkillRequest), ctx.rng)
            kind = "spotted" if check.roll.succeeded else "unaware"
            st.set_surprise(combat, victim.name, SurpriseState(kind, master=st.master(victim)))
            spotted.append((victim.name, check))
    ctx.reply("stormbringer/table_ambush", roll=result, victims=[v.name for v in targets], spotted=spotted)


@COMMANDS.command("primero", "first", usage="jugadores|máster", gm_only=True, needs_args=True)
def first_command(ctx: Context, args: str) -> None:
    combat = ctx.declared_combat()
    side = SIDES.get(name_key(args))
    if side is None:
        raise refuse("bad_side", value=args[:20])
    st.data(combat)["first"] = side
    ctx.reply("stormbringer/table_first", side=side)


# -- experience -------------------------------------------------------------------------------

@COMMANDS.command("experiencia", "experience", usage="NOMBRE [habilidad…]", gm_only=True, needs_args=True)
def experience_command(ctx: Context, args: str) -> None:
    character, words = ctx.named_character(args)
    marked = st.marks(character)
    skills = list(dict.fromkeys(name_key(w) for w in words)) or marked
    if not skills:
        raise refuse("no_marks", name=character.name)
    for skill in skills:
        if skill not in SKILL_FIELDS or not isinstance(character.sheet.get(skill), int):
            raise refuse("no_skill", name=character.name, skill=skill[:20])
    intelligence = f" int {character.sheet['int']}" if isinstance(character.sheet.get("int"), int) else ""
    rolls = []
    for skill in skills:
        result = resolve_experience(
            parse_as(f"experiencia {character.sheet[skill]}{intelligence}", ExperienceRequest), ctx.rng)
        if result.improved:
            character.sheet[skill] = result.new_skill
        rolls.append((skill, result))
    st.set_marks(character, [m for m in marked if m not in skills])
    ctx.reply("stormbringer/table_experience", name=character.name, rolls=rolls)
