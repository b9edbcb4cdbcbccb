"""One attack's damage on its victim, and the victim's Action Point that halves it afterwards.

003 lists among the uses of an Action Point «Reducir el daño sufrido por un ataque a la mitad». The damage
is shown first (``hurt``); its victim's player (the GM for the GM's characters) may then answer ``!pa
mitad`` (``halve_hit``) until another roll, a wound state applied (``!herida``, ``!sana``) or the end of the
turn: the hit is taken back and applied again halved, its wound save read with the same d20 against the
halved damage's DC. The GM's ``!daño pa`` (and ``!daño NOMBRE N pa``) makes the same choice before.
"""

from __future__ import annotations

import copy

from bot.core.api import Character, Context, Refusal, explainer, name_key, stamp
from bot.games.reino.rolls import remember
from bot.games.reino.sheet import STATES, normalise_sheet
from bot.games.reino.state import HalvableHit, ReinoState, fighter_data, labels, load, read_replay, replay_text, save
from systems.reino.outcomes import ReinoDamage, ReinoWoundSave
from systems.reino.rules import CheckResult, DamageReport, ReinoCharacter, apply_damage, roll_d20

_KEPT = ("pr", "pa", STATES)
"""What a hit may change on the victim's sheet, kept to take the hit back."""


def hurt(ctx: Context, target: Character, points: int, halve: bool, blow: ReinoDamage | None = None,
         attacker: str | None = None) -> None:
    """``points`` of one attack's damage on ``target``: its PR, a minion's fall, a serious wound's save.
    In a fight, unless already halved, the victim may halve it next (``halve_hit``)."""
    missing = [f for f in ("pr", "umbral") if f not in normalise_sheet(target.sheet)]
    if missing:
        raise Refusal("reino/table_missing_stats", name=target.name, fields=missing)
    combat = ctx.room.combat
    before = {key: target.sheet.get(key) for key in _KEPT}
    fighter = copy.deepcopy(dict(fighter_data(combat, target)))
    round_number = combat.round if combat is not None else 0
    after, report = apply_damage(load(ctx, target), points, round_number, halve)
    wound = _wound_save(ctx, target, after, report)
    save(target, combat, after)
    if combat is not None:
        ReinoState.of(combat).halvable = None if halve or not combat.started else HalvableHit(
            target=target.name, points=points, stamp=stamp(ctx), natural=wound.test.natural if wound else None,
            before=before, fighter=fighter)
    if blow is not None:
        ctx.reply("reino/table_blow", attacker=attacker, name=target.name, roll=blow)
    _tell(ctx, target, report, wound, after, rolled=blow is not None)


def open_halving(ctx: Context) -> HalvableHit | None:
    """The last hit, while its victim may still halve it (the same turn, nothing rolled since)."""
    combat = ctx.room.combat
    hit = ReinoState.of(combat).halvable if combat is not None else None
    return hit if hit is not None and hit["stamp"] == stamp(ctx) else None


def halve_hit(ctx: Context, named: Character | None) -> None:
    """``!pa mitad [NOMBRE]``: the victim of the hit just shown spends an Action Point and takes half of it
    (rounded down) instead: the hit is taken back and applied again halved."""
    hit = open_halving(ctx)
    victim = ctx.room.find_character(hit["target"]) if hit is not None else None
    if hit is None or victim is None or (named is not None and name_key(named.name) != name_key(victim.name)):
        raise Refusal("reino/table_no_halve", name=named.name if named is not None else None)
    ctx.may_manage(victim)
    if load(ctx, victim).action_points <= 0:
        raise Refusal("dice_error", code="reino.no_action_points", params={"name": victim.name})
    combat = ctx.room.combat
    assert combat is not None  # a hit is halvable only in a fight
    for key, value in hit["before"].items():
        if value is None:
            victim.sheet.pop(key, None)
        else:
            victim.sheet[key] = value
    ReinoState.of(combat).set_fighter(victim, hit["fighter"])
    after, report = apply_damage(load(ctx, victim), hit["points"], combat.round, True)
    wound = _wound_save(ctx, victim, after, report, True, hit["natural"])
    save(victim, combat, after)
    ReinoState.of(combat).halvable = None
    _tell(ctx, victim, report, wound, after, rolled=False, was=hit["points"])


def _wound_save(ctx: Context, target: Character, after: ReinoCharacter, report: DamageReport,
                again: bool = False, natural: int | None = None) -> ReinoWoundSave | None:
    """003's serious wound: «una prueba de Fortaleza con una CD de 10 + el daño del ataque», rolled (``again``,
    the same hit halved: read from ``natural``, its die already rolled, if any) and kept for ``!pa éxito``.
    None due: the hit halved forgets the wound save it had."""
    if report.fortitude_dc is None or after.dying:
        rescue = read_replay(ctx.room.rerolls.get(name_key(target.name), {}).get("text"))
        if again and rescue is not None and rescue.purpose == "herida":
            del ctx.room.rerolls[name_key(target.name)]
        return None
    test = CheckResult(natural if natural is not None else roll_d20(ctx.rng), after.fortitude, report.fortitude_dc)
    wound = ReinoWoundSave(test, report.damage)
    remember(ctx, target, wound.as_json(), replay_text("herida", test.modifier, test.dc), None)
    return wound


def _tell(ctx: Context, target: Character, report: DamageReport, wound: ReinoWoundSave | None,
          after: ReinoCharacter, rolled: bool, was: int | None = None) -> None:
    combat = ctx.room.combat
    ctx.reply("reino/table_damage", name=target.name, report=report, wound=wound, rc=after, rolled=rolled,
              was=was, labels=labels(ctx, target, combat, points=False), first=explainer(ctx),
              room_labels=labels(ctx, target, combat, gms_sheet=True))
