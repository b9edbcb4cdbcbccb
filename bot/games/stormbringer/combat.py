"""The stormbringer table's combat hooks (``bot/core/combat.py`` calls them; commands in ``commands.py``).

A 12-second round: statement of intent from the lowest DEX up, then missile attacks and
melee attacks, each from the highest DEX down. ``combat.order`` first holds the declarers (the
intent stage: each declares on their turn); after the last one, the attack phases (missile,
melee, then those without a weapon), with -5 DEX for whoever declared a change of weapon
(``!arma``). Both are worked out again from the sheets at each new round, when the per-round
attack and parry counters are emptied.
"""

from __future__ import annotations

from bot.core import combat as rounds
from bot.core.context import CombatRules, Context
from bot.core.game import Vitality
from bot.core.records import Pending
from bot.core.state import Character, Combat, name_key
from bot.games.stormbringer import sheet as sh
from bot.games.stormbringer import state as st


def announce_phases(ctx: Context, combat: Combat, round_number: int) -> None:
    """The round's phases from the sheets; the turns start with the declarations of intent."""
    phases = st.order_round(ctx, combat, round_number)
    acting = set(phases.missile) | set(phases.melee)
    missing = [c.name for c in ctx.room.characters.values()
               if c.name in combat.order and "des" not in c.sheet]
    rest = [n for n in combat.order if n not in acting]
    st.begin_intent(combat, phases)
    ctx.announce("stormbringer/table_phases", round=round_number, phases=phases, rest=rest, missing=missing)


def begin_actions(ctx: Context, combat: Combat) -> None:
    """After the last declaration: the attack phases, announced; the caller starts their first turn."""
    phases = st.begin_actions(ctx, combat)
    ctx.announce("stormbringer/table_actions", round=combat.round, phases=phases,
                 rest=[n for n in combat.order if n not in (*phases.missile, *phases.melee)],
                 changing=[n for n in combat.order if name_key(n) in st.StormbringerState.of(combat).changing])


def condition_label(ctx: Context, code: str, **params: object) -> str:
    return ctx.renderer.text("stormbringer/table_condition", code=code, **params)


class StormbringerCombat(CombatRules):
    def initiative(self, ctx: Context, combat: Combat) -> None:
        st.StormbringerState.of(combat).start()
        announce_phases(ctx, combat, 1)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        state = st.StormbringerState.of(combat)
        state.new_round()
        st.close_round_blows(combat)
        st.prune_surprise(combat)
        if st.ordered_by_hand(combat):
            state.drop_worked_out()
        else:
            announce_phases(ctx, combat, combat.round)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        st.StormbringerState.of(combat).riposte = None
        labels = self._limit_labels(ctx, combat, actor)
        if labels:
            ctx.announce("stormbringer/table_turn", actor=actor.name, labels=labels)
        if st.declaring(combat):
            ctx.announce("stormbringer/table_intent", actor=actor.name)

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        labels = []
        if "pv" in actor.sheet and not ctx.sheet_is_gms(actor):
            labels.append(condition_label(ctx, "hp", value=sh.sheet_int(actor, "pv")))
        labels += [condition_label(ctx, code) for code in st.wounds(combat, actor.name) if code != "stunned"]
        labels += self._limit_labels(ctx, combat, actor)
        count = st.counter(combat, actor.name)
        if count.attacks:
            labels.append(condition_label(ctx, "attacks", value=count.attacks))
        if count.parries:
            labels.append(condition_label(ctx, "parries", value=count.parries))
        if not count.can_parry():
            labels.append(condition_label(ctx, "no_parry"))
        if count.ripostes_earned:
            labels.append(condition_label(ctx, "ripostes", value=count.ripostes_earned))
        return labels

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """Dead at 0 hit points or less (only when the sheet keeps ``pv``); down while stunned by a
        critical hit, which leaves one unable to fight for at least five minutes (the rest of the combat)."""
        hit_points = character.sheet.get("pv")
        if isinstance(hit_points, int) and hit_points <= 0:
            return "dead"
        combat = ctx.room.combat
        return "down" if combat is not None and st.stunned(combat, character.name) else "up"

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """Placed by this round's phases (missile, then melee, by DEX); in an order set by hand
        (``!turnos``), last."""
        if st.ordered_by_hand(combat):
            rounds.place_late(combat, character.name, [*combat.order, character.name])
            return None
        phases, ideal = st.round_order(ctx, combat, [*combat.order, character.name], max(combat.round, 1))
        rounds.place_late(combat, character.name, phases.intent if st.declaring(combat) else ideal)
        st.StormbringerState.of(combat).worked_out(phases, combat.order)
        if ctx.sheet_is_gms(character):
            return None
        des = character.sheet.get("des")
        return ctx.renderer.text("stormbringer/table_join", des=des if isinstance(des, int) else None)

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """Each landed blow: to parry or dodge while it is this round's and undefended, else its damage
        (``!daño``); and a master's riposte earned by a parry."""
        items = [Pending("defence", b["target"] or "", "parada", target=b["attacker"])
                 if b["round"] == combat.round and not b["defended"]
                 else Pending("damage", b["target"] or "", "daño", target=b["attacker"])
                 for b in st.blows(combat) if b["landed"]]
        riposte = st.StormbringerState.of(combat).riposte
        if riposte is not None:
            items.append(Pending("riposte", riposte["by"], "ataque", target=riposte["against"]))
        return items

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        """Out of the order worked out from the sheets too, so it stays theirs."""
        order = st.StormbringerState.of(combat).order
        if order is not None and name in order:
            order.remove(name)
        if st.declaring(combat) and combat.order and st.last_declarer(ctx, combat, after=0):
            begin_actions(ctx, combat)   # the last declarer left: the attacks start, not a new round
            combat.turn = 0

    def _limit_labels(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        """Labels for what the actor may not do now (stunned, surprised)."""
        if st.stunned(combat, actor.name):
            return [condition_label(ctx, "stunned")]
        limits = st.limits(combat, actor.name)
        if limits == st.NORMAL:
            return []
        return [condition_label(ctx, "surprised", limits=limits, left=st.surprise_left(combat, actor.name))]
