"""A burst's damage (``!tiro rof N Disparar objetivos A, B``): each hit rolls the weapon's damage (the
sheet's ``Daño``, at once; without one, the dice of the shooter's one ``!daño``) against its target, in
order (000: «los impactos de la cadencia irán en orden a los enemigos que hayas declarado y, en cuanto
uno muera o caiga, seguirán con el siguiente»). A hit that opens a Wild Card's soak stops
the burst there; the rest follows once that soak is answered (000: «Resuelve cada tirada de daño por
separado ... antes de pasar a la siguiente (incluyendo las tiradas de absorción gastando benis)»)."""

from __future__ import annotations

from functools import partial
from typing import Any

from bot.core.api import Character, Context, SheetRoll, name_key, stamp
from bot.games.savage.damage import damage_request, roll_damage
from bot.games.savage.flow import refuse, soak_state
from bot.games.savage.grammar import named
from bot.games.savage.rolls import weapon_damage
from bot.games.savage.sheet import savage_of
from bot.games.savage.state import SavageCombat

OWED_KEY = "_rafaga"
"""Sheet key of the shooter's burst whose damage its ``!daño`` rolls: ``{"stamp", "hits", "order"}``."""


def with_damage(ctx: Context, actor: Character, made: SheetRoll) -> SheetRoll:
    """A burst at named targets (``SavageSheetRules``' ``burst``) followed by its hits' damage."""
    if made.json.get("kind") != "rof" or not made.json.get("targets"):
        return made
    actor.sheet.pop(OWED_KEY, None)
    hits = _hits(made.json)
    if made.json.get("outcome") == "critical_failure" or not hits:
        return made
    burst = {"attacker": actor.name, "hits": hits, "order": list(made.json["targets"])}
    damage = weapon_damage(actor)
    if damage is None:  # the shooter's ``!daño`` rolls it (``fire_owed``)
        actor.sheet[OWED_KEY] = {"stamp": stamp(ctx), **burst}
        return made
    made.follow = partial(fire, ctx, {**burst, "damage": damage})
    made.changes_state = True
    return made


def _hits(burst: dict[str, Any]) -> list[list[Any]]:
    """A burst's hits as ``fire`` takes them: [target given to its die or None, with a raise]."""
    return [[shot["target"], bool(shot["raises"])] for shot in burst["shots"] if shot["hit"]]


def rerolled(ctx: Context, actor: Character, before: dict[str, Any], after: dict[str, Any]) -> None:
    """A burst at named targets that a benny bettered: the hits whose damage is rolled keep it (000: «ni se
    puede gastar benis para influir en el resultado»), the new ones roll theirs; a damage still owed to the
    shooter's ``!daño`` is the new result's."""
    if after.get("kind") != "rof" or not after.get("targets") or after["total"] <= before["total"]:
        return
    hits = _hits(after)
    owed = actor.sheet.get(OWED_KEY)
    if isinstance(owed, dict) and owed.get("stamp") == stamp(ctx):
        actor.sheet[OWED_KEY] = {**owed, "hits": hits}
        return
    new = hits[int(before["total"]):]
    burst = {"attacker": actor.name, "hits": new, "order": list(after["targets"])}
    damage = weapon_damage(actor)
    if damage is None:
        actor.sheet[OWED_KEY] = {"stamp": stamp(ctx), **burst}
        return
    combat = ctx.room.combat
    waiting = SavageCombat.of(combat).burst if combat is not None else None
    fire(ctx, {**burst, "damage": damage, "hits": [*(waiting or {}).get("hits", []), *new]})


def fire_owed(ctx: Context, said: str) -> bool:
    """``!daño DADOS`` (or ``!daño OBJETIVO DADOS``, one of the burst's targets) of a shooter whose burst
    this turn hit and has no weapon damage on the sheet: every hit's damage, in the declared order, so
    nobody types them one by one; False when the acting character owes no such burst."""
    shooter = ctx.acting_character()
    owed = shooter.sheet.get(OWED_KEY) if shooter is not None else None
    if shooter is None or not isinstance(owed, dict) or owed.get("stamp") != stamp(ctx):
        return False
    target, dice = named(ctx, said)
    if target is not None and name_key(target.name) not in {name_key(n) for n in owed["order"]}:
        return False
    dice = dice if target is not None else said
    if damage_request(dice).with_raise:
        raise refuse("burst_raise")
    del shooter.sheet[OWED_KEY]
    fire(ctx, {"attacker": shooter.name, "damage": dice, "hits": owed["hits"], "order": owed["order"]})
    return True


def fire(ctx: Context, burst: dict[str, Any]) -> None:
    """The burst's hits, one damage roll each, until none is left or one opens a soak (then the rest
    waits in the combat's data for ``resume``)."""
    attacker = ctx.room.find_character(str(burst["attacker"]))
    hits: list[list[Any]] = list(burst["hits"])
    while hits:
        target = _target(ctx, hits[0][0], burst["order"])
        if target is None:
            hits.pop(0)
            continue
        if soak_state(ctx, target) == "open":
            break
        _, raised = hits.pop(0)
        roll_damage(ctx, target, str(burst["damage"]), attacker, raised=bool(raised))
        if soak_state(ctx, target) == "open":
            break
    combat = ctx.room.combat
    if combat is not None:
        state = SavageCombat.of(combat)
        state.burst = {**burst, "hits": hits} if hits else None
        state.save(combat)


def resume(ctx: Context) -> None:
    """The rest of a burst a soak held back, once no soak is open any more."""
    combat = ctx.room.combat
    state = SavageCombat.of(combat) if combat is not None else None
    if state is None or state.burst is None:
        return
    if any(not hit.get("soaked") for hit in state.hits.values()):
        return
    fire(ctx, state.burst)


def _target(ctx: Context, named: str | None, order: list[str]) -> Character | None:
    """The shot's own target (its dice were given to it), or the first declared one still standing."""
    names = [named] if named else order
    found = (ctx.room.find_character(n) for n in names)
    return next((c for c in found if c is not None and "dureza" in c.sheet and savage_of(c).can_act
                 and name_key(c.name) in {name_key(n) for n in order}), None)
