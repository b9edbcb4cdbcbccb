"""The stormbringer table's combat hooks (``bot/core/combat.py`` calls them; commands in ``commands.py``).

A 12-second round: statement of intent from the lowest DEX up, then missile attacks and
melee attacks, each from the highest DEX down. ``combat.order`` first holds the declarers (the
intent stage: each declares on their turn); after the last one, the attack phases (missile,
melee, then those without a weapon), with -5 DEX for whoever declared a change of weapon
(``!arma``). Both are worked out again from the sheets at each new round, when the per-round
attack and parry counters are emptied.
"""

from __future__ import annotations

import re
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
    can_act,
    drop_dead,
    explainer,
    first_time,
    name_key,
    place_late,
    target_named,
)
from bot.games.stormbringer import sheet as sh
from bot.games.stormbringer import state as st
from bot.games.stormbringer.actions import Weapon, able, open_blow, refuse
from bot.games.stormbringer.rolls import skill_value
from systems.dice import DiceExpr
from systems.stormbringer.combat import WEAPON_HIT_POINTS, weapon_survives_critical
from systems.stormbringer.resolver import skill_request
from systems.stormbringer.rules import DefenceEffect
from systems.stormbringer.syntax import DamageRequest, Scanner, weapon_damage

MAX_VICTIMS = 20
STUN_ROUNDS = 25
"""«no podrá combatir durante por lo menos cinco minutos»: 25 rounds of 12 seconds."""
_AGAINST = re.compile(r" (?:contra|vs\.?) ", re.IGNORECASE)
"""Split on whitespace-normalised text: single spaces keep it linear in the text's length."""
RIPOSTE_WORDS = ("respuesta", "replica")


def announce_phases(ctx: Context, combat: Combat, round_number: int, name_players: bool = False) -> None:
    """The round's phases from the sheets; the turns start with the declarations of intent.
    ``name_players``: the message names each declarer's player (the fight's first round; later the
    round's order line does), since the declarations then pass as ✅ (``turns_listed``)."""
    phases = st.order_round(ctx, combat, round_number)
    acting = set(phases.missile) | set(phases.melee)
    missing = [c.name for c in ctx.room.characters.values()
               if c.name in combat.order and "des" not in c.sheet]
    rest = [n for n in combat.order if n not in acting]
    st.begin_intent(combat, phases)
    owners = {c.name: c.owner for c in (ctx.room.find_character(n) for n in phases.intent)
              if name_players and c is not None and c.owner and not ctx.sheet_is_gms(c)}
    ctx.announce("stormbringer/table_phases", mentions=tuple(dict.fromkeys(owners.values())), round=round_number,
                 phases=phases, rest=rest, missing=missing, owners=owners, first=explainer(ctx))


def begin_actions(ctx: Context, combat: Combat) -> None:
    """After the last declaration: the attack phases, announced (in short when they are the ones the
    round's start announced); the caller starts their first turn."""
    announced = st.StormbringerState.of(combat).plan.phases
    phases = st.begin_actions(ctx, combat)
    ctx.announce("stormbringer/table_actions", round=combat.round, phases=phases, announced=announced == phases.to_dict(),
                 rest=[n for n in combat.order if n not in (*phases.missile, *phases.melee)],
                 changing=[n for n in combat.order if name_key(n) in st.StormbringerState.of(combat).marks.changing],
                 first=explainer(ctx))


def condition_label(ctx: Context, code: str, **params: object) -> str:
    return ctx.renderer.text("stormbringer/table_condition", code=code, **params)


class StormbringerCombat(CombatRules):
    def initiative(self, ctx: Context, combat: Combat) -> None:
        st.StormbringerState.of(combat).start()
        announce_phases(ctx, combat, 1, name_players=True)

    def new_round(self, ctx: Context, combat: Combat) -> None:
        state = st.StormbringerState.of(combat)
        state.new_round()
        st.close_round_blows(combat)
        st.prune_surprise(combat)
        if st.ordered_by_hand(combat):
            state.plan.drop_worked_out()
        else:
            announce_phases(ctx, combat, combat.round)

    def turn_start(self, ctx: Context, combat: Combat, actor: Character) -> None:
        st.StormbringerState.of(combat).exchanges.riposte = None
        labels = self._limit_labels(ctx, combat, actor)
        if labels:
            ctx.announce("stormbringer/table_turn", actor=actor.name, labels=labels)
        if st.declaring(combat) and first_time(ctx, "intent"):   # told once a fight: the phases say it
            ctx.announce("stormbringer/table_intent", actor=actor.name)

    def turns_listed(self, ctx: Context, combat: Combat) -> bool:
        """The declarations of intent: the round's message named their order and players (issue 30); not
        the turn of one who joined after it (issue 31 item 13: its DES may have moved it since)."""
        plan = st.StormbringerState.of(combat).plan
        return st.declaring(combat) and combat.current is not None and plan.named(combat.current)

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
            place_late(combat, character.name, [*combat.order, character.name])
            return None
        phases, ideal = st.round_order(ctx, combat, [*combat.order, character.name], max(combat.round, 1))
        place_late(combat, character.name, phases.intent if st.declaring(combat) else ideal)
        st.StormbringerState.of(combat).plan.worked_out(phases, combat.order)
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
                 for b in st.StormbringerState.of(combat).exchanges.blows_seen() if b["landed"]]
        riposte = st.StormbringerState.of(combat).exchanges.riposte
        if riposte is not None:
            items.append(Pending("riposte", riposte["by"], "ataque", target=riposte["against"]))
        return items

    def leave(self, ctx: Context, combat: Combat, name: str) -> None:
        """Out of the order worked out from the sheets too, so it stays theirs."""
        order = st.StormbringerState.of(combat).plan.order
        if order is not None and name in order:
            order.remove(name)
        if st.declaring(combat) and combat.order and st.last_declarer(ctx, combat, after=0):
            begin_actions(ctx, combat)   # the last declarer left: the attacks start, not a new round
            combat.turn = 0

    def ties(self, ctx: Context, combat: Combat) -> list[list[str]]:
        """Two of one side with the same DES, still to declare or attack: the rules order only the sides
        (alternating each round), so the GM orders them (``!orden``), once for the fight."""
        return st.ties(ctx, combat)

    def settle_tie(self, ctx: Context, combat: Combat, name: str) -> None:
        st.settle_tie(ctx, combat, name)

    def sheet_edited(self, ctx: Context, character: Character, values: dict[str, Any]) -> None:
        """``aturdido no`` (or ``sí``): the GM lifts (or sets) a stun, said to the room; a DES set on one
        still to act moves it to its DES slot (of the declarations, or of the attacks)."""
        combat = ctx.room.combat
        if "aturdido" in values:
            set_stun(ctx, combat, character, character.sheet.pop("aturdido") == "sí")
        if "des" in values and combat is not None and combat.started and not st.ordered_by_hand(combat):
            st.reslot(ctx, combat, character.name)

    def _limit_labels(self, ctx: Context, combat: Combat, actor: Character) -> list[str]:
        """Labels for what the actor may not do now (stunned, surprised)."""
        if st.stunned(combat, actor.name):
            return [condition_label(ctx, "stunned", since=st.stun_since(combat, actor.name),
                                    lasted=st.stun_rounds(combat, actor.name), rounds=STUN_ROUNDS)]
        limits = st.limits(combat, actor.name)
        if limits == st.NORMAL:
            return []
        return [condition_label(ctx, "surprised", limits=limits, left=st.surprise_left(combat, actor.name))]


def set_stun(ctx: Context, combat: Combat | None, character: Character, stunned: bool) -> None:
    """The GM's ``!ficha NOMBRE aturdido no|sí`` in a fight: the stun lifted (with how long it lasted) or
    set, announced; refused outside a fight or when nothing would change."""
    if combat is None or not combat.started:
        raise refuse("stun_no_fight", name=character.name)
    if st.stunned(combat, character.name) == stunned:
        raise refuse("stun_unchanged", name=character.name, stunned=stunned)
    if stunned:
        st.stun(combat, character.name)
        ctx.announce("stormbringer/table_stun", name=character.name, stunned=True, lasted=0)
        declarer_fell(ctx, combat, character)
        return
    lasted = st.lift_stun(combat, character.name)
    ctx.announce("stormbringer/table_stun", name=character.name, stunned=False, lasted=lasted)


def attacking(ctx: Context, combat: Combat, words: list[str]) -> Character:
    """Who attacks: the player's character; for the GM, the combatant whose turn it is, or for a
    riposte (``respuesta``) the master who has just parried."""
    if not ctx.is_gm():
        return ctx.own_character()
    pending = st.StormbringerState.of(combat).exchanges.riposte
    if pending and any(name_key(w) in RIPOSTE_WORDS for w in words):
        return ctx.character_named(pending["by"])
    return ctx.character_named(combat.current or "")


def riposte_target(ctx: Context, combat: Combat, attacker: Character, target: Character | None) -> Character:
    """Out of turn, the grant a master's successful parry gives covers only the riposte: an attack by
    that master on the attacker just parried."""
    pending = st.StormbringerState.of(combat).exchanges.riposte
    if not pending or name_key(pending["by"]) != name_key(attacker.name):
        raise refuse("riposte_only", name=attacker.name, against=None)
    against = ctx.character_named(pending["against"])
    if target is not None and target is not against:
        raise refuse("riposte_only", name=attacker.name, against=against.name)
    return against


DEFENCE_WORDS = ("parada", "escudo", "esquiva")
"""The skills a parry or a dodge names."""


def defender_and_blow(ctx: Context, combat: Combat, args: str, action: str) -> tuple[Character, list[str], dict]:
    """Who defends (the player's character; for the GM a named one or the blow's target) and the
    latest blow of the round at them still to be defended."""
    named, words = target_named(ctx.room, args.split(), lambda words: _defence_reads(action, words))
    if ctx.is_gm():
        blow = open_blow(ctx, combat, named)
        defender = named or (ctx.room.find_character(blow["target"]) if blow["target"] else None)
        if defender is None:
            raise refuse("who_defends")
    else:
        defender = ctx.own_character()
        if named is not None and named is not defender:
            raise Refusal("not_your_character", name=named.name)
        blow = open_blow(ctx, combat, defender)
    able(combat, defender, action)
    return defender, words, blow


def _defence_reads(action: str, words: list[str]) -> bool:
    """Whether a parry's or dodge's words start with what it reads after a name (its skill, its options)."""
    if name_key(words[0]) in (*DEFENCE_WORDS, *sh.WEAPON_SKILLS):
        return True
    try:
        skill_request(action, " ".join(words), 1)
    except Refusal:
        return False
    return True


def settle_blow(blow: dict, defender: Character, stops: bool) -> None:
    blow.update(target=defender.name, defended=True, landed=not stops)


def parrying_weapon(defender: Character, skill: str | None) -> Weapon:
    """``escudo`` parries with the shield (``arma2`` when that is the shield); else the weapon in hand."""
    field = "arma2" if skill == "escudo" and sh.weapon_kind(defender, "arma2") == "shield" else "arma"
    return Weapon(field, "shield" if skill == "escudo" else sh.weapon_kind(defender, field), "parry")


def break_weapons(ctx: Context, blow: dict, defender: Character, weapon: Weapon, effect: DefenceEffect,
                  parried: bool) -> list[str]:
    """Weapons a parry breaks, recorded on the sheets (``arma_rota``): a critical parry breaks the
    attacking weapon, a critical parried by a critical destroys both; a critical parried by a plain
    success waits for its damage to decide whether the parrying weapon holds."""
    attacker = ctx.room.find_character(blow["attacker"])
    broken = []
    if attacker is not None and (effect.attacker_weapon_breaks or effect.both_weapons_destroyed) \
            and break_weapon(attacker, blow["field"]):
        broken.append(attacker.name)
    if effect.both_weapons_destroyed:
        if break_weapon(defender, weapon.field):
            broken.append(defender.name)
    elif blow["critical"] and parried:
        blow["parried_with"] = weapon.field
    return broken


def break_weapon(character: Character, field: str) -> bool:
    """The weapon in ``field`` breaks (``arma_rota`` on the sheet); False when it was broken already (a
    blow of it still open): it is not broken, nor told, twice."""
    if sh.yes(character, f"{field}_rota"):
        return False
    character.sheet[f"{field}_rota"] = "sí"
    return True


def sheet_damage(ctx: Context, blow: dict) -> DamageRequest:
    """The attacker's sheet damage for a landed blow: its weapon's (``daño``, or ``daño2`` for a blow of
    the second weapon when the sheet has it) and ``bf``; without one, refused."""
    attacker = ctx.room.find_character(blow["attacker"]) if blow else None
    field = "arma2_dano" if attacker is not None and blow.get("field") == "arma2" and "arma2_dano" in attacker.sheet \
        else "dano"
    if attacker is None or field not in attacker.sheet:
        return weapon_damage("", None)
    bonus = attacker.sheet.get("bf")
    return weapon_damage(str(attacker.sheet[field]), str(bonus) if bonus else None)


def sheet_armour(target: Character) -> DiceExpr:
    """The armour on ``target``'s sheet (``armadura``: dice or points)."""
    return Scanner(str(target.sheet["armadura"])).dice_or_constant()


def declarer_fell(ctx: Context, combat: Combat, character: Character) -> None:
    """The last to declare, just stunned or killed on their declaring turn: the round goes on to its
    attacks (left to the core, the turn would pass to a new round)."""
    if (st.declaring(combat) and combat.current == character.name and not can_act(ctx, character.name)
            and st.last_declarer(ctx, combat)):
        drop_dead(ctx, combat)
        start_actions(ctx, combat)


def start_actions(ctx: Context, combat: Combat) -> None:
    begin_actions(ctx, combat)
    advance(ctx, combat)


def parrying_weapon_breaks(target: Character, blow: dict, rolled: int) -> bool:
    """A critical parried with a plain success: the parrying weapon breaks when the damage it took
    (``rolled``, doubled) is more than its points (``arma_pv``, 20 by default)."""
    field = blow.get("parried_with")
    if not isinstance(field, str):
        return False
    if weapon_survives_critical(rolled, sh.sheet_int(target, f"{field}_pv", WEAPON_HIT_POINTS)):
        return False
    return break_weapon(target, field)


def record_wounds(combat: Combat, target: Character, major: bool | None, stunned: bool) -> None:
    if major:
        st.add_wound(combat, target.name, "major")
    if stunned:
        st.stun(combat, target.name)


def mark_experience(ctx: Context, blow: dict) -> None:
    """A blow that hit and was not parried marks the attacker's skill for experience."""
    attacker = ctx.room.find_character(blow["attacker"])
    if attacker is not None and blow["skill"]:
        sh.set_marks(attacker, [*sh.marks(attacker), blow["skill"]])


def victims(ctx: Context, text: str) -> list[Character]:
    """Names split by commas, or by spaces matching the longest known names first."""
    found: list[Character] = []
    parts = [p.strip() for p in text.split(",")] if "," in text else [text]
    for part in parts:
        words = part.split()
        while words:
            character, words = ctx.split_name(" ".join(words))
            found.append(character or ctx.character_named(part))
    if not found or len(found) > MAX_VICTIMS:
        raise refuse("bad_victims")
    return list({c.name: c for c in found}.values())


def split_against(text: str) -> list[str]:
    """``JEFE contra VÍCTIMAS``: the two sides (one part when there is no ``contra``/``vs``)."""
    return _AGAINST.split(" ".join(text.split()), maxsplit=1)


def ambushers(ctx: Context, text: str) -> list[tuple[str | None, str, int | None]]:
    """``JEFE`` / ``A, B`` (each with Emboscada on the sheet) or one percentage: (name, the percentage
    typed, the sheet's) each."""
    words = text.split()
    if len(words) == 1 and words[0].rstrip("%").isdigit():
        return [(None, words[0], None)]
    return [(c.name, "", skill_value(c, [], "emboscada")[0]) for c in victims(ctx, text)]


def attacker_and_victim(ctx: Context, args: str) -> tuple[Character, Character]:
    parts = split_against(args)
    if len(parts) != 2:
        raise ctx.usage("indefenso")
    return ctx.character_named(parts[0].strip()), ctx.character_named(parts[1].strip())
