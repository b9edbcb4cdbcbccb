"""El Reino de la Sombra: rolls from the sheet and the table's state.

``/tiro Sigilo vs 15`` rolls 1d20 plus the sheet's Sigilo (a skill the character lacks adds its
attribute's modifier, or nothing); ``/tiro Atletismo contra Orco`` uses the Orco's Defense now as the
DC; ``/tiro fortaleza vs 12`` adds the sheet's Fortaleza (Reflejos, Voluntad; without it, Constitución,
Destreza, Sabiduría). Unless the roll says ``sin estado``, the worst wound state's penalty (Malherido -2,
Incapacitado -5) is added to checks and attacks, named in the reply; a save is no action and takes none.
On the actor's own turn of a round a skill or attack roll spends the standard action. A stunned
character takes no standard action (no skill or attack roll in a combat round); a dead or unconscious
one rolls nothing but what its state requires (dying saves, which the table rolls). Every d20 test
leaves what ``!pa éxito`` needs to turn it into a bare success.
"""

from __future__ import annotations

import re

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
from bot.games.reino.sheet import ATTRIBUTES, FALLBACK, SAVES, SKILLS, sheet_bonus
from bot.games.reino.state import (
    check_action,
    close_halving,
    commit_action,
    in_round,
    load,
    replay_text,
    surprised,
    wound_penalty,
)
from systems.base import Outcome
from systems.reino.outcomes import ReinoAttack, ReinoCheck, ReinoWoundSave
from systems.reino.resolver import ReinoSystem
from systems.reino.rules import Action, ReinoCharacter, ReinoRuleError

_PLAIN_D20 = re.compile(r"^1?d20\s")
_D20_WITH_MODIFIER = re.compile(r"^1?d20[+-]\d")
_CHECK_WORDS = ("prueba", "ataque")


class ReinoSheetRules:
    def roll(self, ctx: Context, request: RollRequest) -> SheetRoll | None:
        close_halving(ctx)  # any roll closes the last hit's halving (``!pa mitad``)
        actor, text, auto = request.actor, request.text, request.auto
        words = text.split()
        key, used = _leading(ctx, words)
        if actor is None:
            return None
        named: list[tuple[str, int]] = []
        label = ""
        if key is not None:
            bonus, source = sheet_bonus(actor.sheet, key, FALLBACK)
            named.append((source, bonus))
            label = f"{shown_name(ctx.game, key)} {bonus:+d}"
            words = _against(ctx, words[used:])
            text = " ".join([key if key in SAVES else "prueba", f"{bonus:+d}", *words])
        elif not _is_check(text):
            return None
        require_roller_up(ctx, request, actor)
        combat = ctx.room.combat
        rc = load(ctx, actor)
        applied: list[tuple[str, int]] = []
        if key not in SAVES:  # a save is no action: stunned or surprised, it is still rolled, unpenalised
            if in_round(combat) and combat is not None and (rc.stunned(combat.round) or surprised(combat, actor)):
                reason = "surprised" if surprised(combat, actor) else "stunned"
                raise ReinoRuleError("reino.action_not_allowed", action="estandar", reason=reason)
            penalty = wound_penalty(rc) if auto else ()
            if penalty:
                applied += penalty
                text = _with_penalty(text, penalty[0][1])
            if key in SKILLS or (key is None and name_key(words[0]) == "ataque"):
                _spend_standard_action(ctx, actor, rc)
        system = ctx.system
        assert isinstance(system, ReinoSystem)
        outcome = system.roll_with(text, ctx.rng, (*named, *applied))
        return SheetRoll(outcome, applied, label, _replay(outcome))


def _spend_standard_action(ctx: Context, actor: Character, rc: ReinoCharacter) -> None:
    """003: «ACCIÓN ESTÁNDAR • Realizar un ataque. • Usar una Habilidad»: on the actor's own turn of a
    round, a skill or attack roll spends it (out of turn, a granted roll is a reaction)."""
    combat = ctx.room.combat
    if in_round(combat) and combat is not None and name_key(combat.current or "") == name_key(actor.name):
        commit_action(combat, actor, check_action(combat, actor, rc, Action.STANDARD))


def _replay(outcome: Outcome) -> str:
    """What ``!pa éxito`` reads of a d20 test (``reino/state.replay_text``); empty for other rolls."""
    if isinstance(outcome, ReinoAttack):
        return replay_text("ataque", outcome.result.bonus, outcome.result.defense)
    if isinstance(outcome, ReinoWoundSave):
        return replay_text("herida", outcome.test.modifier, outcome.test.dc)
    if isinstance(outcome, ReinoCheck):
        return replay_text(outcome.purpose, outcome.test.modifier, outcome.test.dc)
    return ""


def _leading(ctx: Context, words: list[str]) -> tuple[str | None, int]:
    for cut in range(min(len(words), 4), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in ATTRIBUTES or key in SKILLS or key in SAVES:
            return key, cut
    return None, 0


def _against(ctx: Context, words: list[str]) -> list[str]:
    """``contra NOMBRE``: the DC is that character's Defense now (without Dodge if stunned or surprised)."""
    for i, word in enumerate(words):
        if word.lower() in vocab.AGAINST and i + 1 < len(words):
            target, used = opponent(ctx, words[i + 1:])
            if target is not None:
                combat = ctx.room.combat
                defense = load(ctx, target).defense_now(combat.round if combat else 0,
                                                           surprised=surprised(combat, target))
                return [*words[:i], "vs", str(defense), *words[i + 1 + used:]]
    return words


def _is_check(text: str) -> bool:
    """A d20 check or attack the state's penalty applies to (``prueba``, ``ataque``, ``d20+3 vs 12``)."""
    folded = text.strip().lower()
    if not folded:
        return False
    return folded.split(None, 1)[0] in _CHECK_WORDS or bool(
        (_PLAIN_D20.match(folded) or _D20_WITH_MODIFIER.match(folded)) and " vs" in folded)


def _with_penalty(text: str, penalty: int) -> str:
    """The penalty as the roll's late modifier (``prueba +3 vs 12 -2``)."""
    stripped = text.strip()
    if _PLAIN_D20.match(stripped):
        head, rest = stripped.split(None, 1)
        return f"{head}{penalty:+d} {rest}"
    return f"{stripped} {penalty:+d}"


def remember(ctx: Context, who: Character, roll: dict, text: str, target: str | None) -> None:
    """Keep a table roll of ``who`` as its last roll (as ``!tiro`` does), for ``!pa éxito``."""
    ctx.room.rerolls[name_key(who.name)] = {
        "text": text, "label": "", "stamp": stamp(ctx), "applied": [], "outcome": roll["outcome"],
        "kind": roll["kind"], "total": roll["total"], "secret": False, "by": ctx.sender, "target": target,
    }
