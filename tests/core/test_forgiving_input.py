"""Forgiving input (issue 20 item 5): phone dashes are a minus, the Spanish words for a secret roll,
GM dash lines a phone or a hurry mangles, and Savage rolls that are no trait roll."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import count

import pytest

from bot.console import ROOM_ID
from bot.core.events import Event, Send
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


SHEET_FORMS = {
    # game: (three fields as pasted, the sheet they make; a player's new Savage Wild Card has 3 bennies, issue 30)
    "savage": (("Agilidad", "d8"), ("Pelear", "d6"), ("Parada", "5"),
               {"agilidad": "d8", "pelear": "d6", "parada": 5, "bennies": 3}),
    "stormbringer": (("DES", "14"), ("Espada", "60"), ("Arma", "Espada"), {"des": 14, "espada": 60, "arma": "Espada"}),
    "reino": (("Destreza", "2"), ("Percepción", "3"), ("Defensa", "15"), {"destreza": 2, "percepcion": 3, "defensa": 15}),
    "sombra": (("AGI", "6"), ("Pistola", "12"), ("VEL", "5"), {"agi": 6, "pistola": 12, "vel": 5}),
}
FORMS = (
    "{a} {x}, {b} {y}, {c} {z}",
    "{a}: {x}, {b}: {y}, {c}: {z}",
    "{a}={x}; {b}={y}; {c}={z}",
    "{a}: {x}\n{b}={y}\n{c} {z}",
    "{a}: {x}; {b} = {y}\n{c}:{z}",
    "{a}: {x} {b}: {y} {c}: {z}",
    "{a}={x} {b}={y} {c}={z}",
)


def sheet_of(table, name: str = "kira") -> dict:  # type: ignore[no-untyped-def]
    return table.room(ROOM_ID).characters[name].sheet


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("system", SHEET_FORMS)
def test_a_sheet_pastes_with_colons_equals_semicolons_and_new_lines(system: str, form: str) -> None:
    (a, x), (b, y), (c, z), expected = SHEET_FORMS[system]
    table = make_table(system=system)
    play(CAST, table)
    text = form.format(a=a, x=x, b=b, y=y, c=c, z=z)
    answers = table.handle(Event(ROOM_ID, "@bob:local", f"!ficha Kira {text}", "$paste"))  # one message, lines kept
    assert sheet_of(table) == expected and len(answers) == 1, answers


PASTES = count()


def paste(table, sender: str, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    """``!ficha Kira TEXT`` as one message (new lines kept); the bodies of the answers (each merged send's
    parts: one send per readers and event, issue 30)."""
    answers = table.handle(Event(ROOM_ID, sender, f"!ficha Kira {text}", f"$paste{next(PASTES)}"))
    return [part for a in answers if isinstance(a, Send) for part in a.parts or (a.message.body,)]


REJECTED = {
    # game: (a valid field, the sheet it makes (with a Savage player's 3 starting bennies, issue 30), a
    # misspelt field and the name guessed, a bad value and what is valid)
    "savage": ("Agilidad d8", {"agilidad": "d8", "bennies": 3}, ("Disprar d8", "Disparar"),
               ("Pelear d7", "«d7» no válido para «Pelear»", "d4, d6, d8, d10 o d12")),
    "stormbringer": ("DES 14", {"des": 14}, ("Esquvia 30", "Esquiva"),
                     ("Tipo de arma lanzallamas", "«lanzallamas» no válido para «Tipo de arma»", "cuerpo, proyectil")),
    "reino": ("Destreza 2", {"destreza": 2}, ("Percepcoin 3", "Percepción"),
              ("Defensa alta", "«alta» no válido para «Defensa»", "un número entero")),
    "sombra": ("AGI 6", {"agi": 6}, ("Pistoal 12", "Pistola"),
               ("Fusil 45", "«45» no válido para «Fusil»", "de 0 a 30")),
}


@pytest.mark.parametrize("system", REJECTED)
def test_valid_fields_are_kept_and_each_rejected_one_is_named_with_why(system: str) -> None:
    valid, sets, (misspelt, guess), (bad, named, what) = REJECTED[system]
    table = make_table(system=system)
    play(CAST, table)
    (rejected,) = paste(table, GM, f"{valid}, {misspelt}, {bad}, Volar 3")
    assert sheet_of(table) == sets
    lines = rejected.splitlines()
    assert len(lines) == 5 and "no se ha cambiado" in lines[0]
    assert f"«{misspelt.rsplit(' ', 1)[0]}» desconocido: ¿querías decir «{guess}»?" in lines[1]
    assert named in lines[2] and what in lines[2]
    assert "«Volar» desconocido." in lines[3] and lines[4].startswith("Campos de este sistema:")


@pytest.mark.parametrize("system", REJECTED)
def test_a_paste_of_only_bad_fields_is_refused_naming_each_and_changes_nothing(system: str) -> None:
    _valid, _sets, (misspelt, guess), (bad, named, what) = REJECTED[system]
    table = make_table(system=system)
    play(CAST, table)
    before = table.room(ROOM_ID).to_dict()
    (answer,) = paste(table, GM, f"{misspelt}; {bad}")
    assert f"¿querías decir «{guess}»?" in answer and named in answer and what in answer
    assert "No se ha cambiado nada en la ficha de Kira" in answer
    assert table.room(ROOM_ID).to_dict() == before
    (single,) = paste(table, GM, bad)
    assert len(single.splitlines()) == 1 and named in single and what in single


@pytest.mark.parametrize("system, field, key", [("savage", "Nervios de acero", "nervios_de_acero"),
                                                ("stormbringer", "Tipo de arma", "arma_tipo"),
                                                ("stormbringer", "Tipo de arma2", "arma2_tipo"),
                                                ("savage", "Aturdido", "aturdido"), ("reino", "RP", "rp")])
def test_users_see_the_games_field_names_never_internal_keys(system: str, field: str, key: str) -> None:
    table = make_table(system=system)
    play(CAST, table)
    (answer,) = paste(table, GM, f"{field} ?¿")
    assert f"«{field}»" in answer and key not in answer


@pytest.mark.parametrize("yes, no", [("sí", "no"), ("si", "No"), ("Sí", "NO")])
def test_yes_and_no_fields_take_si_and_no(yes: str, no: str) -> None:
    table = make_table(system="savage")
    play(CAST, table)
    paste(table, GM, f"Comodín: {no}, Aturdido: {yes}")
    assert sheet_of(table)["comodin"] == no and sheet_of(table)["aturdido"] == 1
    paste(table, GM, f"Comodín={yes}; Aturdido={no}")
    assert sheet_of(table)["comodin"] == yes and not sheet_of(table)["aturdido"]
    reino = make_table(system="reino")
    play(CAST, reino)
    paste(reino, GM, f"Secuaz: {yes}")
    assert sheet_of(reino)["secuaz"] == yes
    sombra = make_table(system="sombra")
    play(CAST, sombra)
    paste(sombra, GM, f"Muerto: {yes}")
    assert sheet_of(sombra)["muerto"] == 1


def test_a_yes_or_no_field_refuses_anything_else_saying_what_it_takes() -> None:
    table = make_table(system="savage")
    play(CAST, table)
    (answer,) = paste(table, GM, "Comodín quizá")
    assert "«quizá» no válido para «Comodín»: vale sí o no" in answer


def test_savage_toughness_with_its_armour_in_parentheses() -> None:
    table = make_table(system="savage")
    play(CAST, table)
    assert paste(table, GM, "Parada 6, Dureza 7 (2), Agilidad d8") == []  # a ✅ reaction
    assert sheet_of(table) == {"parada": 6, "dureza": 7, "armadura": 2, "agilidad": "d8", "bennies": 3}
    (shown,) = paste(table, GM, "")
    copy = make_table(system="savage")
    play(CAST, copy)
    paste(copy, GM, shown)
    assert sheet_of(copy) == sheet_of(table)
    paste(table, GM, "Dureza: 8 (3)")
    assert (sheet_of(table)["dureza"], sheet_of(table)["armadura"]) == (8, 3)
    (bad,) = paste(table, GM, "Dureza 7 (dos)")
    assert "Dureza" in bad and "7 (2)" in bad and (sheet_of(table)["dureza"], sheet_of(table)["armadura"]) == (8, 3)


def test_a_players_gm_only_fields_are_skipped_with_a_note_and_the_rest_kept() -> None:
    """The README's example, pasted by the player, with a wound: Heridas is the table's state. The
    bennies of the first paste are the new character's starting numbers (issue 30): kept; a later
    change of them is kept too and reported to the GMs."""
    table = make_table(system="savage")
    play(CAST, table)
    notes = paste(table, "@bob:local",
                           "Agilidad d8, Disparar d8, Pelear d6, Parada 5, Dureza 6, Bennies 3, Heridas 2")
    assert sheet_of(table) == {"agilidad": "d8", "disparar": "d8", "pelear": "d6", "parada": 5, "dureza": 6,
                               "bennies": 3}
    assert len(notes) == 1 and "Heridas" in notes[0] and "máster" in notes[0]
    notes = paste(table, "@bob:local", "Pelear d8; Heridas 1; Bennies 2; Disprar d10")
    assert sheet_of(table)["pelear"] == "d8" and "heridas" not in sheet_of(table)
    assert sheet_of(table)["bennies"] == 2 and any("Bennies 3 → 2" in n for n in notes)
    assert any("¿querías decir «Disparar»?" in n for n in notes) and any("Heridas" in n for n in notes)
