"""The reino commands: attacks and their damage, wound states, action points and actions, stabilising,
waking up, surprise.

Every rule comes from ``systems.reino.rules``; a rule refusal raises ``ReinoRuleError`` before any
state is written, and the table core answers it with ``templates/errors_reino.txt``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.api import (
    MAX_NAME,
    Arg,
    Character,
    CommandGroup,
    Context,
    Either,
    Key,
    Opt,
    Parsed,
    Refusal,
    Rest,
    consume_grant,
    explainer,
    joinable,
    name_key,
    require_up,
    target_past,
)
from bot.games.reino.combat import (
    actor_of,
    buy_success,
    critical_multiplier,
    drop_lost_blows,
    helper_bonus,
    leave_blow,
    pending_blows,
    roll_blow,
    round_of,
    stabilize_by_point,
)
from bot.games.reino.damage import halve_hit, hurt
from bot.games.reino.rolls import remember
from bot.games.reino.sheet import DEAD, UNCONSCIOUS
from bot.games.reino.state import (
    ReinoState,
    budget,
    check_action,
    close_halving,
    commit_action,
    fighter_data,
    in_round,
    labels,
    load,
    replay_text,
    save,
    surprised,
    unconscious_minutes,
)
from systems.reino.outcomes import ReinoAttack, ReinoCheck
from systems.reino.resolver import MAX_NUMBER
from systems.reino.rules import (
    DEFAULT_DC,
    RECOVERY_DC,
    Action,
    Condition,
    apply_condition,
    apply_recovery,
    clear_condition,
    recovery_test,
    roll_attack,
    roll_d20,
    roll_test,
    stabilize,
)

COMMANDS = CommandGroup()
MAX_NAMES = 40
MAX_COMMENT = 120
_NUMBER = re.compile(r"^[+-]?\d{1,4}$")
_SIGNED_START = re.compile(r"^[+-]?\d")
_AP_WORDS = frozenset({"pa", "ap"})
AP = Key(("pa", "ap"))
SPEND = Key(("gastar", "gasta", "spend"))
USE = Key(("exito", "success", "mitad", "half"), label="éxito|mitad")
"""An Action Point's use: «éxito» (a failed roll made a bare success) or «mitad» (the damage just shown
halved); read folded (``exito``), as every keyword is."""
_SUCCESS_WORDS = frozenset({"exito", "success"})
NOBODY = Key(("nadie", "ninguno", "none", "nobody"))
NAME = Opt(Arg("NOMBRE"))
ATTACK = Rest("OBJETIVO [±bono] [comentario]")
BY_HAND = Rest("NOMBRE PUNTOS [pa]")
WOUND = Rest("NOMBRE aturdido|malherido|incapacitado|moribundo")
HEAL = Rest("NOMBRE ESTADO")
ACTION = Arg("estándar|movimiento|completa|gratuita|reacción")
STABILIZE = Rest("NOMBRE [±bono | pa]")
WAKE = Rest("NOMBRE [±bono]")
SURPRISED = Arg("NOMBRE[, NOMBRE...]")
"""A ``Rest`` is read by the game's grammar: the longest known character name first, then its words."""
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


def _one_character(ctx: Context, words: list[str], command: str) -> Character:
    """The character named by all of ``words`` (nothing after the name: else ``command``'s usage),
    or the one acting."""
    if not words:
        return actor_of(ctx)
    character, rest = ctx.named_character(" ".join(words))
    if rest:
        raise ctx.usage(command)
    return character


def _names(ctx: Context, text: str) -> list[str]:
    """Names split by commas, or by spaces with the longest known character names first."""
    if "," in text:
        return [" ".join(n.split()) for n in text.split(",") if n.strip()]
    names, words = [], text.split()
    while words:
        used = ctx.room.leading_character(words)[1] or 1
        names.append(" ".join(words[:used]))
        words = words[used:]
    return names


# --- commands --------------------------------------------------------------------------


@COMMANDS.takes("ataque", "attack", spec=(ATTACK,), in_character=True, changes=True)
def attack_command(ctx: Context, got: Parsed) -> None:
    target, words = ctx.named_character(got.text(ATTACK.shown))
    acting = ctx.acting_character()
    if acting is not None:
        target, words = target_past(ctx.room, acting, target, words)
    given = _number(words[0]) if words else None
    if given is None and words and _SIGNED_START.match(words[0]):
        raise ctx.usage("ataque")
    attacker = actor_of(ctx)
    require_up(ctx, attacker)
    comment = " ".join(words[1:] if given is not None else words)[:MAX_COMMENT]
    combat = ctx.room.combat
    rc_attacker, rc_target = load(ctx, attacker), load(ctx, target)
    spent = check_action(combat, attacker, rc_attacker, Action.STANDARD)
    drop_lost_blows(ctx, attacker)
    close_halving(ctx)
    bonus = int(attacker.sheet.get("ataque", 0)) + (given or 0)
    round_number = round_of(combat)
    caught = surprised(combat, target)
    defense = rc_target.defense_now(round_number, surprised=caught)
    result = roll_attack(ctx.rng, bonus + rc_attacker.action_penalty, defense,
                         rc_target.damage_reduction, rc_attacker.minion)
    commit_action(combat, attacker, spent)
    outcome = ReinoAttack(result, comment)
    remember(ctx, attacker, outcome.as_json(), replay_text("ataque", result.bonus, result.defense), target.name)
    pending = combat is not None and result.hit
    if pending:
        leave_blow(ctx, attacker, target, critical_multiplier(attacker) if result.critical else 1)
    ctx.reply("reino/table_attack", attacker=attacker.name, target=target.name, roll=outcome,
              penalty=rc_attacker.action_penalty, surprised=caught, stunned=rc_target.stunned(round_number),
              pending=pending, first=explainer(ctx))
    if not result.hit:
        joinable(ctx, attacker)
    consume_grant(ctx)


@COMMANDS.takes("daño", "damage", spec=Either((Opt(AP),), (BY_HAND,)), in_character=True, changes=True)
def damage_command(ctx: Context, got: Parsed) -> None:
    """``!daño``: the acting character's landed blow, rolled from its sheet's weapon; ``!daño NOMBRE N``
    (the GM): N points by hand. ``pa``: the target spends an Action Point to halve it."""
    if not got.text(BY_HAND.shown):
        roll_blow(ctx, got.has(AP))
        return
    words = got.text(BY_HAND.shown).split()
    halve = name_key(words[-1]) in _AP_WORDS
    words = words[:-1] if halve else words
    target, rest = ctx.named_character(" ".join(words))  # the longest name: ``Orco 1`` is a name, no points
    if not rest:
        _owed_blow(ctx, target, halve)
        return
    if not ctx.is_gm():
        raise Refusal("gm_only", command="daño")
    points = _number(rest[0]) if len(rest) == 1 else None
    if points is None or points < 0:
        raise ctx.usage("dano")
    actor = ctx.acting_character()
    blows = pending_blows(ctx).get(name_key(actor.name), []) if actor is not None else []
    given = next((b for b in reversed(blows) if b["target"] == target.name), None)
    if given is not None:
        blows.remove(given)  # the GM gives that blow's damage by hand: never applied twice
    hurt(ctx, target, points, halve)


def _owed_blow(ctx: Context, target: Character, halve: bool) -> None:
    """``!daño NOMBRE`` with no points: the acting character's newest blow, when it is on that target, rolled
    as a plain ``!daño`` rolls it; else the points are missing."""
    actor = ctx.acting_character()
    blows = pending_blows(ctx).get(name_key(actor.name), []) if actor is not None else []
    if not blows or name_key(blows[-1]["target"]) != name_key(target.name):
        raise Refusal("reino/table_no_points", name=target.name, gm=ctx.is_gm())
    roll_blow(ctx, halve)


@COMMANDS.takes("herida", "wound", spec=(WOUND,), gm_only=True, changes=True)
def wound_command(ctx: Context, got: Parsed) -> None:
    target, words = ctx.named_character(got.text(WOUND.shown))
    condition = _CONDITION_WORDS.get(name_key(words[0])) if len(words) == 1 else None
    if condition is None:
        raise ctx.usage("herida")
    close_halving(ctx)  # the GM settled the hit
    combat = ctx.room.combat
    before = load(ctx, target)
    after = apply_condition(before, condition, round_of(combat))
    gained = next((c for c in after.conditions if c not in before.conditions), condition.value)
    if gained == Condition.ATURDIDO and combat is not None:
        fighter_data(combat, target)["stunned_since"] = combat.round
    save(target, combat, after)
    ctx.reply("reino/table_wound", name=target.name, asked=condition.value, gained=gained,
              labels=labels(ctx, target, combat), room_labels=labels(ctx, target, combat, gms_sheet=True))


@COMMANDS.takes("sana", "heal", spec=(HEAL,), gm_only=True, changes=True)
def heal_command(ctx: Context, got: Parsed) -> None:
    target, words = ctx.named_character(got.text(HEAL.shown))
    word = name_key(words[0]) if len(words) == 1 else ""
    condition, flag = _CONDITION_WORDS.get(word), _FLAG_WORDS.get(word)
    if condition is None and flag is None:
        raise ctx.usage("sana")
    close_halving(ctx)  # the GM settled the hit
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


@COMMANDS.takes("pa", "ap", spec=Either((NAME,), (SPEND, Opt(USE), NAME), (USE, NAME)))
def action_points_command(ctx: Context, got: Parsed) -> None:
    """003's uses of an Action Point: ``éxito`` (the last failed roll), ``mitad`` (the damage just shown;
    ``!estabilizar NOMBRE pa`` is the third); ``gastar`` alone lists them and spends nothing."""
    named = got.text("NOMBRE").split()
    use = got.text(USE.shown)
    if use and use not in _SUCCESS_WORDS:
        halve_hit(ctx, _one_character(ctx, named, "pa") if named else None)
        return
    who = _one_character(ctx, named, "pa")
    if use:
        ctx.may_manage(who)
        buy_success(ctx, who)
        return
    ctx.reply("reino/table_ap", name=who.name, points=load(ctx, who).action_points, uses=got.has(SPEND))


@COMMANDS.takes("repetir", "reroll", spec=(), lenient=True)
def reroll_command(ctx: Context, got: Parsed) -> None:
    """Reino has no rerolls: an Action Point turns the last failed roll into a bare success
    (the same as ``!pa éxito``)."""
    buy_success(ctx, actor_of(ctx))


@COMMANDS.takes("accion", "action", spec=(Opt(ACTION),), in_character=True)
def action_command(ctx: Context, got: Parsed) -> None:
    said = got.text(ACTION.shown)
    combat = ctx.room.combat
    if not in_round(combat):
        raise Refusal("reino/table_no_round")
    assert combat is not None
    actor = actor_of(ctx)
    rc = load(ctx, actor)
    if said:
        require_up(ctx, actor)
    if not said:
        current = budget(combat, actor, rc)
        raise Refusal("reino/table_actions", name=actor.name, did=None, taken=current.taken,
                  remaining=current.remaining())
    action = _ACTION_WORDS.get(name_key(said))
    if action is None:
        raise ctx.usage("accion")
    spent = check_action(combat, actor, rc, action)
    commit_action(combat, actor, spent)
    assert spent is not None
    ctx.reply("reino/table_actions", name=actor.name, did=action.value, taken=spent.taken,
              remaining=spent.remaining())


@COMMANDS.takes("estabilizar", "stabilize", spec=(STABILIZE,), in_character=True)
def stabilize_command(ctx: Context, got: Parsed) -> None:
    """003: «Otro personaje puede estabilizar a un moribundo con la habilidad Medicina (CD15), con una
    prueba de Sabiduría (CD15) o gastando un Punto de Acción»: the helper's Medicina (without it, its
    Sabiduría) and wound penalty, plus the GM's ±bono."""
    target, words = ctx.named_character(got.text(STABILIZE.shown))
    by_point = words == ["pa"] or words == ["ap"]
    bonus = 0 if by_point or not words else _number(words[0])
    if bonus is None or len(words) > 1:
        raise ctx.usage("estabilizar")
    close_halving(ctx)
    combat = ctx.room.combat
    round_number = round_of(combat)
    stable = stabilize(load(ctx, target), round_number)
    helper = ctx.acting_character()
    alone = helper is not None and name_key(helper.name) == name_key(target.name)
    if not (alone and by_point):  # a dying character may only spend an Action Point to stabilise themselves
        require_up(ctx, helper)
    spent = None
    if helper is not None and not (alone and by_point):
        spent = check_action(combat, helper, load(ctx, helper), Action.STANDARD)
    if by_point:
        stabilize_by_point(ctx, target, helper or target, stable)
        consume_grant(ctx)  # on the GM's !permite too (a dying character's own Action Point)
    else:
        named = helper_bonus(ctx, helper, "medicina")
        check = ReinoCheck(roll_test(ctx.rng, bonus + sum(v for _, v in named), DEFAULT_DC), "estabilizar",
                           named=named)
        if check.test.success:
            save(target, combat, stable)
        elif helper is not None:
            remember(ctx, helper, check.as_json(), replay_text("estabilizar", check.test.modifier, DEFAULT_DC),
                      target.name)
        ctx.reply("reino/table_stabilize", name=target.name, helper=helper.name if helper else None, roll=check)
        consume_grant(ctx)
    if helper is not None:
        commit_action(combat, helper, spent)


@COMMANDS.takes("despertar", "wake", spec=(WAKE,), in_character=True)
def wake_command(ctx: Context, got: Parsed) -> None:
    """003: «Un personaje inconsciente puede recuperarse de la inconsciencia por medio de una prueba exitosa
    de Fortaleza (CD10) cada minuto (10 asaltos de combate) tras caer inconsciente. Se recibe un +1 por
    cada minuto por encima del primero. Otro personaje puede hacer que recupere la consciencia usando su
    habilidad Medicina o superando una prueba de Sabiduría con las condiciones anteriores.» A helper's
    try is a standard action; the GM may roll the character's own Fortaleza."""
    target, words = ctx.named_character(got.text(WAKE.shown))
    bonus = _number(words[0]) if len(words) == 1 else 0 if not words else None
    if bonus is None:
        raise ctx.usage("despertar")
    close_halving(ctx)
    combat = ctx.room.combat
    rc = load(ctx, target)
    if not rc.unconscious or rc.dying or rc.dead:
        raise Refusal("reino/table_not_unconscious", name=target.name, dying=rc.dying, dead=rc.dead)
    helper = ctx.acting_character()
    own = helper is None or name_key(helper.name) == name_key(target.name)
    if own and not ctx.is_gm():
        require_up(ctx, target)
    minutes = unconscious_minutes(combat, target)
    if own:
        named: tuple[tuple[str, int], ...] = (("fortaleza", rc.fortitude),)
    else:
        require_up(ctx, helper)
        assert helper is not None
        commit_action(combat, helper, check_action(combat, helper, load(ctx, helper), Action.STANDARD))
        named = helper_bonus(ctx, helper, "medicina")
    test = recovery_test(roll_d20(ctx.rng), bonus + sum(v for _, v in named), minutes)
    check = ReinoCheck(test, "consciencia", minutes=minutes,
                       named=(*named, *([("minutos", minutes - 1)] if minutes > 1 else [])))
    roller = target if own else helper
    assert roller is not None
    if test.success:
        save(target, combat, apply_recovery(rc, test))
    else:
        remember(ctx, roller, check.as_json(), replay_text("consciencia", test.modifier, RECOVERY_DC), target.name)
    ctx.reply("reino/table_wake", name=target.name, helper=None if own else roller.name, roll=check)
    consume_grant(ctx)


@COMMANDS.takes("sorpresa", "surprise", spec=Either((SURPRISED,), (NOBODY,)), gm_only=True)
def surprise_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.declared_combat()
    if combat.started:
        raise Refusal("reino/table_surprise_late")
    names = _names(ctx, got.text(SURPRISED.shown))
    too_long = len(names) > MAX_NAMES or any(len(n) > MAX_NAME for n in names)
    if not got.has(NOBODY) and (not names or too_long):
        raise ctx.usage("sorpresa")
    ReinoState.of(combat).unaware = [name_key(n) for n in names]
    ctx.reply("reino/table_surprise", names=names)


@COMMANDS.takes("salud", "health", spec=(NAME,))
def health_command(ctx: Context, got: Parsed) -> None:
    who = _one_character(ctx, got.text("NOMBRE").split(), "salud")
    combat = ctx.room.combat
    rc = load(ctx, who)
    remaining = budget(combat, who, rc).remaining() if in_round(combat) else None  # type: ignore[arg-type]
    ctx.reply("reino/table_health", name=who.name, rc=rc, labels=labels(ctx, who, combat),
              room_labels=labels(ctx, who, combat, gms_sheet=True),
              defense=rc.defense_now(round_of(combat), surprised=surprised(combat, who)),
              remaining=remaining, has_pr="pr" in who.sheet)
