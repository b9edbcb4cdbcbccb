"""El Reino de la Sombra: the combat rules as pure functions over plain state."""

from __future__ import annotations

import json
from itertools import product

import pytest

from systems.reino.rules import (
    Action,
    ActionBudget,
    AttackResult,
    CheckResult,
    Combatant,
    Condition,
    DyingSaveResult,
    InitiativeRoll,
    ReinoCharacter,
    ReinoRuleError,
    apply_condition,
    apply_damage,
    apply_dying_save,
    apply_recovery,
    budget_for,
    effective_defense,
    initiative_order,
    needs_surprise_round,
    next_turn,
    recovery_test,
    roll_test,
    scale_toward_zero,
    spend_action_point,
    stabilize,
    start_combat,
    succeed_with_action_point,
)
from tests.scripted import faces


def hero(**changes) -> ReinoCharacter:
    base = {"name": "Ana", "resistance": 30, "max_resistance": 30, "threshold": 12, "defense": 16, "dodge": 3, "action_points": 2}
    return ReinoCharacter(**{**base, **changes})


def roundtrip(obj):
    return type(obj).from_dict(json.loads(json.dumps(obj.to_dict())))


# --- tests and action points -----------------------------------------------------------


def test_roll_test_uses_the_engine_face() -> None:
    assert roll_test(faces(20, 14), 1).total == 15


def test_action_point_turns_a_failure_into_a_bare_success() -> None:
    failed = CheckResult(natural=6, modifier=2, dc=17)
    char, bought = succeed_with_action_point(hero(), failed)
    assert bought.success and bought.total == 17 and bought.margin == 0
    assert char.action_points == 1


def test_action_point_refused_on_a_success_or_when_none_left() -> None:
    with pytest.raises(ReinoRuleError) as info:
        succeed_with_action_point(hero(), CheckResult(15, 0, 15))
    assert info.value.code == "reino.already_success"
    with pytest.raises(ReinoRuleError) as info:
        spend_action_point(hero(action_points=0))
    assert info.value.code == "reino.no_action_points"


@pytest.mark.parametrize(("value", "num", "den", "out"),
                         [(3, 3, 2, 4), (4, 3, 2, 6), (3, 1, 2, 1), (-3, 1, 2, -1), (-3, 3, 2, -4), (5, 0, 1, 0)])
def test_scaling_rounds_toward_zero(value: int, num: int, den: int, out: int) -> None:
    assert scale_toward_zero(value, num, den) == out


# --- defense and attacks ---------------------------------------------------------------


def test_defense_loses_dodge_when_stunned_or_surprised() -> None:
    assert effective_defense(16, 3) == 16
    assert effective_defense(16, 3, surprised=True) == 13
    assert effective_defense(16, 3, stunned=True) == 11
    assert effective_defense(16, 3, stunned=True, surprised=True) == 11


def test_attack_result_flags() -> None:
    assert AttackResult(11, 15, 14, 2).critical
    assert not AttackResult(10, 15, 14, 2).critical
    assert AttackResult(10, 15, 14, 2).hit
    assert not AttackResult(20, 15, 14, 2, minion_attacker=True).critical


# --- damage and wounds -----------------------------------------------------------------


def test_damage_subtracts_resistance_points() -> None:
    char, report = apply_damage(hero(), 7, round_number=1)
    assert (char.resistance, report.resistance_before, report.serious, report.fortitude_dc) == (23, 30, False, None)


def test_damage_at_the_threshold_needs_a_fortitude_save() -> None:
    char, report = apply_damage(hero(), 12, round_number=1)
    assert report.serious and report.fortitude_dc == 22
    assert char.conditions == ()


def test_action_point_halves_damage_rounding_down() -> None:
    char, report = apply_damage(hero(), 13, round_number=1, halve_with_action_point=True)
    assert (report.damage, char.resistance, char.action_points, report.serious) == (6, 24, 1, False)


def test_resistance_at_zero_drops_unconscious_and_dying() -> None:
    char, report = apply_damage(hero(resistance=5), 5, round_number=2)
    assert report.dropped and char.unconscious and char.dying and char.helpless


def test_minion_at_threshold_falls_dying_without_save() -> None:
    minion = hero(name="Orco", minion=True, threshold=6, resistance=20)
    char, report = apply_damage(minion, 6, round_number=1)
    assert report.minion_down and report.fortitude_dc is None and char.dying
    char, report = apply_damage(minion, 5, round_number=1)
    assert not report.minion_down and not char.dying


@pytest.mark.parametrize(
    ("held", "suffered", "result"),
    [
        ((), Condition.ATURDIDO, ("aturdido",)),
        (("aturdido",), Condition.ATURDIDO, ("malherido",)),
        (("malherido",), Condition.MALHERIDO, ("incapacitado",)),
        (("incapacitado",), Condition.INCAPACITADO, ("moribundo",)),
        (("malherido", "incapacitado"), Condition.MALHERIDO, ("moribundo",)),
        (("moribundo",), Condition.MORIBUNDO, ("moribundo",)),
        (("aturdido",), Condition.MALHERIDO, ("aturdido", "malherido")),
    ],
)
def test_repeated_state_escalates(held, suffered, result) -> None:
    assert apply_condition(hero(conditions=held), suffered, round_number=1).conditions == result


def test_badly_hurt_is_stunned_only_the_next_round() -> None:
    char = apply_condition(hero(), Condition.MALHERIDO, round_number=3)
    assert [char.stunned(r) for r in (3, 4, 5)] == [False, True, False]
    assert char.defense_now(4) == 11 and char.defense_now(5) == 16
    assert char.action_penalty == -2


def test_penalties_take_the_worst_state() -> None:
    assert hero(conditions=("malherido", "incapacitado")).action_penalty == -5
    assert hero(conditions=("aturdido",)).action_penalty == 0


# --- dying, stabilising, waking up -----------------------------------------------------


def test_dying_saves_raise_the_dc_each_time() -> None:
    char = apply_condition(hero(), Condition.MORIBUNDO, round_number=1)
    dcs = []
    for round_number in (2, 3, 4):
        result = DyingSaveResult(natural=15, modifier=0, previous_saves=char.dying_saves)
        dcs.append(result.test.dc)
        char = apply_dying_save(char, result, round_number)
    assert dcs == [10, 11, 12] and char.dying and not char.dead


def test_failed_dying_save_kills_and_great_one_stabilises() -> None:
    dying = apply_condition(hero(), Condition.MORIBUNDO, round_number=1)
    assert apply_dying_save(dying, DyingSaveResult(1, 30, 0), 2).dead
    stable = apply_dying_save(dying, DyingSaveResult(20, -5, 0), 2)
    assert not stable.dying and stable.unconscious and stable.has(Condition.INCAPACITADO)


def test_stabilise_with_an_action_point() -> None:
    dying = apply_condition(hero(), Condition.MORIBUNDO, round_number=1)
    helper = spend_action_point(hero(name="Bruno"))
    saved = stabilize(dying, round_number=2)
    assert helper.action_points == 1 and not saved.dying and saved.unconscious
    with pytest.raises(ReinoRuleError):
        stabilize(saved, round_number=2)


def test_recovery_wakes_up() -> None:
    sleeping = hero(unconscious=True)
    assert recovery_test(8, 0, 3).total == 10
    assert not apply_recovery(sleeping, recovery_test(8, 0, 3)).unconscious
    assert apply_recovery(sleeping, recovery_test(8, 0, 2)).unconscious


# --- action economy --------------------------------------------------------------------

TIMED = (Action.STANDARD, Action.MOVE, Action.FULL)
LEGAL_ROUNDS = {(), ("S",), ("M",), ("F",), ("M", "S"), ("M", "M")}


def _accepts(budget: ActionBudget, sequence) -> bool:
    try:
        for action in sequence:
            budget = budget.take(action)
    except ReinoRuleError:
        return False
    return True


def test_every_sequence_of_timed_actions_against_the_three_options() -> None:
    letter = {Action.STANDARD: "S", Action.MOVE: "M", Action.FULL: "F"}
    for length in range(4):
        for sequence in product(TIMED, repeat=length):
            legal = tuple(sorted(letter[a] for a in sequence)) in LEGAL_ROUNDS
            assert _accepts(ActionBudget(), sequence) == legal, sequence


def test_surprise_round_allows_one_standard_or_one_move() -> None:
    for sequence, legal in [((Action.STANDARD,), True), ((Action.MOVE,), True), ((Action.FULL,), False),
                            ((Action.MOVE, Action.MOVE), False), ((Action.STANDARD, Action.MOVE), False)]:
        assert _accepts(ActionBudget(surprise_round=True), sequence) == legal


def test_free_actions_and_reactions_up_to_the_gm_limit() -> None:
    assert _accepts(ActionBudget(), [Action.FREE] * 10 + [Action.REACTION] * 10)
    assert not _accepts(ActionBudget(free_limit=2), [Action.FREE, Action.REACTION, Action.FREE])


def test_stunned_only_reacts_and_helpless_does_nothing() -> None:
    stunned = budget_for(hero(conditions=("aturdido",)), round_number=1)
    assert stunned.remaining() == [Action.REACTION]
    assert budget_for(hero(unconscious=True), round_number=1).remaining() == []
    with pytest.raises(ReinoRuleError) as info:
        stunned.take(Action.STANDARD)
    assert info.value.params == {"action": "estandar", "reason": "stunned"}


# --- initiative and the sequence -------------------------------------------------------


def test_initiative_order_highest_first_ties_by_bonus_then_given_order() -> None:
    rolls = [InitiativeRoll("A", 1, 10), InitiativeRoll("B", 3, 8), InitiativeRoll("C", 0, 15), InitiativeRoll("D", 3, 8)]
    assert [r.name for r in initiative_order(rolls)] == ["C", "B", "D", "A"]


def test_surprise_round_only_when_some_are_aware() -> None:
    assert needs_surprise_round([True, False])
    assert not needs_surprise_round([True, True])
    assert not needs_surprise_round([False, False])


def test_combat_with_surprise_then_normal_rounds() -> None:
    people = [Combatant("Ana", 2, True), Combatant("Orco", 0, False), Combatant("Bruno", 1, True)]
    rng = faces(20, 5, 12, 9)  # Ana 7, Bruno 13; then Orco 9 when the surprise round ends
    seq = start_combat(rng, people)
    assert seq.surprise_round and [r.name for r in seq.order] == ["Bruno", "Ana"]
    seq = next_turn(rng, seq)
    assert seq.current == "Ana"
    seq = next_turn(rng, seq)
    assert seq.round_number == 1 and [r.name for r in seq.order] == ["Bruno", "Orco", "Ana"]
    assert seq.current == "Bruno"
    for _ in range(3):
        seq = next_turn(rng, seq)
    assert (seq.round_number, seq.current) == (2, "Bruno")
    assert rng.exhausted()


def test_combat_without_surprise_starts_at_round_one() -> None:
    seq = start_combat(faces(20, 3, 18), [Combatant("Ana", 0), Combatant("Orco", 0)])
    assert (seq.round_number, seq.current) == (1, "Orco")


# --- state round-trips -----------------------------------------------------------------


def test_state_objects_round_trip_through_json() -> None:
    char = apply_condition(hero(), Condition.MALHERIDO, round_number=2)
    assert roundtrip(char) == char
    budget = ActionBudget(surprise_round=True).take(Action.MOVE)
    assert roundtrip(budget) == budget
    seq = start_combat(faces(20, 5, 12), [Combatant("Ana", 2, True), Combatant("Orco", 0, False), Combatant("Bruno", 1)])
    assert roundtrip(seq) == seq
    assert roundtrip(CheckResult(3, 4, 12, True)) == CheckResult(3, 4, 12, True)
