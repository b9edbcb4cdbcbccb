"""The reino commands: attacks and their damage, wound states, action points and actions, stabilising,
waking up, surprise.

Every rule comes from ``systems.reino.rules``; a rule refusal raises ``ReinoRuleError`` before any
state is written, and the table core answers it with ``templates/errors_reino.txt``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core import combat as rounds
from bot.core import floor, rolls
from bot.core.args import Parsed
from bot.core.commands import CommandGroup
from bot.core.context import Context
from bot.core.state import MAX_NAME, Character, Combat, name_key
from bot.games.reino.sheet import DEAD, DEFAULT_CRITICAL, SKILLS, UNCONSCIOUS, normalise_sheet, sheet_bonus, sheet_grip
from bot.games.reino.state import (
    PendingBlow,
    ReinoState,
    budget,
    check_action,
    commit_action,
    fighter_data,
    in_round,
    labels,
    load,
    read_replay,
    replay_text,
    save,
    surprised,
    unconscious_minutes,
    wound_penalty,
)
from systems.dice import parse
from systems.refusal import Refusal
from systems.reino.outcomes import ReinoAttack, ReinoCheck, ReinoDamage, ReinoWoundSave
from systems.reino.resolver import MAX_NUMBER, weapon_damage
from systems.reino.rules import (
    DEFAULT_DC,
    RECOVERY_DC,
    Action,
    CheckResult,
    Condition,
    Grip,
    ReinoCharacter,
    apply_condition,
    apply_damage,
    apply_recovery,
    clear_condition,
    recovery_test,
    roll_attack,
    roll_d20,
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
    rc_attacker, rc_target = load(ctx, attacker), load(ctx, target)
    spent = check_action(combat, attacker, rc_attacker, Action.STANDARD)
    _drop_lost_blow(ctx, attacker)
    bonus = given if given is not None else int(attacker.sheet.get("ataque", 0))
    round_number = _round_number(combat)
    caught = surprised(combat, target)
    defense = rc_target.defense_now(round_number, surprised=caught)
    result = roll_attack(ctx.rng, bonus + rc_attacker.action_penalty, defense,
                         rc_target.damage_reduction, rc_attacker.minion)
    commit_action(combat, attacker, spent)
    outcome = ReinoAttack(result, comment)
    _remember(ctx, attacker, outcome.as_json(), replay_text("ataque", result.bonus, result.defense), target.name)
    pending = combat is not None and result.hit
    if pending:
        _leave_blow(ctx, attacker, target, _critical_multiplier(attacker) if result.critical else 1)
    ctx.reply("reino/table_attack", attacker=attacker.name, target=target.name, roll=outcome,
              penalty=rc_attacker.action_penalty, surprised=caught, stunned=rc_target.stunned(round_number),
              pending=pending)
    floor.consume_grant(ctx)


def _critical_multiplier(attacker: Character) -> int:
    value = attacker.sheet.get("arma_critico")
    return int(value) if isinstance(value, int) else DEFAULT_CRITICAL


def _blows(ctx: Context) -> dict[str, PendingBlow]:
    combat = ctx.room.combat
    return ReinoState.of(combat).pending() if combat is not None else {}


def _leave_blow(ctx: Context, attacker: Character, target: Character, multiplier: int) -> None:
    """003: «Cuando un ataque tiene éxito, se le causará al oponente una cantidad de daño»: the hit waits
    for ``!daño``, with its critical multiplier (1 on a plain hit)."""
    _blows(ctx)[name_key(attacker.name)] = {"target": target.name, "multiplier": multiplier}


def _drop_lost_blow(ctx: Context, attacker: Character) -> None:
    """A blow still waiting for its damage refuses the attacker's next attack; one whose target died (or
    is no longer in the room) is dropped."""
    blow = _blows(ctx).get(name_key(attacker.name))
    if blow is None:
        return
    victim = ctx.room.find_character(blow["target"])
    if victim is not None and not load(ctx, victim).dead:
        raise Refusal("reino/table_blow_pending", name=attacker.name, target=victim.name)
    del _blows(ctx)[name_key(attacker.name)]


@COMMANDS.command("daño", "damage", usage="[pa] | NOMBRE PUNTOS [pa]", in_character=True)
def damage_command(ctx: Context, args: str) -> None:
    """``!daño``: the acting character's landed blow, rolled from its sheet's weapon; ``!daño NOMBRE N``
    (the GM): N points by hand. ``pa``: the target spends an Action Point to halve it."""
    words = args.split()
    halve = bool(words) and name_key(words[-1]) in _AP_WORDS
    words = words[:-1] if halve else words
    if not words:
        _roll_blow(ctx, halve)
        return
    if not ctx.is_gm():
        raise Refusal("gm_only", command="daño")
    target, rest = ctx.named_character(" ".join(words))
    points = _number(rest[0]) if len(rest) == 1 else None
    if points is None or points < 0:
        raise ctx.usage("dano")
    actor = ctx.acting_character()
    blow = _blows(ctx).get(name_key(actor.name)) if actor is not None else None
    if actor is not None and blow is not None and blow["target"] == target.name:
        del _blows(ctx)[name_key(actor.name)]  # the GM gives that blow's damage by hand
    _hurt(ctx, target, points, halve)


def _roll_blow(ctx: Context, halve: bool) -> None:
    """003: «se le causará al oponente una cantidad de daño que vendrá determinado en las estadísticas del
    arma ... tienes que sumar el modificador de Fuerza»; a critical multiplies it. RD is not subtracted:
    003 names it only in the critical threshold."""
    attacker = _actor(ctx)
    blow = _blows(ctx).pop(name_key(attacker.name), None)
    target = ctx.room.find_character(blow["target"]) if blow else None
    if blow is None or target is None:
        raise Refusal("reino/table_no_blow", name=attacker.name)
    if halve:
        ctx.may_manage(target)
    dice = attacker.sheet.get("arma_dano")
    if not isinstance(dice, str):
        raise Refusal("reino/table_no_weapon", name=attacker.name)
    grip = sheet_grip(attacker.sheet.get("arma_tipo", "")) or Grip.ONE_HAND
    strength = attacker.sheet.get("fuerza", 0)
    damage = weapon_damage(parse(dice), strength if isinstance(strength, int) else 0, grip,
                           int(blow["multiplier"]), ctx.rng)
    _hurt(ctx, target, damage.total, halve, damage, attacker.name)


def _hurt(ctx: Context, target: Character, points: int, halve: bool, blow: ReinoDamage | None = None,
          attacker: str | None = None) -> None:
    """``points`` of one attack's damage on ``target``: its PR, a minion's fall, a serious wound's save."""
    missing = [f for f in ("pr", "umbral") if f not in normalise_sheet(target.sheet)]
    if missing:
        raise Refusal("reino/table_missing_stats", name=target.name, fields=missing)
    combat = ctx.room.combat
    after, report = apply_damage(load(ctx, target), points, _round_number(combat), halve)
    wound = None
    if report.fortitude_dc is not None and not after.dying:
        wound = ReinoWoundSave(roll_test(ctx.rng, after.fortitude, report.fortitude_dc), report.damage)
        _remember(ctx, target, wound.as_json(), replay_text("herida", wound.test.modifier, wound.test.dc), None)
    save(target, combat, after)
    if blow is not None:
        ctx.reply("reino/table_blow", attacker=attacker, name=target.name, roll=blow)
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
    before = load(ctx, target)
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
    rc = load(ctx, target)
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


@COMMANDS.command("pa", "ap", usage="[NOMBRE] | gastar [NOMBRE] | éxito [NOMBRE]")
def action_points_command(ctx: Context, args: str) -> None:
    words = args.split()
    verb = name_key(words[0]) if words else ""
    if verb in _SUCCESS_WORDS:
        who = _one_character(ctx, words[1:], "pa")
        ctx.may_manage(who)
        _buy_success(ctx, who)
        return
    spending = verb in _SPEND_WORDS
    who = _one_character(ctx, words[1:] if spending else words, "pa")
    if spending:
        ctx.may_manage(who)
    combat = ctx.room.combat
    rc = load(ctx, who)
    if spending:
        rc = spend_action_point(rc)
        save(who, combat, rc)
    ctx.reply("reino/table_ap", name=who.name, points=rc.action_points, spent=spending)


@COMMANDS.takes("repetir", "reroll", spec=(), lenient=True)
def reroll_command(ctx: Context, got: Parsed) -> None:
    """Reino has no rerolls: an Action Point turns the last failed roll into a bare success
    (the same as ``!pa éxito``)."""
    _buy_success(ctx, _actor(ctx))


_FAILED = frozenset({"failure", "miss"})


def _remember(ctx: Context, who: Character, roll: dict, text: str, target: str | None) -> None:
    """Keep a table roll of ``who`` as its last roll (as ``!tiro`` does), for ``!pa éxito``."""
    ctx.room.rerolls[name_key(who.name)] = {
        "text": text, "label": "", "stamp": rolls.stamp(ctx), "applied": [], "outcome": roll["outcome"],
        "kind": roll["kind"], "total": roll["total"], "secret": False, "by": ctx.sender, "target": target,
    }


def _buy_success(ctx: Context, who: Character) -> None:
    """003: «Hacer que una tirada fallida se convierta en una tirada con éxito. En este caso siempre se
    considerará que el resultado total obtenido es el mínimo para asegurar el éxito»: ``who``'s last d20
    test of this turn (any time out of combat): a check, a save, an attack (which then leaves its blow,
    never a critical), stabilising or waking someone."""
    try:
        last = rolls.last_roll(ctx, who)
    except Refusal:
        raise Refusal("reino/table_no_failed_roll", name=who.name) from None
    rescue = read_replay(last.get("text"))
    if rescue is None:
        raise Refusal("reino/table_no_failed_roll", name=who.name)
    if last.get("outcome") not in _FAILED:
        raise Refusal("dice_error", code="reino.already_success", params={"name": who.name})
    combat = ctx.room.combat
    after, bought = succeed_with_action_point(
        load(ctx, who), CheckResult(int(last["total"]) - rescue.modifier, rescue.modifier, rescue.dc))
    save(who, combat, after)
    del ctx.room.rerolls[name_key(who.name)]
    target = ctx.room.find_character(str(last.get("target") or ""))
    if target is not None and rescue.purpose == "ataque" and combat is not None:
        _leave_blow(ctx, who, target, 1)
    elif target is not None and rescue.purpose == "estabilizar" and load(ctx, target).dying:
        save(target, combat, stabilize(load(ctx, target), _round_number(combat)))
    elif target is not None and rescue.purpose == "consciencia":
        save(target, combat, apply_recovery(load(ctx, target), bought))
    ctx.reply("reino/table_ap_success", name=who.name, purpose=rescue.purpose, label=str(last.get("label", "")),
              target=target.name if target is not None else None, test=bought, points=after.action_points,
              pending=rescue.purpose == "ataque" and target is not None and combat is not None)


@COMMANDS.command("accion", "action", usage="[estándar|movimiento|completa|gratuita|reacción]", in_character=True)
def action_command(ctx: Context, args: str) -> None:
    combat = ctx.room.combat
    if not in_round(combat):
        raise Refusal("reino/table_no_round")
    assert combat is not None
    actor = _actor(ctx)
    rc = load(ctx, actor)
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
    """003: «Otro personaje puede estabilizar a un moribundo con la habilidad Medicina (CD15), con una
    prueba de Sabiduría (CD15) o gastando un Punto de Acción»: the helper's Medicina (without it, its
    Sabiduría) and wound penalty, plus the GM's ±bono."""
    target, words = ctx.named_character(args)
    by_point = words == ["pa"] or words == ["ap"]
    bonus = 0 if by_point or not words else _number(words[0])
    if bonus is None or len(words) > 1:
        raise ctx.usage("estabilizar")
    combat = ctx.room.combat
    round_number = _round_number(combat)
    stable = stabilize(load(ctx, target), round_number)
    helper = ctx.acting_character()
    alone = helper is not None and name_key(helper.name) == name_key(target.name)
    if not (alone and by_point):  # a dying character may only spend an Action Point to stabilise themselves
        rounds.require_up(ctx, helper)
    spent = None
    if helper is not None and not (alone and by_point):
        spent = check_action(combat, helper, load(ctx, helper), Action.STANDARD)
    if by_point:
        _stabilize_by_point(ctx, target, helper or target, stable)
    else:
        named = _helper_bonus(ctx, helper, "medicina")
        check = ReinoCheck(roll_test(ctx.rng, bonus + sum(v for _, v in named), DEFAULT_DC), "estabilizar",
                           named=named)
        if check.test.success:
            save(target, combat, stable)
        elif helper is not None:
            _remember(ctx, helper, check.as_json(), replay_text("estabilizar", check.test.modifier, DEFAULT_DC),
                      target.name)
        ctx.reply("reino/table_stabilize", name=target.name, helper=helper.name if helper else None, roll=check)
        floor.consume_grant(ctx)
    if helper is not None:
        commit_action(combat, helper, spent)


def _helper_bonus(ctx: Context, helper: Character | None, skill: str) -> tuple[tuple[str, int], ...]:
    """What a helper adds to first aid: the skill (without it, its attribute) and the worst wound penalty."""
    if helper is None:
        return ()
    return (sheet_bonus(helper.sheet, skill, SKILLS)[::-1], *wound_penalty(load(ctx, helper)))


@COMMANDS.command("despertar", "wake", usage="NOMBRE [±bono]", in_character=True, needs_args=True)
def wake_command(ctx: Context, args: str) -> None:
    """003: «Un personaje inconsciente puede recuperarse de la inconsciencia por medio de una prueba exitosa
    de Fortaleza (CD10) cada minuto (10 asaltos de combate) tras caer inconsciente. Se recibe un +1 por
    cada minuto por encima del primero. Otro personaje puede hacer que recupere la consciencia usando su
    habilidad Medicina o superando una prueba de Sabiduría con las condiciones anteriores.» A helper's
    try is a standard action; the GM may roll the character's own Fortaleza."""
    target, words = ctx.named_character(args)
    bonus = _number(words[0]) if len(words) == 1 else 0 if not words else None
    if bonus is None:
        raise ctx.usage("despertar")
    combat = ctx.room.combat
    rc = load(ctx, target)
    if not rc.unconscious or rc.dying or rc.dead:
        raise Refusal("reino/table_not_unconscious", name=target.name, dying=rc.dying, dead=rc.dead)
    helper = ctx.acting_character()
    own = helper is None or name_key(helper.name) == name_key(target.name)
    if own and not ctx.is_gm():
        rounds.require_up(ctx, target)
    minutes = unconscious_minutes(combat, target)
    if own:
        named: tuple[tuple[str, int], ...] = (("fortaleza", rc.fortitude),)
    else:
        rounds.require_up(ctx, helper)
        assert helper is not None
        commit_action(combat, helper, check_action(combat, helper, load(ctx, helper), Action.STANDARD))
        named = _helper_bonus(ctx, helper, "medicina")
    test = recovery_test(roll_d20(ctx.rng), bonus + sum(v for _, v in named), minutes)
    check = ReinoCheck(test, "consciencia", minutes=minutes,
                       named=(*named, *([("minutos", minutes - 1)] if minutes > 1 else [])))
    roller = target if own else helper
    assert roller is not None
    if test.success:
        save(target, combat, apply_recovery(rc, test))
    else:
        _remember(ctx, roller, check.as_json(), replay_text("consciencia", test.modifier, RECOVERY_DC), target.name)
    ctx.reply("reino/table_wake", name=target.name, helper=None if own else roller.name, roll=check)
    floor.consume_grant(ctx)


def _stabilize_by_point(ctx: Context, target: Character, payer: Character, stable: ReinoCharacter) -> None:
    combat = ctx.room.combat
    if name_key(payer.name) == name_key(target.name):
        paid = spend_action_point(load(ctx, target))
        save(target, combat, stabilize(paid, _round_number(combat)))
    else:
        save(payer, combat, spend_action_point(load(ctx, payer)))
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
    ReinoState.of(combat).unaware = [name_key(n) for n in names]
    ctx.reply("reino/table_surprise", names=names)


@COMMANDS.command("salud", "health", usage="[NOMBRE]")
def health_command(ctx: Context, args: str) -> None:
    who = _one_character(ctx, args.split(), "salud")
    combat = ctx.room.combat
    rc = load(ctx, who)
    remaining = budget(combat, who, rc).remaining() if in_round(combat) else None  # type: ignore[arg-type]
    ctx.reply("reino/table_health", name=who.name, rc=rc, labels=labels(ctx, who, combat),
              room_labels=labels(ctx, who, combat, gms_sheet=True),
              defense=rc.defense_now(_round_number(combat), surprised=surprised(combat, who)),
              remaining=remaining, has_pr="pr" in who.sheet)
