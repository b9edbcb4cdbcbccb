"""Each outcome's JSON keys, in order: the ``roll`` object of ``rolbot roll --json`` and of the console's
``--jsonl`` (docs/contracts.md#3). The JSON is generated from each class's ``json_shape``
(``systems/jsonable.py``); a key renamed, moved or lost changes the contract and fails here."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from systems.dice import Die, RollResult
from systems.jsonable import Jsonable, JsonShape

SYSTEMS = Path(__file__).resolve().parents[2] / "systems"
KEYS = {
    ("stormbringer.outcomes", "AmbushRoll"): (
        "system kind total dice outcome skill target critical_max modifiers factor comment surprise_rounds"),
    ("stormbringer.outcomes", "AttackRoll"): (
        "system kind total dice outcome skill target critical_max modifiers factor comment riposte "
        "fumble_table"),
    ("stormbringer.outcomes", "DamageRoll"): (
        "system kind total dice outcome rolled critical inflicted armour absorbed hp_lost major_wound "
        "threshold stunned wound_table comment"),
    ("stormbringer.outcomes", "DefenceRoll"): (
        "system kind total dice outcome skill target critical_max modifiers factor comment against_critical "
        "missile stops_blow attacker_weapon_breaks both_weapons_destroyed"),
    ("stormbringer.outcomes", "DemonObjectRoll"): "system kind total dice outcome comment",
    ("base", "DiceRoll"): "system kind expr comment total dice detail modifiers",
    ("stormbringer.outcomes", "ExperienceRoll"): "system kind total dice outcome skill intelligence bonus gain new_skill comment",
    ("stormbringer.outcomes", "InitiativeRoll"): (
        "system kind total dice outcome attacker_dex defender_dex attacker_total defender_total comment"),
    ("reino.outcomes", "ReinoAttack"): (
        "system kind total dice outcome comment natural modifier modifiers defense damage_reduction "
        "critical_threshold minion"),
    ("reino.outcomes", "ReinoCheck"): "system kind total dice outcome comment natural modifier modifiers dc margin purpose",
    ("reino.outcomes", "ReinoDamage"): (
        "system kind total dice outcome comment weapon strength strength_bonus grip multiplier threshold "
        "fortitude_dc"),
    ("reino.outcomes", "ReinoDyingSave"): (
        "system kind total dice outcome comment natural modifier modifiers dc margin previous_saves"),
    ("reino.outcomes", "ReinoInitiative"): "system kind total dice outcome comment natural modifier modifiers",
    ("reino.outcomes", "ReinoOpposed"): (
        "system kind total dice outcome comment natural modifier modifiers opponent_modifier totals"),
    ("reino.outcomes", "ReinoWoundSave"): (
        "system kind total dice outcome comment natural modifier modifiers dc margin damage table"),
    ("savage.resolver", "SavageBleedingRoll"): (
        "system kind expr total dice outcome raises wild trait tn modifiers comment verdict"),
    ("savage.resolver", "SavageDamageRoll"): (
        "system kind expr total dice outcome raises wild toughness shaken wounds modifiers comment"),
    ("savage.resolver", "SavageIncapacitationRoll"): (
        "system kind expr total dice outcome raises wild trait tn modifiers comment dies injury bleeding "
        "table"),
    ("savage.resolver", "SavageRateOfFire"): (
        "system kind expr total dice outcome raises wild rof hits tn ammo replaced shots targets modifiers "
        "comment"),
    ("savage.resolver", "SavageRecoveryRoll"): (
        "system kind expr total dice outcome raises wild trait tn modifiers comment recovered"),
    ("savage.resolver", "SavageSoakRoll"): (
        "system kind expr total dice outcome raises wild trait tn modifiers comment incoming soaked remaining "
        "clears_shaken"),
    ("savage.resolver", "SavageSupportRoll"): "system kind expr total dice outcome raises wild trait tn modifiers comment bonus",
    ("savage.resolver", "SavageTraitRoll"): "system kind expr total dice outcome raises wild trait tn modifiers comment",
    ("stormbringer.outcomes", "SkillCheck"): "system kind total dice outcome skill target critical_max modifiers factor comment",
    ("sombra.resolver", "SombraCheck"): (
        "system kind total outcome dice high location low target modifier effective margin success "
        "roll_modifier modifiers table aimed hit_location damage comment"),
    ("sombra.resolver", "SombraDamageRoll"): "system kind total outcome dice high location low aimed damage comment",
    ("sombra.resolver", "SombraInitiative"): "system kind total dice outcome order",
    ("sombra.resolver", "SombraLocationRoll"): "system kind total outcome dice high location low table key comment",
    ("stormbringer.outcomes", "SurpriseRoll"): "system kind total dice outcome surprise_rounds comment",
    ("stormbringer.outcomes", "TrainingRoll"): (
        "system kind total dice outcome attack_gain parry_gain attack_skill parry_skill comment"),
    ("stormbringer.outcomes", "ParryRoll"): (
        "system kind total dice outcome skill target critical_max modifiers factor comment against_critical "
        "missile stops_blow attacker_weapon_breaks both_weapons_destroyed"),
    ("stormbringer.outcomes", "DodgeRoll"): (
        "system kind total dice outcome skill target critical_max modifiers factor comment against_critical "
        "missile stops_blow attacker_weapon_breaks both_weapons_destroyed"),
}
"""(module under ``systems``, class): its JSON keys, as main had them when ``as_json`` was written by hand."""


def outcome_classes() -> list[type]:
    """Every class of ``systems/`` with a message ``template``: the outcomes a roll gives."""
    found = []
    for path in sorted(SYSTEMS.rglob("*.py")):
        module = importlib.import_module(".".join(path.relative_to(SYSTEMS.parent).with_suffix("").parts))
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if c.__module__ == module.__name__ and isinstance(c.__dict__.get("template"), str)]
    return found


@pytest.mark.parametrize(("module", "name"), sorted(KEYS))
def test_each_outcome_keeps_its_json_keys(module: str, name: str) -> None:
    outcome = getattr(importlib.import_module(f"systems.{module}"), name)
    assert issubclass(outcome, Jsonable)
    assert " ".join(outcome.json_shape.keys) == KEYS[module, name]


def test_every_outcome_declares_its_json_and_none_writes_it_by_hand() -> None:
    classes = outcome_classes()
    assert [c.__name__ for c in classes if not issubclass(c, Jsonable)] == []
    assert set(KEYS) <= {(c.__module__.removeprefix("systems."), c.__name__) for c in classes}
    for path in sorted(SYSTEMS.rglob("*.py")):
        methods = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(n, ast.FunctionDef) and n.name == "as_json"]
        assert path.name in ("jsonable.py", "base.py") or methods == [], path


def test_the_dice_json_keeps_its_keys() -> None:
    assert RollResult.json_shape.keys == ("expr", "comment", "total", "dice", "detail")
    assert Die.json_shape.keys == ("sides", "value", "faces", "exploded", "kept")


def test_a_shape_refuses_a_computed_key_it_does_not_place() -> None:
    with pytest.raises(ValueError, match="kind"):
        JsonShape("system", const={"kind": "check"})


def test_a_later_key_keeps_the_place_of_the_first() -> None:
    class Roll:
        kind, total, bonus = "trait", 7, 2

    base = JsonShape("kind", "total")
    assert JsonShape(base, "bonus", const={"kind": "support"}).of(Roll()) == {"kind": "support", "total": 7, "bonus": 2}
    assert list(JsonShape(base, "bonus", const={"kind": "support"}).of(Roll())) == ["kind", "total", "bonus"]
