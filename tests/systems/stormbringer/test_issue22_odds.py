"""Issue 22: the new chances of the Stormbringer table, by exact enumeration of the dice."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from systems.stormbringer.combat import ambush_succeeds, weapon_survives_critical
from systems.stormbringer.rules import Target, grade, unfit_modifier

FACES = range(1, 101)


def grades(target: Target) -> Counter[str]:
    return Counter(grade(face, target.value) for face in FACES)


def test_a_weapon_without_the_fue_and_des_it_needs_is_a_flat_5() -> None:
    """«se tendrá un 5% en ataque»: whatever the skill, 01-05 hit, none is a critical (5 // 10 = 0),
    99 and 00 fumble."""
    for skill in range(200):
        assert grades(Target(skill, (unfit_modifier(skill),))) == {"success": 5, "failure": 93, "fumble": 2}


def test_an_enemy_caught_unawares_doubles_the_chance_and_the_criticals() -> None:
    """«el porcentaje del atacante ... será multiplicado por dos y la posibilidad de obtener un golpe
    crítico aumentará proporcionalmente»: Ataque 60 doubled is 120%: criticals 01-12, 99 no fumble."""
    assert grades(Target(60, factor="double")) == {"critical": 12, "success": 87, "fumble": 1}
    assert grades(Target(30, factor="double")) == {"critical": 6, "success": 54, "failure": 38, "fumble": 2}


def test_every_ambusher_must_pass_unseen() -> None:
    """«Se tirará 1D100 bajo la habilidad de Emboscada de cada combatiente»: with 70% and 50%, the ambush
    works on 70 × 50 of the 10,000 pairs of faces."""
    wins = sum(ambush_succeeds([grade(a, 70), grade(b, 50)]) for a, b in product(FACES, FACES))
    assert Fraction(wins, 10_000) == Fraction(7, 20)
    assert not ambush_succeeds([])


def test_the_parrying_weapon_breaks_on_a_doubled_damage_above_its_points() -> None:
    """The optional rule of 002: the damage is doubled and compared with the weapon's 20 points (or
    fewer left): with 1d8+1 and BF 1d6, it breaks on 11 or more, so die + bonus die >= 10: for the BF die
    2, 3, 4, 5, 6 the d8 needs 8, 7+, 6+, 5+, 4+: 1 + 2 + 3 + 4 + 5 = 15 of the 48 pairs."""
    breaks = sum(not weapon_survives_critical(w + 1 + b) for w, b in product(range(1, 9), range(1, 7)))
    assert Fraction(breaks, 48) == Fraction(15, 48)
    assert weapon_survives_critical(10) and not weapon_survives_critical(11)
    assert not weapon_survives_critical(6, weapon_hp=11)     # a weapon already down to 11 points
