"""The dice grammar: exact distributions by enumeration, limits, reproducibility."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.render import Renderer
from systems.dice import MAX_CHAIN, DiceError, parse, roll
from tests.scripted import FaceRng, all_faces, faces
from tests.watchdog import watchdog


def test_2d6_distribution_by_enumeration() -> None:
    counts = Counter(parse("2d6").roll(faces(6, a, b)).total for a, b in all_faces(6, 6))
    # Independent derivation: the number of ways to make s with two d6 is 6 - |s - 7|.
    assert counts == {s: 6 - abs(s - 7) for s in range(2, 13)}


def test_4d6kh3_distribution_by_enumeration() -> None:
    counts = Counter(parse("4d6kh3").roll(faces(6, *f)).total for f in all_faces(6, 6, 6, 6))
    expected = Counter(sum(f) - min(f) for f in product(range(1, 7), repeat=4))
    assert counts == expected
    assert sum(counts.values()) == 6**4
    assert counts[18] == 21 and counts[3] == 1  # 6,6,6,x for x in 1..6 (+ perms) and 1,1,1,1


def test_keep_lowest_and_drops_mark_dice() -> None:
    result = parse("3d6kl1").roll(faces(6, 5, 2, 4))
    assert result.total == 2
    assert [d.kept for d in result.dice] == [False, True, False]
    result = parse("4d6dl1").roll(faces(6, 3, 1, 6, 4))
    assert result.total == 13 and [d.kept for d in result.dice] == [True, False, True, True]


def _exploding_chains(sides: int, depth: int):
    """Every face chain of one exploding die up to ``depth`` faces, with its probability."""
    for length in range(1, depth + 1):
        for head in product([sides], repeat=length - 1):
            for last in range(1, sides):
                yield (*head, last), Fraction(1, sides**length)


def test_exploding_d6_plus_1_to_a_truncation_bound() -> None:
    depth = 4
    distribution: dict[int, Fraction] = {}
    for chain, p in _exploding_chains(6, depth):
        result = parse("1d6!+1").roll(faces(6, *chain))
        die = result.dice[0]
        assert die.faces == chain and die.exploded == (len(chain) > 1)
        distribution[result.total] = distribution.get(result.total, Fraction(0)) + p
    # Closed form: a total of 6j + r + 1 (r in 1..5) needs j sixes then r: probability 6^-(j+1).
    for j in range(depth):
        for r in range(1, 6):
            assert distribution[6 * j + r + 1] == Fraction(1, 6 ** (j + 1))
    assert 1 - sum(distribution.values()) == Fraction(1, 6**depth)
    assert all(total % 6 != 1 for total in distribution)  # 7, 13, ... are impossible


def test_explode_on_threshold() -> None:
    result = parse("1d10e9").roll(faces(10, 9, 10, 3))
    assert result.total == 22 and result.dice[0].faces == (9, 10, 3)


def test_explosion_chain_is_capped() -> None:
    rng = FaceRng([(6, 6)] * (MAX_CHAIN + 1))
    result = parse("1d6!").roll(rng)
    assert len(result.dice[0].faces) == MAX_CHAIN + 1
    assert rng.exhausted()


def test_percent_and_constants_and_comment() -> None:
    result = parse("d% + 2d4 - 3 (daño de fuego)").roll(FaceRng([(37, 100), (1, 4), (4, 4)]))
    assert result.total == 37 + 1 + 4 - 3
    assert result.comment == "daño de fuego"
    assert parse("1d6+2 daño").comment == "daño"
    assert parse("3d10 chequeo").comment == "chequeo"
    assert parse("3D10").text == "3d10"


@pytest.mark.parametrize(
    "text, code",
    [
        ("99999999d99999999", "too_many_dice"),
        ("1d1!", "endless_explosion"),
        ("1d6e1", "endless_explosion"),
        ("banana", "not_an_expression"),
        ("1d6+" * 5000, "too_long"),
        ("2d6+", "dangling_operator"),
        ("0d6", "zero_dice"),
        ("1d0", "zero_sides"),
        ("1d100000", "too_many_sides"),
        ("4d6kh5", "keep_too_many"),
        ("600d6+600d6", "too_many_dice"),
        ("1d6x", "unexpected_text"),
        ("5+3", "no_dice"),
        ("+".join(["1d2"] * 31), "too_many_terms"),
    ],
)
def test_bad_expressions_raise_named_errors_fast(text: str, code: str) -> None:
    with watchdog(text[:40]), pytest.raises(DiceError) as err:
        roll(text, random.Random(1))
    assert err.value.code == code
    message = Renderer().render("dice_error", code=err.value.code, params=err.value.params).body
    assert "\n" not in message and message.startswith("⚠️") and len(message) < 200


def test_explosion_budget_raises_instead_of_running_away() -> None:
    with pytest.raises(DiceError) as err:
        parse("1000d2!").roll(FaceRng([(2, 2)] * 5001 + [(1, 2)] * 5000))
    assert err.value.code == "too_many_dice"


def test_seeded_rolls_are_reproducible() -> None:
    a = [roll("4d6kh3+1d8!-2", random.Random(42)).as_json() for _ in range(5)]
    b = [roll("4d6kh3+1d8!-2", random.Random(42)).as_json() for _ in range(5)]
    c = roll("4d6kh3+1d8!-2", random.Random(43)).as_json()
    assert a == b
    seq_a = [roll("10d10", rng).total for rng in [random.Random(7)] for _ in range(20)]
    seq_c = [roll("10d10", rng).total for rng in [random.Random(8)] for _ in range(20)]
    assert seq_a != seq_c
    assert a[0] != c or a[1] != c


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_fails_cleanly(text: str) -> None:
    try:
        result = roll(text, random.Random(0))
    except DiceError:
        return
    assert len(result.faces) <= 5000
    assert isinstance(result.total, int)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 20), st.integers(2, 20), st.integers(0, 20))
def test_kept_dice_sum_to_total(count: int, sides: int, keep: int) -> None:
    keep = min(keep, count) or 1
    result = roll(f"{count}d{sides}kh{keep}", random.Random(count * sides))
    kept = [d.value for d in result.dice if d.kept]
    assert len(kept) == keep and sum(kept) == result.total
    assert sorted(d.value for d in result.dice)[-keep:] == sorted(kept)


def test_rendered_roll_plain_and_html() -> None:
    renderer = Renderer()
    result = parse("4d6kh3 <b>ataque</b>").roll(faces(6, 6, 1, 3, 4))
    from systems.base import DiceRoll

    message = renderer.render("roll", r=DiceRoll(result))
    assert message.body == "🎲 4d6kh3 (<b>ataque</b>): [6, 1~, 3, 4] = 13"
    assert "&lt;b&gt;ataque&lt;/b&gt;" in message.html and "<b>ataque</b>" not in message.html
    assert "<b>6</b>" in message.html and "<del>1</del>" in message.html
    exploded = renderer.render("roll", r=DiceRoll(parse("1d6!").roll(faces(6, 6, 2)))).html
    assert "<b>6</b>💥+2" in exploded


def test_long_results_are_summarised() -> None:
    from systems.base import DiceRoll

    message = Renderer().render("roll", r=DiceRoll(roll("1000d6", random.Random(3))))
    assert "+980" in message.body and len(message.body) < 300 and len(message.html) < 1500


def test_rolls_with_the_same_dice_and_other_comments_share_one_compiled_roller() -> None:
    """Issue 23 item 5: ``!tiro d20 prueba 1``, ``!tiro d20 prueba 2``... each parse to a new expression
    (the comment is part of it), and each used to compile its own roller on the reply path."""
    first, second = parse("d20+3 prueba 1"), parse("d20+3 prueba 2")
    a, b = first.roll(random.Random(1)), second.roll(random.Random(1))
    assert first.roller is not None and second.roller is not None
    assert first.roller.__code__ is second.roller.__code__
    assert (a.total, a.comment, b.total, b.comment) == (b.total, "prueba 1", a.total, "prueba 2")
    assert a.expr is first and b.expr is second
