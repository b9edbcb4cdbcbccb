"""El Reino de la Sombra: rolls from the sheet and the table's state.

``/tiro Sigilo vs 15`` rolls 1d20 plus the sheet's Sigilo (a skill the character lacks adds its
attribute's modifier, or nothing); ``/tiro Atletismo contra Orco`` uses the Orco's Defense now as the
DC. Unless the roll says ``sin estado``, the worst wound state's penalty (Malherido -2, Incapacitado -5)
is added to checks and attacks, named in the reply. A stunned character takes no standard action (no
skill or attack roll in a combat round); a dead or unconscious one rolls nothing but what its state
requires (dying saves, which the table rolls).
"""

from __future__ import annotations

import re

from bot.core import combat as rounds
from bot.core.context import Context
from bot.core.rolls import SheetRoll, opponent
from bot.core.sheets import find_field, shown_name
from bot.core.state import Character
from bot.games.reino.state import in_round, load, surprised
from systems.reino.resolver import ReinoSystem
from systems.reino.rules import ACTION_PENALTY, Condition, ReinoRuleError

ATTRIBUTES = ("fuerza", "destreza", "constitucion", "inteligencia", "sabiduria", "carisma")
SKILLS = {
    "acrobacias": "destreza", "atletismo": "fuerza", "conocimiento": "inteligencia", "enganar": "carisma",
    "intimidar": "carisma", "medicina": "sabiduria", "percepcion": "sabiduria", "persuadir": "carisma",
    "sigilo": "destreza", "supervivencia": "sabiduria", "montar": "destreza", "juego_de_manos": "destreza",
    "trato_con_animales": "sabiduria", "concentracion": "constitucion", "buscar": "inteligencia",
}
NAMES = {
    "fuerza": "Fuerza", "destreza": "Destreza", "constitucion": "Constitución", "inteligencia": "Inteligencia",
    "sabiduria": "Sabiduría", "carisma": "Carisma", "acrobacias": "Acrobacias", "atletismo": "Atletismo",
    "conocimiento": "Conocimiento", "enganar": "Engañar", "intimidar": "Intimidar", "medicina": "Medicina",
    "percepcion": "Percepción", "persuadir": "Persuadir", "sigilo": "Sigilo", "supervivencia": "Supervivencia",
    "montar": "Montar", "juego_de_manos": "Juego de manos", "trato_con_animales": "Trato con animales",
    "concentracion": "Concentración", "buscar": "Buscar", "defensa": "Defensa", "esquiva": "Esquiva",
    "rd": "RD", "pr": "PR", "rp": "RP", "pr_max": "PR máx", "umbral": "Umbral", "iniciativa": "Iniciativa",
    "fortaleza": "Fortaleza", "pa": "PA", "ataque": "Ataque", "secuaz": "Secuaz",
}
ALIASES = {
    "fue": "fuerza", "des": "destreza", "con": "constitucion", "int": "inteligencia", "sab": "sabiduria",
    "car": "carisma", "engano": "enganar", "percibir": "percepcion", "observar": "percepcion",
    "curar": "medicina", "defensa_total": "defensa", "reduccion_de_dano": "rd", "pv": "pr",
    "puntos_de_resistencia": "pr", "puntos_de_accion": "pa", "umbral_de_herida": "umbral",
}
_AGAINST = ("contra", "vs")
_PLAIN_D20 = re.compile(r"^1?d20\s")
_D20_WITH_MODIFIER = re.compile(r"^1?d20[+-]\d")
_CHECK_WORDS = ("prueba", "ataque")
_WORST = (Condition.INCAPACITADO, Condition.MALHERIDO)


class ReinoSheetRules:
    def roll(self, ctx: Context, actor: Character | None, text: str, auto: bool) -> SheetRoll | None:
        words = text.split()
        key, used = _leading(ctx, words)
        if actor is None:
            return None
        named: list[tuple[str, int]] = []
        label = ""
        if key is not None:
            bonus, source = _bonus(actor, key)
            named.append((source, bonus))
            label = f"{shown_name(ctx.game, key)} {bonus:+d}"
            words = _against(ctx, words[used:])
            text = " ".join(["prueba", f"{bonus:+d}", *words])
        elif not _is_check(text):
            return None
        rounds.require_up(ctx, actor)
        combat = ctx.room.combat
        rc = load(actor, combat)
        if in_round(combat) and combat is not None and (rc.stunned(combat.round) or surprised(combat, actor)):
            reason = "surprised" if surprised(combat, actor) else "stunned"
            raise ReinoRuleError("reino.action_not_allowed", action="estandar", reason=reason)
        applied: list[tuple[str, int]] = []
        worst = next((c for c in _WORST if c.value in rc.conditions), None)
        if auto and worst is not None:
            applied.append((worst.value, ACTION_PENALTY[worst]))
            text = _with_penalty(text, ACTION_PENALTY[worst])
        system = ctx.system
        assert isinstance(system, ReinoSystem)
        outcome = system.roll_with(text, ctx.rng, (*named, *applied))
        return SheetRoll(outcome, applied, label, text)


def _leading(ctx: Context, words: list[str]) -> tuple[str | None, int]:
    for cut in range(min(len(words), 4), 0, -1):
        key = find_field(ctx.game, " ".join(words[:cut]))
        if key in ATTRIBUTES or key in SKILLS:
            return key, cut
    return None, 0


def _bonus(actor: Character, key: str) -> tuple[int, str]:
    """The sheet's bonus for ``key``; a missing skill uses its attribute's modifier (or +0)."""
    value = actor.sheet.get(key)
    if isinstance(value, int):
        return value, key
    attribute = SKILLS.get(key)
    if attribute is not None and isinstance(actor.sheet.get(attribute), int):
        return int(actor.sheet[attribute]), attribute
    return 0, key


def _against(ctx: Context, words: list[str]) -> list[str]:
    """``contra NOMBRE``: the DC is that character's Defense now (without Dodge if stunned or surprised)."""
    for i, word in enumerate(words):
        if word.lower() in _AGAINST and i + 1 < len(words):
            target, used = opponent(ctx, words[i + 1:])
            if target is not None:
                combat = ctx.room.combat
                defense = load(target, combat).defense_now(combat.round if combat else 0,
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
