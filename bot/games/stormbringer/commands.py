"""Stormbringer commands: the round's stages (declarations, ``!acciones``, a change of weapon), attacks
(one a round per weapon), parries and dodges with the round counters, the blows waiting for their
damage, broken weapons, disarming, ambush and POD saves, experience. Every roll goes through the pure
resolver; the rules the handlers share live in ``combat.py`` and ``rolls.py``."""

from __future__ import annotations

from bot.core.api import (
    Arg,
    CommandGroup,
    Context,
    Opt,
    Parsed,
    Refusal,
    Rest,
    consume_grant,
    end_turn,
    explainer,
    grant,
    joinable,
    name_key,
    require_up,
    target_named,
    target_past,
)
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
    refuse,
    shield_skill,
)
from bot.games.stormbringer.combat import (
    ambushers,
    attacker_and_victim,
    attacking,
    break_weapons,
    declarer_fell,
    defender_and_blow,
    mark_experience,
    parrying_weapon,
    parrying_weapon_breaks,
    record_wounds,
    riposte_target,
    settle_blow,
    sheet_armour,
    sheet_damage,
    split_against,
    start_actions,
    victims,
)
from bot.games.stormbringer.rolls import ambush_check, sheet_check, skill_value
from bot.games.stormbringer.sheet import SKILL_KEYS, WEAPON_SKILLS
from systems.stormbringer.combat import SurpriseState, ambush_succeeds
from systems.stormbringer.resolver import (
    damage_request,
    resolve_attack,
    resolve_damage_roll,
    resolve_dodge,
    resolve_experience,
    resolve_parry,
    skill_request,
)
from systems.stormbringer.rules import roll_die
from systems.stormbringer.syntax import experience

COMMANDS = CommandGroup()
MAX_PERCENT_DIGITS = 3
ATTACK_WORDS = ("ataque", *WEAPON_SKILLS)
PARRY_WORDS = ("parada", "escudo")
SIDES = {"jugadores": "players", "pj": "players", "pjs": "players", "players": "players",
         "master": "gm", "dj": "gm", "gm": "gm", "pnj": "gm"}
ATTACK = Rest("[OBJETIVO] [habilidad|arma|%] [opciones: +10, dos armas, mitad, doble, respuesta…]")
PARRY = Rest("[NOMBRE] [parada|escudo|%] [opciones: +10, proyectil, flecha…]")
DODGE = Rest("[NOMBRE] [habilidad|%] [opciones: +10, arrojadiza…]")
WEAPON = Rest("[NOMBRE] ARMA (al declarar: cambia de arma con -5 a la DES este asalto)")
DAMAGE = Rest("NOMBRE [DADOS|PUNTOS [bf X] [armadura A] [grave N] [crítico]]")
AMBUSH = Rest("EMBOSCADOR[, EMBOSCADOR…]|% contra VÍCTIMA[, VÍCTIMA…]")
HELPLESS = Rest("ATACANTE contra VÍCTIMA")
BEHIND = Rest("VÍCTIMA [POD%] (golpe por la espalda en plena pelea)")
DISARM = Rest("[VÍCTIMA] (tras un crítico que no paran: desarmar en vez de dañar)")
EXPERIENCE = Rest("NOMBRE [habilidad…]")
"""Each read by the game's own grammar: a leading character's name (the longest known), then the
resolver's options (``systems/stormbringer/syntax.py``) or the sides of a ``contra``."""


# -- attacks and defences ---------------------------------------------------------------------

@COMMANDS.takes("ataque", "attack", spec=(Opt(ATTACK, brackets=False),), in_character=True, changes=True)
def attack_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.running_combat()
    target, words = target_named(ctx.room, got.text(ATTACK.shown).split(), _attack_reads)
    attacker = attacking(ctx, combat, words)
    if target is not None:
        target, words = target_past(ctx.room, attacker, target, words)
    riposte_only = ctx.on_grant and ctx.room.grant_only.get(ctx.sender) == name_key("ataque")
    if riposte_only:
        target = riposte_target(ctx, combat, attacker, target)
    require_up(ctx, attacker)
    able(combat, attacker, "attack")
    base, skill, words = skill_value(attacker, words, "ataque", ATTACK_WORDS)
    count = st.counter(combat, attacker.name)
    req = skill_request("attack", " ".join(words), base)
    req.riposte = req.riposte or riposte_only
    weapon = attack_weapon(attacker, skill, req.second_weapon, req.ambidextrous, req.riposte)
    skill = shield_skill(attacker, weapon, skill, req)
    check_weapon(combat, attacker, weapon)
    check_slot(count, attacker, weapon)
    req.second_weapon = weapon.slot == "second"
    req.ambidextrous = sh.yes(attacker, "ambidiestro")
    req.ordinal = count.attacks + 1
    req.modifiers[:0] = fitness(attacker, weapon, req.base)
    caught = st.StormbringerState.of(combat).marks.unaware
    if target is not None and name_key(target.name) in caught:
        req.factor = "double"
        caught.remove(name_key(target.name))
    result = resolve_attack(req, ctx.rng)
    count.record_attack(slot=weapon.slot, shield=weapon.shield)
    st.save_counter(combat, attacker.name, count)
    st.StormbringerState.of(combat).exchanges.riposte = None
    blow = None
    if result.roll.succeeded:
        blow = add_blow(combat, attacker, target, skill, result.roll.outcome == "critical", weapon)
    else:
        missed(combat)
    ctx.reply("stormbringer/table_action", who=attacker.name, roll=result, blow=blow, action="attack", hidden=False,
              shield=False, riposte=False, defences=defences(ctx, combat, blow) if blow else None, broken=[],
              first=explainer(ctx))
    if result.roll.outcome == "failure":
        joinable(ctx, attacker)
    consume_grant(ctx)


def _attack_reads(words: list[str]) -> bool:
    """Whether ``!ataque``'s words start with what it reads after a target (a skill or weapon, its
    options), not with a name."""
    if name_key(words[0]) in ATTACK_WORDS:
        return True
    try:
        skill_request("attack", " ".join(words), 1)
    except Refusal:
        return False
    return True


@COMMANDS.takes("parada", "parry", spec=(Opt(PARRY, brackets=False),))
def parry_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, got.text(PARRY.shown), "parry")
    require_up(ctx, defender)
    count = st.counter(combat, defender.name)
    if not count.can_parry():
        raise refuse("no_more_parries", name=defender.name)
    arrow = blow.get("weapon") in sh.UNDODGEABLE_KINDS
    if arrow and not sh.has_shield(defender):
        raise refuse("arrow_needs_shield", name=defender.name)
    base, skill, words = skill_value(defender, words, "parada", PARRY_WORDS)
    weapon = parrying_weapon(defender, skill)
    check_weapon(combat, defender, weapon)
    req = skill_request("parry", " ".join(words), base)
    shield = count.parries > 0 and not count.shield_used and sh.weapon_kind(defender, "arma2") == "shield"
    req.ordinal = 1 if shield else count.parries + 1
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("arrow" if arrow else "missile" if blow["missile"] else "")
    req.modifiers[:0] = fitness(defender, weapon, req.base)
    result = resolve_parry(req, ctx.rng)
    # «los dos objetos que chocan se destruirán»: a critical parried by a critical leaves no weapon to riposte with
    riposte = result.effect.stops_blow and sh.master(defender) and not result.effect.both_weapons_destroyed
    count.record_parry(result.effect.stops_blow, riposte, free=shield)
    count.shield_used = count.shield_used or shield
    st.save_counter(combat, defender.name, count)
    settle_blow(blow, defender, result.effect.stops_blow)
    broken = break_weapons(ctx, blow, defender, weapon, result.effect, result.roll.succeeded)
    if riposte:
        st.StormbringerState.of(combat).exchanges.riposte = {"by": defender.name, "against": blow["attacker"]}
        if defender.owner:
            grant(ctx, defender.owner, "ataque")  # the master's riposte needs no !permite
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="parry", hidden=False,
              shield=shield, riposte=riposte, defences=None, broken=broken, first=explainer(ctx))


@COMMANDS.takes("esquiva", "dodge", spec=(Opt(DODGE, brackets=False),))
def dodge_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.running_combat()
    defender, words, blow = defender_and_blow(ctx, combat, got.text(DODGE.shown), "dodge")
    require_up(ctx, defender)
    if blow.get("weapon") in sh.UNDODGEABLE_KINDS:
        raise refuse("cannot_dodge", weapon=blow["weapon"])
    base, _, words = skill_value(defender, words, "esquiva")
    req = skill_request("dodge", " ".join(words), base)
    req.against_critical = req.against_critical or blow["critical"]
    req.missile = req.missile or ("thrown" if blow["missile"] else "")
    result = resolve_dodge(req, ctx.rng)
    settle_blow(blow, defender, result.effect.stops_blow)
    ctx.reply("stormbringer/table_action", who=defender.name, roll=result, blow=blow, action="dodge", hidden=False,
              shield=False, riposte=False, defences=None, broken=[], first=explainer(ctx))


# -- the round: declarations of intent, change of weapon --------------------------------------

@COMMANDS.takes("siguiente", "next", spec=(), lenient=True)
def next_command(ctx: Context, got: Parsed) -> None:
    """As every room's ``!siguiente``; after the last declaration of intent, the attacks start."""
    combat = ctx.running_combat()
    if not (st.declaring(combat) and st.last_declarer(ctx, combat)):
        end_turn(ctx, combat)
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


@COMMANDS.takes("arma", "weapon", spec=(WEAPON,), in_character=True)
def weapon_command(ctx: Context, got: Parsed) -> None:
    """«debe declararlo al principio del asalto. El personaje sufrirá un malus de 5 puntos a la DES»:
    drawing or picking up a weapon is declared with the intent; it attacks in its phase with -5 DEX."""
    combat = ctx.running_combat()
    named, words = ctx.split_name(got.text(WEAPON.shown))
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
    marks = st.StormbringerState.of(combat).marks
    marks.change_weapon(name_key(character.name))
    disarmed = marks.disarmed
    if name_key(character.name) in disarmed:
        disarmed.remove(name_key(character.name))
    ctx.reply("stormbringer/table_weapon", name=character.name, weapon=weapon, phase=sh.phase_kind(character))
    consume_grant(ctx)


# -- damage -----------------------------------------------------------------------------------


@COMMANDS.takes("daño", "damage", spec=(DAMAGE,), gm_only=True, changes=True)
def damage_command(ctx: Context, got: Parsed) -> None:
    target, words = ctx.named_character(got.text(DAMAGE.shown))
    combat = ctx.room.combat
    blow = st.pending_blow(combat, target.name)
    if not words and blow is None:
        raise refuse("no_pending_blow", name=target.name)
    req = damage_request(" ".join(words)) if words else sheet_damage(ctx, blow or {})
    if req.armour is None and "armadura" in target.sheet:
        req.armour = sheet_armour(target)
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
    # The sheet damage of a blow is its attacker's roll (a GM-owned sheet's shows its dice only, bot/core/privacy.py).
    roller = blow["attacker"] if blow and not words else None
    ctx.reply("stormbringer/table_damage", name=target.name, roller=roller, roll=result, before=before,
              after=target.sheet.get("pv"), parry_broke=parry_broke, first=explainer(ctx))
    if combat is not None:
        declarer_fell(ctx, combat, target)


# -- surprise ---------------------------------------------------------------------------------


@COMMANDS.takes("emboscada", "ambush", spec=(AMBUSH,), gm_only=True)
def ambush_command(ctx: Context, got: Parsed) -> None:
    """«Se tirará 1D100 bajo la habilidad de Emboscada de cada combatiente»: every ambusher rolls; one
    failure gives the ambush away (the rules are silent: one seen ambusher is enough to be seen)."""
    combat = ctx.declared_combat()
    parts = split_against(got.text(AMBUSH.shown))
    if len(parts) != 2:
        raise refuse("bad_ambush")
    hidden = ambushers(ctx, parts[0].strip())
    targets = victims(ctx, parts[1])
    blind = [v.name for v in targets if not isinstance(v.sheet.get("ver"), int)]
    if blind:
        raise refuse("no_notice", names=blind)
    rolls = [(name, ambush_check(ctx, typed, base)) for name, typed, base in hidden]
    first = rolls[0][1]
    spotted = []
    if ambush_succeeds([r.roll.outcome for _, r in rolls]):
        first.rounds_face = roll_die(ctx.rng, 4)
        for victim in targets:
            st.set_surprise(combat, victim.name, SurpriseState("ambush", first.rounds))
    else:
        for victim in targets:
            check = sheet_check(ctx, victim, "ver")
            kind = "spotted" if check.roll.succeeded else "unaware"
            st.set_surprise(combat, victim.name, SurpriseState(kind, master=sh.master(victim)))
            spotted.append((victim.name, check))
    ctx.reply("stormbringer/table_ambush", roll=first, ambushers=rolls, victims=[v.name for v in targets],
              spotted=spotted)


# -- POD saves, disarming ----------------------------------------------------------------------

@COMMANDS.takes("indefenso", "helpless", spec=(HELPLESS,), gm_only=True)
def helpless_command(ctx: Context, got: Parsed) -> None:
    """«la víctima morirá a menos que consiga una tirada inferior o igual a su POD en 1D100»: saved,
    the attacker's damage lands and the victim may defend from the next round on; failed, it dies."""
    combat = ctx.running_combat()
    attacker, victim = attacker_and_victim(ctx, got.text(HELPLESS.shown))
    check = sheet_check(ctx, victim, "pod")
    if check.roll.succeeded:
        st.set_surprise(combat, victim.name, SurpriseState("helpless_saved"))
        add_blow(combat, attacker, victim, None, False, Weapon("arma", sh.weapon_kind(attacker), "main"))
        st.blows(combat)[-1]["defended"] = True
    else:
        victim.sheet["pv"] = min(0, sh.sheet_int(victim, "pv"))
    ctx.reply("stormbringer/table_pod", save="helpless", roll=check, attacker=attacker.name, victim=victim.name)
    declarer_fell(ctx, combat, victim)


@COMMANDS.takes("espalda", "behind", spec=(BEHIND,), gm_only=True)
def behind_command(ctx: Context, got: Parsed) -> None:
    """«siempre tendrá derecho a una tirada de salvación bajo su POD. Si se falla la tirada, el porcentaje
    del atacante al asestar el golpe será multiplicado por dos»: the next attack at the victim."""
    combat = ctx.running_combat()
    victim, words = ctx.named_character(got.text(BEHIND.shown))
    typed = words[0].rstrip("%") if len(words) == 1 else ""
    if words and not (typed.isdigit() and len(typed) <= MAX_PERCENT_DIGITS):
        raise ctx.usage("espalda")
    check = sheet_check(ctx, victim, "pod", int(typed) if typed else None)
    if not check.roll.succeeded:
        st.StormbringerState.of(combat).marks.catch_unaware(name_key(victim.name))
    ctx.reply("stormbringer/table_pod", save="behind", roll=check, attacker=None, victim=victim.name)


@COMMANDS.takes("desarmar", "disarm", spec=(Opt(DISARM, brackets=False),))
def disarm_command(ctx: Context, got: Parsed) -> None:
    """«En caso de conseguir una tirada crítica en ataque, el atacante debe decir si su intención es dañar
    a la víctima o desarmarla»: the critical blow that landed disarms instead of hurting."""
    combat = ctx.running_combat()
    said = got.text(DISARM.shown)
    named = ctx.character_named(said) if said.strip() else None
    mine = None if ctx.is_gm() else ctx.own_character()
    blow = next((b for b in reversed(st.blows(combat)) if b["critical"] and b["landed"]
                 and (mine is None or name_key(b["attacker"]) == name_key(mine.name))
                 and (named is None or st.aims_at(b, named.name))), None)
    victim = named or (ctx.room.find_character(blow["target"]) if blow and blow["target"] else None)
    if blow is None or victim is None:
        raise refuse("no_critical")
    st.blows(combat).remove(blow)
    st.StormbringerState.of(combat).marks.disarm(name_key(victim.name))
    ctx.reply("stormbringer/table_disarm", attacker=blow["attacker"], victim=victim.name)


@COMMANDS.takes("primero", "first", spec=(Arg("jugadores|máster"),), gm_only=True)
def first_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.declared_combat()
    said = got.text("jugadores|máster")
    side = SIDES.get(name_key(said))
    if side is None:
        raise refuse("bad_side", value=said[:20])
    st.StormbringerState.of(combat).plan.first = side
    ctx.reply("stormbringer/table_first", side=side)


# -- experience -------------------------------------------------------------------------------

@COMMANDS.takes("experiencia", "experience", spec=(EXPERIENCE,), gm_only=True)
def experience_command(ctx: Context, got: Parsed) -> None:
    character, words = ctx.named_character(got.text(EXPERIENCE.shown))
    marked = sh.marks(character)
    skills = list(dict.fromkeys(name_key(w) for w in words)) or marked
    if not skills:
        raise refuse("no_marks", name=character.name)
    for skill in skills:
        if skill not in SKILL_KEYS or not isinstance(character.sheet.get(skill), int):
            raise refuse("no_skill", name=character.name, skill=skill[:20])
    intelligence = character.sheet["int"] if isinstance(character.sheet.get("int"), int) else None
    rolls = []
    for skill in skills:
        result = resolve_experience(experience(character.sheet[skill], intelligence), ctx.rng)
        if result.improved:
            character.sheet[skill] = result.new_skill
        rolls.append((skill, result))
    sh.set_marks(character, [m for m in marked if m not in skills])
    ctx.reply("stormbringer/table_experience", name=character.name, rolls=rolls)
