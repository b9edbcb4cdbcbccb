"""The reino commands: attacks, damage, wound states, action points and actions, stabilising, surprise.

Every rule comes from ``systems.reino.rules``; a rule refusal raises ``ReinoRuleError`` before any
state is written, and the table core answers it with ``templates/errors_reino.txt``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core import combat as rounds
from bot.core import floor
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.state import MAX_NAME, Character, Combat, name_key
from bot.games.reino.state import (
    DEAD,
    UNCONSCIOUS,
    budget,
    check_action,
    commit_action,
    fighter_data,
    in_round,
    labels,
    load,
    normalise_sheet,
    save,
    surprised,
)
from systems.refusal import Refusal
from systems.reino.outcomes import ReinoAttack, ReinoCheck, ReinoWoundSave
from systems.reino.resolver import MAX_NUMBER
from systems.reino.rules import (
    DEFAULT_DC,
    Action,
    AttackResult,
    Condition,
    ReinoCharacter,
    apply_condition,
    apply_damage,
    clear_condition,
    roll_attack,
    roll_test,
    spend_action_point,
    stabilize,
    succeed_with_action_point,
)

COMMANDS = CommandGroup()
MAX_NAMES = 40
MAX_COMMENT = 120
_NUMBER = re.compile(r"^[+-]?\d{1,4}$")
_SIGNED_START = re.compile(r"^[+-]?\d")
_AP_WORDS = frozenset({"pa", "ap"})
_SPEND_WORDS = frozenset({"gastar", "gasta", "spend"})
_SUCCESS_WORDS = frozenset({"exito", "success"})
_NOBODY_WORDS = frozenset({"nadie", "ninguno", "none", "nobody"})
_CONDITION_WORDS: dict[str, Condition] = {
    "aturdido": Condition.ATURDIDO, "aturdida": Condition.ATURDIDO, "stunned": Condition.ATURDIDO,
    "malherido": Condition.MALHERIDO, "malherida": Condition.MALHERIDO, "wounded": Condition.MALHERIDO,
    "incapacitado": Condition.INCAPACITADO, "incapacitada": Condition.INCAPACITADO,
    "disabled": Condition.INCAPACITADO,
    "moribundo": Condition.MORIBUNDO, "moribunda": Condition.MORIBUNDO, "dying": Condition.MORIBUNDO,
}
_FLAG_WORDS: dict[str, str] = {
    "inconsciente": UNCONSCIOUS, "unconscious": UNCONSCIOUS, "muerto": DEAD, "muerta": DEAD, "dead": DEAD,
}
_ACTION_WORDS: dict[str, Action] = {
    "estandar": Action.STANDARD, "standard": Action.STANDARD,
    "movimiento": Action.MOVE, "move": Action.MOVE,
    "completa": Action.FULL, "full": Action.FULL,
    "gratuita": Action.FREE, "free": Action.FREE,
    "reaccion": Action.REACTION, "reaction": Action.REACTION,
}


# --- reading arguments -----------------------------------------------------------------



def _number(word: str) -> int | None:
    """A (signed) integer word within the system's bound, else None."""
    if not _NUMBER.match(word) or abs(int(word)) > MAX_NUMBER:
        return None
    return int(word)


def _actor(ctx: Context) -> Character:
    """Who acts: for the GM the combatant whose turn it is, for a player their character."""
    actor = ctx.acting_character()
    if actor is None:
        raise Refusal("reino/table_no_actor")
    return actor


def _one_character(ctx: Context, words: list[str], command: str) -> Character:
    """The character named by all of ``words`` (nothing after the name: else ``command``'s usage),
    or the one acting."""
    if not words:
        return _actor(ctx)
    character, rest = ctx.named_character(" ".join(words))
    if rest:
        raise ctx.usage(command)
    return character


def _round_number(combat: Combat | None) -> int:
    return combat.round if combat is not None else 0


def _names(ctx: Context, args: str) -> list[str]:
    """Names split by commas, or by spaces with the longest known character names first."""
    if "," in args:
        return [" ".join(n.split()) for n in args.split(",") if n.strip()]
    names, words = [], args.split()
    while words:
        used = ctx.room.leading_character(words)[1] or 1
        names.append(" ".join(words[:used]))
        words = words[used:]
    return names


# --- commands --------------------------------------------------------------------------


@COMMANDS.command("ataque", "attack", usage="OBJETIVO [±bono] [comentario]", in_character=True, needs_args=True)
def attack_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    given = _number(words[0]) if words else None
    if given is None and words and _SIGNED_START.match(words[0]):
        raise ctx.usage("ataque")
    attacker = _actor(ctx)
    rounds.require_up(ctx, attacker)
    comment = " ".join(words[1:] if given is not None else words)[:MAX_COMMENT]
    combat = ctx.room.combat
    rc_attacker, rc_target = load(attacker, combat), load(target, combat)
    spent = check_action(combat, attacker, rc_attacker, Action.STANDARD)
    bonus = given if given is not None else int(attacker.sheet.get("ataque", 0))
    round_number = _round_number(combat)
    caught = surprised(combat, target)
    defense = rc_target.defense_now(round_number, surprised=caught)
    result = roll_attack(ctx.rng, bonus + rc_attacker.action_penalty, defense,
                         rc_target.damage_reduction, rc_attacker.minion)
    commit_action(combat, attacker, spent)
    if combat is not None:
        combat.data.setdefault("last_attack", {})[name_key(attacker.name)] = {"target": target.name,
                                                                             **result.to_dict()}
    ctx.reply("reino/table_attack", attacker=attacker.name, target=target.name, roll=ReinoAttack(result, comment),
              penalty=rc_attacker.action_penalty, surprised=caught, stunned=rc_target.stunned(round_number))
    floor.consume_grant(ctx)


@COMMANDS.command("daño", "damage", usage="NOMBRE PUNTOS [pa]", gm_only=True, needs_args=True)
def damage_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    halve = bool(words) and name_key(words[-1]) in _AP_WORDS
    words = words[:-1] if halve else words
    points = _number(words[0]) if len(words) == 1 else None
    if points is None or points < 0:
        raise ctx.usage("dano")
    missing = [f for f in ("pr", "umbral") if f not in normalise_sheet(target.sheet)]
    if missing:
        raise Refusal("reino/table_missing_stats", name=target.name, fields=missing)
    combat = ctx.room.combat
    after, report = apply_damage(load(target, combat), points, _round_number(combat), halve)
    wound = None
    if report.fortitude_dc is not None and not after.dying:
        wound = ReinoWoundSave(roll_test(ctx.rng, after.fortitude, report.fortitude_dc), report.damage)
    save(target, combat, after)
    ctx.reply("reino/table_damage", name=target.name, report=report, wound=wound, rc=after,
              labels=labels(ctx, target, combat), room_labels=labels(ctx, target, combat, gms_sheet=True))


@COMMANDS.command("herida", "wound", usage="NOMBRE aturdido|malherido|incapacitado|moribundo", gm_only=True,
         needs_args=True)
def wound_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    condition = _CONDITION_WORDS.get(name_key(words[0])) if len(words) == 1 else None
    if condition is None:
        raise ctx.usage("herida")
    combat = ctx.room.combat
    before = load(target, combat)
    after = apply_condition(before, condition, _round_number(combat))
    gained = next((c for c in after.conditions if c not in before.conditions), condition.value)
    if gained == Condition.ATURDIDO and combat is not None:
        fighter_data(combat, target)["stunned_since"] = combat.round
    save(target, combat, after)
    ctx.reply("reino/table_wound", name=target.name, asked=condition.value, gained=gained,
              labels=labels(ctx, target, combat), room_labels=labels(ctx, target, combat, gms_sheet=True))


@COMMANDS.command("sana", "heal", usage="NOMBRE ESTADO", gm_only=True, needs_args=True)
def heal_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    word = name_key(words[0]) if len(words) == 1 else ""
    condition, flag = _CONDITION_WORDS.get(word), _FLAG_WORDS.get(word)
    if condition is None and flag is None:
        raise ctx.usage("sana")
    combat = ctx.room.combat
    rc = load(target, combat)
    if condition is not None:
        rc = clear_condition(rc, condition)
        if condition == Condition.ATURDIDO:
            rc = replace(rc, stunned_round=None)
            fighter_data(combat, target).pop("stunned_since", None)
    else:
        rc = replace(rc, unconscious=False) if flag == UNCONSCIOUS else replace(rc, dead=False)
    save(target, combat, rc)
    ctx.reply("reino/table_heal", name=target.name, cleared=condition.value if condition else flag,
              labels=labels(ctx, target, combat), room_labels=labels(ctx, target, combat, gms_sheet=True))


@COMMANDS.command("pa", "ap", usage="[NOMBRE] | gastar [NOMBRE] | éxito")
def action_points_command(ctx: Context, args: str) -> None:
    words = args.split()
    verb = name_key(words[0]) if words else ""
    if verb in _SUCCESS_WORDS and len(words) == 1:
        _buy_success(ctx)
        return
    spending = verb in _SPEND_WORDS
    who = _one_character(ctx, words[1:] if spending else words, "pa")
    if spending:
        ctx.may_manage(who)
    combat = ctx.room.combat
    rc = load(who, combat)
    if spending:
        rc = spend_action_point(rc)
        save(who, combat, rc)
    ctx.reply("reino/table_ap", name=who.name, points=rc.action_points, spent=spending)


@COMMANDS.command("repetir", "reroll")
def reroll_command(ctx: Context, args: str) -> None:
    """Reino has no rerolls: an Action Point turns the last failed attack into a bare success
    (the same as ``!pa éxito``)."""
    _buy_success(ctx)


def _buy_success(ctx: Context) -> None:
    """An Action Point turns the actor's last failed attack of this round into a bare hit."""
    actor = _actor(ctx)
    combat = ctx.room.combat
    last = dict(combat.data.get("last_attack", {}).get(name_key(actor.name), {})) if combat else {}
    if not last:
        raise Refusal("reino/table_no_last_attack", name=actor.name)
    target = last.pop("target")
    after, bought = succeed_with_action_point(load(actor, combat), AttackResult.from_dict(last).test)
    save(actor, combat, after)
    combat.data["last_attack"].pop(name_key(actor.name))  # type: ignore[union-attr]
    ctx.reply("reino/table_ap_success", name=actor.name, target=target, test=bought, points=after.action_points)


@COMMANDS.command("accion", "action", usage="[estándar|movimiento|completa|gratuita|reacción]", in_character=True)
def action_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    if not in_round(combat):
        raise Refusal("reino/table_no_round")
    assert combat is not None
    actor = _actor(ctx)
    rc = load(actor, combat)
    if args.strip():
        rounds.require_up(ctx, actor)
    if not args.strip():
        current = budget(combat, actor, rc)
        raise Refusal("reino/table_actions", name=actor.name, did=None, taken=current.taken,
                  remaining=current.remaining())
    action = _ACTION_WORDS.get(name_key(args))
    if action is None:
        raise ctx.usage("accion")
    spent = check_action(combat, actor, rc, action)
    commit_action(combat, actor, spent)
    assert spent is not None
    ctx.reply("reino/table_actions", name=actor.name, did=action.value, taken=spent.taken,
              remaining=spent.remaining())


@COMMANDS.command("estabilizar", "stabilize", usage="NOMBRE [±bono | pa]", in_character=True, needs_args=True)
def stabilize_command(ctx: Context, args: str) -> None:
    target, words = ctx.named_character(args)
    by_point = words == ["pa"] or words == ["ap"]
    bonus = 0 if by_point or not words else _number(words[0])
    if bonus is None or len(words) > 1:
        raise ctx.usage("estabilizar")
    combat = ctx.room.combat
    round_number = _round_number(combat)
    stable = stabilize(load(target, combat), round_number)
    helper = ctx.acting_character()
    alone = helper is not None and name_key(helper.name) == name_key(target.name)
    if not (alone and by_point):  # a dying character may only spend an Action Point to stabilise themselves
        rounds.require_up(ctx, helper)
    spent = None
    if helper is not None and not (alone and by_point):
        spent = check_action(combat, helper, load(helper, combat), Action.STANDARD)
    if by_point:
        _stabilize_by_point(ctx, target, helper or target, stable)
    else:
        check = ReinoCheck(roll_test(ctx.rng, bonus, DEFAULT_DC), "estabilizar")
        if check.test.success:
            save(target, combat, stable)
        ctx.reply("reino/table_stabilize", name=target.name, helper=helper.name if helper else None, roll=check)
        floor.consume_grant(ctx)
    if helper is not None:
        commit_action(combat, helper, spent)


def _stabilize_by_point(ctx: Context, target: Character, payer: Character, stable: ReinoCharacter) -> None:
    combat = ctx.room.combat
    if name_key(payer.name) == name_key(target.name):
        paid = spend_action_point(load(target, combat))
        save(target, combat, stabilize(paid, _round_number(combat)))
    else:
        save(payer, combat, spend_action_point(load(payer, combat)))
        save(target, combat, stable)
    ctx.reply("reino/table_stabilize", name=target.name, helper=payer.name, roll=None)


@COMMANDS.command("sorpresa", "surprise", usage="NOMBRE[, NOMBRE...] | nadie", gm_only=True, needs_args=True)
def surprise_command(ctx: Context, args: str) -> None:
    combat = ctx.declared_combat()
    if combat.started:
        raise Refusal("reino/table_surprise_late")
    names = [] if name_key(args) in _NOBODY_WORDS else _names(ctx, args)
    too_long = len(names) > MAX_NAMES or any(len(n) > MAX_NAME for n in names)
    if name_key(args) not in _NOBODY_WORDS and (not names or too_long):
        raise ctx.usage("sorpresa")
    combat.data["unaware"] = [name_key(n) for n in names]
    ctx.reply("reino/table_surprise", names=names)


@COMMANDS.command("salud", "health", usage="[NOMBRE]")
def health_command(ctx: Context, args: str) -> None:
    who = _one_character(ctx, args.split(), "salud")
    combat = ctx.room.combat
    rc = load(who, combat)
    remaining = budget(combat, who, rc).remaining() if in_round(combat) else None  # type: ignore[arg-type]
    ctx.reply("reino/table_health", name=who.name, rc=rc, labels=labels(ctx, who, combat),
              room_labels=labels(ctx, who, combat, gms_sheet=True),
              defense=rc.defense_now(_round_number(combat), surprised=surprised(combat, who)),
              remaining=remaining, has_pr="pr" in who.sheet)
