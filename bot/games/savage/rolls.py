"""Savage Worlds rolls from the sheet and the table's state.

``/tiro Disparar vs 6 cobertura media`` rolls the sheet's Disparar die (d4 -2 without the skill);
``/tiro Pelear contra Orco`` uses the Orco's Parry as the TN; ``/tiro d8 vs 4`` stays an expression.
Either way, unless the roll says ``sin estado``, the bot adds what the table knows: wounds (less
Nervios de acero), fatigue, the joker's +2 while the actor holds one, the multi-action penalty
declared this turn (``acciones N``), and the wild die only for Wild Cards. A Shaken character rolls
nothing but what the state itself requires (Spirit to recover, soak, Vigor).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.core.api import (
    Character,
    Context,
    RollRequest,
    SheetRoll,
    find_field,
    name_key,
    opponent,
    require_roller_up,
    shown_name,
    stamp,
    vocab,
)
from bot.games.savage.flow import has_joker, mark_recovery, recovery_rolled
from bot.games.savage.grammar import ROF_WORDS
from bot.games.savage.sheet import (
    ATTRIBUTES,
    SKILLS,
    group_of,
    nerves_of,
    normal_die,
    parry_of,
    savage_of,
    sheet_die,
    store,
)
from systems.dice import MAX_TEXT, DiceError
from systems.refusal import Refusal
from systems.savage import SYSTEM
from systems.savage.rules import SUCCESSES, ammo_for_rof
from systems.savage.state import recover_at_turn_start
from systems.savage.syntax import DECLARED_ACTIONS, actions_said, fold, parse_savage
from systems.savage.table import TableState, Toughness, with_table

UNTRAINED = "d4"
RANGED_WORDS = ("distancia", "disparo", "proyectil", "ranged")
DEFAULT_RANGED_TN = 4
MAX_ACTIONS = 3
ACTIONS_KEY = "_acciones"
"""Sheet key of the actions of the character's combat turn: ``{"stamp", "declared", "used"}`` (out of
combat, ``acciones N`` counts for that roll only)."""
ACTION_KINDS = frozenset({"trait", "rof", "support"})
"""Rolls that are an action of the turn (a soak, the recovery roll, Vigor and damage are not)."""
SHAKEN_ALLOWS = frozenset({"soak", "recovery", "incapacitation", "bleeding"})
"""What a Shaken character may still roll: what the state itself requires."""
ATTACK_SKILLS = frozenset({"pelear", "disparar", "atletismo"})
RANGED_SKILLS = frozenset({"disparar", "atletismo"})
_SUPPORT_VERBS = ("apoyar", "apoyo", "support")
SUPPORT_KEY = "_apoyos"
"""Sheet key of the supports waiting for the character's roll: ``[{"trait", "bonus", "started"}]``."""
GIVEN_KEY = "_apoyo_dado"
"""Sheet key of the helper's last support: ``{"stamp", "ally", "trait", "bonus"}``."""
REACTION_KEY = "_reaccion"
"""Sheet key of the reaction shot a ``!guardia fuego`` gave the character: ``{"stamp", "shot"}``."""
HIT_KEY = "_impacto"
"""Sheet key of the character's last attack that hit this turn: ``{"stamp", "target", "raise"}``."""


class SavageSheetRules:
    """The sheet's rolls; ``burst`` (``burst.py``'s ``with_damage``) follows a burst at named targets with
    its hits' damage."""

    def __init__(self, burst: Callable[[Context, Character, SheetRoll], SheetRoll] | None = None) -> None:
        self.burst = burst

    def roll(self, ctx: Context, request: RollRequest) -> SheetRoll | None:
        actor = request.actor
        made = self._roll(ctx, request)
        if made is not None and actor is not None and made.json.get("kind") == "recovery":
            recover(ctx, actor, made.json, request)
            made.changes_state = True
        if made is not None and actor is not None and self.burst is not None:
            made = self.burst(ctx, actor, made)
        return made

    def _roll(self, ctx: Context, asked: RollRequest) -> SheetRoll | None:
        actor, text, auto = asked.actor, asked.text, asked.auto
        words = text.split()
        if actor is not None and words and fold(words[0]) in _DAMAGE_VERBS and not _starts_with_dice(words[1:]):
            damage = weapon_damage(actor)
            if damage is None:
                raise Refusal("savage/table_error", code="no_weapon", name=actor.name)
            words = [words[0], damage, *words[1:]]
        prefix = words[:2] if len(words) > 2 and fold(words[0]) in ROF_WORDS and words[1].isdigit() else []
        prefix = words[:1] if len(words) > 1 and fold(words[0]) in _SUPPORT_VERBS else prefix
        words = words[len(prefix):]
        key, used = _leading_trait(ctx, words)
        words, helped = _helped(ctx, words, used) if prefix[:1] and fold(prefix[0]) in _SUPPORT_VERBS else (words, None)
        if key is not None and len(words) > used and normal_die(words[used]):
            key, used = None, 0  # a verb with its die (``espiritu d6``): the system's own syntax
        label = ""
        untrained = False
        if key is not None:
            if actor is None:
                raise Refusal("no_character")
            die = normal_die(str(actor.sheet.get(key, "")))
            if die is None:
                die = UNTRAINED
                untrained = key in SKILLS
            label = f"{shown_name(ctx.game, key)} {die}"
            recovering = not prefix and key == "espiritu" and actor is not None and savage_of(actor).shaken
            words = [*(["espiritu"] if recovering else []), die, *words[used:]]
        words, target = _against(ctx, key, [*prefix, *words])
        words, declaring = _declared_actions(words)
        text = " ".join(words)
        if actor is None or (key is None and not auto):
            text = " ".join([text, *([f"multi {declaring}"] if declaring and declaring > 1 else [])])
            return None if key is None else SheetRoll(ctx.system.roll(text, ctx.rng), label=label, replay=text)
        request = parse_savage(text)
        if request is None and key is None:
            return None
        kind = request.kind if request is not None else "dice"
        if kind == "recovery" and recovery_rolled(ctx, actor):
            raise Refusal("savage/table_error", code="recovered_already", name=actor.name,
                          bennies=savage_of(actor).bennies)
        if kind not in SHAKEN_ALLOWS:
            require_roller_up(ctx, asked, actor)
            if savage_of(actor).shaken:
                raise Refusal("savage/table_error", code="shaken_cannot_act", name=actor.name,
                              bennies=savage_of(actor).bennies)
        if kind == "rof" or (kind == "trait" and key == "disparar"):
            reaction_shot(ctx, actor, request.rof if request is not None else 1)
        declared = count_action(ctx, actor, declaring) if kind in ACTION_KINDS else declaring or 1
        if request is not None and (kind == "rof" or (kind == "trait" and key == "disparar")):
            spend_ammo(actor, ammo_for_rof(request.rof))
        if request is None:
            return SheetRoll(ctx.system.roll(text, ctx.rng), label=label, replay=text)
        extra = not savage_of(actor).wild_card and kind != "damage" and "extra" not in request.keywords
        table = TableState(unskilled=untrained, extra=extra)
        if auto:
            table = _with_state(ctx, actor, kind, request.keywords, declared, table)
            table = _carried_support(actor, key, table) if kind == "trait" else table
        replay = " ".join([text, *table.words()])
        if len(replay) > MAX_TEXT:  # ``!repetir`` rolls the replay again: it stays a text the resolver reads
            raise DiceError("too_long", limit=MAX_TEXT)
        outcome = SYSTEM.roll(with_table(request, table), ctx.rng)
        result = outcome.as_json()
        if helped is not None:
            give_support(ctx, actor, helped, int(result.get("bonus", 0)))
        reasons = table.reasons()
        applied = [(m["reason"], m["value"]) for m in result.get("modifiers", []) if m["reason"] in reasons]
        if table.unskilled and ("sin_entrenar", -2) not in applied:
            applied.append(("sin_entrenar", -2))
        if key in ATTACK_SKILLS and kind == "trait":
            note_hit(ctx, actor, target, result)
        return SheetRoll(outcome, applied, label, replay, shown=result)


def recover(ctx: Context, actor: Character, roll: dict[str, object], request: RollRequest | None = None) -> None:
    """A Spirit roll of a Shaken character is its recovery roll (as ``!recuperar``): success ends Shaken.
    ``request``: the roll's, whose vitality checks it shares."""
    savage = savage_of(actor)
    if savage.shaken:
        require_roller_up(ctx, request or RollRequest("", actor=actor), actor)
        after = recover_at_turn_start(savage, str(roll.get("outcome")))
        if after != savage:
            store(actor, after)
        mark_recovery(ctx, actor)


def _starts_with_dice(words: list[str]) -> bool:
    """``daño 2d6 ...`` or ``daño fue d8+d6``: the damage is given, not the sheet's."""
    first = fold(words[0]) if words else ""
    return bool(first) and (first[0].isdigit() or first.startswith(("d", "fue")))


def _leading_trait(ctx: Context, words: list[str]) -> tuple[str | None, int]:
    """A trait named at the start of the roll (``Disparar``, ``Conocimientos Generales``)."""
    for cut in range(min(len(words), 3), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in ATTRIBUTES or key in SKILLS:
            return key, cut
    return None, 0


def _against(ctx: Context, key: str | None, words: list[str]) -> tuple[list[str], Character | None]:
    """``contra NOMBRE``: what the rules judge the roll against. Fighting: the Parry; Shooting, Throwing
    (Atletismo) and a rate of fire: 4 (range, cover and light are modifiers); a damage roll: the
    Toughness (and whether the target is Shaken); a bare die: the Parry, as an attack; any other skill
    has no target number against a character and is refused. A number after ``contra`` stays a TN."""
    if not words:
        return words, None
    verb = fold(words[0])
    if not (normal_die(words[0]) or verb in ROF_WORDS or verb in _DAMAGE_VERBS):
        return words, None
    for i, word in enumerate(words):
        if fold(word) in vocab.AGAINST and i + 1 < len(words):
            target, used = opponent(ctx, words[i + 1:])
            if target is not None:
                return [*words[:i], *_judged_against(ctx, key, verb, target), *words[i + 1 + used:]], target
    return words, None


def _judged_against(ctx: Context, key: str | None, verb: str, target: Character) -> list[str]:
    if verb in _DAMAGE_VERBS:
        if "dureza" not in target.sheet:
            raise Refusal("savage/table_error", code="no_toughness", name=target.name)
        return toughness_words(target)
    if verb in ROF_WORDS or key in RANGED_SKILLS:
        return ["vs", str(DEFAULT_RANGED_TN)]
    if key is None or key == "pelear":
        return ["vs", str(parry_of(target))]
    raise Refusal("savage/table_error", code="no_tn_against", skill=shown_name(ctx.game, key), name=target.name)


def _helped(ctx: Context, words: list[str], used: int) -> tuple[list[str], tuple[Character, str] | None]:
    """``apoyar Persuadir a Kira Pelear``: after the helper's skill, the ally and the ally's trait
    (001: «debe especificar qué rasgo del aliado desea apoyar»); the words left are the roll's."""
    rest = words[used:]
    skip = 1 if rest and fold(rest[0]) in ("a", "al") else 0
    ally, named = ctx.room.leading_character(rest[skip:])
    if ally is None:
        return words, None
    trait, took = _leading_trait(ctx, rest[skip + named:])
    if trait is None:
        raise Refusal("savage/table_error", code="support_needs_trait", name=ally.name)
    said = " ".join(rest[:skip + named + took])
    return [*words[:used], *rest[skip + named + took:], f"({said})"], (ally, trait)


def give_support(ctx: Context, helper: Character, helped: tuple[Character, str], bonus: int) -> None:
    """The support's bonus waits on the ally's sheet for its next roll of that trait, until the end of
    the ally's turn (001: «desaparecen al final del turno del personaje ayudado»). The helper keeps
    what it gave, so a reroll of the support gives the better result instead."""
    ally, trait = helped
    helper.sheet[GIVEN_KEY] = {"stamp": stamp(ctx), "ally": ally.name, "trait": trait, "bonus": bonus}
    if bonus:
        started = stamp(ctx) is not None and in_turn(ctx, ally)
        ally.sheet[SUPPORT_KEY] = [*supports_of(ally), {"trait": trait, "bonus": bonus, "started": started}]


def regive_support(ctx: Context, helper: Character, bonus: int) -> None:
    """A rerolled support (``!repetir``) that came out better: the ally's bonus is the new one."""
    given = helper.sheet.get(GIVEN_KEY)
    ally = ctx.room.find_character(str(given.get("ally", ""))) if isinstance(given, dict) else None
    if ally is None or not isinstance(given, dict) or given.get("stamp") != stamp(ctx):
        return
    old = {"trait": given.get("trait"), "bonus": given.get("bonus")}
    kept = supports_of(ally)
    match = next((s for s in kept if {"trait": s.get("trait"), "bonus": s.get("bonus")} == old), None)
    if match is not None:
        kept.remove(match)
    ally.sheet[SUPPORT_KEY] = kept
    if not kept:
        ally.sheet.pop(SUPPORT_KEY)
    give_support(ctx, helper, (ally, str(given.get("trait"))), bonus)


def supports_of(character: Character) -> list[dict[str, object]]:
    kept = character.sheet.get(SUPPORT_KEY)
    return [s for s in kept if isinstance(s, dict)] if isinstance(kept, list) else []


def _carried_support(actor: Character, key: str | None, table: TableState) -> TableState:
    """The supports waiting for this trait, spent by this roll (the resolver caps them at +4 but for
    Strength)."""
    mine = [s for s in supports_of(actor) if key is not None and s.get("trait") == key]
    if not mine:
        return table
    actor.sheet[SUPPORT_KEY] = [s for s in supports_of(actor) if s not in mine]
    return replace(table, supports=tuple(int(str(s["bonus"])) for s in mine), strength=key == "fuerza")


def end_supports(character: Character, acting: bool) -> None:
    """At a turn's start: the acting character's supports now last to the end of this turn; anyone else's
    that had their turn are gone."""
    kept = [{**s, "started": True} if acting else s for s in supports_of(character) if acting or not s.get("started")]
    if kept:
        character.sheet[SUPPORT_KEY] = kept
    else:
        character.sheet.pop(SUPPORT_KEY, None)


def owe_reaction_shot(ctx: Context, shooter: Character) -> None:
    """A ``!guardia fuego``: the watcher's one reaction shot, made now by the GM."""
    shooter.sheet[REACTION_KEY] = {"stamp": stamp(ctx), "shot": False}


def reaction_shot(ctx: Context, actor: Character, rof: int) -> None:
    """A shot of the reaction a guard fired this turn: one, of a single bullet (000: «Y sólo puede ser un
    único disparo, sin ráfaga»)."""
    kept = actor.sheet.get(REACTION_KEY)
    if not isinstance(kept, dict) or kept.get("stamp") != stamp(ctx):
        return
    if kept.get("shot") or rof > 1:
        raise Refusal("savage/table_error", code="reaction_shot", name=actor.name, burst=rof > 1)
    actor.sheet[REACTION_KEY] = {**kept, "shot": True}


def spend_ammo(actor: Character, bullets: int) -> None:
    """A shot spends the weapon's ammunition when the sheet counts it (000: «Dependiendo de la cadencia de
    fuego del arma, se gasta un número determinado de balas»)."""
    if "municion" not in actor.sheet:
        return
    left = _int(actor.sheet["municion"])
    if left < bullets:
        raise Refusal("savage/table_error", code="no_ammo", name=actor.name, left=left, needed=bullets)
    actor.sheet["municion"] = left - bullets


def toughness_of(target: Character) -> Toughness:
    """What a damage roll against ``target`` is judged by: its Toughness, the armour in it, Shaken."""
    savage = savage_of(target)
    return Toughness(savage.toughness, _int(target.sheet.get("armadura")), savage.shaken)


def toughness_words(target: Character) -> list[str]:
    """``toughness_of`` as a roll's words (``Pelear contra Orco`` rolls ``... vs 5``)."""
    return toughness_of(target).words()


def note_hit(ctx: Context, actor: Character, target: Character | None, roll: dict[str, object]) -> None:
    """An attack that hit this turn (``target``, or None when it named none: an area, a TN given): its
    damage is the actor's player's to roll (``!daño``, ``!area``)."""
    if roll.get("outcome") in ("success", "raise"):
        actor.sheet[HIT_KEY] = {"stamp": stamp(ctx), "target": target.name if target else None,
                                "raise": roll.get("outcome") == "raise"}
    else:
        actor.sheet.pop(HIT_KEY, None)


def renote_hit(ctx: Context, actor: Character, previous: dict[str, Any], result: dict[str, Any]) -> None:
    """A benny's better attack roll (``!tiro Pelear contra Orco``, ``!repetir``): a miss turned hit is a hit
    whose damage ``!daño`` may roll; a hit whose damage is not rolled yet takes the new raise. A hit whose
    damage was rolled keeps it (000: «ni se puede gastar benis para influir en el resultado»)."""
    key, _ = _leading_trait(ctx, str(previous.get("label", "")).split())
    if key not in ATTACK_SKILLS or result.get("kind") != "trait" or result.get("outcome") not in SUCCESSES:
        return
    kept = actor.sheet.get(HIT_KEY)
    owed = isinstance(kept, dict) and kept.get("stamp") == stamp(ctx)
    if owed or previous.get("outcome") not in SUCCESSES:
        note_hit(ctx, actor, ctx.room.find_character(str(previous.get("target") or "")), result)


def take_hit(ctx: Context, actor: Character | None, target: Character | None) -> bool | None:
    """The actor's hit this turn on ``target`` (a hit that named nobody serves any target, and an area
    attack: ``target`` None), spent by its damage: whether it was a raise, or None when there is none."""
    hit = actor.sheet.get(HIT_KEY) if actor is not None else None
    if actor is None or not isinstance(hit, dict) or hit.get("stamp") != stamp(ctx):
        return None
    aimed = hit.get("target")
    if aimed is not None and (target is None or name_key(str(aimed)) != name_key(target.name)):
        return None
    del actor.sheet[HIT_KEY]
    return bool(hit.get("raise"))


def _declared_actions(words: list[str]) -> tuple[list[str], int | None]:
    """``acciones N`` (``N acciones``, ``dos acciones``; 1 to 3) taken out of the roll's words, and N (None
    when not given). ``acciones N`` first: in ``vs 4 acciones 2``, the 4 is the TN's."""
    pairs = [(i, DECLARED_ACTIONS.fullmatch(f"{fold(w)} {fold(words[i + 1])}")) for i, w in enumerate(words[:-1])]
    said = sorted(((m[1] is None, i, m) for i, m in pairs if m is not None), key=lambda found: found[:2])
    if not said:
        return words, None
    _, i, match = said[0]
    digits = actions_said(match)
    count = int(digits) if len(digits) <= 2 else MAX_ACTIONS + 1
    if not 1 <= count <= MAX_ACTIONS:
        raise Refusal("savage/table_error", code="bad_actions", limit=MAX_ACTIONS)
    return [*words[:i], *words[i + 2:]], count


def count_action(ctx: Context, actor: Character, declaring: int | None) -> int:
    """One more action of the actor's turn; the actions it declared (001: «Es necesario declarar todas
    las acciones ... antes de que empiecen a rodar los dados»). ``acciones N`` goes with the turn's first
    roll; an action beyond those declared is refused. Out of combat, or out of the actor's turn (an
    opposed roll, a free action), nothing is counted and ``acciones N`` counts for that roll only."""
    now = stamp(ctx)
    if now is None or not in_turn(ctx, actor):
        return declaring or 1
    kept = actor.sheet.get(ACTIONS_KEY)
    turn = kept if isinstance(kept, dict) and kept.get("stamp") == now else None
    if turn is not None and declaring is not None and declaring != turn["declared"]:
        raise Refusal("savage/table_error", code="late_actions", name=actor.name, declared=turn["declared"])
    turn = turn or {"stamp": now, "declared": declaring or 1, "used": 0}
    if turn["used"] >= turn["declared"]:
        raise Refusal("savage/table_error", code="undeclared_action", name=actor.name, declared=turn["declared"],
                      limit=MAX_ACTIONS)
    actor.sheet[ACTIONS_KEY] = {**turn, "used": turn["used"] + 1}
    return int(turn["declared"])


def in_turn(ctx: Context, actor: Character) -> bool:
    """The actor acts on the current card: its own turn, or its group's."""
    current = ctx.room.find_character(ctx.room.combat.current or "") if ctx.room.combat else None
    return current is not None and group_of(current) == group_of(actor)


def _with_state(ctx: Context, actor: Character, kind: str, given: frozenset[str], declared: int,
                table: TableState) -> TableState:
    """The actor's state that the roll does not already give (``given``: the parsed roll's keywords; a
    comment gives none)."""
    savage = savage_of(actor)
    wounds = max(0, savage.wounds - nerves_of(actor))
    judged = kind != "damage"
    return replace(table, wounds=wounds if judged and "wounds" not in given else 0,
                   fatigue=savage.fatigue if judged and "fatigue" not in given else 0,
                   actions=declared if judged and declared > 1 and "multi" not in given else 0,
                   joker=has_joker(ctx, actor) and "joker" not in given)


def _int(value: object) -> int:
    try:
        return max(0, int(str(value)))
    except ValueError:
        return 0


def weapon_damage(character: Character) -> str | None:
    """The sheet's weapon damage with ``fue`` read as the Strength die (``fue+d6`` -> ``d8+d6``)."""
    text = str(character.sheet.get("arma_dano", "")).strip().lower()
    if not text:
        return None
    return _STRENGTH.sub(sheet_die(character, "fuerza") or UNTRAINED, text)


_STRENGTH = re.compile(r"\bfue(?:rza)?\b")
_DAMAGE_VERBS = ("dano", "danio", "damage")


def weapon_is_ranged(character: Character) -> bool:
    return fold(str(character.sheet.get("arma_tipo", ""))) in RANGED_WORDS
