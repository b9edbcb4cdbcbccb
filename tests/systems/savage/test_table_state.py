"""What the table adds to a roll reaches the resolver as fields (``systems/savage/table.py``), and rolls
exactly as the same keywords written after the roll did."""

from __future__ import annotations

import random

import pytest

from systems.dice import DiceError
from systems.savage.resolver import SYSTEM
from systems.savage.syntax import parse_damage, parse_savage
from systems.savage.table import TableState, Toughness, against, with_table

STATES = [
    TableState(),
    TableState(unskilled=True, extra=True),
    TableState(wounds=2, fatigue=1, actions=2, joker=True),
    TableState(supports=(2, 1), strength=True),
    TableState(wounds=1, supports=(4, 4, 3)),
]
ROLLS = ["d8", "d6 vs 6 +1", "d8 heridas 1 cobertura media", "rof 3 d8 objetivos: a, b", "apoyar d6 (a Kira)",
         "absorber d8 recibe 2", "espiritu d6", "d10 apuntado cabeza extra"]


@pytest.mark.parametrize("text", ROLLS)
@pytest.mark.parametrize("state", STATES)
def test_a_state_rolls_as_its_words_after_the_roll(text: str, state: TableState) -> None:
    request = parse_savage(text)
    assert request is not None
    written = SYSTEM.roll(" ".join([text, *state.words()]), random.Random(7)).as_json()
    assert SYSTEM.roll(with_table(request, state), random.Random(7)).as_json() == written
    assert parse_savage(text) == request  # the parsed request, shared by its cache, is left as it was


@pytest.mark.parametrize("dice", ["2d6", "d8+d6 aumento", "fue d8+d4 apuntado cabeza", "3d6 vs 99 armadura 1"])
@pytest.mark.parametrize("toughness", [Toughness(5), Toughness(7, 2, True), Toughness(4, 0, True)])
@pytest.mark.parametrize("joker", [False, True])
def test_a_damage_roll_against_a_toughness_rolls_as_its_words(dice: str, toughness: Toughness, joker: bool) -> None:
    written = SYSTEM.roll(" ".join(["daño", dice, *toughness.words(), *(["comodin"] if joker else [])]),
                          random.Random(3)).as_json()
    assert SYSTEM.roll(against(parse_damage(dice), toughness, joker), random.Random(3)).as_json() == written


def test_state_words_and_reasons_name_what_was_given() -> None:
    state = TableState(unskilled=True, wounds=2, joker=True, supports=(2,))
    assert state.words() == ["sin entrenar", "heridas 2", "comodin", "apoyo +2"]
    assert state.reasons() == {"sin_entrenar", "heridas", "comodin", "apoyo"}
    assert TableState().words() == [] and TableState().reasons() == set()


def test_a_state_out_of_bounds_is_refused_as_its_words_were() -> None:
    request = parse_savage("d8")
    assert request is not None
    for state, code in ((TableState(wounds=4), "savage.bad_wounds"), (TableState(supports=(5,)), "savage.bad_support")):
        with pytest.raises(DiceError) as written:
            SYSTEM.roll(" ".join(["d8", *state.words()]), random.Random(1))
        with pytest.raises(DiceError) as given:
            with_table(request, state)
        assert given.value.code == written.value.code == code
