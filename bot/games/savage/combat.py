"""The savage table's combat hooks (``bot/core/combat.py`` calls them; commands in ``commands.py``).

Initiative is the action deck of ``systems.savage.deck``: one card per group (a Wild Card,
or Extras sharing a ``grupo``), held cards kept, a reshuffle after a round with a joker.
Conditions (Shaken, wounds, bleeding...) live in each character's sheet.
"""

from __future__ import annotations

from typing import Any

from bot.core.api import (
    Character,
    Combat,
    CombatRules,
    Context,
    Pending,
    Refusal,
    Vitality,
    advance,
    answer_roll,
    consume_grant,
    first_time,
    may_act,
    name_key,
    place_late,
    read_request,
    require_up,
    resolve,
    roller,
)
from bot.games.savage.bennies import bennies_or_pool
from bot.games.savage.burst import resume
from bot.games.savage.flow import (
    break_hold,
    cannot_act,
    close_rerolls,
    close_soak,
    deal,
    has_joker,
    mark_recovery,
    move_in_order,
    open_soaks,
    refuse,
    roster,
    take_turn_now,
    trait_roll,
    vigor_of,
)
from bot.games.savage.rolls import ACTIONS_KEY, end_supports, owe_reaction_shot
from bot.games.savage.sheet import edges_of, group_of, nerves_of, normal_die, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat, turn_key
from systems.savage.deck import ActionDeck, interrupt, surprise
from systems.savage.resolver import SavageTraitRoll
from systems.savage.rules import SUCCESSES
from systems.savage.state import DramaticTask, apply_bleeding_roll, recover_at_turn_start

DEFAULT_PACE = 6
UNTRAINED = "d4"
TITLE_LIMIT = 80


class SavageCombatRules(CombatRules):
    def initiative(self, ctx: Context, combat: Combat) -> None:
        state = SavageCombat.of(combat)
        if not state.dealt:
            state.deck = ActionDeck.new(ctx.rng)
        state.roster = list(combat.order)
        on_hold = {name_key(n) for n in state.surprise.get("on_hold", [])}
        state.holding = [n for n in state.roster if name_key(n) in on_hold]
        deal(ctx, combat, state, first=True)
        state.save(combat)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        state = SavageCombat.of(combat)
        close_soak(ctx, state)
        state.save(combat)
        if not state.dealt:
            _tick_task(ctx, state)  # turns set by hand: the task's rounds are still the bot's to keep
            state.started = []  # and each turn of the new round starts again (the Spirit roll, supports)
            state.save(combat)
            down = cannot_act([c for c in map(ctx.room.find_character, combat.order) if c is not None])
            if down["incapacitated"] or down["out"]:  # said with the round, as the deal says it
                ctx.announce("savage/table_down", down=down)
            return
        for character in roster(ctx, state):
            _bleed(ctx, character)
        _tick_task(ctx, state)
        deal(ctx, combat, state, first=False)
        state.surprise = {}
        state.save(combat)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        for character in ctx.room.characters.values():
            end_supports(character, acting=name_key(character.name) == name_key(actor.name))
        state = SavageCombat.of(combat)
        close_rerolls(ctx, state)
        state.save(combat)
        if name_key(actor.name) in map(name_key, state.started):
            return
        state.started.append(actor.name)
        state.stop_holding(actor.name)
        state.overwatch = [n for n in state.overwatch if name_key(n) != name_key(actor.name)]
        state.save(combat)
        actor.sheet.pop(ACTIONS_KEY, None)  # a new turn's actions start at zero, in a new fight too
        savage = savage_of(actor)
        if not savage.shaken:  # only Shaken has a roll to make here: the deal said the joker, once
            return
        die = sheet_die(actor, "espiritu")
        roll = None
        if die:
            roll = trait_roll(ctx, "espiritu", die, savage, has_joker(ctx, actor), nerves=nerves_of(actor))
        if roll is not None:
            store(actor, recover_at_turn_start(savage, roll.outcome))
            mark_recovery(ctx, actor)
        explain = (roll is None or not roll.recovered) and first_time(ctx, "shaken")
        ctx.announce("savage/table_turn", name=actor.name, roll=roll, bennies=savage.bennies, explain=explain)

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        state = SavageCombat.of(combat)
        savage = savage_of(actor)
        if savage.out and not savage.wild_card and not savage.dead:
            return [ctx.renderer.text("savage/table_label", key="out", value=True)]
        card = state.card_of(actor)
        flags = [
            ("card", card.code if card else None),
            ("joker", card is not None and card.joker),
            ("hold", state.is_holding(actor.name)),
            ("overwatch", name_key(actor.name) in map(name_key, state.overwatch)),
            ("shaken", savage.shaken),
            ("wounds", savage.wounds),
            ("pace", pace_with_wounds(actor, savage.wounds) if savage.wounds and not ctx.sheet_is_gms(actor) else 0),
            ("fatigue", savage.fatigue),
            ("incapacitated", savage.incapacitated and not savage.dead),
            ("bleeding", savage.bleeding),
            ("dead", savage.dead),
            ("bennies", savage.bennies if savage.wild_card and not ctx.sheet_is_gms(actor) else 0),
            ("soak", not ctx.sheet_is_gms(actor) and name_key(actor.name) in map(name_key, open_soaks(ctx, state))),
        ]
        return [ctx.renderer.text("savage/table_label", key=key, value=value) for key, value in flags if value]

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        savage = savage_of(character)
        return "dead" if savage.dead else "up" if savage.can_act else "down"

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """A card dealt now (an Extra whose group has one shares it), placed by the cards in play.
        Without cards (turns set by hand) the latecomer acts last in the round."""
        state = SavageCombat.of(combat)
        if not state.dealt:
            place_late(combat, character.name, [*combat.order, character.name])
            return None
        state.roster.append(character.name)
        if savage_of(character).can_act:
            group = group_of(character)
            if group not in state.deck.in_play:
                state.deck = state.deck.deal_late(group, ctx.rng, edges_of(character))
            everyone = roster(ctx, state)
            ideal = sorted(range(len(everyone)), key=lambda i: turn_key(state, everyone[i], i))
            place_late(combat, character.name, [everyone[i].name for i in ideal])
        state.save(combat)
        return ctx.renderer.text("savage/table_join", card=state.card_of(character))

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """The hit a Wild Card may still soak (``!absorber``), with its wounds; after a partial soak, the
        reroll a benny left buys (``soak_reroll``), with the wounds still to soak."""
        items = []
        for hit in SavageCombat.of(combat).hits.values():
            wounds, character = hit["effect"][2], ctx.room.find_character(hit["name"])
            if not hit["soaked"]:
                items.append(Pending("soak", hit["name"], "absorber", amount=wounds, closable=True))
            elif hit["best"] < wounds and character is not None and bennies_or_pool(ctx, character):
                items.append(Pending("soak_reroll", hit["name"], "absorber", amount=wounds - hit["best"]))
        return items

    def holds_turn(self, ctx: Context, combat: Combat) -> bool:
        """A Wild Card may still soak a hit: the turn waits for that answer (its Vigor roll too)."""
        return bool(open_soaks(ctx, SavageCombat.of(combat)))

    def turn_ending(self, ctx: Context, combat: Combat) -> bool:
        """``!siguiente`` with a soak open: the first is refused naming who may still soak; the second
        closes those soaks (declined) and the turn ends."""
        state = SavageCombat.of(combat)
        waiting = open_soaks(ctx, state)
        if not waiting:
            return False
        if not state.soak_warned:
            state.soak_warned = True
            state.save(combat)
            ctx.reply("savage/table_soak_waiting", names=waiting)
            return True
        for name in waiting:
            ctx.reply("savage/table_soak_declined", name=name)
        close_soak(ctx, state)
        state.save(combat)
        resume(ctx)  # a burst those soaks held back ends before the turn does
        return bool(open_soaks(ctx, SavageCombat.of(combat)))

    def sheet_edited(self, ctx: Context, character: Character, values: dict[str, Any]) -> None:
        """A holder (or a watcher on ``!guardia``) the GM leaves Shaken by hand (``!ficha Kira aturdido 1``)
        leaves the hold as one Shaken by a hit does (000: «Un personaje en espera que quede aturdido por
        cualquier causa ... deja de estar en espera y debe actuar inmediatamente tras él»)."""
        combat = ctx.room.combat
        if combat is None or not savage_of(character).shaken:
            return
        state = SavageCombat.of(combat)
        watching = name_key(character.name) in map(name_key, state.overwatch)
        if not (state.is_holding(character.name) or watching):
            return
        break_hold(combat, state, character.name)
        state.save(combat)
        ctx.reply("savage/table_hold_broken", name=character.name)

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        """Out of the roster; the card goes to the discards unless the rest of its group stays."""
        state = SavageCombat.of(combat)
        if not state.dealt:
            return
        state.roster = [n for n in state.roster if name_key(n) != name_key(name)]
        state.stop_holding(name)
        state.overwatch = [n for n in state.overwatch if name_key(n) != name_key(name)]
        character = ctx.room.find_character(name)
        group = group_of(character) if character else name
        if all(group_of(c) != group for c in roster(ctx, state)):
            state.deck = state.deck.drop(group)
        state.save(combat)


def pace_with_wounds(character: Character, wounds: int) -> int:
    """000: each wound is «-1 a su Paso (hasta un mínimo de 1)»."""
    try:
        pace = int(character.sheet.get("paso", DEFAULT_PACE))
    except (TypeError, ValueError):
        pace = DEFAULT_PACE
    return max(1, pace - wounds)


def _bleed(ctx: Context, character: Character) -> None:
    """Vigor at the start of each round for whoever is bleeding out."""
    savage = savage_of(character)
    if not savage.bleeding or savage.dead:
        return
    die, defaulted = vigor_of(character)
    roll = trait_roll(ctx, "desangrar", die, savage, False, nerves=nerves_of(character))
    store(character, apply_bleeding_roll(savage, roll.outcome))
    ctx.announce("savage/table_vigor", name=character.name, roll=roll, defaulted=defaulted)


def _tick_task(ctx: Context, state: SavageCombat) -> None:
    task = state.dramatic_task()
    if task is None or state.task is None:
        return
    task = task.end_round()
    ctx.announce("savage/table_task", title=state.task["title"], task=task, event="round")
    state.task = None if task.status != "in_progress" else {**state.task, "state": task.to_dict()}


def hold(ctx: Context, overwatch: bool) -> None:
    """The actor goes on hold (keeping the card) and the next turn starts."""
    combat = ctx.running_combat()
    actor = _current_actor(ctx, combat)
    if actor is None:
        return
    if savage_of(actor).shaken:  # 000: «Un personaje en espera que quede aturdido ... deja de estar en espera»
        raise refuse("shaken_hold", name=actor.name, bennies=savage_of(actor).bennies)
    state = SavageCombat.of(combat)
    state.holding = [*state.holding, actor.name] if not state.is_holding(actor.name) else state.holding
    if overwatch:
        state.overwatch = state.watch().enter(actor.name).watchers
    state.save(combat)
    kind = "savage/table_overwatch" if overwatch else "savage/table_hold"
    ctx.reply(kind, name=actor.name, shooters=[], card=state.card_of(actor))
    advance(ctx, combat)


def _current_actor(ctx: Context, combat: Combat) -> Character | None:
    actor = ctx.room.find_character(combat.current or "")
    if actor is None or not (ctx.is_gm() or actor.owner == ctx.sender):
        ctx.reply("not_your_turn_to_end", actor=combat.current)
        return None
    return actor


def fire_overwatch(ctx: Context, combat: Combat) -> None:
    """The GM's ``!guardia fuego``: whoever watches shoots now and stops holding."""
    state = SavageCombat.of(combat)
    watch, shooters = state.watch().trigger()
    state.overwatch = watch.watchers
    for name in shooters:
        state.stop_holding(name)
        shooter = ctx.room.find_character(name)
        if shooter is not None:
            owe_reaction_shot(ctx, shooter)
    state.save(combat)
    ctx.reply("savage/table_overwatch", name=None, shooters=shooters)


def held_by(ctx: Context, combat: Combat, holder: Character) -> SavageCombat:
    """The fight's state, once ``holder`` is known to be one the sender may act for, up and holding its
    action (what ``!actuar`` and ``!interrumpir`` both need)."""
    ctx.may_manage(holder)
    require_up(ctx, holder)
    state = SavageCombat.of(combat)
    if savage_of(holder).shaken:  # Shaken and on hold never together (000: «deja de estar en espera»)
        raise refuse("shaken_holder", name=holder.name)
    if not state.is_holding(holder.name):
        raise refuse("not_holding", name=holder.name)
    return state


def act_now(ctx: Context, combat: Combat, holder: Character) -> None:
    """A held character acts now, between turns, with no roll (000: «actuar en un momento posterior de
    la ronda de combate si así lo desea»)."""
    state = held_by(ctx, combat, holder)
    state.stop_holding(holder.name)
    state.save(combat)
    ctx.reply("savage/table_act", name=holder.name)
    take_turn_now(ctx, combat, holder.name)


def interrupt_turn(ctx: Context, combat: Combat, holder: Character, target: Character) -> None:
    """A held character cuts into the current one's action: Athletics against Athletics, unless it holds
    a joker (000: a joker «puede actuar en cualquier momento ... incluso interrumpiendo»)."""
    state = held_by(ctx, combat, holder)
    if name_key(target.name) != name_key(combat.current or "") or target is holder:
        raise refuse("not_current", name=target.name, current=combat.current)
    joker = has_joker(ctx, holder)
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


def set_surprise(ctx: Context, combat: Combat, attackers: list[str], victims: list[str]) -> None:
    """Who surprises whom, before the first deal: the victims roll Notice."""
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


def start_task(ctx: Context, combat: Combat, task: DramaticTask, title: str) -> None:
    state = SavageCombat.of(combat)
    state.task = {"title": title[:TITLE_LIMIT], "state": task.to_dict()}
    state.save(combat)
    ctx.reply("savage/table_task", title=title[:TITLE_LIMIT], task=task, event="started")


def end_task(ctx: Context, combat: Combat) -> None:
    state = SavageCombat.of(combat)
    state.task = None
    state.save(combat)
    ctx.reply("savage/table_task", title="", task=None, event="ended")


def show_task(ctx: Context, combat: Combat) -> None:
    state = SavageCombat.of(combat)
    task = state.dramatic_task()
    if task is None or state.task is None:
        raise refuse("no_task")
    ctx.reply("savage/table_task", title=state.task["title"], task=task, event="status")


def task_roll(ctx: Context, combat: Combat, text: str) -> None:
    """A task roll is the character's own skill roll from its sheet (001: «Los héroes deben ir haciendo
    tiradas de habilidad»), an action of its turn (one per turn unless ``acciones 2``)."""
    state = SavageCombat.of(combat)
    task = state.dramatic_task()
    if task is None or state.task is None:
        raise refuse("no_task")
    if not may_act(ctx):
        return
    character, rest = roller(ctx, text)
    if character is None:
        raise Refusal("no_character")
    require_up(ctx, character)
    request = read_request(rest)
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
