"""Forgiving input (issue 20 item 5): phone dashes are a minus, the Spanish words for a secret roll,
GM dash lines a phone or a hurry mangles, and Savage rolls that are no trait roll."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.console import ROOM_ID
from tests.transcript import GM, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !pnj Luz
"""
FIRST = 3
"""The first line after CAST."""
PHONE_DASHES = ("—", "–", "−", "‒")
SAME = ("expr", "modifier", "modifiers", "tn", "dc", "skill", "target", "comment")
"""What a roll typed with a phone dash has equal to the one typed with ``-`` (the dice differ)."""


def sends(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send"]


def roll_of(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    return next(a["roll"] for a in sends(t, number) if "roll" in a)


@pytest.mark.parametrize("dash", PHONE_DASHES)
def test_a_phone_dash_before_a_number_is_a_minus_in_the_dice_grammar(dash: str) -> None:
    from systems.dice import minus_signs

    assert minus_signs(f"2d6{dash}1 (golpe{dash}seco)") == "2d6-1 (golpe—seco)".replace("—", dash)


@pytest.mark.parametrize("system, text, expr", [
    ("generic", "2d6{d}1", "2d6-1"),
    ("savage", "d8{d}2 vs 4", "1d8-2"),
    ("savage", "d8 vs 4 {d}2", "1d8-2"),
    ("stormbringer", "d100 vs 50 {d}10", None),
    ("reino", "d20{d}3 vs 12", None),
    ("sombra", "3d10{d}2 vs 14", None),
])
@pytest.mark.parametrize("dash", PHONE_DASHES)
def test_a_phone_dash_is_a_minus_in_every_game(system: str, text: str, expr: str | None, dash: str) -> None:
    typed = text.format(d=dash)
    t = play(CAST + f"@bob:local: !tiro {typed}\n@bob:local: !tiro {text.format(d='-')}", system=system, seed=4)
    phone, ascii_ = roll_of(t, FIRST), roll_of(t, FIRST + 1)
    assert {k: phone.get(k) for k in SAME} == {k: ascii_.get(k) for k in SAME}
    assert not phone.get("comment")
    if expr is not None:
        assert phone["expr"] == expr


def test_rolbot_roll_reads_a_phone_dash_as_a_minus() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "--json", "--seed", "2",
                          "d8—2 vs 4"], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["expr"] == "1d8-2"


@pytest.mark.parametrize("words", ["secreto", "en secreto", "oculto", "oculta", "(en secreto)", "(secreto)",
                                   "(oculto)", "privada"])
def test_the_spanish_words_for_a_secret_roll_make_it_secret(words: str) -> None:
    t = play(CAST + f"@bob:local: !tiro 2d6 {words}", system="generic")
    answers = sends(t, FIRST)
    private = [a for a in answers if a.get("private_to")]
    assert private and private[0]["secret"], answers
    public = [a for a in answers if not a.get("private_to")]
    assert all("roll" not in a for a in public)
    assert roll_of(t, FIRST)["comment"] == ""


@pytest.mark.parametrize("words, comment", [
    ("(tirada en secreto de Notar)", "tirada en secreto de Notar"),
    ("(lo hace oculto tras la puerta)", "lo hace oculto tras la puerta"),
])
def test_a_parenthesis_with_the_word_among_others_stays_a_comment(words: str, comment: str) -> None:
    t = play(CAST + f"@bob:local: !tiro 2d6 {words}", system="generic")
    (answer,) = sends(t, FIRST)
    assert not answer.get("private_to") and not answer["secret"] and answer["roll"]["comment"] == comment


def test_en_alone_is_no_secret_word() -> None:
    t = play(CAST + "@bob:local: !tiro 2d6 en la puerta", system="generic")
    (answer,) = sends(t, FIRST)
    assert not answer["secret"] and answer["roll"]["comment"] == "en la puerta"


@pytest.mark.parametrize("expr", ["d%", "d100", "d20", "d3", "2d6", "d8+d6", "d6!"])
def test_savage_plain_dice_with_no_vs_are_no_trait_roll(expr: str) -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "--json", "--seed", "3",
                          expr], capture_output=True, text=True, check=True).stdout
    roll = json.loads(out)
    assert roll["kind"] == "dice" and "wild" not in roll and "tn" not in roll, roll


@pytest.mark.parametrize("expr", ["d4", "d6", "d8+1", "d10-2", "d12", "d8 extra"])
def test_savage_a_single_trait_die_is_a_trait_roll(expr: str) -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "--json", "--seed", "3",
                          expr], capture_output=True, text=True, check=True).stdout
    roll = json.loads(out)
    assert roll["kind"] == "trait" and "wild" in roll and roll["tn"] == 4, roll


def test_savage_a_d100_against_a_number_stays_a_check() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "roll", "--system", "savage", "--json", "--seed", "3",
                          "d20 vs 8"], capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["tn"] == 8


@pytest.mark.parametrize("dashes", ["-----", "——-", "— — —", "----------"])
def test_a_gm_dash_line_and_exactly_a_name_is_a_named_lock(dashes: str) -> None:
    table = make_table()
    t = play(CAST + f"{GM}: {dashes} Kira\n@ana:local: hola\n@bob:local: /me habla", table)
    lock = table.room(ROOM_ID).lock
    assert lock is not None and lock.character == "Kira" and lock.owner == "@bob:local"
    assert any(a["action"] == "react" for a in t.for_line(FIRST))
    assert "Kira" in t.text(FIRST)
    assert t.redacted(FIRST + 1) and not t.redacted(FIRST + 2)


def test_a_named_lock_without_parentheses_matches_without_case_or_accents() -> None:
    table = make_table()
    play("@gm:local: !pj Ágata @bob:local\n@gm:local: ----- agata", table)
    lock = table.room(ROOM_ID).lock
    assert lock is not None and lock.character == "Ágata"


def test_after_a_named_lock_without_parentheses_the_next_bare_dash_line_closes_it() -> None:
    table = make_table()
    t = play(CAST + f"{GM}: ----- Kira\n{GM}: -----\n@ana:local: hola\n{GM}: -----", table)
    assert not t.redacted(FIRST + 2)
    assert table.room(ROOM_ID).lock is not None and table.room(ROOM_ID).lock.character is None  # type: ignore[union-attr]


@pytest.mark.parametrize("line", ["---", "----", "——", "- - -", "----- Nadie", "----- y entonces llega"])
def test_a_gm_line_that_is_almost_a_dash_line_gets_a_private_hint_and_changes_nothing(line: str) -> None:
    baseline = make_table()
    play(CAST, baseline)
    table = make_table()
    t = play(CAST + f"{GM}: {line}", table)
    (hint,) = sends(t, FIRST)
    assert hint["private_to"] == GM and len(hint["text"].splitlines()) == 1 and "-----" in hint["text"]
    assert not any(a["action"] in ("react", "redact") for a in t.for_line(FIRST))
    assert table.room(ROOM_ID).to_dict() == baseline.room(ROOM_ID).to_dict()


def test_a_short_dash_line_during_a_lock_leaves_it_closed() -> None:
    table = make_table()
    t = play(CAST + f"{GM}: -----\n{GM}: ---\n@ana:local: hola", table)
    assert table.room(ROOM_ID).lock is not None and t.redacted(FIRST + 2)


def test_a_players_short_dash_line_gets_no_hint() -> None:
    t = play(CAST + "@bob:local: ---\n@bob:local: ----- Kira", system="generic")
    assert not sends(t, FIRST) and not sends(t, FIRST + 1)
