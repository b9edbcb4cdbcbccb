"""The savage table's own commands: bennies, damage, soak, hold/interrupt, recovery, tasks, deck."""

from __future__ import annotations

import re
from copy import deepcopy
from dataclasses import replace
from typing import Any

from bot.core.api import (
    MAX_NAME,
    Character,
    Combat,
    CommandGroup,
    Context,
    Key,
    Opt,
    Parsed,
    SheetRoll,
    advance,
    answer_roll,
    consume_grant,
    grant,
    last_roll,
    may_act,
    name_key,
    read_request,
    require_up,
    resolve,
    roller,
    stamp,
    vocab,
)
from bot.games.savage.flow import (
    close_soak,
    die_from,
    has_joker,
    incapacitation_due,
    mark_recovery,
    move_in_order,
    recovery_rolled,
    roll_incapacitation,
    take_turn_now,
    trait_roll,
)
from bot.games.savage.rolls import (
    count_action,
    recover,
    regive_support,
    take_hit,
    toughness_words,
    weapon_damage,
    weapon_is_ranged,
)
from bot.games.savage.sheet import group_of, nerves_of, normal_die, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat, combat_snapshot, restore_combat
from systems.dice import DiceError
from systems.refusal import Refusal
from systems.savage.deck import Card, interrupt, surprise
from systems.savage.resolver import SavageDamageRoll, SavageTraitRoll
from systems.savage.rules import SUCCESSES, DamageEffect, SoakResult, best_soak, damage_effect
from systems.savage.state import (
    DRAMATIC_TASKS,
    DramaticTask,
    SavageCharacter,
    apply_damage,
    gain_benny,
    recover_at_turn_start,
    soak_damage,
    spend_benny,
    stop_bleeding,
    unshake_with_benny,
)
from systems.savage.syntax import fold

COMMANDS = CommandGroup()
MAX_DAMAGE = 999
MAX_BENNY_STEP = 20
MAX_AREA_TARGETS = 12
_COUNT = re.compile(r"^[+-]\d{1,2}$")
_SPEND = ("gastar", "spend")
_UNSHAKE = ("recuperar", "unshake")
FIRE = Key(("fuego", "fire"))
_REROLL = ("repetir", "otra", "reroll")
_DECLINE = ("no", "decline")
UNTRAINED = "d4"


def refuse(code: str, **params: object) -> Refusal:
    """A bad argument of the savage table's commands (``templates/savage/table_error.txt``)."""
    return Refusal("savage/table_error", code=code, **params)


def _actor_and_rest(ctx: Context, args: str) -> tuple[Character, str]:
    """``NOMBRE resto`` or, without a known name, the one acting for the sender; and the rest."""
    character, words = ctx.own_or_named(args)
    return character, " ".join(words)


def _named(ctx: Context, args: str) -> tuple[Character | None, str]:
    """A known character at the start of ``args`` (or None) and the rest."""
    character, words = ctx.split_name(args)
    return character, " ".join(words)


@COMMANDS.command("beni", "benny", usage="[NOMBRE] [+N|-N|gastar|recuperar]")
def benny_command(ctx: Context, args: str) -> None:
    if not args.strip() and ctx.character is None:
        rows = [(c.name, savage_of(c).bennies) for c in ctx.room.characters.values()]
        ctx.reply("savage/table_bennies", rows=rows, name=None, change=None)
        return
    character, rest = _actor_and_rest(ctx, args)
    word = fold(rest)
    savage = savage_of(character)
    if not word:
        ctx.reply("savage/table_bennies", rows=[], name=character.name, change=None, bennies=savage.bennies)
        return
    if _COUNT.match(word):
        _give_bennies(ctx, character, savage, int(word))
        return
    if word not in _SPEND + _UNSHAKE:
        raise ctx.usage("beni")
    ctx.may_manage(character)
    if word in _UNSHAKE and not savage.shaken:
        raise refuse("not_shaken", name=character.name)
    after = unshake_with_benny(savage) if word in _UNSHAKE else spend_benny(savage)
    store(character, after)
    ctx.reply("savage/table_bennies", rows=[], name=character.name, bennies=after.bennies,
              change="unshaken" if word in _UNSHAKE else "spent")


def _give_bennies(ctx: Context, character: Character, savage: SavageCharacter, count: int) -> None:
    if not ctx.is_gm():
        raise Refusal("gm_only", command="beni NOMBRE +N")
    if not -MAX_BENNY_STEP <= count <= MAX_BENNY_STEP or savage.bennies + count < 0:
        raise refuse("bad_bennies", name=character.name, bennies=savage.bennies, count=count)
    after = gain_benny(savage, count)
    store(character, after)
    ctx.reply("savage/table_bennies", rows=[], name=character.name, bennies=after.bennies, change=count)


@COMMANDS.command("daño", "damage", usage="NOMBRE TOTAL | NOMBRE DADOS [aumento]", in_character=True, needs_args=True)
def damage_command(ctx: Context, args: str) -> None:
    """The GM applies any damage; a player only the damage of their own hit this turn (000: «Tras una
    tirada exitosa ... el atacante debe determinar el daño ocasionado»), with its raise die."""
    target, rest = _named(ctx, args)
    if target is None:
        raise ctx.unknown_character(args)
    if not rest:
        raise ctx.usage("dano")
    if "dureza" not in target.sheet:
        raise refuse("no_toughness", name=target.name)
    if rest.isdigit():
        if not ctx.is_gm():
            raise Refusal("gm_only", command="daño NOMBRE TOTAL")
        if int(rest) > MAX_DAMAGE:
            raise refuse("bad_total", limit=MAX_DAMAGE)
        close_soak_chance(ctx)
        savage = savage_of(target)
        _apply_hit(ctx, target, savage, damage_effect(int(rest), savage.toughness, savage.shaken), None)
        return
    attacker = ctx.acting_character()
    if not ctx.is_gm():
        raised = take_hit(ctx, attacker, target)
        if raised is None:
            raise refuse("no_own_hit", name=target.name)
        said = "aumento" in map(fold, rest.split())
        if said and not raised:
            raise refuse("no_raise", name=target.name)
        rest = f"{rest} aumento" if raised and not said else rest
    roll_damage(ctx, target, rest, attacker)


@COMMANDS.command("area", "blast", usage="DADOS [aumento] contra NOMBRE, NOMBRE...", in_character=True, needs_args=True)
def area_command(ctx: Context, args: str) -> None:
    """An area attack (000: «Hay que hacer una tirada de daño independiente por enemigo... No vale tirar y
    repetir daño con benni para todos»): one damage roll per target, each resolved (soak included) apart.
    The GM's, or the player's whose attack hit this turn."""
    dice, _, names = args.partition(" contra ")
    named = [ctx.character_named(n.strip()) for n in names.split(",") if n.strip()]
    targets = list({name_key(t.name): t for t in named}.values())
    if not dice.strip() or not targets or len(targets) > MAX_AREA_TARGETS:
        raise ctx.usage("area")
    missing = [t.name for t in targets if "dureza" not in t.sheet]
    if missing:
        raise refuse("no_toughness", name=missing[0])
    attacker = ctx.acting_character()
    if not ctx.is_gm() and take_hit(ctx, attacker, None) is None:
        raise refuse("no_own_hit", name=targets[0].name)
    ctx.reply("savage/table_area", names=[t.name for t in targets])
    for target in targets:
        roll_damage(ctx, target, dice.strip(), attacker)


def close_soak_chance(ctx: Context) -> None:
    """A new damage roll: the chance to soak the last one has passed."""
    combat = ctx.room.combat
    if combat is not None:
        state = SavageCombat.of(combat)
        close_soak(ctx, state)
        state.save(combat)


def roll_damage(ctx: Context, target: Character, rest: str, attacker: Character | None) -> None:
    """Roll ``rest`` as damage against the target's Toughness and apply it."""
    close_soak_chance(ctx)
    savage = savage_of(target)
    joker = attacker is not None and has_joker(ctx, attacker)
    text = " ".join(["daño", rest, *toughness_words(target), *(["comodin"] if joker else [])])
    try:
        roll = ctx.system.roll(text, ctx.rng)
    except DiceError as error:  # it names what the player typed, not the Toughness the bot added
        raise DiceError(error.code, **{**error.params, "text": rest}) if "text" in error.params else error from None
    if not isinstance(roll, SavageDamageRoll) or roll.effect is None:
        raise TypeError(f"a damage roll against a toughness was expected from {text!r}")
    consume_grant(ctx)
    _apply_hit(ctx, target, savage, roll.effect, roll)


def _apply_hit(ctx: Context, target: Character, before: SavageCharacter, effect: DamageEffect,
               roll: SavageDamageRoll | None) -> None:
    """Shaken / wounds / out through the resolver; the hit is kept so the victim may soak it until the
    next damage roll or the next turn. A Wild Card it incapacitates rolls Vigor when that chance has
    passed, at once when there is none."""
    after = apply_damage(before, effect)
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat else None
    hold_broken = bool(state and after.shaken and state.is_holding(target.name))
    can_soak = state is not None and after.wild_card and effect.wounds > 0 and before.bennies > 0
    incapacitated = after.incapacitated and not before.incapacitated and after.wild_card
    ctx.reply("savage/table_damage", name=target.name, roll=roll, effect=effect, before=before, after=after,
              hold_broken=hold_broken, can_soak=can_soak, vigor_waits=incapacitated and can_soak)
    if incapacitated and not can_soak:
        after, _ = roll_incapacitation(ctx, target, after)
    store(target, after)
    if combat is None or state is None:
        return
    if hold_broken:  # it acts right after, and that turn starts with its Spirit roll
        state.stop_holding(target.name)
        state.started = [n for n in state.started if name_key(n) != name_key(target.name)]
        move_in_order(combat, target.name, after_current=True)
    if before.can_act and not savage_of(target).can_act and _is_enemy(ctx, target) and not _enemies_up(ctx, state):
        ctx.tell_gms("savage/table_no_enemies")
    if can_soak:
        state.hits = {name_key(target.name): {
            "name": target.name, "before": before.to_dict(), "effect": [effect.margin, effect.shaken, effect.wounds],
            "incap_due": incapacitated, "soaked": False, "best": 0,
        }}
    state.save(combat)


def _is_enemy(ctx: Context, character: Character) -> bool:
    """A GM's combatant that is no ally of a player's character (one whose ``grupo`` names it)."""
    leader = ctx.room.find_character(group_of(character))
    return ctx.sheet_is_gms(character) and (leader is None or ctx.sheet_is_gms(leader))


def _enemies_up(ctx: Context, state: SavageCombat) -> bool:
    combat = ctx.room.combat
    names = state.roster or (combat.order if combat else [])
    found = (ctx.room.find_character(n) for n in names)
    return any(c is not None and _is_enemy(ctx, c) and savage_of(c).can_act for c in found)


@COMMANDS.command("absorber", "soak", usage="[NOMBRE] [dN] [repetir | no]", free=True)
def soak_command(ctx: Context, args: str) -> None:
    """A soak of the hit just taken, on anyone's turn (the window is the hit's: until the next damage
    roll or the next turn); ``no`` declines it; a second one after a partial soak is its reroll."""
    target, rest = _actor_and_rest(ctx, args)
    ctx.may_manage(target)
    words = rest.split()
    last = fold(words[-1]) if words else ""
    rest = " ".join(words[:-1]) if last in (*_REROLL, *_DECLINE) else rest
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat else None
    hit = state.hits.get(name_key(target.name)) if state else None
    if combat is None or state is None or hit is None:
        raise refuse("no_soak" if last in _REROLL else "no_hit", name=target.name)
    effect = DamageEffect(*hit["effect"])
    if last in _DECLINE:
        ctx.reply("savage/table_soak_declined", name=target.name)
        close_soak(ctx, state)
        state.save(combat)
        return
    reroll = bool(hit["soaked"])
    if reroll and hit["best"] >= effect.wounds:
        raise refuse("soak_done", name=target.name)
    if last in _REROLL and not reroll:
        raise refuse("no_soak", name=target.name)
    _, die = die_from(rest, target, "vigor")
    if die is None:
        raise refuse("no_die", name=target.name, field="vigor")
    bennies = savage_of(target).bennies if reroll else SavageCharacter.from_dict(hit["before"]).bennies
    before = replace(SavageCharacter.from_dict(hit["before"]), bennies=bennies)
    spend_benny(before)
    roll = trait_roll(ctx, "absorber", die, before, has_joker(ctx, target), f"recibe {effect.wounds}",
                      nerves=nerves_of(target))
    kept = SoakResult(effect.wounds, hit["best"]) if reroll else roll.result
    best = best_soak(kept, roll.result)
    paid, left = soak_damage(before, effect, best)
    after = apply_damage(paid, left)
    store(target, after)
    if after.can_act and name_key(target.name) not in map(name_key, combat.order):
        combat.order.append(target.name)
    hit.update(soaked=True, best=best.soaked)
    ctx.reply("savage/table_soak", name=target.name, roll=roll, after=after, reroll=reroll, best=best,
              vigor_waits=bool(hit["incap_due"]) and after.incapacitated and after.bennies > 0)
    if not after.bennies or not best.remaining:  # no reroll left: the chance to soak is over
        incapacitation_due(ctx, hit)
    state.save(combat)
    consume_grant(ctx)
    if best.remaining and after.bennies and not ctx.is_gm():
        grant(ctx, ctx.sender, "repetir")  # out of turn, ``!repetir`` is this soak's reroll too
    ctx.room.rerolls[name_key(target.name)] = {"kind": "soak", "stamp": stamp(ctx)}


@COMMANDS.command("recargar", "reload", usage="[NOMBRE]", in_character=True)
def reload_command(ctx: Context, args: str) -> None:
    """000: «Recargar un arma con un cargador o similar es una acción»: the weapon's Munición back to its
    Cargador, one action of the turn."""
    character, _ = _actor_and_rest(ctx, args)
    ctx.may_manage(character)
    require_up(ctx, character)
    if savage_of(character).shaken:
        raise refuse("shaken_cannot_act", name=character.name, bennies=savage_of(character).bennies)
    if "cargador" not in character.sheet:
        raise refuse("no_magazine", name=character.name)
    count_action(ctx, character, None)
    character.sheet["municion"] = int(character.sheet["cargador"])
    consume_grant(ctx)
    ctx.reply("savage/table_reload", name=character.name, ammo=character.sheet["municion"])




@COMMANDS.command("sanar", "heal", usage="[QUIEN] NOMBRE", in_character=True, needs_args=True)
def heal_command(ctx: Context, args: str) -> None:
    """Healing on another, bleeding character: a success stabilises them and only stops the bleeding
    (000: «Si tienen éxito, la víctima se estabilizará inmediatamente ... Este uso de Sanar solo detiene
    el desangramiento»)."""
    first, rest = _named(ctx, args)
    second, extra = _named(ctx, rest) if first and rest else (None, rest)
    healer, patient = (first, second) if second else (ctx.acting_character(), first)
    if patient is None:
        raise ctx.unknown_character(args)
    if healer is None:
        raise Refusal("no_character")
    ctx.may_manage(healer)
    if healer is patient:
        raise refuse("heal_self", name=healer.name)
    if not savage_of(patient).bleeding or savage_of(patient).dead:
        raise refuse("not_bleeding", name=patient.name)
    made = resolve(ctx, healer, f"sanar {extra}".strip(), auto=True)
    answer_roll(ctx, healer, made, target=patient)
    consume_grant(ctx)
    outcome = str(made.outcome.as_json().get("outcome"))
    after = stop_bleeding(savage_of(patient), outcome)
    store(patient, after)
    ctx.reply("savage/table_heal", name=patient.name, stable=not after.bleeding)


@COMMANDS.command("recuperar", "recover", usage="[NOMBRE] [dN]", in_character=True, free=True)
def recover_command(ctx: Context, args: str) -> None:
    character, rest = _actor_and_rest(ctx, args)
    ctx.may_manage(character)
    require_up(ctx, character)
    savage = savage_of(character)
    if not savage.shaken:
        raise refuse("not_shaken", name=character.name)
    if recovery_rolled(ctx, character):
        raise refuse("recovered_already", name=character.name, bennies=savage.bennies)
    _, die = die_from(rest, character, "espiritu")
    if die is None:
        raise refuse("no_die", name=character.name, field="espiritu")
    roll = trait_roll(ctx, "espiritu", die, savage, has_joker(ctx, character), nerves=nerves_of(character))
    store(character, recover_at_turn_start(savage, roll.outcome))
    mark_recovery(ctx, character)
    consume_grant(ctx)
    ctx.reply("savage/table_recovery", name=character.name, roll=roll, bennies=savage.bennies)


def _current_actor(ctx: Context, combat: Combat) -> Character | None:
    actor = ctx.room.find_character(combat.current or "")
    if actor is None or not (ctx.is_gm() or actor.owner == ctx.sender):
        ctx.reply("not_your_turn_to_end", actor=combat.current)
        return None
    return actor


@COMMANDS.takes("esperar", "hold", spec=(), in_character=True, lenient=True)
def hold_command(ctx: Context, got: Parsed) -> None:
    _hold(ctx, overwatch=False)


@COMMANDS.takes("guardia", "overwatch", spec=(Opt(FIRE),), in_character=True, lenient=True)
def overwatch_command(ctx: Context, got: Parsed) -> None:
    if not got.has(FIRE):
        _hold(ctx, overwatch=True)
        return
    combat = ctx.running_combat()
    if not ctx.is_gm():
        raise Refusal("gm_only", command="guardia fuego")
    state = SavageCombat.of(combat)
    watch, shooters = state.watch().trigger()
    state.overwatch = watch.watchers
    for name in shooters:
        state.stop_holding(name)
    state.save(combat)
    ctx.reply("savage/table_overwatch", name=None, shooters=shooters)


def _hold(ctx: Context, overwatch: bool) -> None:
    """The actor goes on hold (keeping the card) and the next turn starts."""
    combat = ctx.running_combat()
    actor = _current_actor(ctx, combat)
    if actor is None:
        return
    state = SavageCombat.of(combat)
    state.holding = [*state.holding, actor.name] if not state.is_holding(actor.name) else state.holding
    if overwatch:
        state.overwatch = state.watch().enter(actor.name).watchers
    state.save(combat)
    kind = "savage/table_overwatch" if overwatch else "savage/table_hold"
    ctx.reply(kind, name=actor.name, shooters=[], card=state.card_of(actor))
    advance(ctx, combat)


def _held_by(ctx: Context, combat: Combat, holder: Character) -> SavageCombat:
    """The fight's state, once ``holder`` is known to be one the sender may act for, up and holding its
    action (what ``!actuar`` and ``!interrumpir`` both need)."""
    ctx.may_manage(holder)
    require_up(ctx, holder)
    state = SavageCombat.of(combat)
    if not state.is_holding(holder.name):
        raise refuse("not_holding", name=holder.name)
    return state


@COMMANDS.command("actuar", "act", usage="[NOMBRE]")
def act_command(ctx: Context, args: str) -> None:
    """A held character acts now, between turns, with no roll (000: «actuar en un momento posterior de
    la ronda de combate si así lo desea»); cutting into an action is ``!interrumpir``."""
    combat = ctx.running_combat()
    holder, rest = _actor_and_rest(ctx, args)
    if rest:
        raise ctx.usage("actuar")
    state = _held_by(ctx, combat, holder)
    state.stop_holding(holder.name)
    state.save(combat)
    ctx.reply("savage/table_act", name=holder.name)
    take_turn_now(ctx, combat, holder.name)


@COMMANDS.command("interrumpir", "interrupt", usage="[QUIEN] NOMBRE", needs_args=True)
def interrupt_command(ctx: Context, args: str) -> None:
    combat = ctx.running_combat()
    first, rest = _named(ctx, args)
    second, extra = _named(ctx, rest) if first and rest else (None, rest)
    holder, target = (first, second) if second else (ctx.character, first)
    if target is None or holder is None or extra:
        raise ctx.usage("interrumpir")
    state = _held_by(ctx, combat, holder)
    if name_key(target.name) != name_key(combat.current or "") or target is holder:
        raise refuse("not_current", name=target.name, current=combat.current)
    joker = has_joker(ctx, holder)  # 000: a joker «puede actuar en cualquier momento ... incluso interrumpiendo»
    rolls = [] if joker else [_athletics(ctx, holder), _athletics(ctx, target)]
    verdict = "holder" if joker else interrupt(rolls[0].total, rolls[1].total)
    state.stop_holding(holder.name)
    state.save(combat)
    ctx.reply("savage/table_interrupt", holder=holder.name, target=target.name, rolls=rolls, verdict=verdict,
              joker=joker)
    if verdict == "holder":
        take_turn_now(ctx, combat, holder.name)
    else:
        move_in_order(combat, holder.name, after_current=True)


def _athletics(ctx: Context, character: Character) -> SavageTraitRoll:
    """Athletics from the sheet, or an untrained d4 (−2)."""
    die = normal_die(str(character.sheet.get("atletismo", "")))
    extra = "" if die else "sin entrenar"
    return trait_roll(ctx, "", die or UNTRAINED, savage_of(character), has_joker(ctx, character), extra,
                      nerves=nerves_of(character))


@COMMANDS.command("sorpresa", "surprise", usage="ATACANTES / SORPRENDIDOS", gm_only=True, needs_args=True)
def surprise_command(ctx: Context, args: str) -> None:
    combat = ctx.declared_combat()
    if combat.started:
        raise refuse("surprise_late")
    attackers_text, _, victims_text = args.partition("/")
    attackers, victims = _names(attackers_text), _names(victims_text)
    if not attackers or victims is None:
        raise ctx.usage("sorpresa")
    setup = surprise(attackers, {name: _notices(ctx, name) for name in victims})
    state = SavageCombat.of(combat)
    state.surprise = {"on_hold": list(setup.on_hold), "lose_first_round": list(setup.lose_first_round)}
    state.save(combat)
    ctx.reply("savage/table_surprise", attackers=setup.on_hold, victims=setup.lose_first_round, noticed=setup.dealt)


def _notices(ctx: Context, name: str) -> bool:
    """A surprised character's Notice roll from its sheet (000: «deben hacer tiradas de Notar»); a name
    with no character has no sheet to roll and stays surprised."""
    character = ctx.room.find_character(name)
    if character is None:
        return False
    made = resolve(ctx, character, "notar", auto=True)
    answer_roll(ctx, character, made)
    return made.outcome.as_json().get("outcome") in SUCCESSES


def _names(text: str) -> list[str] | None:
    names = [" ".join(n.split()) for n in text.split(",") if n.strip()]
    return names if all(len(n) <= MAX_NAME for n in names) else None


@COMMANDS.takes("mazo", "deck", spec=(), lenient=True)
def deck_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat else None
    if state is None or not state.dealt:
        raise refuse("no_deck")
    deck = state.deck
    ctx.reply("savage/table_deck", left=len(deck.pile), discards=len(deck.discards),
              jokers=sum(Card(c).joker for c in deck.pile), in_play=sorted(deck.in_play.items()),
              reshuffle=deck.joker_this_round)


@COMMANDS.command("tarea", "task", usage="arduo|dificil|compleja [título] | grupo N RONDAS | HABILIDAD|dN [mods] | fin")
def task_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    if combat is None:
        raise refuse("task_needs_combat")
    state = SavageCombat.of(combat)
    word, _, rest = args.strip().partition(" ")
    word = fold(word)
    if word and word not in (*vocab.END, *DRAMATIC_TASKS, "grupo"):
        _task_roll(ctx, combat, state, args)
    elif not word:
        _show_task(ctx, state)
    elif not ctx.is_gm():
        ctx.reply("gm_only", command="tarea " + word[:20])
    elif word in vocab.END:
        state.task = None
        state.save(combat)
        ctx.reply("savage/table_task", title="", task=None, event="ended")
    else:
        _start_task(ctx, combat, state, word, rest)


def _start_task(ctx: Context, combat: Combat, state: SavageCombat, word: str, rest: str) -> None:
    if word in DRAMATIC_TASKS:
        task, title = DramaticTask.preset(word), rest
    elif word == "grupo" and re.fullmatch(r"\d{1,2}\s+\d{1,2}(\s+.*)?", rest):
        helpers, rounds_left, *title_words = rest.split(maxsplit=2)
        task, title = DramaticTask.for_group(int(helpers), int(rounds_left)), " ".join(title_words)
    else:
        raise ctx.usage("tarea")
    state.task = {"title": title[:80], "state": task.to_dict()}
    state.save(combat)
    ctx.reply("savage/table_task", title=title[:80], task=task, event="started")


def _show_task(ctx: Context, state: SavageCombat) -> None:
    task = state.dramatic_task()
    if task is None or state.task is None:
        raise refuse("no_task")
    ctx.reply("savage/table_task", title=state.task["title"], task=task, event="status")


def _task_roll(ctx: Context, combat: Combat, state: SavageCombat, args: str) -> None:
    """A task roll is the character's own skill roll from its sheet (001: «Los héroes deben ir haciendo
    tiradas de habilidad»), an action of its turn (one per turn unless ``acciones 2``)."""
    task = state.dramatic_task()
    if task is None or state.task is None:
        raise refuse("no_task")
    if not may_act(ctx):
        return
    character, text = roller(ctx, args)
    if character is None:
        raise Refusal("no_character")
    require_up(ctx, character)
    request = read_request(text)
    made = resolve(ctx, character, request.text, request.auto)
    result = made.outcome.as_json()
    if result.get("kind") != "trait":
        raise refuse("task_needs_skill")
    task = task.add_roll(str(result["outcome"]), int(result["raises"]))
    title = state.task["title"]
    state.task = None if task.status != "in_progress" else {**state.task, "state": task.to_dict()}
    state.save(combat)
    consume_grant(ctx)
    answer_roll(ctx, character, made, kind="savage/table_task", title=title, task=task, event="roll")


@COMMANDS.command("ataque", "attack", usage="[ATACANTE contra | QUIEN] OBJETIVO [modificadores] [sin estado]",
                  in_character=True, needs_args=True)
def attack_command(ctx: Context, args: str) -> None:
    """An attack with the sheet's weapon (``Tipo de arma cuerpo``: Pelear against the target's Parry;
    ``distancia``: Disparar against 4); a hit rolls the weapon's damage (without a weapon, the Strength
    die) against the target's Toughness, with the called shot's bonus. The attacker is named as in
    ``!tiro`` (``Lobo 2 contra Kira``) or by two names (``Lobo 2 Kira``: the GM for any member of a
    group's turn)."""
    request = read_request(args)
    if request.secret:
        raise refuse("attack_not_secret")
    attacker, text = _attacker(ctx, request.text)
    target, rest = _named(ctx, text)
    if target is None:
        raise ctx.unknown_character(text)
    second, after = _named(ctx, rest)
    if second is not None:
        attacker, target, rest = target, second, after
    if attacker is None:
        raise Refusal("no_character")
    ctx.may_manage(attacker)
    if name_key(target.name) == name_key(attacker.name):
        raise refuse("attack_self", name=attacker.name)
    if not savage_of(target).can_act:
        raise refuse("target_down", name=target.name)
    skill = "disparar" if weapon_is_ranged(attacker) else "pelear"
    made = resolve(ctx, attacker, f"{skill} contra {target.name} {rest}", request.auto)
    answer_roll(ctx, attacker, made, target=target)
    consume_grant(ctx)
    take_hit(ctx, attacker, target)  # the attack rolls its own damage
    damage = weapon_damage(attacker) or sheet_die(attacker, "fuerza") or UNTRAINED
    called = getattr(made.outcome, "called_shot", None)
    if called is not None:
        damage += f" apuntado {called.target} {called.penalty}"
    attack = {"target": target.name, "damage": damage, "sheet": deepcopy(target.sheet),
              "combat": combat_snapshot(ctx.room.combat)}
    ctx.room.rerolls[name_key(attacker.name)]["attack"] = attack
    _attack_damage(ctx, attacker, target, attack, made.outcome.as_json())


def _attack_damage(ctx: Context, attacker: Character, target: Character, attack: dict[str, Any],
                   result: dict[str, Any]) -> None:
    """The damage of an attack's result: the weapon's, with the raise die on a raise."""
    outcome = result.get("outcome")
    if outcome in ("success", "raise") and "dureza" in target.sheet:
        roll_damage(ctx, target, str(attack["damage"]) + (" aumento" if outcome == "raise" else ""), attacker)


def _take_back(ctx: Context, attack: dict[str, Any]) -> Character | None:
    """Undo an attack's damage: the target's sheet and the combat's order and hits as before it."""
    target = ctx.room.find_character(str(attack["target"]))
    if target is None:
        return None
    target.sheet.clear()
    target.sheet.update(attack["sheet"])
    combat, before = ctx.room.combat, attack["combat"]
    if combat is not None and before is not None:
        restore_combat(combat, before)
    return target


def _attacker(ctx: Context, text: str) -> tuple[Character | None, str]:
    """``ATACANTE contra OBJETIVO ...`` (as in ``!tiro``) or just ``OBJETIVO ...`` for the one acting."""
    words = text.split()
    folded = [fold(w) for w in words]
    if "contra" in folded[1:]:
        cut = folded.index("contra", 1)
        named, rest = ctx.split_name(" ".join(words[:cut]))
        if named is not None and not rest:
            return named, " ".join(words[cut + 1:])
    return ctx.acting_character(), text


@COMMANDS.command("repetir", "reroll", usage="[NOMBRE]", in_character=True, free=True)
def reroll_command(ctx: Context, args: str) -> None:
    """A benny rerolls the actor's last trait roll of this turn; the better result counts. After a
    soak, it is the soak's reroll (a second benny)."""
    actor, _ = ctx.own_or_named(args)
    ctx.may_manage(actor)
    last = last_roll(ctx, actor)
    if last.get("kind") == "soak":
        soak_command(ctx, f"{actor.name} repetir")
        return
    secret = bool(last.get("secret"))
    if last.get("kind") not in _REROLLABLE:
        raise refuse("not_a_trait").privately(secret)
    if last.get("outcome") == "critical_failure":
        raise refuse("critical_failure").privately(secret)
    savage = savage_of(actor)
    if savage.bennies <= 0:
        raise refuse("no_bennies", name=actor.name).privately(secret)
    after = spend_benny(savage)
    store(actor, after)
    outcome = ctx.system.roll(str(last["text"]), ctx.rng)
    if outcome.as_json().get("kind") == "recovery":
        recover(ctx, actor, outcome.as_json())
    previous = dict(last)
    better = outcome.as_json()["total"] > int(previous["total"])
    if better and outcome.as_json().get("kind") == "support":
        regive_support(ctx, actor, int(outcome.as_json().get("bonus", 0)))
    applied = [(str(r), int(v)) for r, v in previous.get("applied", [])]
    made = SheetRoll(outcome, applied, str(previous.get("label", "")), str(previous["text"]))
    answer_roll(ctx, actor, made, secret=secret, kind="savage/reroll", target=ctx.room.find_character(
        str(previous.get("target") or "")), previous=previous, better=better, bennies=after.bennies)
    kept = ctx.room.rerolls[name_key(actor.name)]
    if not better:
        kept.update(total=previous["total"], outcome=previous["outcome"])
    consume_grant(ctx)
    attack = previous.get("attack")
    if isinstance(attack, dict):
        kept["attack"] = attack
        target = _take_back(ctx, attack) if better else None
        if target is not None:
            _attack_damage(ctx, actor, target, attack, outcome.as_json())


_REROLLABLE = ("trait", "support", "rof", "recovery")
