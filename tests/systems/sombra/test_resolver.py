"""Sistema Sombra (rules 004): the 3d10 roll-under check, clauses, damage, locations, initiative."""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from math import comb

import pytest

from systems.dice import DiceError
from systems.sombra.damage import (
    LOCATION_TABLES,
    BoatState,
    DamageResult,
    area_digits,
    armour_loss,
    boat_interior_split,
    boat_metres_per_round,
    damage_from_dice,
    hit_boat,
    interior_damage,
    max_deceleration,
    sinking_round,
    wound_severity,
)
from systems.sombra.resolver import SYSTEM, SombraCheck, SombraDamageRoll, SombraInitiative, SombraLocationRoll
from systems.sombra.rules import (
    Attributes,
    Capacities,
    CheckResult,
    Combatant,
    InitiativeSlot,
    Modifier,
    SombraDice,
    burst_penalty,
    capacities,
    capsizes,
    command_modifier,
    initiative_order,
    knockdown_penalty,
    opposed_winner,
    resolve_check,
    success_level,
    unarmed_difficulty,
)
from tests.scripted import all_faces, faces

TRIPLES = list(all_faces(10, 10, 10))


def roll(text: str, *values: int):
    rng = faces(10, *values)
    result = SYSTEM.roll(text, rng)
    assert rng.exhausted()
    return result


def reference_level(triple: tuple[int, int, int], target: int, modifier: int) -> str:
    """The six levels as the rules and docs/contracts.md#3.1 read, written apart from the code."""
    a, b, c = sorted(triple)
    passed = a + b + c + modifier <= target
    if (a, b, c) == (1, 1, 1):
        return "critical"
    if (a, b, c) == (10, 10, 10):
        return "fumble"
    if a == c:
        return "critical" if passed else "fumble"
    low_pair = a + c < 5
    if passed:
        return "low_success" if low_pair else "success"
    return "low_failure" if low_pair else "failure"


def ways_to_sum(s: int) -> int:
    """Ordered 3d10 triples summing to s, by inclusion-exclusion (stars and bars)."""
    return sum((-1) ** j * comb(3, j) * comb(s - 10 * j - 1, 2) for j in range(4) if s - 10 * j - 1 >= 2)


# -- the basic check: exact distributions ---------------------------------------------------

CASES = [(k, m) for k in (0, 3, 10, 14, 16, 22, 30) for m in (-10, -3, 0, 2, 5, 15)]


@pytest.mark.parametrize(("target", "modifier"), CASES)
def test_every_triple_matches_the_reference_reading(target: int, modifier: int) -> None:
    counts, expected = Counter(), Counter()
    text = f"3d10{modifier:+d} vs {target}" if modifier else f"3d10 vs {target}"
    for triple in TRIPLES:
        result = roll(text, *triple)
        counts[result.outcome] += 1
        expected[reference_level(triple, target, modifier)] += 1
        assert result.total == sum(triple)
        assert result.as_json()["dice"] == list(triple)
    assert counts == expected


@pytest.mark.parametrize(("target", "modifier"), CASES)
def test_success_count_matches_the_sum_formula(target: int, modifier: int) -> None:
    limit = target - modifier
    successes = sum(ways_to_sum(s) for s in range(3, min(limit, 30) + 1))
    successes += limit < 3  # 1-1-1 succeeds anyway
    successes -= limit >= 30  # 10-10-10 fails anyway
    text = f"3d10{modifier:+d} vs {target}"
    got = sum(roll(text, *t).as_json()["success"] for t in TRIPLES)
    assert got == successes


def test_ways_to_sum_is_a_distribution() -> None:
    assert sum(ways_to_sum(s) for s in range(3, 31)) == 1000
    assert ways_to_sum(3) == ways_to_sum(30) == 1


def test_named_difficulty_equals_numeric_modifier() -> None:
    pairs = {"muy facil": -10, "facil": -5, "normal": 0, "dificil": 5, "muy dificil": 10,
             "prisa": 5, "apuntando": -5, "segundo": 5}
    for words, value in pairs.items():
        for triple in TRIPLES[::7]:
            named = roll(f"3d10 vs 15 {words}", *triple)
            numeric = roll(f"3d10{value:+d} vs 15" if value else "3d10 vs 15", *triple)
            assert named.outcome == numeric.outcome, (words, triple)
            assert named.check.modifier == value


def test_difficulty_makes_success_harder() -> None:
    assert roll("3d10 vs 15", 4, 4, 5).outcome == "success"
    assert roll("3d10 vs 15 dificil", 4, 4, 5).outcome == "failure"  # 13 + 5 = 18 > 15
    assert roll("3d10 vs 10 facil", 4, 4, 5).outcome == "success"  # 13 - 5 = 8 <= 10


def test_one_one_one_and_ten_ten_ten_whatever_the_target() -> None:
    assert roll("3d10+30 vs 0", 1, 1, 1).outcome == "critical"
    assert roll("3d10-30 vs 30", 10, 10, 10).outcome == "fumble"
    assert roll("3d10 vs 30", 10, 10, 10).outcome == "fumble"


def test_other_triples_follow_success() -> None:
    assert roll("3d10 vs 15", 5, 5, 5).outcome == "critical"
    assert roll("3d10 vs 14", 5, 5, 5).outcome == "fumble"


def test_low_levels_need_high_plus_low_under_five() -> None:
    assert roll("3d10 vs 10", 1, 3, 2).outcome == "low_success"  # 3 + 1 = 4
    assert roll("3d10 vs 10", 1, 4, 2).outcome == "success"  # 4 + 1 = 5
    assert roll("3d10 vs 4", 1, 3, 2).outcome == "low_failure"  # 6 > 4
    assert roll("3d10 vs 6", 2, 4, 3).outcome == "failure"  # 4 + 2 = 6, 9 > 6


def test_location_die_ten_reads_zero() -> None:
    result = roll("3d10 vs 30", 10, 3, 10)
    data = result.as_json()
    assert (data["high"], data["location"], data["low"]) == (10, 0, 3)
    assert roll("3d10 vs 30", 7, 2, 9).as_json()["location"] == 7


def test_contract_fields() -> None:
    data = json.loads(json.dumps(SYSTEM.roll("3d10+2 vs 14", random.Random(5)).as_json()))
    assert data["system"] == "sombra"
    assert isinstance(data["total"], int) and data["total"] == sum(data["dice"])
    assert len(data["dice"]) == 3 and all(isinstance(d, int) and 1 <= d <= 10 for d in data["dice"])
    assert data["outcome"] in {"fumble", "failure", "low_failure", "low_success", "success", "critical"}
    low, middle, high = sorted(data["dice"])
    assert (data["low"], data["location"], data["high"]) == (low, middle % 10, high)
    assert data["effective"] == data["total"] + 2


def test_seeded_rolls_are_reproducible() -> None:
    texts = ["3d10 vs 14", "3d10+5 vs 20 dificil daño II", "daño IV+4", "localizacion barco", "2d6+1"]
    for text in texts:
        a = [SYSTEM.roll(text, random.Random(42)).as_json() for _ in range(3)]
        b = [SYSTEM.roll(text, random.Random(42)).as_json() for _ in range(3)]
        assert a == b
    rng1, rng2 = random.Random(7), random.Random(8)
    assert [SYSTEM.roll("3d10 vs 14", rng1).as_json()["dice"] for _ in range(5)] != \
           [SYSTEM.roll("3d10 vs 14", rng2).as_json()["dice"] for _ in range(5)]


# -- clauses of a check ---------------------------------------------------------------------

def test_aimed_location_adds_two_and_fixes_the_hit() -> None:
    hit = roll("3d10 vs 20 apuntado cabeza", 2, 5, 7)  # rolled location 5 (arm)
    assert hit.check.modifier == 2 and hit.hit_key == "cabeza" and hit.hit_digit == 0
    assert roll("3d10 vs 15 apuntado cabeza", 2, 5, 7).outcome == "failure"  # 14 + 2 > 15
    assert roll("3d10 vs 15", 2, 5, 7).outcome == "success"


def test_aimed_area_keeps_the_rolled_digit_inside_it() -> None:
    assert roll("3d10 vs 30 apuntado pecho", 1, 3, 9).hit_digit == 3
    assert roll("3d10 vs 30 apuntado pecho", 1, 6, 9).hit_digit == 1


def test_called_blow_adds_five() -> None:
    assert roll("3d10 vs 20 dirigido pierna", 2, 5, 7).check.modifier == 5


def test_missed_attack_has_no_hit_or_damage() -> None:
    result = roll("3d10 vs 5 daño II", 4, 5, 6)
    assert result.damage is None and result.hit_digit is None and result.as_json()["damage"] is None


def test_command_table_boundaries() -> None:
    table = {3: 3, 6: 3, 7: 2, 10: 2, 11: 1, 14: 1, 15: 0, 18: 0, 19: -1, 22: -1, 23: -2, 26: -2, 27: -3, 30: -3}
    for mando, value in table.items():
        assert command_modifier(mando) == value
        assert roll(f"3d10 vs 15 mando {mando}", 5, 5, 4).check.modifier == value
    for bad in (2, 31):
        with pytest.raises(DiceError) as err:
            command_modifier(bad)
        assert err.value.code == "sombra.mando_range"


def test_unarmed_difficulty_from_rival_dodge() -> None:
    assert [unarmed_difficulty(v) for v in (0, 1, 10, 11, 20, 21, 30)] == [-10, -5, -5, 0, 0, 5, 5]
    assert roll("3d10 vs 15 esquiva 20", 5, 5, 4).check.modifier == 0  # both players: dodge 20


def test_burst_penalties_worked_example() -> None:
    assert burst_penalty(1) == 0
    assert burst_penalty(2, step=5, target=2) == 10  # second bullet at a second shooter: +10
    assert burst_penalty(4, step=5) == 15  # +15 from the fourth bullet
    assert burst_penalty(3, step=1) == 2
    assert roll("3d10 vs 20 rafaga 2 blanco 2", 5, 5, 4).check.modifier == 10
    assert roll("3d10 vs 20 rafaga 3 paso 2", 5, 5, 4).check.modifier == 4


def test_modifiers_stack_and_moral() -> None:
    result = roll("3d10-1 vs 20 dificil prisa moral -3 (al asalto)", 5, 5, 4)
    assert result.check.modifier == -1 + 5 + 5 - 3
    assert result.comment == "al asalto"
    assert [m.name for m in result.modifiers] == ["dificil", "prisa", "moral"]


def test_unknown_words_start_the_comment() -> None:
    result = roll("3d10 vs 20 dificil contra el guardia prisa", 5, 5, 4)
    assert result.check.modifier == 5 and result.comment == "contra el guardia prisa"


# -- damage ---------------------------------------------------------------------------------

DAMAGE_DICE = (7, 3, 9)  # high 9, location 7, low 3


def expected_single(dtype: int) -> int:
    high, low = 9, 3
    return {0: low, 1: high, 2: high + low, 3: 2 * (high + low), 6: high * low,
            7: low * 100 + high * 10, 8: high * 100 + low * 10}[dtype]


@pytest.mark.parametrize("dtype", [0, 1, 2, 3, 6, 7, 8])
def test_single_location_damage_types(dtype: int) -> None:
    dmg = damage_from_dice(dtype, SombraDice(DAMAGE_DICE))
    assert [(h.digit, h.damage) for h in dmg.hits] == [(7, expected_single(dtype))]


def test_area_damage_type_iv() -> None:
    dmg = damage_from_dice(4, SombraDice(DAMAGE_DICE))
    # low die 3 -> three locations: 7, one above, one below; sum, high, high
    assert [(h.digit, h.damage) for h in dmg.hits] == [(7, 12), (8, 9), (6, 9)]
    grenade = roll("daño IV+4", 2, 5, 6)  # low 2: two locations
    assert [(h.digit, h.damage) for h in grenade.damage.hits] == [(5, 8 + 4), (6, 6 + 4)]


def test_area_order_and_wrap() -> None:
    assert area_digits(4, 6) == [4, 5, 3, 6, 2, 7]
    assert area_digits(9, 4) == [9, 0, 8, 1]
    assert sorted(area_digits(3, 10)) == list(range(10))


def test_fragmentation_type_v_hits_one_location_per_die() -> None:
    dmg = damage_from_dice(5, SombraDice(DAMAGE_DICE))
    assert sorted(h.digit for h in dmg.hits) == [3, 7, 9] and {h.damage for h in dmg.hits} == {12}


def test_critical_deals_maximum_damage() -> None:
    result = roll("3d10 vs 20 daño II+1", 4, 4, 4)
    assert result.outcome == "critical" and result.damage.maximum
    assert [(h.digit, h.damage) for h in result.damage.hits] == [(4, 10 + 10 + 1)]


def test_attack_with_damage_on_vehicle() -> None:
    result = roll("3d10 vs 25 vehiculo daño VI", 2, 5, 8)
    assert result.hit_key == LOCATION_TABLES["vehiculo"][5] == "cadenas"
    assert result.damage.total == 16


def test_strength_adjustment_only_for_melee() -> None:
    assert roll("daño I fue 8", 2, 5, 6).damage.total == 6 + 3
    assert roll("daño 0 fue 3", 2, 5, 6).damage.total == 2 - 2
    assert roll("daño II fue 8", 2, 5, 6).damage.total == 8


def test_damage_never_negative() -> None:
    assert roll("daño 0-5", 1, 2, 3).damage.total == 0


def test_wound_severity() -> None:
    assert [wound_severity(d, 6) for d in (6, 7, 12, 13)] == ["none", "light", "light", "serious"]


# -- locations ------------------------------------------------------------------------------

def test_location_tables_cover_every_digit() -> None:
    person = {0: "cabeza", 1: "pecho", 3: "pecho", 4: "brazo_derecho", 5: "brazo_izquierdo", 6: "abdomen", 7: "abdomen",
              8: "piernas", 9: "piernas"}
    vehicle = {0: "techo", 2: "chasis_frontal", 3: "chasis_lateral", 5: "cadenas", 7: "torreta_lateral",
               8: "torreta_frontal", 9: "bajos"}
    boat = {0: "puente", 1: "proa", 2: "amura_estribor", 3: "amura_babor", 4: "traves", 6: "traves",
            7: "aleta_estribor", 8: "aleta_babor", 9: "popa"}
    for table, expected in (("persona", person), ("vehiculo", vehicle), ("barco", boat)):
        assert len(LOCATION_TABLES[table]) == 10
        for digit, key in expected.items():
            assert LOCATION_TABLES[table][digit] == key


def test_location_roll_uses_the_middle_die() -> None:
    result = roll("localizacion barco", 9, 10, 2)
    assert result.total == 9 and result.key == "popa"
    assert roll("localización", 10, 10, 1).key == "cabeza"


# -- initiative, capacities and other rules -------------------------------------------------

def test_initiative_vel_then_agi() -> None:
    order = initiative_order([Combatant("A", 5, 9), Combatant("B", 7, 2), Combatant("C", 5, 10)])
    assert [s.combatant.name for s in order] == ["B", "C", "A"]
    assert not any(s.tied for s in order)


def test_initiative_full_tie_is_flagged_for_the_gm() -> None:
    order = initiative_order([Combatant("A", 5, 5), Combatant("B", 6, 1), Combatant("C", 5, 5)])
    assert [(s.rank, s.combatant.name, s.tied) for s in order] == [(1, "B", False), (2, "A", True), (2, "C", True)]


def test_initiative_syntax_boats_and_opportunity() -> None:
    result = SYSTEM.roll("iniciativa Ana 5 4, Lancha barco, Bruno 3/2 oportunidad", random.Random(1))
    assert isinstance(result, SombraInitiative)
    assert [s["name"] for s in result.as_json()["order"]] == ["Bruno", "Lancha", "Ana"]  # 3+5 > 5/5 > 5/4


def test_capacities_from_attributes() -> None:
    a = Attributes(fue=7, per=6, agi=4, vel=8, vit=5, vol=9, inv=3)
    c = capacities(a)
    assert (c.strength_bonus, c.alertness, c.walk, c.throw_object, c.carry) == (2, 18, 4, 28, 49)
    assert (c.run, c.run_rounds, c.dodge, c.initiative) == (4 + 16, 50, 8 + 8, (8, 4))
    assert (c.throw_skill, c.lift, c.command, c.pain_resistance) == (63, 63, 21, 4)
    assert (c.jump_running, c.jump_up, c.jump_down) == (3.0, 0.7, 1.3)
    assert (c.sprint, c.sprint_turns, c.death_threshold) == (4 + 24, 5, 5)


def test_attributes_are_bounded() -> None:
    with pytest.raises(DiceError) as err:
        Attributes(fue=11)
    assert err.value.code == "sombra.attribute_range"


def test_opposed_and_knockdown() -> None:
    a = resolve_check(SombraDice((3, 4, 5)), 15)  # success, margin 3
    b = resolve_check(SombraDice((2, 3, 6)), 15)  # success, margin 4
    c = resolve_check(SombraDice((9, 9, 8)), 15)  # failure
    assert opposed_winner(a, b) == 1 and opposed_winner(b, c) == 0 and opposed_winner(a, a) == -1
    assert knockdown_penalty(b) == 2  # the low die, not the location die (3)


def test_capsizing_only_on_medium_failure_or_fumble() -> None:
    assert [capsizes(level) for level in ("failure", "fumble", "low_failure", "success")] == [True, True, False, False]


def test_armour_loss_worked_examples() -> None:
    assert 60 - armour_loss(60, 80, "vehiculo") == 20  # tank: loses half the damage
    assert 30 - armour_loss(30, 80, "barco") == 10  # boat: loses a quarter
    assert armour_loss(60, 30, "vehiculo") == 0  # not more than half the armour
    assert interior_damage(30, 80) == 50 and interior_damage(90, 80) == 0


def test_boat_interior_split_and_flotation() -> None:
    assert boat_interior_split("puente", 40) == (10, 30)
    assert boat_interior_split("proa", 30) == (10, 20)
    state = BoatState({"traves": 10}, flotation=30)
    state, hit = hit_boat(state, "traves", 16, below_waterline=True)
    assert (hit.interior, hit.flotation_lost, state.flotation, state.armour["traves"]) == (6, 12, 18, 6)
    assert state.sinking
    assert sinking_round(state).flotation == 17
    assert not sinking_round(BoatState({}, 30, 5)).sinking


def test_boat_movement() -> None:
    assert boat_metres_per_round(10) == 18.0
    assert max_deceleration(2) == 6


def test_state_objects_round_trip_through_json() -> None:
    objects = [
        SombraDice((1, 10, 4)), resolve_check(SombraDice((2, 5, 9)), 14, 3), Attributes(fue=8),
        capacities(Attributes()), Combatant("Ana", 7, 6, 5), InitiativeSlot(1, Combatant("B", 1, 2), True),
        Modifier("mando", -2, 25), damage_from_dice(4, SombraDice((2, 5, 6)), "barco", 4),
        BoatState({"proa": 20}, 40, 3),
    ]
    for obj in objects:
        data = json.loads(json.dumps(obj.to_dict()))
        assert type(obj).from_dict(data) == obj
    assert isinstance(CheckResult.from_dict(objects[1].to_dict()), CheckResult)
    assert isinstance(Capacities.from_dict(objects[3].to_dict()), Capacities)
    assert isinstance(DamageResult.from_dict(objects[7].to_dict()), DamageResult)


def test_success_level_function_directly() -> None:
    assert success_level(SombraDice((1, 1, 1)), 0, 10) == "critical"


# -- errors ---------------------------------------------------------------------------------

BAD = {
    "3d10 vs": "sombra.target_missing",
    "3d10 vs doce": "sombra.target_missing",
    "3d10 vs 31": "sombra.number_range",
    "3d10+31 vs 12": "sombra.number_range",
    "2d10 vs 12": "sombra.check_dice",
    "3d10+1d6 vs 12": "sombra.check_dice",
    "3d10! vs 12": "sombra.check_dice",
    "3d10 vs 12 apuntado nariz": "sombra.unknown_location",
    "3d10 vs 12 apuntado": "sombra.unknown_location",
    "3d10 vs 12 vehiculo apuntado cabeza": "sombra.location_table",
    "3d10 vs 12 mando": "sombra.number_missing",
    "3d10 vs 12 mando 99999": "sombra.number_missing",
    "3d10 vs 12 esquiva 31": "sombra.number_range",
    "3d10 vs 12 rafaga 0": "sombra.number_range",
    "3d10 vs 12 daño IX": "sombra.damage_type",
    "daño": "sombra.damage_type",
    "daño II+500": "sombra.number_range",
    "daño II prisa": "sombra.modifier_without_check",
    "localizacion dificil": "sombra.modifier_without_check",
    "iniciativa": "sombra.initiative_empty",
    "iniciativa Ana": "sombra.initiative_entry",
    "iniciativa Ana 11 3": "sombra.number_range",
    "3x10": "not_an_expression",
    "3d10 +": "dangling_operator",
    "x" * 600: "too_long",
}


def test_garbage_only_raises_dice_error() -> None:
    rng = random.Random(3)
    alphabet = "3d10 vs+-!()apuntdoñIVX,/9 fue daño localizacion iniciativa"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for prefix in ("", "3d10 vs 12 ", "daño ", "iniciativa "):
            with contextlib.suppress(DiceError):
                SYSTEM.roll(prefix + text, rng).as_json()


# -- templates ------------------------------------------------------------------------------

SAMPLES = [
    ("3d10 vs 14", (2, 5, 6)), ("3d10+2 vs 14 dificil mando 25 rafaga 2", (2, 5, 6)),
    ("3d10 vs 14 apuntado cabeza", (2, 5, 6)), ("3d10 vs 30 barco daño V", (2, 5, 6)),
    ("3d10 vs 30 daño IV+4", (4, 4, 4)), ("3d10 vs 3", (10, 10, 10)), ("3d10 vs 4", (1, 2, 3)),
    ("daño VIII vehiculo", (2, 5, 6)), ("daño II apuntado torreta lateral", (2, 5, 6)),
    ("localizacion vehiculo", (2, 10, 6)), ("localizacion", (1, 1, 1)),
]


def test_result_classes() -> None:
    assert isinstance(roll("3d10 vs 14", 1, 2, 3), SombraCheck)
    assert isinstance(roll("daño II", 1, 2, 3), SombraDamageRoll)
    assert isinstance(roll("loc persona", 1, 2, 3), SombraLocationRoll)


# -- a modifier written after the target (issue 10, item 14) ---------------------------------

@pytest.mark.parametrize(("after", "before"), [
    ("3d10 vs 14 +3", "3d10+3 vs 14"), ("3d10 vs 14 -2", "3d10-2 vs 14"), ("3d10+1 vs 14 +3", "3d10+4 vs 14"),
    ("3d10 vs 14 + 3", "3d10+3 vs 14"), ("3d10 vs 14 dificil +3", "3d10+3 vs 14 dificil"),
])
def test_a_modifier_after_the_target_adds_to_the_roll(after: str, before: str) -> None:
    for dice in all_faces(10, 10, 10):
        late, early = roll(after, *dice).as_json(), roll(before, *dice).as_json()
        assert late == early


def test_a_modifier_after_the_target_exact() -> None:
    # 3+6+4 = 13, +3 = 16 > 14: a failure (it was a success with the +3 read as a comment).
    data = roll("3d10 vs 14 +3", 3, 6, 4).as_json()
    assert (data["total"], data["roll_modifier"], data["effective"], data["success"], data["comment"]) == (
        13, 3, 16, False, "")
    with pytest.raises(DiceError):
        roll("3d10 vs 14 +31")


def test_structured_check_request_rolls_as_the_typed_text():
    """The table's check (``check_request``: the game's clauses, the player's, then the state's modifiers)
    resolves as the same check written out."""
    from systems.sombra.resolver import check_request, check_roll
    from systems.sombra.syntax import Clauses, read_weapon

    for triple in [(1, 1, 1), (2, 5, 9), (4, 4, 4), (10, 10, 10), (3, 6, 8)]:
        game = Clauses([Modifier("segundo", 5)], table="persona", damage=read_weapon("I+1", 8))
        request = check_request(14, "dificil apuntado cabeza −2 (nota)", modifier=2, clauses=game,
                                extra=(Modifier("heridas", 2),))
        structured = check_roll(request, faces(10, *triple))
        rng = faces(10, *triple)
        typed = SYSTEM.roll_with("3d10+2 vs 14 persona daño I+1 fue 8 segundo dificil apuntado cabeza -2 (nota)",
                                 rng, (("heridas", 2),))
        assert isinstance(typed, SombraCheck)
        assert structured.expr_text == typed.expr_text == "3d10+2 vs 14"
        assert structured.as_json() == typed.as_json()


def test_structured_damage_request_rolls_as_the_typed_text():
    from systems.sombra.resolver import damage_request, damage_roll

    for triple in [(1, 2, 3), (10, 7, 4)]:
        structured = damage_roll(damage_request("VI", "barco", "apuntado proa torpedo"), faces(10, *triple))
        assert structured.as_json() == roll("daño VI barco apuntado proa torpedo", *triple).as_json()


def test_a_weapon_reads_its_type_bonus_and_the_wielders_strength():
    from systems.sombra.syntax import read_weapon

    weapon = read_weapon("I+1", 8)
    assert (weapon.damage_type, weapon.bonus, weapon.strength, weapon.total_bonus) == (1, 1, 8, 4)
    assert read_weapon("I fue 6", 8).strength == 6
    with pytest.raises(DiceError):
        read_weapon("I banana")
    with pytest.raises(DiceError):
        read_weapon("II", 11)
