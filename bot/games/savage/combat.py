"""The savage table's combat hooks (``bot/core/combat.py`` calls them; commands in ``commands.py``).

Initiative is the action deck of ``systems.savage.deck``: one card per group (a Wild Card,
or Extras sharing a ``grupo``), held cards kept, a reshuffle after a round with a joker.
Conditions (Shaken, wounds, bleeding...) live in each character's sheet.
"""

from __future__ import annotations

from bot.core.api import Character, Combat, CombatRules, Context, Pending, Vitality, name_key, place_late
from bot.games.savage.flow import close_soak, deal, has_joker, mark_recovery, roster, trait_roll, vigor_of
from bot.games.savage.rolls import end_supports
from bot.games.savage.sheet import edges_of, group_of, nerves_of, savage_of, sheet_die, store
from bot.games.savage.state import SavageCombat, turn_key
from systems.savage.deck import ActionDeck
from systems.savage.state import apply_bleeding_roll, recover_at_turn_start

DEFAULT_PACE = 6


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
        close_soak(ctx, state)
        state.save(combat)
        if name_key(actor.name) in map(name_key, state.started):
            return
        group = group_of(actor)
        mates = [c for c in roster(ctx, state) if group_of(c) == group and savage_of(c).can_act]
        joker_told = any(name_key(c.name) in map(name_key, state.started) for c in mates)
        state.started.append(actor.name)
        state.stop_holding(actor.name)
        state.overwatch = [n for n in state.overwatch if name_key(n) != name_key(actor.name)]
        state.save(combat)
        joker = has_joker(ctx, actor) and not joker_told
        savage = savage_of(actor)
        if not (joker or savage.shaken):
            return
        die = sheet_die(actor, "espiritu")
        roll = None
        if savage.shaken and die:
            roll = trait_roll(ctx, "espiritu", die, savage, has_joker(ctx, actor), nerves=nerves_of(actor))
        if roll is not None:
            store(actor, recover_at_turn_start(savage, roll.outcome))
            mark_recovery(ctx, actor)
        ctx.announce("savage/table_turn", name=actor.name, joker=joker, shaken=savage.shaken, roll=roll,
                     joker_names=[c.name for c in mates] or [actor.name], bennies=savage.bennies)

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
                items.append(Pending("soak", hit["name"], "absorber", amount=wounds))
            elif hit["best"] < wounds and character is not None and savage_of(character).bennies:
                items.append(Pending("soak_reroll", hit["name"], "absorber", amount=wounds - hit["best"]))
        return items

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
