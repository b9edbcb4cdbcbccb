"""Reino combatants at the table: the rules' ``ReinoCharacter`` read from a sheet and a combat, and back.

Where each piece lives (all JSON-able, so a restart keeps it):

- ``character.sheet``: the stats ``!ficha`` sets (see ``SHEET_FIELDS``), the current ``pr`` and
  ``pa`` and the lasting wound states as one readable string (``estados``), since wounds outlast
  a fight.
- ``combat.data``: what only a fight means. ``fighters`` (per name key: ``stunned_round`` from
  Malherido/Incapacitado, ``stunned_since`` of a table Aturdido, ``dying_saves``), ``taken`` (per
  name key: the actions spent this round), ``unaware`` (name keys surprised), ``surprise_round``,
  ``sequence`` (the rules' ``CombatSequence``) and ``last_attack`` (per name key, for ``!pa éxito``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.core.context import Context
from bot.core.sheets import YesNo
from bot.core.state import Character, Combat, RoomState, name_key
from systems.reino.rules import Action, ActionBudget, Condition, ReinoCharacter, ReinoRuleError, budget_for

SHEET_FIELDS: dict[str, type] = {
    "fuerza": int, "destreza": int, "constitucion": int, "inteligencia": int, "sabiduria": int, "carisma": int,
    "acrobacias": int, "atletismo": int, "conocimiento": int, "enganar": int, "intimidar": int, "medicina": int,
    "percepcion": int, "persuadir": int, "sigilo": int, "supervivencia": int, "montar": int, "juego_de_manos": int,
    "trato_con_animales": int, "concentracion": int, "buscar": int,
    "defensa": int, "esquiva": int, "rd": int, "pr": int, "rp": int, "pr_max": int, "umbral": int,
    "iniciativa": int, "fortaleza": int, "pa": int, "ataque": int, "secuaz": YesNo,
}
STATES = "estados"
UNCONSCIOUS = "inconsciente"
DEAD = "muerto"
_YES = frozenset({"si", "s", "yes", "y", "true", "1", "x"})


def normalise_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``rp`` is the English spelling of ``pr``: the latest one set wins and is kept as ``pr``."""
    if "rp" in sheet:
        sheet["pr"] = sheet.pop("rp")
    return sheet


def is_minion(sheet: dict[str, Any]) -> bool:
    return name_key(str(sheet.get("secuaz", ""))) in _YES


def fighter_data(combat: Combat | None, character: Character) -> dict[str, Any]:
    if combat is None:
        return {}
    return combat.data.setdefault("fighters", {}).setdefault(name_key(character.name), {})


def load(character: Character, combat: Combat | None) -> ReinoCharacter:
    sheet = normalise_sheet(character.sheet)
    labels = [label.strip() for label in str(sheet.get(STATES, "")).split(",") if label.strip()]
    fighter = fighter_data(combat, character)
    resistance = int(sheet.get("pr", sheet.get("pr_max", 0)))
    return ReinoCharacter(
        name=character.name,
        resistance=resistance,
        max_resistance=int(sheet.get("pr_max", resistance)),
        threshold=int(sheet.get("umbral", 0)),
        defense=int(sheet.get("defensa", 10)),
        dodge=int(sheet.get("esquiva", 0)),
        damage_reduction=int(sheet.get("rd", 0)),
        initiative=int(sheet.get("iniciativa", 0)),
        fortitude=int(sheet.get("fortaleza", 0)),
        action_points=int(sheet.get("pa", 0)),
        minion=is_minion(sheet),
        conditions=tuple(c.value for c in Condition if c.value in labels),
        stunned_round=fighter.get("stunned_round"),
        unconscious=UNCONSCIOUS in labels,
        dead=DEAD in labels,
        dying_saves=int(fighter.get("dying_saves", 0)),
    )


def save(character: Character, combat: Combat | None, rc: ReinoCharacter) -> None:
    sheet = character.sheet
    if "pr" in sheet:
        sheet.setdefault("pr_max", rc.max_resistance)  # the full PR, before any damage (rules 003)
        sheet["pr"] = rc.resistance
    if "pa" in sheet or rc.action_points:
        sheet["pa"] = rc.action_points
    labels = [*rc.conditions, *([UNCONSCIOUS] if rc.unconscious else []), *([DEAD] if rc.dead else [])]
    if labels:
        sheet[STATES] = ", ".join(labels)
    else:
        sheet.pop(STATES, None)
    if combat is not None:
        fighter = fighter_data(combat, character)
        fighter.update(stunned_round=rc.stunned_round, dying_saves=rc.dying_saves)


def in_round(combat: Combat | None) -> bool:
    return combat is not None and combat.started


def surprised(combat: Combat | None, character: Character) -> bool:
    """Unaware during the surprise round: no action, and Defense without the Dodge bonus."""
    if not in_round(combat) or not combat.data.get("surprise_round"):  # type: ignore[union-attr]
        return False
    return name_key(character.name) in combat.data.get("unaware", [])  # type: ignore[union-attr]


def budget(combat: Combat, character: Character, rc: ReinoCharacter) -> ActionBudget:
    taken = combat.data.get("taken", {}).get(name_key(character.name), [])
    fresh = budget_for(rc, combat.round, surprise_round=bool(combat.data.get("surprise_round")))
    return replace(fresh, taken=tuple(taken))


def check_action(
    combat: Combat | None, character: Character, rc: ReinoCharacter, action: Action
) -> ActionBudget | None:
    """The budget after ``action`` (not stored yet), None out of combat; raises when it is not allowed."""
    if not in_round(combat):
        return None
    assert combat is not None
    if surprised(combat, character):
        raise ReinoRuleError("reino.action_not_allowed", action=action.value, reason="surprised")
    return budget(combat, character, rc).take(action)


def commit_action(combat: Combat | None, character: Character, spent: ActionBudget | None) -> None:
    if combat is not None and spent is not None:
        combat.data.setdefault("taken", {})[name_key(character.name)] = list(spent.taken)


def combatants(room: RoomState, combat: Combat) -> list[Character]:
    found = (room.find_character(name) for name in combat.order)
    return [c for c in found if c is not None]


def labels(ctx: Context, character: Character, combat: Combat | None, gms_sheet: bool = False) -> list[str]:
    """Short labels for the status board and ``!salud`` (rendered from a template); ``gms_sheet``: the
    GM's character seen by the room, without its sheet's numbers (resistance, action points)."""
    rc = load(character, combat)
    text = ctx.renderer.text(
        "reino/table_labels", rc=rc, sheet={} if gms_sheet else character.sheet, surprised=surprised(combat, character),
        stunned=bool(combat and combat.started and rc.stunned_round == combat.round),
    )
    return [line.strip() for line in text.splitlines() if line.strip()]
