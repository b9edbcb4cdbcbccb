"""Rolls at the table (every game): the roll object on the console, secret rolls and their reveal,
history, dice statistics, macros, pasted sheets."""

from __future__ import annotations

import random

import pytest

from bot.console import ROOM_ID
from bot.core.commands import MAX_COMMAND_ARGS
from bot.core.events import Event, React
from bot.core.rolls import MAX_MACRO_NAME, MAX_MACRO_TEXT, MAX_MACROS
from bot.games import GAMES
from systems.base import sized_dice
from systems.stats import chi_square_p_value, counted_die_stats, die_stats
from tests.transcript import GM, assert_refused, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !pj Ana @ana:local
"""


def sends(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send"]


def test_a_roll_reply_carries_the_roll_object_with_a_modifiers_list() -> None:
    t = play(CAST + "@bob:local: !tiro 2d6+1", seed=3)
    (send,) = sends(t, 3)
    roll = send["roll"]
    assert roll["system"] == "generic" and roll["modifiers"] == [] and roll["total"] == sum(roll["dice"]) + 1
    assert send["secret"] is False and send["roll_id"] == "$3/r0"


@pytest.mark.parametrize("system, expr", [
    ("generic", "4d6kh3"), ("savage", "d8 vs 6"), ("savage", "rof 3 d8"), ("savage", "daño 2d6 aumento vs 5"),
    ("stormbringer", "d100 vs 46"), ("stormbringer", "daño 1d8+1 bf 1d4"), ("reino", "d20+3 vs 12"),
    ("reino", "enfrentada +3 +1"), ("sombra", "3d10 vs 14"), ("sombra", "daño IV+4"),
])
def test_every_die_of_a_roll_is_counted_with_its_size(system: str, expr: str) -> None:
    for seed in range(30):
        outcome = GAMES[system].system.roll(expr, random.Random(seed))
        pairs = sized_dice(outcome)
        assert [face for _, face in pairs] == outcome.as_json()["dice"]
        assert all(1 <= face <= sides for sides, face in pairs)


@pytest.mark.parametrize("system, expr", [
    ("savage", "d8 vs 6 heridas 2 comodin"), ("stormbringer", "ataque 55 x2"), ("reino", "prueba +3 vs 12"),
    ("sombra", "3d10 vs 14 dificil"), ("generic", "2d6"),
])
def test_every_game_lists_its_modifiers_as_reason_and_value(system: str, expr: str) -> None:
    modifiers = GAMES[system].system.roll(expr, random.Random(1)).as_json()["modifiers"]
    assert isinstance(modifiers, list)
    for m in modifiers:
        assert set(m) == {"reason", "value"} and isinstance(m["reason"], str) and isinstance(m["value"], int)
    assert bool(modifiers) == (system != "generic")


def test_a_players_secret_roll_goes_only_to_the_player_and_the_gm_until_revealed() -> None:
    table = make_table(seed=3)
    t = play(CAST + """
@bob:local: !tiro 1d20+2 oculta
@ana:local: !historial
@ana:local: !dados
@ana:local: !revelar
@gm:local: !revelar
@ana:local: !historial
@gm:local: !revelar
""", table)
    secret = sends(t, 3)
    private = [a for a in secret if a["private_to"]]
    assert [(a["private_to"], a["private_also"], a["to_room_gms"]) for a in private] == [("@bob:local", [GM], True)]
    assert private[0]["secret"] and private[0]["text"].startswith("(oculta) Kira")
    (public,) = [a for a in secret if not a["private_to"]]
    total = str(private[0]["roll"]["total"])
    assert "tirada oculta" in public["text"] and "roll" not in public and total not in public["text"].split("(")[0]
    assert "ninguna todavía" in t.text(4)
    assert "todavía no hay dados" in t.text(5)
    assert t.text(6).startswith("⛔ Solo el máster")
    (revealed,) = sends(t, 7)
    assert revealed["private_to"] is None and revealed["roll"] == private[0]["roll"] and not revealed["secret"]
    assert "revelada" in revealed["text"] and f"= {total}" in revealed["text"]
    assert "Kira" in t.text(8) and total in t.text(8)
    assert "No hay ninguna tirada oculta" in t.text(9)
    rows = table.store.rolls.history(ROOM_ID, visible=False)
    assert [(r["secret"], r["revealed"]) for r in rows] == [(1, 1)]


def test_a_refused_reveal_changes_nothing_and_players_see_no_secret_in_the_history() -> None:
    table = make_table(seed=3)
    t = play(CAST + """
@bob:local: !tiro 1d6 oculta
@ana:local: !tiro 1d8
@ana:local: !historial Kira
@ana:local: !historial
""", table)
    assert "ninguna todavía" in t.text(5)
    assert "Ana" in t.text(6) and "Kira" not in t.text(6)
    assert table.store.rolls.hidden(ROOM_ID)[0]["actor"] == "kira"


def test_dice_statistics_of_a_seeded_run() -> None:
    """60d6 with seed 11: the counts are those of the seeded generator itself."""
    rng = random.Random(11)
    faces = [int(rng.random() * 6) + 1 for _ in range(60)]
    counts = [faces.count(f) for f in range(1, 7)]
    chi = sum((n - 10) ** 2 for n in counts) / 10
    t = play(CAST + "@ana:local: !tiro 60d6\n@ana:local: !dados", seed=11)
    assert sends(t, 3)[0]["roll"]["dice"] == faces
    text = t.text(4)
    assert f"d6: 60 dados, media {sum(faces) / 60:.2f} (esperada 3.50), chi² {chi:.2f}" in text
    assert f"p = {chi_square_p_value(chi, 5):.3f}" in text


@pytest.mark.parametrize("statistic, degrees, p", [
    (3.841459, 1, 0.05), (5.991465, 2, 0.05), (11.070498, 5, 0.05), (15.086272, 5, 0.01),
    (30.143527, 19, 0.05), (0.0, 3, 1.0), (2.0, 2, 0.36787944), (1.0, 1, 0.31731051),
])
def test_chi_square_p_values_match_the_tables(statistic: float, degrees: int, p: float) -> None:
    assert chi_square_p_value(statistic, degrees) == pytest.approx(p, abs=1e-6)


def test_die_stats_counts_per_size_and_ignores_impossible_faces() -> None:
    stats = die_stats([(6, 1), (6, 6), (6, 6), (20, 20), (6, 7), (1, 1)])
    assert [(s.sides, s.counts) for s in stats] == [(6, (1, 0, 0, 0, 0, 2)), (20, (0,) * 19 + (1,))]
    assert stats[0].mean == pytest.approx(13 / 3)


def test_macros_roll_and_are_listed_exported_and_deleted() -> None:
    table = make_table(seed=3)
    t = play(CAST + """
@bob:local: !macro ataque = 1d20+5 (espada)
@bob:local: !tiro ataque
@bob:local: !ficha Kira
@ana:local: !macro Kira robo = 1d6
@bob:local: !macro ataque borrar
@bob:local: !tiro ataque
""", table)
    assert t.acked(3)
    assert sends(t, 4)[0]["roll"]["expr"] == "1d20+5"
    assert "Macro ataque = 1d20+5 (espada)" in t.text(5)
    assert "no es tuyo" in t.text(6) or "⛔" in t.text(6)
    assert t.acked(7)
    assert "robo" not in str(table.room(ROOM_ID).characters["kira"].sheet)
    assert "⚠️" in t.text(8)


@pytest.mark.parametrize("line", [
    "@bob:local: !macro dos palabras = 1d6", "@bob:local: !macro x = !tiro 1d6", "@bob:local: !macro x = " + "1" * 300,
])
def test_bad_macros_are_refused_and_change_nothing(line: str) -> None:
    assert_refused(CAST, line, "macro")


def test_a_player_edits_only_their_own_sheet_and_the_gm_any() -> None:
    assert_refused(CAST, "@ana:local: !ficha Kira iniciativa 3", "Kira")
    table = make_table()
    t = play(CAST + "@gm:local: !ficha Kira iniciativa 3\n@bob:local: !ficha Kira iniciativa 4", table)
    assert t.acked(3) and t.acked(4)
    assert table.room(ROOM_ID).characters["kira"].sheet["iniciativa"] == 4


def test_a_secret_roll_survives_a_restart_and_is_revealed_after_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "mesa.db")
    first = play(CAST + "@bob:local: !tiro 1d20 oculta", make_table(seed=3, db=db))
    (private,) = [a for a in sends(first, 3) if a["private_to"]]
    t = play(CAST + "@bob:local: !tiro 1d20 oculta\n@gm:local: !revelar Kira", make_table(seed=3, db=db))
    (revealed,) = sends(t, 4)
    assert revealed["roll"] == private["roll"] and revealed["roll_id"] == "$3/r0"


@pytest.mark.parametrize("lines", [
    "@bob:local: !tiro 1d20+2 oculta sin estado",
    "@bob:local: !tiro 1d20+2 oculta (en la sombra)",
    "@bob:local: !macro esp = 1d20+2 oculta\n@bob:local: !tiro esp",
    "@bob:local: !macro esp = 1d20+2 oculta\n@bob:local: !tiro esp (tras la puerta)",
])
def test_oculta_anywhere_after_the_roll_or_inside_a_macro_keeps_the_roll_secret(lines: str) -> None:
    t = play(CAST + lines, seed=3)
    last = 2 + len(lines.splitlines())
    (private,) = [a for a in sends(t, last) if a["private_to"]]
    assert private["secret"] and private["roll"]["total"] == sum(private["roll"]["dice"]) + 2
    assert "oculta" not in private["roll"].get("comment", "")
    assert all("roll" not in a for a in sends(t, last) if not a["private_to"])


@pytest.mark.parametrize("system, sheet, state, own", [
    ("savage", "Bennies 2, Heridas 1", "heridas 0, aturdido 1", "Agilidad d10"),
    ("reino", "PR 10, PA 1", "Secuaz sí", "Fuerza 3"),
    ("stormbringer", "PV 10, Ver 40", "Arma rota sí", "Ver 50"),
    ("sombra", "Res 5", "muerto 0", "Res 6"),
])
def test_players_edit_their_own_sheet_but_not_the_tables_state(system: str, sheet: str, state: str, own: str) -> None:
    setup = f"@gm:local: !pj Kira @bob:local\n@gm:local: !ficha Kira {sheet}\n"
    before = make_table(system=system)
    play(setup, before)
    refused = make_table(system=system)
    t = play(setup + f"@bob:local: !ficha Kira {state}", refused)
    assert "solo el máster lo" in t.text(3)  # issue 30: PV, PR, PA and bennies are a player's starting numbers
    assert refused.room(ROOM_ID).characters["kira"].sheet == before.room(ROOM_ID).characters["kira"].sheet
    changed = make_table(system=system)
    t = play(setup + f"@bob:local: !ficha Kira {own}\n@gm:local: !ficha Kira {state}", changed)
    assert t.acked(4)
    assert not any("solo el máster" in text for text in t.texts(3) + t.texts(4))
    assert changed.room(ROOM_ID).characters["kira"].sheet != before.room(ROOM_ID).characters["kira"].sheet


def test_the_history_names_each_outcome_in_spanish() -> None:
    spanish = {"success": "éxito", "raise": "aumento", "failure": "fallo", "critical_failure": "pifia"}
    t = play(CAST + "\n".join(["@bob:local: !tiro d6 vs 4"] * 8) + "\n@bob:local: !historial", system="savage", seed=2)
    outcomes = [sends(t, 3 + i)[0]["roll"]["outcome"] for i in range(8)]
    assert len(set(outcomes)) > 1
    history = t.text(11)
    shown = [line.rsplit("(", 1)[1].rstrip(")") for line in history.splitlines()[1:]]
    assert shown == [spanish[o] for o in reversed(outcomes)], "newest first"
    assert not any(code in history for code in ("success", "failure", "raise"))


def test_a_sheet_full_of_macros_still_pastes_back_in_one_command() -> None:
    sheet = ("Agilidad d8, Astucia d6, Espíritu d6, Fuerza d6, Vigor d8, Disparar d8, Pelear d6, Notar d6, "
             "Arma " + "R" * 40 + ", Daño 2d8")
    expression = ("d6+1 " * 40)[:MAX_MACRO_TEXT].strip()
    lines = [f"@gm:local: !macro Kira {'m' * (MAX_MACRO_NAME - 2)}{i:02d} = {expression}" for i in range(MAX_MACROS)]
    table = make_table(system="savage")
    t = play(CAST + f"@gm:local: !ficha Kira {sheet}\n" + "\n".join(lines) + "\n@bob:local: !ficha Kira", table)
    answers = [" ".join(t.texts(4 + i)) for i in range(MAX_MACROS)]
    kept = [a for a in answers if "no cabría" not in a]
    assert 0 < len(kept) < MAX_MACROS and all("no cabría" in a for a in answers[len(kept):]), "the first ones fit"
    exported = t.text(4 + MAX_MACROS)
    assert len(exported) + len("Kira ") <= MAX_COMMAND_ARGS and exported.count("Macro ") == len(kept)
    copy = make_table(system="savage")
    play("@gm:local: !pj Kira @bob:local", copy)
    (answer,) = copy.handle(Event(ROOM_ID, GM, f"!ficha Kira {exported}", "$paste"))
    assert isinstance(answer, React)
    assert copy.room(ROOM_ID).characters["kira"].sheet == table.room(ROOM_ID).characters["kira"].sheet
    assert copy.handle(Event(ROOM_ID, GM, "!ficha Kira", "$show"))[0].message.body == exported


def test_dice_statistics_are_counted_by_the_store_from_the_dice_column() -> None:
    table = make_table(seed=5)
    t = play(CAST + "@bob:local: !tiro 30d6+2d20\n@bob:local: !tiro 5d6 oculta\n@bob:local: !tiro 3d8", table)
    shown = [sends(t, 3)[0]["roll"], sends(t, 5)[0]["roll"]]
    table.store.db.execute("UPDATE rolls SET data = 'not json' WHERE room_id = ?", [ROOM_ID])
    total, counted = table.store.rolls.dice_counts(ROOM_ID)
    expected = die_stats([*zip([6] * 30 + [20] * 2, shown[0]["dice"], strict=True),
                          *zip([8] * 3, shown[1]["dice"], strict=True)])
    assert total == 2 and counted_die_stats(counted) == expected


@pytest.mark.parametrize("system, first", [
    ("savage", "!tiro Disparar vs 6"), ("reino", "!tiro Sigilo vs 15"), ("stormbringer", "!tiro Ver"),
    ("sombra", "!tiro Pistola"),
])
def test_help_shows_the_named_roll_form_first(system: str, first: str) -> None:
    lines = play(CAST + "@bob:local: !ayuda tiradas", system=system).text(3).split("\n")
    assert lines[1].startswith(f"Tiradas con la ficha: {first}")
    assert lines[2].startswith("Ocultas: ")
