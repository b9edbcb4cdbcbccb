"""The savage table's own commands: bennies, damage, soak, hold/interrupt, recovery, tasks, deck.

Each declares what it takes (``bot/core/args.py``); the rules they call live in ``damage.py``,
``combat.py``, ``flow.py`` and ``rolls.py``, the grammar of what a ``Rest`` reads in ``grammar.py``."""

from __future__ import annotations

from bot.core.api import (
    Arg,
    Character,
    Combat,
    CommandGroup,
    Context,
    Either,
    Key,
    Opt,
    Parsed,
    Refusal,
    Rest,
    Word,
    acknowledge,
    answer_roll,
    consume_grant,
    first_time,
    name_key,
    read_request,
    require_up,
    resolve,
    vocab,
)
from bot.games.savage.bennies import pool, with_pool
from bot.games.savage.burst import fire_owed, rerolled, resume
from bot.games.savage.combat import (
    act_now,
    end_task,
    fire_overwatch,
    hold,
    interrupt_turn,
    set_surprise,
    show_task,
    start_task,
    task_roll,
)
from bot.games.savage.damage import (
    DECLINE,
    REROLL,
    apply_total,
    attack,
    damage_request,
    reroll,
    roll_damage,
    soak,
    strike_dice,
)
from bot.games.savage.flow import has_joker, mark_recovery, recovery_rolled, refuse, soak_state, trait_roll
from bot.games.savage.grammar import actor_and_rest, area_parts, attacker, named, surprise_sides, two_names
from bot.games.savage.rolls import count_action, take_hit
from bot.games.savage.sheet import nerves_of, normal_die, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat
from systems.savage.deck import Card
from systems.savage.state import (
    DRAMATIC_TASKS,
    DramaticTask,
    gain_benny,
    recover_at_turn_start,
    spend_benny,
    stop_bleeding,
    unshake_with_benny,
)

COMMANDS = CommandGroup()
MAX_DAMAGE = 999
MAX_BENNY_STEP = 20
MAX_AREA_TARGETS = 12
_SPEND = ("gastar", "spend")
_UNSHAKE = ("recuperar", "unshake")
_MASTER = ("master", "gm", "dj")
"""``!beni master``: the GM's pool of bennies."""

NAME = Opt(Arg("NOMBRE"))
TWO_NAMES = Arg("[QUIEN] NOMBRE")
"""Who does it (the one acting for the sender when only one name is given) and to whom: two names of
the room, told apart by the room (``grammar.two_names``)."""
DIE = Word("dN", r"d(?:4|6|8|10|12|20)(?:[+-]\d{1,2})?")
BENNY_CHANGE = Word("+N|-N|gastar|recuperar", r"[+-]\d{1,2}|" + "|".join((*_SPEND, *_UNSHAKE)))
SOAK_END = Word("repetir | no", "|".join((*REROLL, *DECLINE)))
TOTAL = Word("TOTAL", r"\d+")
DAMAGE_DICE = Rest("NOMBRE DADOS [aumento]")
AREA = Rest("DADOS [aumento] contra NOMBRE, NOMBRE...")
SURPRISE = Rest("ATACANTES / SORPRENDIDOS")
ATTACK = Rest("[ATACANTE contra | QUIEN] OBJETIVO [modificadores] [sin estado]")
FIRE = Key(("fuego", "fire"))
TASK_PRESET = Key(tuple(DRAMATIC_TASKS), gm=True, label="|".join(DRAMATIC_TASKS))
TASK_GROUP = Key(("grupo",), gm=True)
TASK_END = Key(vocab.END, gm=True)
TASK_ROLL = Rest("HABILIDAD|dN [mods]")
TITLE = "título"
UNSHOWN_TITLE = ""
"""``grupo N RONDAS`` takes a title too, not shown in its usage."""


@COMMANDS.takes("beni", "benny", spec=(NAME, Opt(BENNY_CHANGE)))
def benny_command(ctx: Context, got: Parsed) -> None:
    name, change = got.text("NOMBRE"), got.text(BENNY_CHANGE.shown)
    if name_key(name) in _MASTER and not change and ctx.room.find_character(name) is None:
        ctx.reply("savage/table_bennies", rows=[], name=None, change="pool", bennies=pool(ctx))
        return
    if not name and not change and ctx.character is None:
        rows = [(c.name, savage_of(c).bennies) for c in ctx.room.characters.values()]
        ctx.reply("savage/table_bennies", rows=rows, name=None, change=None)
        return
    character, left = ctx.own_or_named(name)
    if left:
        raise ctx.usage("beni")
    savage = savage_of(character)
    if not change:
        ctx.reply("savage/table_bennies", rows=[], name=character.name, change=None, bennies=savage.bennies)
        return
    if change[0] in "+-":
        _give_bennies(ctx, character, int(change))
        return
    ctx.may_manage(character)
    unshake = change in _UNSHAKE or (savage.shaken and soak_state(ctx, character) is None)
    if unshake and not savage.shaken:
        raise refuse("not_shaken", name=character.name)
    savage = with_pool(ctx, character, savage)
    after = unshake_with_benny(savage) if unshake else spend_benny(savage)
    store(character, after)
    ctx.reply("savage/table_bennies", rows=[], name=character.name, bennies=after.bennies,
              change="unshaken" if unshake else "spent")


def _give_bennies(ctx: Context, character: Character, count: int) -> None:
    if not ctx.is_gm():
        raise Refusal("gm_only", command="beni NOMBRE +N")
    savage = savage_of(character)
    if not -MAX_BENNY_STEP <= count <= MAX_BENNY_STEP or savage.bennies + count < 0:
        raise refuse("bad_bennies", name=character.name, bennies=savage.bennies, count=count)
    after = gain_benny(savage, count)
    store(character, after)
    acknowledge(ctx, "savage/table_bennies", rows=[], name=character.name, bennies=after.bennies, change=count)


@COMMANDS.takes("daño", "damage", spec=Either((Arg("NOMBRE"), TOTAL), (DAMAGE_DICE,)), in_character=True, changes=True)
def damage_command(ctx: Context, got: Parsed) -> None:
    """The GM applies any damage; a player only the damage of their own hit this turn (000: «Tras una
    tirada exitosa ... el atacante debe determinar el daño ocasionado»), with its raise die; the damage of a
    burst this turn is every hit's (``burst.fire_owed``)."""
    said = " ".join(w for w in (got.text("NOMBRE"), got.text(TOTAL.shown)) if w) or got.text(DAMAGE_DICE.shown)
    target, rest = named(ctx, said)  # the longest name first: ``Orco 1 5`` is 5 points against Orco 1
    total, dice = (rest, "") if rest.isdecimal() else ("", rest)
    if not total and fire_owed(ctx, said):
        return
    if target is None:
        raise ctx.unknown_character(said)
    if "dureza" not in target.sheet:
        raise refuse("no_toughness", name=target.name)
    if not (total or dice):
        _owed_damage(ctx, target)
        return
    if total:
        if not ctx.is_gm():
            raise Refusal("gm_only", command="daño NOMBRE TOTAL")
        if int(total) > MAX_DAMAGE:
            raise refuse("bad_total", limit=MAX_DAMAGE)
        apply_total(ctx, target, int(total))
        return
    striker = ctx.acting_character()
    raised = False
    if not ctx.is_gm():
        hit = take_hit(ctx, striker, target)
        if hit is None:
            raise refuse("no_own_hit", name=target.name)
        if damage_request(dice).with_raise and not hit:
            raise refuse("no_raise", name=target.name)
        raised = hit
    roll_damage(ctx, target, dice, striker, raised)


def _owed_damage(ctx: Context, target: Character) -> None:
    """``!daño NOMBRE`` with no amount (the last word of ``Orco 1`` is the name's): the acting character's
    hit this turn on the target rolls its weapon's damage, as ``!ataque`` would; without one, the damage
    is missing."""
    striker = ctx.acting_character()
    raised = take_hit(ctx, striker, target)
    if striker is None or raised is None:
        raise refuse("no_amount", name=target.name)
    roll_damage(ctx, target, strike_dice(striker), striker, raised)


@COMMANDS.takes("area", "blast", spec=(AREA,), in_character=True, changes=True)
def area_command(ctx: Context, got: Parsed) -> None:
    """An area attack (000: «Hay que hacer una tirada de daño independiente por enemigo... No vale tirar y
    repetir daño con benni para todos»): one damage roll per target, each resolved (soak included) apart.
    The GM's, or the player's whose attack hit this turn."""
    dice, names = area_parts(got.text(AREA.shown))
    named_ones = [ctx.character_named(name) for name in names]
    targets = list({name_key(t.name): t for t in named_ones}.values())
    if not dice or not targets or len(targets) > MAX_AREA_TARGETS:
        raise ctx.usage("area")
    missing = [t.name for t in targets if "dureza" not in t.sheet]
    if missing:
        raise refuse("no_toughness", name=missing[0])
    striker = ctx.acting_character()
    if not ctx.is_gm() and take_hit(ctx, striker, None) is None:
        raise refuse("no_own_hit", name=targets[0].name)
    ctx.reply("savage/table_area", names=[t.name for t in targets])
    for target in targets:
        roll_damage(ctx, target, dice, striker)


@COMMANDS.takes("absorber", "soak", spec=(NAME, Opt(DIE), Opt(SOAK_END)), free=True)
def soak_command(ctx: Context, got: Parsed) -> None:
    target, _ = ctx.own_or_named(got.text("NOMBRE"))
    soak(ctx, target, got.text(DIE.shown), got.text(SOAK_END.shown))
    resume(ctx)  # a burst this soak held back goes on


@COMMANDS.takes("recargar", "reload", spec=(NAME,), in_character=True)
def reload_command(ctx: Context, got: Parsed) -> None:
    """000: «Recargar un arma con un cargador o similar es una acción»: the weapon's Munición back to its
    Cargador, one action of the turn."""
    character, _ = ctx.own_or_named(got.text("NOMBRE"))
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


@COMMANDS.takes("sanar", "heal", spec=(TWO_NAMES,), in_character=True)
def heal_command(ctx: Context, got: Parsed) -> None:
    """Healing on another, bleeding character: a success stabilises them and only stops the bleeding
    (000: «Si tienen éxito, la víctima se estabilizará inmediatamente ... Este uso de Sanar solo detiene
    el desangramiento»)."""
    said = got.text(TWO_NAMES.shown)
    healer, patient, extra = two_names(ctx, said, ctx.acting_character())
    if patient is None:
        raise ctx.unknown_character(said)
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


@COMMANDS.takes("recuperar", "recover", spec=(NAME, Opt(DIE)), in_character=True, free=True)
def recover_command(ctx: Context, got: Parsed) -> None:
    character, _ = ctx.own_or_named(got.text("NOMBRE"))
    ctx.may_manage(character)
    require_up(ctx, character)
    savage = savage_of(character)
    if not savage.shaken:
        raise refuse("not_shaken", name=character.name)
    if recovery_rolled(ctx, character):
        raise refuse("recovered_already", name=character.name, bennies=savage.bennies)
    said = got.text(DIE.shown)
    die = normal_die(said) if said else sheet_die(character, "espiritu")
    if die is None:
        raise refuse("no_die", name=character.name, field="espiritu")
    roll = trait_roll(ctx, "espiritu", die, savage, has_joker(ctx, character), nerves=nerves_of(character))
    store(character, recover_at_turn_start(savage, roll.outcome))
    mark_recovery(ctx, character)
    consume_grant(ctx)
    ctx.reply("savage/table_recovery", name=character.name, roll=roll, bennies=savage.bennies,
              explain=not roll.recovered and first_time(ctx, "shaken"))


@COMMANDS.takes("esperar", "hold", spec=(), in_character=True, lenient=True)
def hold_command(ctx: Context, got: Parsed) -> None:
    hold(ctx, overwatch=False)


@COMMANDS.takes("guardia", "overwatch", spec=(Opt(FIRE),), in_character=True, lenient=True)
def overwatch_command(ctx: Context, got: Parsed) -> None:
    if not got.has(FIRE):
        hold(ctx, overwatch=True)
        return
    combat = ctx.running_combat()
    if not ctx.is_gm():
        raise Refusal("gm_only", command="guardia fuego")
    fire_overwatch(ctx, combat)


@COMMANDS.takes("actuar", "act", spec=(NAME,))
def act_command(ctx: Context, got: Parsed) -> None:
    """A held character acts now, with no roll; cutting into an action is ``!interrumpir``."""
    combat = ctx.running_combat()
    holder, left = actor_and_rest(ctx, got.text("NOMBRE"))
    if left:
        raise ctx.usage("actuar")
    act_now(ctx, combat, holder)


@COMMANDS.takes("interrumpir", "interrupt", spec=(TWO_NAMES,))
def interrupt_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.running_combat()
    holder, target, extra = two_names(ctx, got.text(TWO_NAMES.shown), ctx.character)
    if target is None or holder is None or extra:
        raise ctx.usage("interrumpir")
    interrupt_turn(ctx, combat, holder, target)


@COMMANDS.takes("sorpresa", "surprise", spec=(SURPRISE,), gm_only=True)
def surprise_command(ctx: Context, got: Parsed) -> None:
    combat = ctx.declared_combat()
    if combat.started:
        raise refuse("surprise_late")
    sides = surprise_sides(got.text(SURPRISE.shown))
    if sides is None:
        raise ctx.usage("sorpresa")
    set_surprise(ctx, combat, *sides)


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


def _task_combat(ctx: Context) -> Combat:
    """A dramatic task runs in a fight (checked before a player's GM keyword is refused)."""
    combat = ctx.room.combat
    if combat is None:
        raise refuse("task_needs_combat")
    return combat


def _task_needs_combat(ctx: Context) -> None:
    _task_combat(ctx)


@COMMANDS.takes("tarea", "task", before=_task_needs_combat, spec=Either(
    (TASK_PRESET, Opt(Arg(TITLE))),
    (TASK_GROUP, Word("N", r"\d{1,2}"), Word("RONDAS", r"\d{1,2}"), Opt(Arg(UNSHOWN_TITLE))),
    (TASK_ROLL,), (TASK_END, Opt(Rest())), ()))
def task_command(ctx: Context, got: Parsed) -> None:
    combat = _task_combat(ctx)
    if got.text(TASK_ROLL.shown):
        task_roll(ctx, combat, got.text(TASK_ROLL.shown))
    elif got.has(TASK_END):
        end_task(ctx, combat)
    elif got.has(TASK_PRESET):
        start_task(ctx, combat, DramaticTask.preset(got.text(TASK_PRESET.shown)), got.text(TITLE))
    elif got.has(TASK_GROUP):
        task = DramaticTask.for_group(int(got.text("N")), int(got.text("RONDAS")))
        start_task(ctx, combat, task, got.text(UNSHOWN_TITLE))
    else:
        show_task(ctx, combat)


@COMMANDS.takes("ataque", "attack", spec=(ATTACK,), in_character=True, changes=True)
def attack_command(ctx: Context, got: Parsed) -> None:
    """An attack with the sheet's weapon (``damage.attack``). The attacker is named as in ``!tiro``
    (``Lobo 2 contra Kira``) or by two names (``Lobo 2 Kira``: the GM for any member of a group's turn)."""
    request = read_request(got.text(ATTACK.shown))
    if request.secret:
        raise refuse("attack_not_secret")
    striker, text = attacker(ctx, request.text)
    target, rest = named(ctx, text)
    if target is None:
        raise ctx.unknown_character(text)
    second, after = named(ctx, rest)
    if second is not None:
        striker, target, rest = target, second, after
    if striker is None:
        raise Refusal("no_character")
    attack(ctx, striker, target, rest, request.auto)


@COMMANDS.takes("repetir", "reroll", spec=(NAME,), in_character=True, free=True)
def reroll_command(ctx: Context, got: Parsed) -> None:
    """A benny rerolls the actor's last trait roll of this turn (``damage.reroll``)."""
    actor, _ = ctx.own_or_named(got.text("NOMBRE"))
    done = reroll(ctx, actor)
    if done is not None:
        rerolled(ctx, actor, *done)
