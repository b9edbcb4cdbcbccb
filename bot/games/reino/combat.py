"""The reino table's combat hooks (``bot/core/combat.py`` calls them); the commands are in ``commands.py``.

Round timing, all through the hooks:
- ``initiative``: 1d20 + ``iniciativa`` by the rules' ``start_combat``; with unaware combatants
  (``!sorpresa``) only the aware roll and the first round is the surprise round (the core's round 0;
  the first normal round is round 1).
- ``new_round``: leaving the surprise round the others roll and join the order; spent actions
  reset; a table Aturdido ends after the round following the one it came in; every Moribundo
  combatant makes a dying save (DC 10 + 1 per previous save); every unconscious one not dying rolls
  to wake up each 10 rounds after it fell (Fortaleza DC 10, +1 per minute past the first).
- ``turn_start``: a note when the actor cannot act fully (surprise round, stunned); the helpless get
  no turn (``bot/core/combat.py`` skips whoever is down).
"""

from __future__ import annotations

from dataclasses import replace

from bot.core import combat as rounds
from bot.core.context import CombatRules, Context
from bot.core.game import Vitality
from bot.core.records import Pending
from bot.core.state import Character, Combat, name_key
from bot.games.reino.state import ReinoState, combatants, fighter_data, labels, load, save
from systems.reino.outcomes import ReinoCheck, ReinoDyingSave
from systems.reino.rules import (
    Combatant,
    Condition,
    apply_dying_save,
    apply_recovery,
    clear_condition,
    join_combat,
    leave_combat,
    next_turn,
    recovery_due,
    recovery_test,
    roll_d20,
    roll_dying_save,
    start_combat,
)


class ReinoCombat(CombatRules):

    def initiative(self, ctx: Context, combat: Combat) -> None:
        state = ReinoState.of(combat)
        unaware = set(state.unaware)
        people = [
            Combatant(name, load(ctx, c).initiative if (c := ctx.room.find_character(name)) else 0,
                      aware=name_key(name) not in unaware)
            for name in combat.order
        ]
        seq = start_combat(ctx.rng, people)
        combat.order = [r.name for r in seq.order]
        state.start(seq)
        combat.surprise = seq.surprise_round  # the core shows it as the surprise round, round 0
        for fighter in state.fighters():
            fighter.update({"stunned_round": None, "stunned_since": None})
        caught = [p.name for p in people if not p.aware] if seq.surprise_round else []
        ctx.announce("reino/table_initiative", rolls=seq.order, surprised=caught)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        state = ReinoState.of(combat)
        if state.surprise_round:
            self._end_surprise_round(ctx, combat)
        state.new_round()
        _by_initiative(combat)
        for character in combatants(ctx.room, combat):
            _end_table_stun(ctx, combat, character)
            _dying_save(ctx, combat, character)
            _wake_up(ctx, combat, character)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        stunned = load(ctx, actor).stunned(combat.round)
        surprise_round = ReinoState.of(combat).surprise_round
        if stunned or surprise_round:
            ctx.announce("reino/table_turn_note", name=actor.name, stunned=stunned, surprise_round=surprise_round)

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        return labels(ctx, actor, combat, gms_sheet=ctx.sheet_is_gms(actor))

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        rc = load(ctx, character)
        return "dead" if rc.dead else "down" if rc.helpless else "up"

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """1d20 + initiative rolled now, placed among the rolls already made; in an order set by hand
        (``!turnos``, no rolls), last."""
        state = ReinoState.of(combat)
        made = state.sequence
        if made is None:
            rounds.place_late(combat, character.name, [*combat.order, character.name])
            return None
        seq = join_combat(ctx.rng, made, Combatant(character.name, load(ctx, character).initiative))
        state.sequence = seq
        rounds.place_late(combat, character.name, [r.name for r in seq.order])
        roll = next(r for r in seq.rolls if r.name == character.name)
        return None if ctx.sheet_is_gms(character) else ctx.renderer.text("reino/table_join", r=roll)

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """Each landed blow whose damage ``!daño`` still rolls: its attacker (as the room spells the
        name), its victim and its critical multiplier."""
        found = ((ctx.room.find_character(key), blow) for key, blow in ReinoState.of(combat).pending().items())
        return [Pending("damage", c.name, "daño", target=blow["target"], amount=blow["multiplier"])
                for c, blow in found if c is not None]

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        state = ReinoState.of(combat)
        made = state.sequence
        if made is not None:
            state.sequence = leave_combat(made, name)

    @staticmethod
    def _end_surprise_round(ctx: Context, combat: Combat) -> None:
        state = ReinoState.of(combat)
        state.surprise_round = False
        seq = state.sequence
        assert seq is not None  # a surprise round comes only from the initiative rolls
        if sorted(name_key(r.name) for r in seq.rolls) != sorted(name_key(n) for n in combat.order):
            return  # the GM set the order by hand (!turnos): it stays
        seq = next_turn(ctx.rng, replace(seq, turn=len(seq.rolls) - 1))
        state.sequence = seq
        combat.order = [r.name for r in seq.order]
        rolled = {name_key(n) for n in state.unaware}
        ctx.announce("reino/table_late_initiative", rolls=[r for r in seq.rolls if name_key(r.name) in rolled])


def _by_initiative(combat: Combat) -> None:
    """A new round follows the initiative rolls (a latecomer who acted right after the turn it came in
    takes its own place), unless the GM set the order by hand."""
    seq = ReinoState.of(combat).sequence
    if seq is None:
        return
    rank = {name_key(r.name): i for i, r in enumerate(seq.order)}
    if all(name_key(n) in rank for n in combat.order):
        combat.order.sort(key=lambda n: rank[name_key(n)])


def _end_table_stun(ctx: Context, combat: Combat, character: Character) -> None:
    fighter = fighter_data(combat, character)
    since = fighter.get("stunned_since")
    if since is not None and combat.round > since + 1:
        fighter["stunned_since"] = None
        save(character, combat, clear_condition(load(ctx, character), Condition.ATURDIDO))


def _dying_save(ctx: Context, combat: Combat, character: Character) -> None:
    rc = load(ctx, character)
    if not rc.dying or rc.dead:
        return
    result = roll_dying_save(ctx.rng, rc.fortitude, rc.dying_saves)
    after = apply_dying_save(rc, result, combat.round)
    save(character, combat, after)
    ctx.announce("reino/table_dying", name=character.name, roll=ReinoDyingSave(result))


def _wake_up(ctx: Context, combat: Combat, character: Character) -> None:
    """003: «Un personaje inconsciente puede recuperarse de la inconsciencia por medio de una prueba exitosa
    de Fortaleza (CD10) cada minuto (10 asaltos de combate) tras caer inconsciente»: the bot rolls it."""
    rc = load(ctx, character)
    fell = fighter_data(combat, character).get("unconscious_since")
    minutes = recovery_due(fell, combat.round) if fell is not None else None
    if not rc.unconscious or rc.dying or rc.dead or minutes is None:
        return
    test = recovery_test(roll_d20(ctx.rng), rc.fortitude, minutes)
    save(character, combat, apply_recovery(rc, test))
    named = (("fortaleza", rc.fortitude), *([("minutos", minutes - 1)] if minutes > 1 else []))
    ctx.announce("reino/table_wake", name=character.name, helper=None,
                 roll=ReinoCheck(test, "consciencia", minutes=minutes, named=named))
