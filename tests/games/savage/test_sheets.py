"""Savage Worlds: full sheets, named rolls, the state the bot applies by itself, refusals, rerolls."""

from __future__ import annotations

import re
from pathlib import Path

from bot.console import ROOM_ID
from bot.core.events import Event, React, Send
from tests.transcript import GM, assert_refused, make_table, play

SHEET = ("Agilidad d8, Astucia d6, Espíritu d6, Fuerza d6, Vigor d8, Atletismo d6, Notar d6, Disparar d8, "
         "Pelear d6, Parada 5, Dureza 6, Paso 6, Bennies 2, Arma Rifle, Tipo de arma distancia, Daño 2d8")
CAST = f"""
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira {SHEET}
@gm:local: !pnj Orco
@gm:local: !ficha Orco Parada 7, Dureza 7, Comodín no, Pelear d8
"""
FIRST = 5
"""The first line after CAST."""


def roll(t, number: int) -> dict:  # type: ignore[no-untyped-def]
    """The first message answering line ``number`` that shows a roll, as the GM sees it: their private
    copy when the room's leaves out an NPC's numbers (issue 19)."""
    shown = [a for a in t.for_line(number) if a["action"] == "send" and "roll" in a and not a.get("gm_copy")]
    first = next((a for a in shown if a["private_to"] == GM), None) or next(iter(shown))
    return {**first, "roll": t.full_rolls(number)[0]}


def reasons(send: dict) -> dict[str, int]:
    return {m["reason"]: m["value"] for m in send["roll"]["modifiers"]}


def applied(send: dict) -> dict[str, int]:
    return {m["reason"]: m["value"] for m in send["applied"]}


def test_a_pasted_sheet_exports_the_same_way_and_pastes_back_equal() -> None:
    table = make_table(system="savage")
    t = play(CAST + "@gm:local: !macro Kira rafaga = rof 3 d8\n@bob:local: !ficha Kira", table)
    exported = t.text(FIRST + 1)
    assert exported.split("\n")[1] == SHEET and exported.split("\n")[2] == "Macro rafaga = rof 3 d8"
    copy = make_table(system="savage")
    play("@gm:local: !pj Kira @bob:local", copy)
    pasted = copy.handle(Event(ROOM_ID, GM, f"!ficha Kira {exported}", "$paste"))  # one multi-line message
    assert copy.room(ROOM_ID).characters["kira"].sheet == table.room(ROOM_ID).characters["kira"].sheet
    assert [type(a) for a in pasted] == [React]  # ✅: the sheet is shown by !ficha Kira
    shown = copy.handle(Event(ROOM_ID, GM, "!ficha Kira", "$show"))
    assert isinstance(shown[0], Send) and shown[0].message.body == exported


def test_names_without_case_or_accents_and_short_forms() -> None:
    table = make_table(system="savage")
    play("@gm:local: !pj Kira @bob:local\n@gm:local: !ficha Kira ESPIRITU d10 agi d12 conocimientos generales d6", table)
    sheet = table.room(ROOM_ID).characters["kira"].sheet
    assert (sheet["espiritu"], sheet["agilidad"], sheet["conocimientos_generales"]) == ("d10", "d12", "d6")


def test_bad_sheet_values_are_refused_and_change_nothing() -> None:
    assert_refused(CAST, "@gm:local: !ficha Kira Disparar d7", "no válido", system="savage")
    assert_refused(CAST, "@gm:local: !ficha Kira Volar d8", "desconocido", system="savage")


def test_named_rolls_with_and_without_the_skill() -> None:
    t = play(CAST + """
@bob:local: !tiro Disparar vs 6 cobertura media
@bob:local: !tiro Sigilo
@bob:local: !tiro Agilidad
@bob:local: !tiro Pelear contra Orco
@bob:local: !tiro d8+1 vs 5
""", system="savage")
    shot = roll(t, FIRST)
    assert shot["roll"]["expr"].startswith("1d8") and shot["roll"]["tn"] == 6 and reasons(shot) == {"cobertura": -2}
    assert "Disparar d8" in shot["text"]
    stealth = roll(t, FIRST + 1)
    assert stealth["roll"]["expr"].startswith("1d4") and applied(stealth) == {"sin_entrenar": -2}
    assert "sin entrenar -2" in stealth["text"]
    assert roll(t, FIRST + 2)["roll"]["expr"].startswith("1d8") and not roll(t, FIRST + 2)["applied"]
    assert roll(t, FIRST + 3)["roll"]["tn"] == 7
    assert roll(t, FIRST + 4)["roll"]["expr"] == "1d8+1" and roll(t, FIRST + 4)["roll"]["tn"] == 5


def test_wounds_and_fatigue_are_applied_listed_and_gone_when_healed() -> None:
    t = play(CAST + """
@gm:local: !ficha Kira heridas 2 fatiga 1
@bob:local: !tiro Disparar
@bob:local: !tiro Disparar sin estado
@bob:local: !tiro d8 vs 4 heridas 1
@gm:local: !ficha Kira heridas 0 fatiga 0 nervios 1
@bob:local: !tiro Disparar
@gm:local: !ficha Kira heridas 2
@bob:local: !tiro Disparar
""", system="savage")
    hurt = roll(t, FIRST + 1)
    assert applied(hurt) == {"heridas": -2, "fatiga": -1} == reasons(hurt)
    assert "heridas -2, fatiga -1" in hurt["text"] and "sin estado" in hurt["text"]
    assert reasons(roll(t, FIRST + 2)) == {} and roll(t, FIRST + 2)["applied"] == []
    explicit = roll(t, FIRST + 3)
    assert reasons(explicit) == {"heridas": -1, "fatiga": -1} and applied(explicit) == {"fatiga": -1}
    assert roll(t, FIRST + 5)["applied"] == []
    assert applied(roll(t, FIRST + 7)) == {"heridas": -1}, "Nervios de acero ignores one wound"


def test_the_joker_adds_two_to_trait_and_damage_rolls_only_in_its_round() -> None:
    t = play(CAST + """
@gm:local: !combate
@gm:local: !iniciativa Kira
@bob:local: !tiro Disparar
@bob:local: !tiro daño 2d8
@gm:local: !siguiente
@bob:local: !tiro Disparar
""", system="savage", seed=15)
    assert "Kira" in t.texts(FIRST + 1)[0] and "¡comodín!" in t.texts(FIRST + 1)[0]
    assert applied(roll(t, FIRST + 2)) == {"comodin": 2} and "comodín +2" in roll(t, FIRST + 2)["text"]
    assert applied(roll(t, FIRST + 3)) == {"comodin": 2} and roll(t, FIRST + 3)["roll"]["kind"] == "damage"
    assert "¡comodín!" not in " ".join(t.texts(FIRST + 4))
    assert roll(t, FIRST + 5)["applied"] == []


def test_declared_actions_give_the_multi_action_penalty_for_the_turn() -> None:
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Kira, Orco
@bob:local: !tiro Disparar acciones 2
@bob:local: !tiro Pelear contra Orco
@gm:local: !siguiente
@gm:local: !tiro Orco Pelear contra Kira
@gm:local: !siguiente
@bob:local: !tiro Disparar
@bob:local: !tiro Disparar acciones 4
""", system="savage", seed=2)
    assert applied(roll(t, FIRST + 2)) == {"multi": -2} and applied(roll(t, FIRST + 3)) == {"multi": -2}
    orc = roll(t, FIRST + 5)
    assert orc["roll"]["wild"] is None and orc["roll"]["tn"] == 5 and orc["applied"] == []
    assert roll(t, FIRST + 7)["applied"] == [], "a new turn starts without declared actions"
    assert "de 1 a 3" in t.text(FIRST + 8)


def test_actors_who_may_not_act_are_refused_with_the_reason() -> None:
    assert_refused(CAST + "@gm:local: !ficha Kira aturdido 1", "@bob:local: !tiro Disparar", "aturdido", system="savage")
    assert_refused(CAST + "@gm:local: !ficha Kira muerto 1", "@bob:local: !tiro Disparar", "Kira", system="savage")
    t = play(CAST + "@gm:local: !ficha Kira aturdido 1\n@bob:local: !tiro espiritu d6", system="savage")
    assert roll(t, FIRST + 1)["roll"]["kind"] == "recovery", "the state's own roll is allowed"


def test_reroll_spends_exactly_one_benny_keeps_the_better_and_refuses_with_none_left() -> None:
    table = make_table(system="savage", seed=4)
    t = play(CAST + """
@bob:local: !tiro Disparar
@bob:local: !repetir
@bob:local: !repetir
@bob:local: !repetir
""", table)
    first, second, third = roll(t, FIRST), roll(t, FIRST + 1), roll(t, FIRST + 2)
    assert "le quedan 1" in second["text"] and "le quedan 0" in third["text"]
    best = max(first["roll"]["total"], second["roll"]["total"])
    assert ("la nueva" in third["text"]) == (third["roll"]["total"] > best)
    assert "no tiene benis" in t.text(FIRST + 3)
    assert table.room(ROOM_ID).characters["kira"].sheet["bennies"] == 0


def test_a_critical_failure_cannot_be_rerolled() -> None:
    for seed in range(1, 200):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@bob:local: !tiro Disparar\n@bob:local: !repetir", table)
        if roll(t, FIRST)["roll"]["outcome"] == "critical_failure":
            assert "pifia no se puede repetir" in t.text(FIRST + 1)
            assert table.room(ROOM_ID).characters["kira"].sheet["bennies"] == 2
            return
    raise AssertionError("no critical failure in 200 seeds")


def test_attack_uses_the_sheets_weapon_and_applies_its_damage() -> None:
    table = make_table(system="savage", seed=1)
    t = play(CAST + "@gm:local: !ficha Kira Tipo de arma cuerpo, Daño fue+d6\n@bob:local: !ataque Orco", table)
    attack = roll(t, FIRST + 1)
    assert attack["roll"]["tn"] == 7 and "⚔️ Kira → Orco" in attack["text"]
    texts = t.texts(FIRST + 1)
    hit = attack["roll"]["outcome"] in ("success", "raise")
    assert (len(texts) > 1) == hit


def test_damage_from_the_sheets_weapon() -> None:
    t = play(CAST + "@bob:local: !tiro daño\n@bob:local: !tiro daño aumento vs 7\n@gm:local: !ficha Kira Daño fue+d4\n"
             "@bob:local: !tiro daño", system="savage")
    assert roll(t, FIRST)["roll"]["expr"] == "2d8!"
    raised = roll(t, FIRST + 1)["roll"]
    assert raised["toughness"] == 7 and len(raised["dice"]) >= 3
    assert roll(t, FIRST + 3)["roll"]["expr"] == "1d6!+1d4!", "fue is the sheet's Fuerza d6"


def test_reroll_after_a_soak_is_the_soak_reroll_with_a_second_benny() -> None:
    table = make_table(system="savage", seed=3)
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Orco, Kira
@gm:local: !daño Kira 14
@bob:local: !absorber
@bob:local: !repetir
""", table)
    assert "herida" in t.text(FIRST + 2)
    assert t.text(FIRST + 3).startswith("Kira · 🛡️ Absorbe") and "(otro beni: !repetir)" in t.text(FIRST + 3)
    assert table.room(ROOM_ID).characters["kira"].sheet["bennies"] == 0
    assert t.text(FIRST + 4).startswith("Kira · repite la absorción con otro beni")
    assert "Cuenta la mejor de las tiradas" in t.text(FIRST + 4)


def test_the_gms_secret_roll_for_a_players_character_cannot_be_rerolled_by_the_player() -> None:
    table = make_table(system="savage", seed=4)
    t = play(CAST + "@gm:local: !tiro Kira Notar oculta\n@bob:local: !repetir\n@gm:local: !repetir Kira", table)
    # A refusal goes to the one who caused it (issue 30 item 2).
    assert t.for_line(FIRST + 1) and all(a.get("private_to") == "@bob:local" for a in t.for_line(FIRST + 1))
    assert "no tiene ninguna tirada de este turno que repetir" in t.text(FIRST + 1)
    assert "roll" not in t.for_line(FIRST + 1)[0]
    rerolled = roll(t, FIRST + 2)
    assert rerolled["secret"] and rerolled["private_to"] == GM
    assert table.room(ROOM_ID).characters["kira"].sheet["bennies"] == 1


def test_the_refusal_to_reroll_a_secret_critical_failure_goes_privately() -> None:
    for seed in range(1, 300):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@bob:local: !tiro Disparar oculta\n@bob:local: !repetir", table)
        if roll(t, FIRST)["roll"]["outcome"] == "critical_failure":
            (refusal,) = t.for_line(FIRST + 1)
            assert "pifia no se puede repetir" in refusal["text"] and refusal["private_to"] == "@bob:local"
            return
    raise AssertionError("no critical failure in 300 seeds")


def test_a_comment_naming_a_state_word_does_not_drop_the_automatic_modifier() -> None:
    t = play(CAST + "@gm:local: !ficha Kira heridas 2 fatiga 1\n"
             "@bob:local: !tiro Notar vs 4 (la herida de Bran, fatiga y comodin)\n"
             "@bob:local: !tiro Notar vs 4 heridas 1", system="savage")
    assert applied(roll(t, FIRST + 1)) == {"heridas": -2, "fatiga": -1}
    assert applied(roll(t, FIRST + 2)) == {"fatiga": -1} and reasons(roll(t, FIRST + 2))["heridas"] == -1


def test_a_spirit_roll_while_shaken_is_the_recovery_roll_and_ends_shaken_when_it_says_so() -> None:
    seen = set()
    for seed in range(1, 40):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@gm:local: !ficha Kira aturdido 1\n@bob:local: !tiro Espíritu", table)
        made = roll(t, FIRST + 1)["roll"]
        assert made["kind"] == "recovery"
        shaken = bool(table.room(ROOM_ID).characters["kira"].sheet.get("aturdido"))
        assert shaken == (not made["recovered"])
        assert ("se recupera" in t.text(FIRST + 1)) == made["recovered"]
        seen.add(made["recovered"])
    assert seen == {True, False}


def test_contra_an_unknown_name_is_refused_not_rolled_against_a_default() -> None:
    assert_refused(CAST, "@bob:local: !tiro Pelear contra Trasgo", "ningún personaje llamado «Trasgo»", system="savage")
    t = play(CAST + "@bob:local: !tiro Pelear contra Orco\n@bob:local: !tiro Pelear contra 5", system="savage")
    assert roll(t, FIRST)["roll"]["tn"] == 7 and roll(t, FIRST + 1)["roll"]["tn"] == 5


def test_a_secret_attack_is_refused_not_made_in_public() -> None:
    assert_refused(CAST, "@bob:local: !ataque Orco oculta", "no puede ser oculto", system="savage")


def test_a_players_roll_contra_an_npc_shows_the_outcome_but_not_its_parry() -> None:
    t = play(CAST + "@bob:local: !tiro Pelear contra Orco\n@gm:local: !tiro Kira Pelear contra Orco", system="savage")
    sent = [a for a in t.for_line(FIRST) if a["action"] == "send"]
    (public,) = [a for a in sent if a["private_to"] is None]
    (for_gm,) = [a for a in sent if a["private_to"] == GM]
    assert for_gm["roll"]["tn"] == 7 and "vs 7" in for_gm["text"]
    assert "tn" not in public["roll"] and "7" not in public["text"].replace(str(public["roll"]["total"]), "")
    assert public["text"].startswith("Kira · Pelear d6 contra Orco · 🎲") and public["roll"]["total"] == for_gm["roll"]["total"]
    public, for_gm = t.for_line(FIRST + 1)
    assert public["private_to"] is None and "tn" not in public["roll"], "issue 19: the GM's own roll too"
    assert for_gm["private_to"] == GM and for_gm["roll"]["tn"] == 7


def test_a_players_secret_roll_contra_an_npc_hides_its_parry_from_the_player_too() -> None:
    t = play(CAST + "@bob:local: !tiro Pelear contra Orco oculta", system="savage")
    sent = [a for a in t.for_line(FIRST) if a["action"] == "send"]
    (for_gm,) = [a for a in sent if a["private_to"] == GM]
    (for_player,) = [a for a in sent if a["private_to"] == "@bob:local"]
    (notice,) = [a for a in sent if a["private_to"] is None]
    assert for_gm["secret"] and for_gm["roll"]["tn"] == 7
    assert for_player["secret"] and "tn" not in for_player["roll"]
    assert for_player["text"].startswith("(oculta) Kira · Pelear d6 contra Orco")
    assert "roll" not in notice and "tirada oculta" in notice["text"]


def test_a_rerolled_recovery_ends_shaken_when_the_new_roll_succeeds() -> None:
    seen = set()
    for seed in range(1, 60):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@gm:local: !ficha Kira aturdido 1\n@bob:local: !tiro Espíritu\n@bob:local: !repetir", table)
        first = roll(t, FIRST + 1)["roll"]
        if first["recovered"] or first["outcome"] == "critical_failure":
            continue  # nothing to recover from, or a critical failure, which is not rerolled
        again = roll(t, FIRST + 2)["roll"]
        assert bool(table.room(ROOM_ID).characters["kira"].sheet.get("aturdido")) == (not again["recovered"])
        seen.add(again["recovered"])
    assert seen == {True, False}


def private(t, number: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"]]


def public(t, number: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [a["text"] for a in t.for_line(number) if a["action"] == "send" and not a["private_to"]]


def test_grupo_and_comodin_are_the_gms_to_give() -> None:
    """000: "Cada grupo distinto de Extras bajo el control del DJ, como todos los zombis, todos los lobos,
    etc. comparte una carta de acción", and "Los criterios exactos para formar un grupo de extras
    distintos y cuándo reciben una carta de acción propia, es algo que depende del DJ": a player cannot
    join the orcs' card nor make their character an Extra or a Wild Card."""
    setup = CAST + "@gm:local: !pnj Lobo x2 grupo lobos"
    for line in ("Grupo lobos", "grupo lobos", "Comodín no", "comodin si"):
        assert_refused(setup, f"@bob:local: !ficha Kira {line}", "solo el máster", system="savage")
    t = play(setup + "\n@bob:local: !ficha Kira Pelear d8, Grupo lobos\n@gm:local: !combate\n@gm:local: !iniciativa",
             system="savage")
    cards = dict(re.findall(r"(Kira|Lobo 1/Lobo 2) (\S+)", t.texts(FIRST + 3)[0]))  # one card shown once a group
    assert cards["Lobo 1/Lobo 2"] != cards["Kira"], "Kira keeps her own card"
    table = make_table(system="savage")
    play(setup + "\n@gm:local: !ficha Kira Grupo lobos, Comodín no", table)
    assert table.room(ROOM_ID).characters["kira"].sheet["grupo"] == "lobos"


def test_a_player_joining_a_group_in_a_paste_gets_the_rest_and_not_the_group() -> None:
    table = make_table(system="savage")
    t = play(CAST + "@gm:local: !pnj Orco x2 grupo orcos\n@bob:local: !ficha Kira Pelear d10, Grupo orcos", table)
    sheet = table.room(ROOM_ID).characters["kira"].sheet
    assert sheet["pelear"] == "d10" and "grupo" not in sheet
    assert any("Grupo" in a["text"] and "solo el máster" in a["text"] and a["private_to"] == "@bob:local"
               for a in private(t, FIRST + 1))  # what was refused goes to its writer (issue 30 item 2)


def test_the_readmes_example_paste_works_for_a_player_with_its_starting_bennies() -> None:
    """The players' manual's own example (docs/players.md) carries Bennies, a starting number the player pastes
    for their new character (issue 30): the whole paste is kept, with no note and nothing told to the GMs."""
    readme = (Path(__file__).resolve().parents[3] / "docs" / "players.md").read_text(encoding="utf-8")
    example = re.search(r"`(!ficha Kira [^`]*,[^`]*)`", readme)
    assert example is not None and "Bennies 3" in example[1]
    table = make_table(system="savage")
    t = play(f"@gm:local: !pj Kira @bob:local\n@bob:local: {example[1]}", table)
    sheet = table.room(ROOM_ID).characters["kira"].sheet
    assert (sheet["agilidad"], sheet["parada"], sheet["dureza"], sheet["bennies"]) == ("d8", 5, 6, 3)
    assert not any("solo el máster" in text for text in public(t, 2))
    assert private(t, 2) == [], "a first paste of derived numbers is not a change"


def test_a_player_pasting_their_own_export_back_changes_nothing_and_hears_no_refusal() -> None:
    table = make_table(system="savage")
    exported = play(CAST + "@bob:local: !ficha Kira", table).text(FIRST).split("\n")[1]
    t = play(CAST + f"@bob:local: !ficha Kira\n@bob:local: !ficha Kira {exported}", system="savage")
    assert t.acked(FIRST + 1) and private(t, FIRST + 1) == []


def test_a_players_later_change_of_parry_toughness_or_pace_is_told_privately_to_the_gms() -> None:
    table = make_table(system="savage")
    t = play(CAST + "@bob:local: !ficha Kira Parada 12, Dureza 6, Paso 8, Pelear d8\n"
             "@gm:local: !ficha Kira Parada 5", table)
    assert table.room(ROOM_ID).characters["kira"].sheet["parada"] == 5
    (report,) = private(t, FIRST)
    assert report["private_to"] == GM and "Parada 5 → 12" in report["text"] and "Paso 6 → 8" in report["text"]
    assert "Dureza" not in report["text"] and "Pelear" not in report["text"] and "@bob:local" in report["text"]
    assert not any("→" in text for text in public(t, FIRST))
    assert private(t, FIRST + 1) == [], "the GM's own change is not reported"
