"""Stormbringer / Elric (002): checks, combat rules, syntax (the messages: tests/games/stormbringer/test_roll_messages.py)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from systems.dice import DiceError
from systems.stormbringer.combat import (
    Combatant,
    RoundCounter,
    RoundPhases,
    SurpriseState,
    TrainingLog,
    demon_object_breaks,
    experience_improves,
    resolve_damage,
    round_phases,
    weapon_survives_critical,
)
from systems.stormbringer.resolver import SYSTEM
from systems.stormbringer.rules import (
    Target,
    attack_target,
    dodge_effect,
    parry_effect,
    parry_target,
)
from tests.scripted import FaceRng, all_faces, faces

GRADES = ("fumble", "failure", "success", "critical")


def roll(text: str, *script: tuple[int, int]):
    rng = FaceRng(script)
    result = SYSTEM.roll(text, rng)
    assert rng.exhausted(), "scripted dice left over"
    return result


def check_counts(text: str) -> Counter:
    return Counter(SYSTEM.roll(text, faces(100, f)).as_json()["outcome"] for (f,) in all_faces(100))


# Counts worked out by hand from the rules (00 = 100):
#   46  -> critical 01-04, success 05-46, failure 47-98, fumble 99 and 00
#   0-4 -> read as 5: no critical (5 // 10 = 0), success 01-05, failure 06-98, fumble 99, 00
#   9   -> no critical, success 01-09; 10 -> critical 01, success 02-10
#   100 -> critical 01-10, success 11-98, fumble 99, 00 (no failure at all)
#   101 -> critical 01-10, success 11-99, fumble only 00
#   150 -> critical 01-15, success 16-99, fumble only 00
HAND_COUNTS = {
    46: (4, 42, 52, 2),
    0: (0, 5, 93, 2),
    1: (0, 5, 93, 2),
    4: (0, 5, 93, 2),
    5: (0, 5, 93, 2),
    9: (0, 9, 89, 2),
    10: (1, 9, 88, 2),
    100: (10, 88, 0, 2),
    101: (10, 89, 0, 1),
    150: (15, 84, 0, 1),
}


@pytest.mark.parametrize("skill", sorted(HAND_COUNTS))
def test_check_distribution_matches_hand_counts(skill):
    critical, success, failure, fumble = HAND_COUNTS[skill]
    counts = check_counts(f"d100 vs {skill}")
    assert counts == Counter({k: v for k, v in zip(
        ("critical", "success", "failure", "fumble"), (critical, success, failure, fumble)) if v})


def brute_force_outcome(face: int, skill: int) -> str:
    """An independent reading of the rules, face by face."""
    target = skill if skill >= 5 else 5
    if face == 100:
        return "fumble"
    if face == 99 and target < 101:
        return "fumble"
    if face * 10 <= target:
        return "critical"
    return "success" if face <= target else "failure"


@pytest.mark.parametrize("skill", range(0, 230, 7))
def test_check_matches_brute_force_face_by_face(skill):
    for face in range(1, 101):
        got = SYSTEM.roll(f"vs {skill}", faces(100, face)).as_json()["outcome"]
        assert got == brute_force_outcome(face, skill), (skill, face)


@pytest.mark.parametrize("text", ["d100 vs 46", "d% vs 46", "1d100 vs 46%", "vs 46", "D100 VS 46", "vs 46%"])
def test_check_spellings_agree(text):
    assert check_counts(text) == Counter(critical=4, success=42, failure=52, fumble=2)


def test_worked_example_46_critical_range():
    """002: 'si el porcentaje de ataque es 46%, 01, 02, 03 y 04 son tiradas críticas'."""
    outcomes = {f: roll("ataque 46", (f, 100)).roll.outcome for f in range(1, 7)}
    assert [f for f, o in outcomes.items() if o == "critical"] == [1, 2, 3, 4]
    assert outcomes[5] == outcomes[6] == "success"


def test_modifiers_then_floor_of_five():
    assert roll("d100 vs 46 +20", (66, 100)).as_json()["outcome"] == "success"
    assert roll("d100 vs 46 +20", (67, 100)).as_json()["outcome"] == "failure"
    low = roll("vs 10 -50", (5, 100)).as_json()
    assert (low["target"], low["outcome"]) == (5, "success")


@pytest.mark.parametrize(
    "text, target",
    [
        ("ataque 60", 60),
        ("ataque 60 segundo", 40),       # each further attack in a round -20%
        ("ataque 60 tercer", 20),
        ("ataque 60 x3", 20),
        ("ataque 55 dos armas", 30),     # second weapon -25%
        ("ataque 55 dos armas ambidiestro", 55),
        ("ataque 60 mitad", 30),         # fortification halves the attack
        ("ataque 30 sorprendido", 60),   # enemy caught unawares doubles it
        ("ataque 60 abajo", 35),         # lower ground -25%
        ("ataque 2", 5),                 # never below 5%
        ("parada 40", 40),
        ("parada 40 segunda", 20),       # -20% per extra parry
        ("parada 40 x2", 20),
        ("parada 100 tercera", 60),      # the master's three parries
        ("parada 40 proyectil", 20),     # half against missiles
        ("parada 50 x2 proyectil", 15),  # (50 - 20) / 2
        ("parada 40 flecha", 20),        # arrows: half, and only with a shield
        ("parada 60 abajo", 35),
        ("esquiva 30", 30),
        ("esquiva 30 arrojadiza", 15),   # thrown weapons: half
        ("emboscada 60 -10", 50),
    ],
)
def test_named_roll_targets(text, target):
    assert SYSTEM.roll(text, faces(100, 50, 50)).as_json()["target"] == target


def test_attack_without_fumble_rolls_one_die():
    assert roll("ataque 60", (98, 100)).as_json()["dice"] == [98]


@pytest.mark.parametrize("attack", GRADES)
@pytest.mark.parametrize("defence", GRADES)
def test_parry_and_dodge_effects(attack, defence):
    hit = attack in ("success", "critical")
    defended = defence in ("success", "critical")
    parry = parry_effect(attack, defence)
    dodge = dodge_effect(attack, defence)
    if attack == "critical":
        assert parry.stops_blow == (defence == "critical") == parry.both_weapons_destroyed
        assert dodge.stops_blow == (defence == "critical")
    else:
        assert parry.stops_blow == (not hit or defended)
        assert dodge.stops_blow == (not hit or defended)
        assert not parry.both_weapons_destroyed
    assert parry.attacker_weapon_breaks == (attack == "success" and defence == "critical")


def test_parry_against_critical_needs_a_critical():
    plain = roll("parada 80 vs critico", (20, 100)).as_json()
    crit = roll("parada 80 vs critico", (8, 100)).as_json()
    assert (plain["outcome"], plain["stops_blow"]) == ("success", False)
    assert (crit["stops_blow"], crit["both_weapons_destroyed"]) == (True, True)


def test_dodge_arrow_is_refused():
    with pytest.raises(DiceError) as err:
        SYSTEM.roll("esquiva 40 flecha", faces(100, 1))
    assert err.value.code == "stormbringer.cannot_dodge_arrow"


def test_round_counter_penalties_and_failed_parry():
    counter = RoundCounter()
    assert (counter.attack_penalty(), counter.parry_penalty()) == (0, 0)
    counter.record_parry(succeeded=True)
    counter.record_parry(succeeded=True, free=True)  # the shield's extra parry costs nothing
    assert counter.parry_penalty() == -20 and counter.can_parry()
    counter.record_parry(succeeded=False)
    assert counter.parry_penalty() == -40 and not counter.can_parry()
    counter.record_attack()
    counter.record_attack()
    assert counter.attack_penalty() == -40
    assert parry_target(60, parries_before=counter.parries).value == 20
    restored = RoundCounter.from_dict(json.loads(json.dumps(counter.to_dict())))
    assert restored == counter
    counter.reset()
    assert counter == RoundCounter()


def test_master_parries_earn_ripostes():
    counter = RoundCounter()
    for _ in range(3):
        counter.record_parry(succeeded=True, master=True)
    assert counter.ripostes_earned == 3
    counter.record_attack(riposte=True)
    assert counter.ripostes_earned == 2 and counter.attack_penalty() == -20


def test_attack_target_second_weapon_and_factor():
    assert attack_target(80, attacks_before=1, second_weapon=True).value == 35
    assert attack_target(80, factor="double").critical_max == 16  # crit range grows with it
    target = Target.from_dict(json.loads(json.dumps(attack_target(50, attacks_before=2).to_dict())))
    assert target.value == 10


def test_round_phases_order():
    fighters = [
        Combatant("Elric", 17, "melee"),
        Combatant("Arquero", 12, "missile", "gm"),
        Combatant("Moonglum", 15, "melee"),
        Combatant("Hondero", 14, "missile", "gm"),
        Combatant("Cambia", 16, "melee", changing_weapon=True),  # acts at DEX 11
    ]
    phases = round_phases(fighters)
    assert phases.intent == ["Arquero", "Hondero", "Moonglum", "Cambia", "Elric"]
    assert phases.missile == ["Hondero", "Arquero"]
    assert phases.melee == ["Elric", "Moonglum", "Cambia"]
    assert RoundPhases.from_dict(json.loads(json.dumps(phases.to_dict()))) == phases


def test_round_phases_ties_alternate_sides():
    pair = [Combatant("Orco", 12, side="gm"), Combatant("Ana", 12)]
    assert round_phases(pair, 1, "players").melee == ["Ana", "Orco"]
    assert round_phases(pair, 2, "players").melee == ["Orco", "Ana"]
    assert round_phases(pair, 1, "gm").intent == ["Orco", "Ana"]
    back = Combatant.from_dict(json.loads(json.dumps(pair[0].to_dict())))
    assert back == pair[0]


def test_surprise_limits():
    ambush = SurpriseState("ambush", rounds=2)
    assert [ambush.limits(n).parry for n in (1, 2, 3)] == [False, False, True]
    spotted, master = SurpriseState("spotted"), SurpriseState("spotted", master=True)
    assert spotted.limits(1).parry and not spotted.limits(1).attack and master.limits(1).attack
    unaware = SurpriseState("unaware")
    assert [(unaware.limits(n).attack, unaware.limits(n).parry) for n in (1, 2, 3)] == [
        (False, False), (False, True), (True, True)]
    saved = SurpriseState("helpless_saved")
    assert not saved.limits(1).dodge and saved.limits(2).dodge and not saved.limits(2).attack
    init = SurpriseState("initiative").limits(1)
    assert (init.attack, init.parry, init.dodge) == (False, False, True)
    assert SurpriseState.from_dict(json.loads(json.dumps(ambush.to_dict()))) == ambush


def test_ambush_success_rolls_1d4_minus_1_rounds():
    rounds = {roll("emboscada 60", (10, 100), (f, 4)).as_json()["surprise_rounds"] for f in range(1, 5)}
    assert rounds == {0, 1, 2, 3}
    failed = roll("emboscada 60", (70, 100)).as_json()
    assert failed["surprise_rounds"] == 0 and failed["dice"] == [70]


def test_surprise_roll_alone():
    assert [roll("sorpresa", (f, 4)).total for f in range(1, 5)] == [0, 1, 2, 3]


def test_initiative_surprise_needs_strictly_higher_total():
    assert roll("iniciativa 14 vs 12", (3, 10), (5, 10)).as_json()["outcome"] == "defender"  # 17 vs 17
    won = roll("iniciativa 14 vs 12", (4, 10), (5, 10)).as_json()
    assert (won["outcome"], won["attacker_total"], won["defender_total"]) == ("attacker", 18, 17)


def test_damage_with_bonus_and_armour():
    data = roll("daño 1d8+1d4 bf +1d4 armadura 1d6", (5, 8), (2, 4), (3, 4), (6, 6)).as_json()
    assert (data["rolled"], data["armour"], data["absorbed"], data["hp_lost"]) == (10, 6, 6, 4)
    assert data["dice"] == [5, 2, 3, 6] and data["total"] == 4 and data["major_wound"] is None


def test_armour_absorbs_everything():
    data = roll("daño 1d6 armadura 8", (3, 6)).as_json()
    assert (data["hp_lost"], data["outcome"]) == (0, "absorbed")


def test_critical_damage_doubles_ignores_armour_and_calls_wound_table():
    data = roll("daño 1d8 bf 1d4 armadura 1d6 crítico", (5, 8), (3, 4), (42, 100)).as_json()
    assert (data["inflicted"], data["absorbed"], data["hp_lost"]) == (16, 0, 16)
    assert data["major_wound"] and data["stunned"] and data["wound_table"] == 42


@pytest.mark.parametrize("weapon, major", [(6, False), (7, True), (8, True)])
def test_major_wound_threshold_is_reached_at_equal(weapon, major):
    script = [(weapon, 8)] + ([(50, 100)] if major else [])
    data = roll("daño 1d8 grave 7", *script).as_json()
    assert data["major_wound"] is major and (data["wound_table"] is not None) is major


def test_resolve_damage_pure():
    hit = resolve_damage(9, 4, major_threshold=5)
    assert (hit.hp_lost, hit.major_wound, hit.wound_table) == (5, True, True)
    assert resolve_damage(3, 1, critical=True).hp_lost == 6


def test_weapon_optional_hit_points_and_demon_object():
    assert weapon_survives_critical(10) and not weapon_survives_critical(11)
    assert not weapon_survives_critical(6, weapon_hp=11)
    assert [f for f in range(1, 101) if demon_object_breaks(f)] == list(range(51, 101))
    assert roll("demonio", (51, 100)).as_json()["outcome"] == "weapon_breaks"
    assert roll("demonio", (50, 100)).as_json()["outcome"] == "weapon_holds"


def test_experience_distribution_with_int_bonus():
    improved = 0
    for (face,) in all_faces(100):
        script = [(face, 100)] + ([(7, 10)] if face + 3 > 46 else [])
        data = roll("experiencia 46 int 15", *script).as_json()
        if data["outcome"] == "improved":
            improved += 1
            assert data["new_skill"] == 53
    assert improved == 100 - 43  # faces 44-100 beat 46 with +3 (INT 15 is 3 over 12)


def test_experience_low_int_gives_no_penalty():
    assert experience_improves(47, 46, intelligence=8)
    assert not experience_improves(46, 46, intelligence=12)


def test_training_gains_are_1d6_minus_2_each():
    seen = set()
    for a, p in all_faces(6, 6):
        data = roll("entrenamiento 45 40", (a, 6), (p, 6)).as_json()
        assert (data["attack_gain"], data["parry_gain"]) == (a - 2, p - 2)
        seen.add(data["attack_gain"])
    assert seen == {-1, 0, 1, 2, 3, 4}


def test_training_log_rules():
    log = TrainingLog()
    assert log.refusal("Elric", "espada", 1, attack=89, parry=95) == "not_a_master"
    assert log.refusal("Elric", "espada", 1, attack=90, parry=90) is None
    log.record_training("Elric", "espada", 1)
    assert log.refusal("Rackhir", "arco", 1, 95, 95) == "one_master_per_week"
    assert log.refusal("Elric", "espada", 2, 95, 95) == "needs_experience"
    restored = TrainingLog.from_dict(json.loads(json.dumps(log.to_dict())))
    restored.record_experience_success("espada")
    assert restored.refusal("Elric", "espada", 2, 95, 95) is None


def test_seeded_rolls_are_reproducible():
    texts = ["d100 vs 46", "ataque 60 tercer", "daño 1d8+1 bf 1d4 armadura 1d6", "3d10"]
    first = [SYSTEM.roll(t, random.Random(7)).as_json() for t in texts]
    again = [SYSTEM.roll(t, random.Random(7)).as_json() for t in texts]
    assert first == again


def test_generic_expressions_fall_back():
    result = roll("2d6+1 (fuerza)", (3, 6), (4, 6))
    data = result.as_json()
    assert (data["system"], data["total"], data["dice"]) == ("stormbringer", 8, [3, 4])


EVERY_KIND = [
    ("d100 vs 46", "check"),
    ("ataque 60 tercer", "attack"),
    ("parada 40 segunda proyectil", "parry"),
    ("esquiva 30 arrojadiza", "dodge"),
    ("daño 1d8+1 bf 1d4 armadura 1d6 grave 3", "damage"),
    ("daño 1d8 crítico", "damage"),
    ("experiencia 46 int 15", "experience"),
    ("entrenamiento 45 40", "training"),
    ("emboscada 60", "ambush"),
    ("sorpresa", "surprise"),
    ("iniciativa 14 vs 12", "initiative"),
    ("demonio", "demon_object"),
    ("3d10", "dice"),
]


def test_riposte_attack_syntax():
    data = roll("ataque 95 segundo respuesta", (70, 100)).as_json()
    assert (data["riposte"], data["target"], data["outcome"]) == (True, 75, "success")


# -- a modifier written after the target (issue 10, item 14) ---------------------------------

@pytest.mark.parametrize(("after", "skill"), [("d100 vs 50 +10", 60), ("d100 vs 50 -15", 35), ("vs 50 + 10", 60)])
def test_a_modifier_after_the_target_adds_to_the_skill(after: str, skill: int) -> None:
    for face in range(1, 101):
        late, plain = roll(after, (face, 100)).as_json(), roll(f"d100 vs {skill}", (face, 100)).as_json()
        assert (late["total"], late["outcome"], late["target"]) == (plain["total"], plain["outcome"], skill)
        assert late["modifiers"] == [{"reason": "user", "value": skill - 50}]
