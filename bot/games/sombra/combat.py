"""Sistema Sombra's combat hooks (``bot/core/combat.py`` calls them): initiative by VEL then AGI, the
rounds' death thresholds and sinking boats, stun counted in the victim's turns, the status labels."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core.api import (
    Character,
    Combat,
    CombatRules,
    Context,
    Pending,
    Refusal,
    Vitality,
    explainer,
    joinable,
    place_late,
)
from bot.games.sombra.damage import apply_damage, boat_state, store_boat
from bot.games.sombra.rolls import roll_check
from bot.games.sombra.sheet import (
    CAPSIZED,
    DEAD,
    ENGINE,
    JAMMED,
    MAX_SKILL,
    THRESHOLD,
    bayonet_skill,
    bayonet_weapon,
    dodge_value,
    fighting_skill,
    require_fields,
    sheet_int,
    skill_word,
    table_of,
    weapon_for,
    wound_effect,
    wounds_of,
)
from bot.games.sombra.state import (
    DISADVANTAGE,
    DOWN,
    HELD,
    UNBALANCED,
    Aim,
    Aims,
    SombraState,
    round_state,
    set_state,
    state_of,
    state_penalty,
)
from systems.sombra.damage import DamageResult, damage_from_dice, sinking_round
from systems.sombra.resolver import SombraCheck, SombraInitiative
from systems.sombra.rules import (
    BURST_SKILLS,
    FIREARM_SKILLS,
    OPPORTUNITY_INITIATIVE,
    PARRY,
    SECOND_SHOT,
    TOOK_AIM,
    TWO_HANDED_SKILLS,
    Attributes,
    Combatant,
    InitiativeSlot,
    Modifier,
    fight_winner,
    initiative_order,
    knockdown_penalty,
    shot_limit,
    shot_penalty,
    unarmed_difficulty,
)
from systems.sombra.syntax import AIM_MODIFIERS, LOCATION_WORDS, Clauses, parse_fire, plain, read_weapon


def _combatant(ctx: Context, name: str) -> tuple[Combatant, bool]:
    """The combatant for ``name`` and whether VEL/AGI were missing (the default 5 is used)."""
    character = ctx.room.find_character(name)
    combat = ctx.room.combat
    bonus = OPPORTUNITY_INITIATIVE if combat is not None and name in SombraState.of(combat).watching else 0
    if character is not None and table_of(character) == "barco":
        return Combatant.boat(name, bonus), False
    vel = sheet_int(character, "vel") if character else None
    agi = sheet_int(character, "agi") if character else None
    default = Attributes()
    return Combatant(name, default.vel if vel is None else vel, default.agi if agi is None else agi, bonus), \
        vel is None or agi is None


def _slots(ctx: Context, names: list[str]) -> list[InitiativeSlot]:
    """The initiative places of ``names`` by VEL, then AGI (full ties keep the order given)."""
    return initiative_order(_combatant(ctx, name)[0] for name in names)


class SombraCombat(CombatRules):
    """Initiative by VEL then AGI (ties flagged), stun counted in the victim's turns,
    sinking boats losing flotation each round, wounds and flotation on the status board."""


    def initiative(self, ctx: Context, combat: Combat) -> None:
        entries = [_combatant(ctx, name) for name in combat.order]
        slots = initiative_order(c for c, _ in entries)
        combat.order = [s.combatant.name for s in slots]
        state = SombraState.of(combat)
        state.settled = []
        state.ties = _tied(state, slots)
        state.by_initiative = True
        ctx.announce("sombra/table_initiative", roll=SombraInitiative(slots),
                     defaults=[c.name for c, missing in entries if missing])

    def new_round(self, ctx: Context, combat: Combat) -> None:
        _count_thresholds(ctx, combat)
        state = SombraState.of(combat)
        if state.by_initiative:
            slots = _slots(ctx, combat.order)
            combat.order = [s.combatant.name for s in slots]
            state.ties = _tied(state, slots)
        for name in combat.order:
            character = ctx.room.find_character(name)
            if character is None or table_of(character) != "barco" or sheet_int(character, "flotabilidad") is None:
                continue
            before = boat_state(character)
            after = sinking_round(before)
            if after != before:
                store_boat(character, after)
                ctx.announce("sombra/table_sinking", name=name, lost=before.flotation - after.flotation,
                             state=after)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        state = SombraState.of(combat)
        stun = state.stun_counts()
        previous = state.last_turn
        fresh = state.stun_fresh
        if previous in fresh:
            fresh.remove(previous)
        elif previous in stun:
            stun[previous] -= 1
            if stun[previous] <= 0:
                del stun[previous]
        held = state.manoeuvre(previous) if previous is not None else None
        if held and held["kind"] != HELD:
            if held["fresh"]:
                held["fresh"] = False
            else:
                state.end_manoeuvre(str(previous))
        aim = Aims(combat).of(previous) if previous is not None else None
        if aim is not None:  # the turn spent aiming ends; the next one, shot or not, uses the aim up
            if aim["fresh"]:
                aim["fresh"] = False
            else:
                Aims(combat).end(str(previous))
        state.last_turn = actor.name
        player_run = bool(actor.owner) and not ctx.sheet_is_gms(actor)
        if player_run and (actor.name in stun or wound_effect(actor).fallen):
            # Issue 30: a reminder for whoever plays the actor; the room read the stun or the fall when it
            # happened, and a GM-run actor's attack says it is stunned (the screen lists both).
            ctx.announce("sombra/table_turn", name=actor.name, stun=stun.get(actor.name, 0))

    def conditions(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        """Rendered once for everyone: a GM-owned sheet's wounds without their points (its Resistir dolor)."""
        hide = ctx.sheet_is_gms(actor)
        return [ctx.renderer.text("sombra/table_condition", l=label, hide=hide)
                for label in status_labels(ctx, combat, actor)]

    def join(self, ctx: Context, combat: Combat, character: Character) -> str | None:
        """Placed by VEL, then AGI, among those still to act; in an order set by hand, last."""
        names = [*combat.order, character.name]
        state = SombraState.of(combat)
        if not state.by_initiative:
            place_late(combat, character.name, names)
            return None
        slots = _slots(ctx, names)
        place_late(combat, character.name, [s.combatant.name for s in slots])
        state.ties = _tied(state, slots)
        if ctx.sheet_is_gms(character):
            return None
        mine, missing = _combatant(ctx, character.name)
        return ctx.renderer.text("sombra/table_join", c=mine, defaulted=missing)

    def ties(self, ctx: Context, combat: Combat) -> list[list[str]]:
        """Who tied on VEL and AGI and is still to be placed by the GM, group by group in the order."""
        tied = SombraState.of(combat).ties
        slots = [s for s in _slots(ctx, combat.order) if s.combatant.name in tied]
        groups: dict[int, list[str]] = {}
        for slot in slots:
            groups.setdefault(slot.rank, []).append(slot.combatant.name)
        return [names for names in groups.values() if len(names) > 1]

    def settle_tie(self, ctx: Context, combat: Combat, name: str) -> None:
        state = SombraState.of(combat)
        state.settled = [*state.settled, name]
        state.ties = [n for n in state.ties if n != name]

    def pending(self, ctx: Context, combat: Combat) -> list[Pending]:
        """Who is held and may struggle (``!forcejeo``), and who counts down a death threshold until
        healed (``!curar``), with the rounds left."""
        state = SombraState.of(combat)
        held = [Pending("held", name, "forcejeo", target=mark["by"])
                for name, mark in state.marked().items() if mark["kind"] == HELD]
        dying = [Pending("threshold", name, "curar", amount=left) for name, left in thresholds(ctx, combat).items()]
        return held + dying

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        state = SombraState.of(combat)
        state.ties = [n for n in state.ties if n != name]
        state.end_stun(name)
        state.end_manoeuvre(name)
        state.end_threshold(name)
        Aims(combat).end(name)

    def vitality(self, ctx: Context, character: Character) -> Vitality:
        """The rules give people no hit points: the GM marks the dying (``!ficha NOMBRE umbral sí``) and the
        dead (``!ficha NOMBRE muerto 1``)."""
        if sheet_int(character, DEAD):
            return "dead"
        return "up" if wound_effect(character).can_act and not sheet_int(character, THRESHOLD) else "down"


def _tied(state: SombraState, slots: list[InitiativeSlot]) -> list[str]:
    """Who tied in ``slots`` and was not placed by the GM yet."""
    return [s.combatant.name for s in slots if s.tied and s.combatant.name not in state.settled]


def _dying(ctx: Context, combat: Combat) -> list[Character]:
    """The combatants the GM marked dying (``umbral``) and not dead yet, in the order."""
    found = (ctx.room.find_character(name) for name in combat.order)
    return [c for c in found if c is not None and sheet_int(c, THRESHOLD) and not sheet_int(c, DEAD)]


def threshold_rounds(character: Character) -> int:
    """The death threshold's length: VIT rounds (004: «Umbral Mortal (vit)»); 5, the default, without VIT."""
    vit = sheet_int(character, "vit")
    return Attributes().vit if vit is None else vit


def thresholds(ctx: Context, combat: Combat) -> dict[str, int]:
    """The rounds left to each dying combatant: counted since the first new round after the GM's mark."""
    counted = SombraState.of(combat).thresholds
    return {c.name: counted.get(c.name, threshold_rounds(c)) for c in _dying(ctx, combat)}


def _count_thresholds(ctx: Context, combat: Combat) -> None:
    """Each new round, one round of the death threshold (VIT) of who the GM marked dying; at 0 they die.
    No wound starts it: 004 gives it to who reached 0 hit points, and gives people none."""
    state = SombraState.of(combat)
    before = dict(state.thresholds)
    counts = state.counted_thresholds()
    counts.clear()
    for character in _dying(ctx, combat):
        left = before.get(character.name, threshold_rounds(character)) - 1
        if left > 0:
            counts[character.name] = left
        else:
            del character.sheet[THRESHOLD]
            character.sheet[DEAD] = 1
        ctx.announce("sombra/table_threshold", name=character.name, left=max(left, 0))


def status_labels(ctx: Context, combat: Combat | None, actor: Character) -> list[dict[str, Any]]:
    fight = SombraState.of(combat) if combat else None
    labels: list[dict[str, Any]] = []
    stun = fight.stunned(actor.name) if fight else 0
    if stun:
        labels.append({"kind": "stunned", "turns": stun})
    if sheet_int(actor, THRESHOLD) and not sheet_int(actor, DEAD):
        # The rounds left are VIT counted down: an NPC's stay the GMs' (the round's notice tells them).
        rounds = fight.thresholds.get(actor.name, threshold_rounds(actor)) if fight else threshold_rounds(actor)
        labels.append({"kind": "threshold", "rounds": rounds, "secret": ctx.sheet_is_gms(actor)})
    aim = Aims(combat).of(actor.name) if combat else None
    if aim is not None:
        labels.append({"kind": "aiming", "location": LOCATION_WORDS[aim["location"]][1] if aim["location"] else None})
    held = fight.manoeuvre(actor.name) if fight else None
    if held:
        labels.append({"kind": "state", "state": held["kind"], "by": held.get("by")})
    labels += [{"kind": "wound", "location": loc, **w} for loc, w in sorted(wounds_of(actor).items())]
    effect = wound_effect(actor)
    for flag in ("unconscious", "helpless", "fallen", "half_movement"):
        if getattr(effect, flag):
            labels.append({"kind": flag, "hours": effect.unconscious_hours})
    labels += [{"kind": "arm_useless", "arm": arm} for arm in sorted(effect.useless_arms)]
    labels += [{"kind": flag} for flag in (JAMMED, CAPSIZED) if sheet_int(actor, flag)]
    if sheet_int(actor, ENGINE) == 0:
        labels.append({"kind": "adrift"})
    if effect.penalty:
        labels.append({"kind": "penalty", "value": effect.penalty})
    if table_of(actor) == "barco" and sheet_int(actor, "flotabilidad") is not None:
        state = boat_state(actor)
        labels.append({"kind": "boat", "flotation": state.flotation, "sinking": state.sinking, "sunk": state.sunk})
    return labels


CHARGE, BAYONET_STANDING, FIXED_BAYONET, ESCAPES = -2, 5, 1, 2
MANEUVERS = ("derribar", "placar", "apresar", "carga")


KNOCKDOWN_SCALE = 3
"""An attribute (1-10) rolled as a check counts three times (the rules' checks go from 3 to 30)."""


def attacker_of(ctx: Context) -> Character | None:
    """A GM in a running combat attacks with the combatant whose turn it is; anyone else
    (or a GM outside combat) with their own character."""
    combat = ctx.room.combat
    if ctx.is_gm() and combat is not None and combat.started:
        return ctx.room.find_character(combat.current or "")
    return ctx.character


def taken_aim(ctx: Context, attacker: Character, options: list[str]) -> tuple[list[str], Aim | None]:
    """The aim an attack in a running combat uses, and its words without ``apuntando``: refused in the turn
    spent aiming; ``apuntando`` refused with a hint without a turn spent aiming (004: «un turno»), and left
    out with one (the aim counts by itself). Out of combat, with no turns to spend, the words stay as written."""
    combat = ctx.room.combat
    if combat is None or not combat.started:
        return options, None
    aim = Aims(combat).of(attacker.name)
    if aim is not None and aim["fresh"]:
        raise Refusal("sombra/table_aiming", name=attacker.name)
    if aim is None and any(plain(w) == "apuntando" for w in options):
        raise Refusal("sombra/table_aim_first", name=attacker.name)
    return [w for w in options if plain(w) != "apuntando"], aim


def fire_shots(ctx: Context, attacker: Character, target: Character, table: str, skill: str, weapon: str,
          options: list[str], aim: Aim | None = None) -> None:
    """Shots and bursts within the turn's rate of fire (in combat), one message per bullet; after a turn spent
    aiming the first bullet gets the -5 and, aimed at a location, the ``apuntado`` there (+2)."""
    fire = parse_fire(options)
    if fire.bullets is not None and skill not in BURST_SKILLS:
        raise Refusal("sombra/table_no_burst", name=attacker.name, skill=skill)
    if skill in FIREARM_SKILLS and sheet_int(attacker, JAMMED):
        raise Refusal("sombra/table_jammed", name=attacker.name)
    state = round_state(ctx.room.combat)
    second = False
    covering = False
    if state is not None and skill in FIREARM_SKILLS:
        fired = state["fire"].get(attacker.name) or {"shots": 0, "covering": False, "burst": False}
        covering = fired["covering"] or (fired["shots"] == 0 and fire.covering)
        limit = shot_limit(skill, covering)
        if fired["burst"] or fired["shots"] >= limit or (fire.bullets is not None and fired["shots"]):
            raise Refusal("sombra/table_rate_of_fire", name=attacker.name, skill=skill, covering=covering,
                          shots=fired["shots"], burst=fired["burst"])
        shot = fired["shots"] + 1
        state["fire"][attacker.name] = {"shots": shot, "covering": covering, "burst": fire.bullets is not None}
        second = bool(shot_penalty(shot))
    value = sheet_int(attacker, skill) or 0
    damage = read_weapon(weapon, sheet_int(attacker, "fue"))
    for bullet in range(1, (fire.bullets or 1) + 1):
        burst = fire.bullet_modifier(bullet) if fire.bullets else None
        aimed = aim if bullet == 1 and skill in FIREARM_SKILLS else None
        took = Modifier("apuntando", TOOK_AIM) if aimed is not None else None
        modifiers = [m for m in (Modifier("segundo", SECOND_SHOT) if second else None, burst, took) if m is not None]
        clauses = Clauses(modifiers, table=table, damage=damage)
        words = list(fire.rest)
        if aimed is not None and aimed["location"] and not any(plain(w) in AIM_MODIFIERS for w in words):
            words = ["apuntado", aimed["location"], *words]
        result, at, stunned = roll_check(ctx, attacker, value, " ".join(words), arms=skill in TWO_HANDED_SKILLS,
                                         clauses=clauses, extra=state_penalty(ctx, attacker))
        reports = apply_damage(ctx, target, table, result.damage) if result.damage else []
        jams = skill in FIREARM_SKILLS and result.outcome == "fumble"
        if jams:
            attacker.sheet[JAMMED] = 1
        ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill_word(skill), value=value,
                  aim=at, stunned=stunned, roll=result, reports=reports, after=after_blow(ctx, target, reports),
                  bullet=bullet if fire.bullets else None, bullets=fire.bullets, covering=fire.covering and covering,
                  melee=False, jams=jams, maneuver=None, first=explainer(ctx))
        if result.outcome in ("failure", "low_failure") and not reports:
            joinable(ctx, attacker)
        if jams:
            break


def dodge_difficulty(rival: Character) -> tuple[tuple[str, int], ...]:
    """The difficulty the rival's Esquivar gives a melee action (none when it is normal)."""
    value = unarmed_difficulty(dodge_value(rival))
    return (("esquiva", value),) if value else ()


def melee_damage(character: Character, weapon: str, result: SombraCheck, doubled: bool = False) -> DamageResult:
    """The blow of the winner of a fight, from its own dice (a critical does the maximum); a received
    charge that wins does double."""
    request = read_weapon(weapon, sheet_int(character, "fue"))
    dice = result.check.dice
    digit = dice.location if result.hit_digit is None else result.hit_digit
    damage = damage_from_dice(request.damage_type, dice, "persona", request.total_bonus,
                              maximum=result.check.level == "critical", first_digit=digit)
    if not doubled:
        return damage
    return replace(damage, hits=tuple(replace(h, damage=2 * h.damage) for h in damage.hits))


def melee(ctx: Context, attacker: Character, target: Character, skill: str, weapon: str,
           options: list[str], bayonet: bool, fixed: bool = False) -> None:
    """Both roll; the better result strikes. A declared dodge rolls Esquivar and a parry the fighting
    skill at -4: they only avoid the blow. A defender who cannot act (or is dying) does not roll. A manoeuvre
    (derribar, placar, apresar) replaces the blow; a bayonet charge strikes and knocks down."""
    words = [plain(w) for w in options]
    chosen = [m for m in MANEUVERS if m in words]
    if len(chosen) > 1:
        raise Refusal("sombra/table_one_maneuver", chosen=chosen)
    maneuver = chosen[0] if chosen else None
    options = [w for w in options if plain(w) != maneuver]
    if maneuver == "carga" and not bayonet:
        raise Refusal("sombra/table_charge_needs_bayonet", name=attacker.name)
    if maneuver in ("derribar", "carga"):
        require_fields(target, ("coo",))
    state = round_state(ctx.room.combat)
    stance = state["defence"].get(target.name) if state else None
    value = sheet_int(attacker, skill) or 0
    extra = dodge_difficulty(target) + state_penalty(ctx, attacker) + \
        _bayonet_modifiers(bayonet, fixed, maneuver, stance)
    attack, aim, stunned = roll_check(ctx, attacker, value, " ".join(options), arms=bayonet, extra=extra)
    ctx.reply("sombra/table_attack", attacker=attacker.name, target=target.name, skill=skill_word(skill),
              value=value, aim=aim, stunned=stunned, roll=attack, reports=[], after=[], bullet=None, bullets=None,
              covering=False, melee=True, jams=False, maneuver=maneuver, first=explainer(ctx))
    effect = wound_effect(target)
    defence: SombraCheck | None = None
    defender_skill, defender_value, defender_aim, defender_stunned = None, 0, 0, False
    if effect.can_act and not sheet_int(target, THRESHOLD) and state_of(ctx, target) is None and \
            (stance == "esquiva" or effect.arm_penalty(False) is not None):
        if stance == "esquiva":
            defender_value = dodge_value(target)
            defence, defender_aim, defender_stunned = roll_check(ctx, target, defender_value, arms=None,
                                                             extra=state_penalty(ctx, target))
        else:
            receiving = stance == "recepcion"
            defender_skill, defender_fixed = bayonet_skill(target) if receiving else \
                ("pelea" if stance == "parada" else fighting_skill(target), False)
            require_fields(target, (defender_skill,))
            defender_value = sheet_int(target, defender_skill) or 0
            parry = stance == "parada"
            clauses = Clauses([Modifier("parada", PARRY)]) if parry else None
            against = (() if parry else dodge_difficulty(attacker)) + _bayonet_modifiers(False, defender_fixed)
            defence, defender_aim, defender_stunned = roll_check(
                ctx, target, defender_value, arms=receiving, clauses=clauses,
                extra=against + state_penalty(ctx, target))
    winner = winner_of(attack, defence)
    struck, damage, reports, doubled = None, None, [], False
    if winner == 0 and maneuver in (None, "carga"):
        struck, damage = target, melee_damage(attacker, weapon, attack)
    elif winner == 1 and stance in (None, "recepcion") and defence is not None:
        doubled = stance == "recepcion" and maneuver == "carga"
        struck = attacker
        blade = bayonet_weapon(target) if stance == "recepcion" else weapon_for(target, defender_skill or "pelea")
        damage = melee_damage(target, blade, defence, doubled)
    if struck is not None and damage is not None:
        reports = apply_damage(ctx, struck, "persona", damage)
    outcome = maneuver_outcome(ctx, attacker, target, maneuver, winner == 0)
    winner_name = {0: attacker.name, 1: target.name}.get(winner)
    ctx.reply("sombra/table_defence", roll=defence, roller=target.name, attacker=attacker.name, defender=target.name,
              stance=stance, skill=skill_word(defender_skill) if defender_skill else None, value=defender_value,
              aim=defender_aim, stunned=defender_stunned,
              winner=winner_name, struck=struck.name if struck else None, damage=damage, reports=reports,
              after=after_blow(ctx, struck, reports) if struck else [], doubled=doubled, maneuver=maneuver,
              outcome=outcome, first=explainer(ctx))
    if winner == 0 and maneuver in ("derribar", "carga"):
        knockdown(ctx, attacker, target, attack)


def _bayonet_modifiers(bayonet: bool, fixed: bool, maneuver: str | None = None,
                       stance: str | None = None) -> tuple[tuple[str, int], ...]:
    """A bayonet's modifiers: fixed on another skill's weapon +1 (004: «con un penalizador de -1»); a charge
    -2 («+2 a la tirada», an advantage) unless received; standing still with the bayonet's own skill +5."""
    extra: tuple[tuple[str, int], ...] = (("bayoneta_calada", FIXED_BAYONET),) if fixed else ()
    if maneuver == "carga":
        return extra + ((("carga", CHARGE),) if stance != "recepcion" else ())
    return extra + ((("bayoneta_parado", BAYONET_STANDING),) if bayonet and not fixed else ())


def maneuver_outcome(ctx: Context, attacker: Character, target: Character, maneuver: str | None,
                      won: bool) -> str | None:
    """What a won (or a failed grab) manoeuvre leaves: the states it sets, named for the message."""
    if maneuver == "placar" and won:
        set_state(ctx, target, DOWN)
        set_state(ctx, attacker, DOWN)
        return "tackled"
    if maneuver == "apresar":
        if won:
            set_state(ctx, target, HELD, by=attacker.name)
            return "held"
        set_state(ctx, attacker, DISADVANTAGE)
        return "grab_failed"
    return None


def knockdown(ctx: Context, winner: Character, loser: Character, winning: SombraCheck) -> None:
    """The loser rolls Coordinación (3×COO) with the winner's low die as a penalty: a failure throws
    them down, a success leaves them unbalanced (+5 to their rolls)."""
    penalty = knockdown_penalty(winning.check)
    value = min(KNOCKDOWN_SCALE * (sheet_int(loser, "coo") or 0), MAX_SKILL)
    result, aim, stunned = roll_check(ctx, loser, value, arms=None, extra=(("dado_menor", penalty),))
    fell = not result.check.succeeded
    set_state(ctx, loser, DOWN if fell else UNBALANCED)
    ctx.reply("sombra/table_knockdown", roll=result, name=loser.name, value=value, aim=aim, stunned=stunned,
              fell=fell, first=explainer(ctx))


def winner_of(attack: SombraCheck, defence: SombraCheck | None) -> int:
    """0 the attacker, 1 the defender, -1 nobody (``systems.sombra.rules.fight_winner``)."""
    return fight_winner(attack.check, defence.check if defence is not None else None)


def after_blow(ctx: Context, target: Character, reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The target's state after a blow; a stun the blow just announced is not stated twice."""
    labels = status_labels(ctx, ctx.room.combat, target)
    if any(rep.get("stun") for rep in reports):
        labels = [label for label in labels if label["kind"] != "stunned"]
    return labels
