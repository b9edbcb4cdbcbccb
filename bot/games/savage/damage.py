"""Savage damage at the table: a damage roll against a Toughness, its hit (Shaken, wounds, out), the
soak that may follow it, an attack's damage and a benny's reroll (which may take that damage back)."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import replace
from typing import Any

from bot.core.api import (
    Character,
    Context,
    SheetRoll,
    answer_roll,
    consume_grant,
    explainer,
    grant,
    joinable,
    last_roll,
    name_key,
    resolve,
    stamp,
)
from bot.games.savage.bennies import bennies_or_pool, with_pool
from bot.games.savage.flow import (
    break_hold,
    close_rerolls,
    close_soak,
    has_joker,
    incapacitation_due,
    keep_hold,
    refuse,
    roll_incapacitation,
    soak_state,
    trait_roll,
)
from bot.games.savage.grammar import rate_of_fire
from bot.games.savage.rolls import (
    recover,
    regive_support,
    renote_hit,
    take_hit,
    toughness_of,
    weapon_damage,
    weapon_is_ranged,
)
from bot.games.savage.sheet import group_of, nerves_of, normal_die, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat, combat_snapshot, restore_combat
from systems.dice import DiceError, Rng
from systems.savage import SYSTEM
from systems.savage.resolver import SavageDamageRoll
from systems.savage.rules import FAILURE, RAISE, SUCCESSES, DamageEffect, SoakResult, best_soak, damage_effect
from systems.savage.state import SavageCharacter, apply_damage, soak_damage, spend_benny
from systems.savage.syntax import SavageRequest, parse_damage
from systems.savage.table import against

UNTRAINED = "d4"
REROLL = ("repetir", "otra", "reroll")
DECLINE = ("no", "decline")
REROLLABLE = ("trait", "support", "rof", "recovery")


def require_soak_answered(ctx: Context, target: Character) -> None:
    """000: «Resuelve cada tirada de daño por separado, apuntando sus efectos por completo, antes de pasar a
    la siguiente (incluyendo las tiradas de absorción gastando benis)»: a new damage on a victim who may
    still soak the last one waits for that answer (damage on anyone else does not)."""
    if soak_state(ctx, target) == "open":
        raise refuse("soak_open", name=target.name)
    combat = ctx.room.combat
    if combat is not None:  # the chance to reroll its last soak passes
        state = SavageCombat.of(combat)
        close_rerolls(ctx, state, target.name)
        state.save(combat)


class Replayed:
    """The table's RNG giving first the draws of an earlier roll, then new ones; it keeps all it gave. An
    attack's damage rolled again with the raise die a benny won is the same dice plus that die (000: the
    damage roll is no trait roll, «ni se puede gastar benis para influir en el resultado»)."""

    def __init__(self, rng: Rng, earlier: list[float]) -> None:
        self.rng, self.earlier, self.draws = rng, list(earlier), list[float]()

    def random(self) -> float:
        value = self.earlier.pop(0) if self.earlier else self.rng.random()
        self.draws.append(value)
        return value


def roll_damage(ctx: Context, target: Character, dice: str, attacker: Character | None, raised: bool = False,
                rng: Rng | None = None) -> None:
    """Roll ``dice`` (what the player typed: ``2d6+1 aumento``; ``raised``: with the raise die) as damage
    against the target's Toughness and apply it (``rng``: the dice's, the table's by default)."""
    require_soak_answered(ctx, target)
    savage = savage_of(target)
    joker = attacker is not None and has_joker(ctx, attacker)
    request = damage_request(dice)
    judged = against(replace(request, with_raise=request.with_raise or raised), toughness_of(target), joker)
    roll = SYSTEM.roll(judged, rng or ctx.rng)
    if not isinstance(roll, SavageDamageRoll) or roll.effect is None:
        raise TypeError(f"a damage roll against a toughness was expected from {dice!r}")
    consume_grant(ctx)
    apply_hit(ctx, target, savage, roll.effect, roll, attacker.name if attacker else None)


def strike_dice(attacker: Character) -> str:
    """The damage the attacker's blow rolls: the sheet's weapon, else its Strength die (bare hands)."""
    return weapon_damage(attacker) or sheet_die(attacker, "fuerza") or UNTRAINED


def damage_request(dice: str) -> SavageRequest:
    """What a damage roll's text says (``2d6+1 aumento``); its error names all the player typed."""
    try:
        return parse_damage(dice)
    except DiceError as error:
        raise DiceError(error.code, **{**error.params, "text": dice}) if "text" in error.params else error from None


def apply_total(ctx: Context, target: Character, total: int) -> None:
    """The GM's damage total, applied against the target's Toughness."""
    require_soak_answered(ctx, target)
    savage = savage_of(target)
    apply_hit(ctx, target, savage, damage_effect(total, savage.toughness, savage.shaken), None)


def apply_hit(ctx: Context, target: Character, before: SavageCharacter, effect: DamageEffect,
              roll: SavageDamageRoll | None, roller: str | None = None) -> None:
    """Shaken / wounds / out through the resolver; the hit is kept so the victim may soak it until its
    player answers (or the GM closes it: ``!absorber NOMBRE no``, a second ``!siguiente``). ``roller``:
    whose damage it is (a GM-owned sheet's shows its dice only, bot/core/privacy.py); the Toughness it
    is judged against shows unless the target's sheet is the GMs'. A Wild Card it incapacitates rolls
    Vigor when that chance has passed, at once when there is none."""
    down = before.wild_card and before.incapacitated and not before.dead  # already down: it stays so, no soak
    after = before if down else apply_damage(before, effect)
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat else None
    hold_broken = bool(state and after.shaken and state.is_holding(target.name))
    can_soak = (state is not None and not down and after.wild_card and effect.wounds > 0
                and bennies_or_pool(ctx, target) > 0)
    incapacitated = after.incapacitated and not before.incapacitated and after.wild_card
    ctx.reply("savage/table_damage", name=target.name, judged=target.name, roller=roller, roll=roll, effect=effect,
              before=before, after=after, hold_broken=hold_broken, can_soak=can_soak,
              npc=ctx.sheet_is_gms(target))
    if incapacitated and not can_soak:
        after, _ = roll_incapacitation(ctx, target, after)
    store(target, after)
    if combat is None or state is None:
        return
    held = break_hold(combat, state, target.name) if hold_broken else None  # no guard fire either
    if before.can_act and not savage_of(target).can_act and _is_enemy(ctx, target) and not _enemies_up(ctx, state):
        ctx.tell_gms("savage/table_no_enemies")
    if can_soak:
        state.soak_warned = False
        state.hits[name_key(target.name)] = {
            "name": target.name, "before": before.to_dict(), "effect": [effect.margin, effect.shaken, effect.wounds],
            "incap_due": incapacitated, "soaked": False, "best": 0, "hold": held,
        }
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


def soak(ctx: Context, target: Character, die_word: str, ending: str) -> None:
    """A soak of the character's last hit, on anyone's turn (open until answered); ``ending`` ``no``
    declines it; a second one after a partial soak is its
    reroll. ``die_word``: the Vigor die said (else the sheet's)."""
    ctx.may_manage(target)
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat else None
    hit = state.hits.get(name_key(target.name)) if state else None
    if combat is None or state is None or hit is None:
        raise refuse("no_soak" if ending in REROLL else "no_hit", name=target.name)
    effect = DamageEffect(*hit["effect"])
    if ending in DECLINE:
        ctx.reply("savage/table_soak_declined", name=target.name)
        close_soak(ctx, state, target.name)
        state.save(combat)
        return
    reroll = bool(hit["soaked"])
    if reroll and hit["best"] >= effect.wounds:
        raise refuse("soak_done", name=target.name)
    if ending in REROLL and not reroll:
        raise refuse("no_soak", name=target.name)
    die = normal_die(die_word) if die_word else sheet_die(target, "vigor")
    if die is None:
        raise refuse("no_die", name=target.name, field="vigor")
    bennies = savage_of(target).bennies if reroll else SavageCharacter.from_dict(hit["before"]).bennies
    before = with_pool(ctx, target, replace(SavageCharacter.from_dict(hit["before"]), bennies=bennies))
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
    held = hit.get("hold") if not after.shaken else None
    if held:
        keep_hold(combat, state, target.name, held)
    hit.update(soaked=True, best=best.soaked, hold=None if held else hit.get("hold"))
    spare = bennies_or_pool(ctx, target)
    ctx.reply("savage/table_soak", name=target.name, roll=roll, after=after, reroll=reroll, best=best,
              vigor_waits=bool(hit["incap_due"]) and after.incapacitated and spare > 0,
              own=target.owner == ctx.sender and not ctx.is_gm(), first=explainer(ctx),
              hold_kept="watching" if held and held["watching"] else "holding" if held else None)
    if not spare or not best.remaining:  # no reroll left: the chance to soak is over
        incapacitation_due(ctx, hit)
    state.save(combat)
    consume_grant(ctx)
    if best.remaining and spare and not ctx.is_gm():
        grant(ctx, ctx.sender, "repetir")  # out of turn, ``!repetir`` is this soak's reroll too
    ctx.room.rerolls[name_key(target.name)] = {"kind": "soak", "stamp": stamp(ctx)}


def attack(ctx: Context, attacker: Character, target: Character, rest: str, auto: bool) -> None:
    """An attack with the sheet's weapon (``Tipo de arma cuerpo``: Pelear against the target's Parry;
    ``distancia``: Disparar against 4); a hit rolls the weapon's damage (without a weapon, the Strength
    die) against the target's Toughness, with the called shot's bonus."""
    ctx.may_manage(attacker)
    if name_key(target.name) == name_key(attacker.name):
        raise refuse("attack_self", name=attacker.name)
    if not savage_of(target).can_act:
        raise refuse("target_down", name=target.name)
    require_soak_answered(ctx, target)
    rof, rest = rate_of_fire(rest)
    if rof is not None:
        _burst(ctx, attacker, target, rof, rest, auto)
        return
    skill = "disparar" if weapon_is_ranged(attacker) else "pelear"
    made = resolve(ctx, attacker, f"{skill} contra {target.name} {rest}", auto)
    answer_roll(ctx, attacker, made, kind="savage/attack", target=target)
    consume_grant(ctx)
    take_hit(ctx, attacker, target)  # the attack rolls its own damage
    damage = strike_dice(attacker)
    called = getattr(made.outcome, "called_shot", None)
    if called is not None:
        damage += f" apuntado {called.target} {called.penalty}"
    done = {"target": target.name, "damage": damage, "sheet": deepcopy(target.sheet),
            "combat": combat_snapshot(ctx.room.combat)}
    ctx.room.rerolls[name_key(attacker.name)]["attack"] = done
    result = made.outcome.as_json()
    _attack_damage(ctx, attacker, target, done, result)
    if result.get("outcome") == FAILURE:
        joinable(ctx, attacker)


def _burst(ctx: Context, attacker: Character, target: Character, rof: int, rest: str, auto: bool) -> None:
    """``!ataque Orco rof 3``: the burst ``!tiro rof 3 Disparar ... objetivos Orco`` is, by the same path
    (its recoil, bullets and hits' damage: ``burst.with_damage``)."""
    if not weapon_is_ranged(attacker):
        raise refuse("rof_not_ranged", name=attacker.name)
    made = resolve(ctx, attacker, " ".join(f"rof {rof} disparar {rest} objetivos {target.name}".split()), auto)
    answer_roll(ctx, attacker, made)
    if made.follow is not None:
        made.follow()
    consume_grant(ctx)


def _attack_damage(ctx: Context, attacker: Character, target: Character, done: dict[str, Any],
                   result: dict[str, Any]) -> None:
    """The damage of an attack's result: the weapon's, with the raise die on a raise. Its dice are kept in
    ``done`` (``draws``): rolled again (a benny's new raise), they come out the same."""
    outcome = result.get("outcome")
    if outcome in SUCCESSES and "dureza" in target.sheet:
        dice = Replayed(ctx.rng, [float(x) for x in done.get("draws", [])])
        roll_damage(ctx, target, str(done["damage"]), attacker, raised=outcome == "raise", rng=dice)
        done["draws"] = dice.draws


def _damage_changes(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether a benny's better attack roll changes its damage (000: «ni se puede gastar benis para influir
    en el resultado» of the damage): a miss turned hit rolls it; a hit turned raise adds the raise die; a hit
    that stays a hit with the same raise keeps the damage rolled."""
    if after.get("outcome") not in SUCCESSES:
        return False
    return before.get("outcome") not in SUCCESSES or (after["outcome"] == RAISE and before["outcome"] != RAISE)


def _take_back(ctx: Context, done: dict[str, Any]) -> Character | None:
    """Undo an attack's damage: the target's sheet and the combat's order and hits as before it."""
    target = ctx.room.find_character(str(done["target"]))
    if target is None:
        return None
    target.sheet.clear()
    target.sheet.update(done["sheet"])
    combat, before = ctx.room.combat, done["combat"]
    if combat is not None and before is not None:
        restore_combat(combat, before)
    return target


def reroll(ctx: Context, actor: Character) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A benny rerolls the actor's last trait roll of this turn; the better result counts. After a
    soak, it is the soak's reroll (a second benny). The roll before and the new one (None for a soak)."""
    ctx.may_manage(actor)
    last = last_roll(ctx, actor)
    if last.get("kind") == "soak":
        soak(ctx, actor, "", "repetir")
        return None
    secret = bool(last.get("secret"))
    if last.get("kind") not in REROLLABLE:
        raise refuse("not_a_trait").privately(secret)
    if last.get("outcome") == "critical_failure":
        raise refuse("critical_failure").privately(secret)
    savage = with_pool(ctx, actor, savage_of(actor))
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
    done = previous.get("attack")
    if isinstance(done, dict):
        target = _take_back(ctx, done) if better and _damage_changes(previous, outcome.as_json()) else None
        if target is not None:
            _attack_damage(ctx, actor, target, done, outcome.as_json())
        kept["attack"] = done
    elif better:
        renote_hit(ctx, actor, previous, outcome.as_json())
    return previous, outcome.as_json()

