"""El Reino de la Sombra: the roll syntax, the JSON contract and errors (the messages:
tests/games/reino/test_roll_messages.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from systems.base import DiceRoll
from systems.dice import DiceError
from systems.reino.resolver import SYSTEM
from tests.scripted import FaceRng, all_faces, faces

ROOT = Path(__file__).resolve().parents[3]


def roll(text: str, *d20_faces: int):
    return SYSTEM.roll(text, faces(20, *d20_faces))


def expected_successes(modifier: int, dc: int) -> int:
    """Faces out of 20 that pass: the 20 always, the 1 never, 2..19 when face >= dc - modifier."""
    lowest = max(2, dc - modifier)
    return 1 + max(0, 19 - lowest + 1)


# --- the basic check -------------------------------------------------------------------


@pytest.mark.parametrize("modifier", [-40, -6, 0, 3, 9, 14, 40])
@pytest.mark.parametrize("dc", [0, 1, 10, 15, 18, 25, 35])
def test_basic_check_distribution_matches_formula(modifier: int, dc: int) -> None:
    text = f"d20{modifier:+d} vs {dc}"
    outcomes = [roll(text, face).outcome for (face,) in all_faces(20)]
    assert outcomes.count("success") == expected_successes(modifier, dc)
    assert outcomes.count("failure") == 20 - expected_successes(modifier, dc)


def test_natural_one_fails_with_a_huge_bonus() -> None:
    result = roll("d20+1000 vs 5", 1)
    assert (result.outcome, result.total, result.as_json()["natural"]) == ("failure", 1001, 1)


def test_natural_twenty_succeeds_with_a_huge_penalty() -> None:
    result = roll("d20-1000 vs 30", 20)
    assert (result.outcome, result.total) == ("success", -980)


def test_total_equal_to_dc_succeeds_one_below_fails() -> None:
    assert roll("d20+3 vs 15", 12).outcome == "success"
    assert roll("d20+3 vs 15", 11).outcome == "failure"


def test_prueba_defaults_to_dc_15() -> None:
    for (face,) in all_faces(20):
        plain = roll("prueba +3", face).as_json()
        explicit = roll("d20+3 vs 15", face).as_json()
        assert plain == explicit
        assert plain["dc"] == 15


@pytest.mark.parametrize("text", ["d20+3 vs CD 15", "d20+3 cd 15", "d20 +3 vs. 15", "prueba +3 vs cd 15"])
def test_dc_spellings(text: str) -> None:
    assert roll(text, 12).as_json()["dc"] == 15
    assert roll(text, 12).outcome == "success" and roll(text, 11).outcome == "failure"


def test_attack_defense_spellings() -> None:
    assert roll("ataque +5 vs defensa 14", 9).as_json()["defense"] == 14
    assert roll("ataque +5 def 14", 9).as_json()["defense"] == 14


def test_several_constants_add_up_to_the_modifier() -> None:
    assert roll("1d20+5-2 cd 12", 9).as_json()["modifier"] == 3


def test_contract_fields_and_types() -> None:
    data = roll("d20-2 vs 14 (abrir la reja)", 17).as_json()
    assert data["system"] == "reino"
    assert data["total"] == 15 and isinstance(data["total"], int)
    assert data["dice"] == [17]
    assert data["outcome"] == "success"
    assert data["natural"] == 17
    assert data["comment"] == "abrir la reja"
    json.dumps(data)


def test_seeded_rolls_are_reproducible_and_use_the_engine_face_formula() -> None:
    first = [SYSTEM.roll("d20+1 vs 12", random.Random(7)).as_json() for _ in range(3)]
    again = [SYSTEM.roll("d20+1 vs 12", random.Random(7)).as_json() for _ in range(3)]
    assert first == again
    reference = random.Random(7)
    assert first[0]["natural"] == int(reference.random() * 20) + 1


def test_generic_expressions_fall_back_to_plain_dice() -> None:
    result = SYSTEM.roll("3d6+2 fuego", FaceRng([(1, 6), (4, 6), (6, 6)]))
    assert isinstance(result, DiceRoll)
    data = result.as_json()
    assert (data["system"], data["total"], data["dice"], data["comment"]) == ("reino", 13, [1, 4, 6], "fuego")


# --- opposed tests ---------------------------------------------------------------------


def test_opposed_counts_over_all_face_pairs() -> None:
    counts = {"win": 0, "loss": 0, "tie": 0}
    expected = {"win": 0, "loss": 0, "tie": 0}
    for a, b in all_faces(20, 20):
        counts[roll("enfrentada +3 +1", a, b).outcome] += 1
        key = "tie" if a + 3 == b + 1 else ("win" if a + 3 > b + 1 else "loss")
        expected[key] += 1
    assert counts == expected
    assert counts["tie"] == 18


@pytest.mark.parametrize("text", ["d20+3 contra d20+1", "d20+3 contra +1", "enfrentada +3 contra +1"])
def test_opposed_spellings_agree(text: str) -> None:
    data = roll(text, 10, 13).as_json()
    assert (data["totals"], data["outcome"], data["dice"]) == ([13, 14], "loss", [10, 13])


def test_opposed_natural_twenty_does_not_beat_a_higher_total() -> None:
    assert roll("enfrentada +0 +15", 20, 6).outcome == "loss"


# --- attacks ---------------------------------------------------------------------------


def test_attack_critical_by_margin_over_defense_plus_dr() -> None:
    # Defense 14 + DR 2 + 10 = 26: with +15 faces 11..20 crit; faces 2..10 hit; 1 misses.
    outcomes = {face: roll("ataque +15 vs 14 rd 2", face).outcome for (face,) in all_faces(20)}
    assert [f for f, o in outcomes.items() if o == "critical"] == list(range(11, 21))
    assert [f for f, o in outcomes.items() if o == "hit"] == list(range(2, 11))
    assert outcomes[1] == "miss"


def test_attack_margin_boundary() -> None:
    assert roll("ataque +5 vs 10", 15).outcome == "critical"  # 20 = 10 + 10
    assert roll("ataque +5 vs 10", 14).outcome == "hit"  # 19: one short


def test_natural_twenty_is_a_critical_even_when_it_would_miss() -> None:
    assert roll("ataque -5 vs 30", 20).outcome == "critical"


def test_minion_never_crits() -> None:
    assert roll("ataque +15 vs 14 secuaz", 20).outcome == "hit"
    assert roll("ataque +15 vs 14 rd 0 secuaz", 12).outcome == "hit"
    assert roll("ataque +15 vs 14 secuaz", 1).outcome == "miss"


def test_attack_json() -> None:
    data = roll("ataque +5 vs 14 rd 2 (espada)", 9).as_json()
    assert data["defense"] == 14 and data["damage_reduction"] == 2
    assert data["critical_threshold"] == 26
    assert (data["total"], data["dice"], data["outcome"], data["comment"]) == (14, [9], "hit", "espada")


# --- damage ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "face", "total"),
    [
        ("fue +3", 5, 8),
        ("fue +3 dos manos", 5, 9),  # 3 x 1.5 = 4.5 -> 4
        ("fue +4 a dos manos", 5, 11),  # 4 x 1.5 = 6
        ("fue +3 secundaria", 5, 6),  # 3 / 2 = 1.5 -> 1
        ("fue +3 arrojadiza", 5, 6),
        ("fue +3 proyectil", 5, 5),
        ("fue +3 proyectil preparado", 5, 8),
        ("fue -3 secundaria", 5, 4),  # -1.5 -> -1 (toward zero)
        ("fue -3 dos manos", 5, 1),  # -4.5 -> -4
        ("fue +3 x2", 5, 16),
        ("fue +3 dos manos crítico x3", 5, 27),
        ("fue -9", 2, 0),  # never below zero
    ],
)
def test_damage_strength_share_and_multiplier(options: str, face: int, total: int) -> None:
    result = SYSTEM.roll(f"daño 1d8 {options}", faces(8, face))
    assert result.total == total
    assert result.as_json()["dice"] == [face]


def test_damage_serious_wound_threshold() -> None:
    at = SYSTEM.roll("daño 1d8 fue +3 umbral 9", faces(8, 6)).as_json()
    assert (at["outcome"], at["fortitude_dc"]) == ("serious_wound", 19)
    below = SYSTEM.roll("daño 1d8 fue +3 umbral 10", faces(8, 6)).as_json()
    assert (below["outcome"], below["fortitude_dc"]) == ("damage", None)


def test_damage_drops_a_minion_at_its_threshold() -> None:
    data = SYSTEM.roll("daño 2d6 umbral 7 secuaz", faces(6, 3, 4)).as_json()
    assert (data["outcome"], data["total"], data["fortitude_dc"]) == ("minion_down", 7, None)


def test_damage_spellings() -> None:
    for word in ("daño", "dano", "DAÑO", "damage"):
        assert SYSTEM.roll(f"{word} 1d6+1 fue 2", faces(6, 4)).total == 7


# --- initiative, saves, dying, recovery -------------------------------------------------


def test_initiative_is_d20_plus_bonus() -> None:
    data = roll("iniciativa +2", 13).as_json()
    assert (data["total"], data["dice"], data["outcome"]) == (15, [13], "initiative")


@pytest.mark.parametrize("text", ["fortaleza +4 daño 14", "herida +4 daño 14", "salvación fortaleza +4 daño 14"])
def test_serious_wound_save_dc_is_10_plus_damage(text: str) -> None:
    data = roll(text, 19).as_json()
    assert (data["dc"], data["outcome"], data["table"]) == (24, "failure", "GDJ15")
    assert roll(text, 20).outcome == "success"


@pytest.mark.parametrize(("text", "purpose"), [("reflejos +2 vs 12", "reflejos"), ("voluntad +2 cd 12", "voluntad")])
def test_other_saves_use_the_given_dc(text: str, purpose: str) -> None:
    assert roll(text, 10).as_json()["purpose"] == purpose
    assert roll(text, 10).outcome == "success"
    assert roll(text, 9).outcome == "failure"


def test_save_without_dc_uses_the_default() -> None:
    assert roll("voluntad +0", 15).as_json()["dc"] == 15


def test_dying_save_fates_by_face() -> None:
    # DC 10 + 3 previous = 13 with +2: dead below 11, dying 11..19, stable on 20 (21 < 23).
    fates = {face: roll("moribundo +2 previas 3", face).outcome for (face,) in all_faces(20)}
    assert [f for f, o in fates.items() if o == "dead"] == list(range(1, 11))
    assert [f for f, o in fates.items() if o == "dying"] == list(range(11, 20))
    assert fates[20] == "stable"


def test_dying_save_stabilises_on_a_margin_of_ten() -> None:
    # DC 10 with +12: face 8 gives 20 = DC + 10; face 7 gives 19; face 1 dies anyway.
    assert roll("moribundo +12", 8).outcome == "stable"
    assert roll("moribundo +12", 7).outcome == "dying"
    assert roll("moribundo +12", 1).outcome == "dead"


def test_stabilise_is_dc_15() -> None:
    assert roll("estabilizar +3", 12).outcome == "success"
    assert roll("estabilizar +3", 11).outcome == "failure"


def test_recovery_adds_one_per_minute_after_the_first() -> None:
    data = roll("consciencia +1 minutos 3", 7).as_json()
    assert (data["dc"], data["modifier"], data["outcome"]) == (10, 3, "success")
    assert roll("consciencia +1 minutos 3", 6).outcome == "failure"
    assert roll("consciencia +1", 8).outcome == "failure"


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("2d6 vs 7", "reino.needs_d20"),
        ("d20! vs 7", "reino.needs_d20"),
        ("ataque +5", "reino.missing_defense"),
        ("prueba +3 vs", "reino.missing_dc"),
        ("prueba +99999", "reino.too_big"),
        ("prueba +3 vs 100000000", "reino.too_big"),
        ("prueba +3x", "unexpected_text"),
        ("prueba +3 +", "unexpected_text"),
        ("enfrentada +3", "reino.missing_opponent"),
        ("daño 1d8 crítico", "reino.missing_multiplier"),
        ("daño 1d8 x 20", "reino.bad_multiplier"),
        ("daño 1d8 fue", "reino.missing_number"),
        ("daño fue +3", "not_an_expression"),
        ("daño 9999d6", "too_many_dice"),
        ("herida +3", "reino.missing_damage"),
        ("salvación astucia", "reino.unknown_save"),
        ("consciencia minutos 0", "reino.bad_minutes"),
        ("hola", "not_an_expression"),
        ("d20" + "+1" * 400, "too_long"),
    ],
)
def test_bad_input_raises_dice_error(text: str, code: str) -> None:
    with pytest.raises(DiceError) as info:
        SYSTEM.roll(text, random.Random(1))
    assert info.value.code == code


# --- templates -------------------------------------------------------------------------

EVERY_KIND = [
    ("d20+3 vs 15", "reino/check", "CD 15"),
    ("prueba -1", "reino/check", "Prueba d20-1"),
    ("reflejos +2 vs 12", "reino/check", "Reflejos"),
    ("estabilizar +3", "reino/check", "Estabilizar"),
    ("consciencia +1 minutos 2", "reino/check", "consciencia"),
    ("enfrentada +3 +1", "reino/opposed", "enfrentada"),
    ("ataque +5 vs 14 rd 2", "reino/attack", "Defensa 14"),
    ("daño 1d8 fue +3 dos manos x2 umbral 5", "reino/damage", "Fortaleza CD"),
    ("daño 1d8 umbral 1 secuaz", "reino/damage", "secuaz"),
    ("iniciativa +2", "reino/initiative", "Iniciativa"),
    ("fortaleza +4 daño 14", "reino/wound", "GDJ15"),
    ("moribundo +2 previas 1", "reino/dying", "Moribundo"),
    ("3d6", "roll", "3d6"),
]


# --- the command line ------------------------------------------------------------------


# --- a modifier written after the target (issue 10, item 14) ---------------------------


@pytest.mark.parametrize(("after", "before"), [
    ("d20 vs 12 +2", "d20+2 vs 12"), ("d20+1 vs 12 -3", "d20-2 vs 12"), ("d20 vs 12 + 2 (saltar)", "d20+2 vs 12 (saltar)"),
    ("prueba +1 vs 12 +2", "prueba +3 vs 12"), ("fortaleza vs 14 +2", "fortaleza +2 vs 14"),
    ("ataque +5 vs 14 +2 rd 1", "ataque +7 vs 14 rd 1"),
])
def test_a_modifier_after_the_target_adds_to_the_d20(after: str, before: str) -> None:
    for face in range(1, 21):
        assert roll(after, face).as_json() == roll(before, face).as_json()


def test_a_modifier_after_the_target_exact() -> None:
    data = roll("d20 vs 12 +2", 10).as_json()
    assert (data["natural"], data["modifier"], data["total"], data["outcome"]) == (10, 2, 12, "success")
