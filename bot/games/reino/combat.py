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

from bot.core.api import (
    Character,
    Combat,
    CombatRules,
    Context,
    Pending,
    Refusal,
    Vitality,
    consume_grant,
    explainer,
    first_time,
    last_roll,
    name_key,
    place_late,
    stamp,
)
from bot.games.reino.damage import hurt, open_halving
from bot.games.reino.sheet import DEFAULT_CRITICAL, SKILLS, sheet_bonus, sheet_grip
from bot.games.reino.state import (
    PendingBlow,
    ReinoState,
    close_halving,
    combatants,
    fighter_data,
    labels,
    load,
    read_replay,
    save,
    wound_penalty,
)
from systems.dice import parse
from systems.reino.outcomes import ReinoCheck, ReinoDyingSave
from systems.reino.resolver import weapon_damage
from systems.reino.rules import (
    CheckResult,
    Combatant,
    Condition,
    Grip,
    ReinoCharacter,
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
    spend_action_point,
    stabilize,
    start_combat,
    succeed_with_action_point,
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
        surprise_round = surprise_round and first_time(ctx, "surprise_turn")   # told once a fight
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
            place_late(combat, character.name, [*combat.order, character.name])
            return None
        seq = join_combat(ctx.rng, made, Combatant(character.name, load(ctx, character).initiative))
        state.sequence = seq
        place_late(combat, character.name, [r.name for r in seq.order])
        roll = next(r for r in seq.rolls if r.name == character.name)
        return None if ctx.sheet_is_gms(character) else ctx.renderer.text("reino/table_join", r=roll)

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """Each landed blow whose damage ``!daño`` still rolls: its attacker (as the room spells the
        name), its victim and its critical multiplier; one of an earlier turn is owed, rolled by a player
        after the GM's ``!permite`` (by the GM on its own character's turn). A dead attacker owes nothing."""
        now = stamp(ctx)
        found = ((ctx.room.find_character(key), blows) for key, blows in ReinoState.of(combat).pending_seen().items())
        return [Pending("damage", c.name, "daño", target=blow["target"], amount=blow["multiplier"])
                if blow.get("stamp") == now else
                Pending("damage_owed", c.name, "daño" if _gms(ctx, c) else f"permite {c.name}",
                        target=blow["target"], amount=blow["multiplier"])
                for c, blows in found if c is not None and not load(ctx, c).dead for blow in reversed(blows)]

    def holds_turn(self, ctx: Context, combat: Combat) -> bool:
        """The victim of the hit just shown may still halve it with an Action Point (``!pa mitad``): a turn
        whose members fell waits for ``!siguiente``."""
        hit = open_halving(ctx)
        victim = ctx.room.find_character(hit["target"]) if hit is not None else None
        return victim is not None and load(ctx, victim).action_points > 0

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        """Its initiative roll and the damage it still owed are forgotten."""
        state = ReinoState.of(combat)
        state.pending().pop(name_key(name), None)
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
    ctx.announce("reino/table_dying", name=character.name, roll=ReinoDyingSave(result), first=explainer(ctx))


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


def actor_of(ctx: Context) -> Character:
    """Who acts: for the GM the combatant whose turn it is, for a player their character."""
    actor = ctx.acting_character()
    if actor is None:
        raise Refusal("reino/table_no_actor")
    return actor


def round_of(combat: Combat | None) -> int:
    return combat.round if combat is not None else 0


def critical_multiplier(attacker: Character) -> int:
    value = attacker.sheet.get("arma_critico")
    return int(value) if isinstance(value, int) else DEFAULT_CRITICAL


def pending_blows(ctx: Context) -> dict[str, list[PendingBlow]]:
    combat = ctx.room.combat
    return ReinoState.of(combat).pending() if combat is not None else {}


def leave_blow(ctx: Context, attacker: Character, target: Character, multiplier: int) -> None:
    """003: «Cuando un ataque tiene éxito, se le causará al oponente una cantidad de daño»: the hit waits
    for ``!daño``, with its critical multiplier (1 on a plain hit) and the turn it landed in."""
    pending_blows(ctx).setdefault(name_key(attacker.name), []).append(
        {"target": target.name, "multiplier": multiplier, "stamp": stamp(ctx)})


def drop_lost_blows(ctx: Context, attacker: Character) -> None:
    """The attacker's blows whose target died (or is no longer in the room) are dropped; the others stay
    owed, and never keep it from attacking again."""
    blows = pending_blows(ctx)
    kept = [b for b in blows.get(name_key(attacker.name), [])
            if (victim := ctx.room.find_character(b["target"])) is not None and not load(ctx, victim).dead]
    if kept:
        blows[name_key(attacker.name)] = kept
    else:
        blows.pop(name_key(attacker.name), None)


def roll_blow(ctx: Context, halve: bool) -> None:
    """003: «se le causará al oponente una cantidad de daño que vendrá determinado en las estadísticas del
    arma ... tienes que sumar el modificador de Fuerza»; a critical multiplies it. RD is not subtracted:
    003 names it only in the critical threshold. The newest blow first; one owed from an earlier turn only
    when the GM allows it (``!permite``, or the GM rolling for its own character)."""
    attacker = actor_of(ctx)
    blows = pending_blows(ctx).get(name_key(attacker.name), [])
    blow = blows[-1] if blows else None
    target = ctx.room.find_character(blow["target"]) if blow else None
    if blow is None or target is None:
        raise Refusal("reino/table_no_blow", name=attacker.name)
    if blow.get("stamp") != stamp(ctx) and not _late_allowed(ctx):
        raise Refusal("reino/table_blow_owed", name=attacker.name, target=target.name)
    blows.pop()
    if not blows:
        del pending_blows(ctx)[name_key(attacker.name)]
    if halve:
        ctx.may_manage(target)
    dice = attacker.sheet.get("arma_dano")
    if not isinstance(dice, str):
        raise Refusal("reino/table_no_weapon", name=attacker.name)
    grip = sheet_grip(attacker.sheet.get("arma_tipo", "")) or Grip.ONE_HAND
    strength = attacker.sheet.get("fuerza", 0)
    damage = weapon_damage(parse(dice), strength if isinstance(strength, int) else 0, grip,
                           int(blow["multiplier"]), ctx.rng)
    hurt(ctx, target, damage.total, halve, damage, attacker.name)
    consume_grant(ctx)


def _late_allowed(ctx: Context) -> bool:
    """Owed damage is rolled when the GM allows: the GM, or a player on (or holding) a ``!permite``."""
    if ctx.is_gm() or ctx.on_grant:
        return True
    if ctx.sender in ctx.room.granted and ctx.sender not in ctx.room.grant_only:
        ctx.on_grant = True  # the grant is spent on it (``consume_grant``), even on the player's own turn
        return True
    return False


def _gms(ctx: Context, character: Character) -> bool:
    """A character the GM plays (no player to ``!permite``)."""
    return character.owner is None or ctx.is_gm(character.owner)


_FAILED = frozenset({"failure", "miss"})


def buy_success(ctx: Context, who: Character) -> None:
    """003: «Hacer que una tirada fallida se convierta en una tirada con éxito. En este caso siempre se
    considerará que el resultado total obtenido es el mínimo para asegurar el éxito»: ``who``'s last d20
    test of this turn (any time out of combat): a check, a save, an attack (which then leaves its blow,
    never a critical), stabilising or waking someone."""
    try:
        last = last_roll(ctx, who)
    except Refusal:
        raise Refusal("reino/table_no_failed_roll", name=who.name) from None
    rescue = read_replay(last.get("text"))
    if rescue is None:
        raise Refusal("reino/table_no_failed_roll", name=who.name)
    if last.get("outcome") not in _FAILED:
        raise Refusal("dice_error", code="reino.already_success", params={"name": who.name})
    combat = ctx.room.combat
    close_halving(ctx)
    after, bought = succeed_with_action_point(
        load(ctx, who), CheckResult(int(last["total"]) - rescue.modifier, rescue.modifier, rescue.dc))
    save(who, combat, after)
    del ctx.room.rerolls[name_key(who.name)]
    target = ctx.room.find_character(str(last.get("target") or ""))
    if target is not None and rescue.purpose == "ataque" and combat is not None:
        leave_blow(ctx, who, target, 1)
    elif target is not None and rescue.purpose == "estabilizar" and load(ctx, target).dying:
        save(target, combat, stabilize(load(ctx, target), round_of(combat)))
    elif target is not None and rescue.purpose == "consciencia":
        save(target, combat, apply_recovery(load(ctx, target), bought))
    ctx.reply("reino/table_ap_success", name=who.name, purpose=rescue.purpose, label=str(last.get("label", "")),
              target=target.name if target is not None else None, test=bought, points=after.action_points,
              pending=rescue.purpose == "ataque" and target is not None and combat is not None)


def helper_bonus(ctx: Context, helper: Character | None, skill: str) -> tuple[tuple[str, int], ...]:
    """What a helper adds to first aid: the skill (without it, its attribute) and the worst wound penalty."""
    if helper is None:
        return ()
    return (sheet_bonus(helper.sheet, skill, SKILLS)[::-1], *wound_penalty(load(ctx, helper)))


def stabilize_by_point(ctx: Context, target: Character, payer: Character, stable: ReinoCharacter) -> None:
    combat = ctx.room.combat
    if name_key(payer.name) == name_key(target.name):
        paid = spend_action_point(load(ctx, target))
        save(target, combat, stabilize(paid, round_of(combat)))
    else:
        save(payer, combat, spend_action_point(load(ctx, payer)))
        save(target, combat, stable)
    ctx.reply("reino/table_stabilize", name=target.name, helper=payer.name, roll=None)
