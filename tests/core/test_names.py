"""Character names and NPCs (issue 10, items 7 and 15): lookalike letters, invisible names,
the GM's NPCs against players' claims, caps, and NPCs set up before the fight."""

from __future__ import annotations

import re

import pytest

from tests.transcript import make_table, play

ROOM = "!console:local"


def characters(table) -> dict:
    return table.room(ROOM).to_dict()["characters"]


def test_lookalike_letters_are_the_same_name() -> None:
    table = make_table()
    t = play("""
@ana:local: !pj 𝐁𝐫𝐮𝐧𝐨
@bob:local: !pj ℬruno
@bob:local: !pj ＢＲＵＮＯ
@gm:local: !ficha bruno iniciativa 2
""", table)
    assert t.acked(1)
    assert t.text(2) == t.text(3) == "⚠️ Bruno ya es el personaje de @ana:local."
    assert list(characters(table)) == ["bruno"]
    assert characters(table)["bruno"]["sheet"] == {"iniciativa": 2}


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u0301\u0308", "\u1160", "\u3164\u3164 \u2800", "\uffa0"])
def test_names_without_a_visible_letter_are_refused(name: str) -> None:
    table = make_table()
    t = play(f"@ana:local: !pj {name}\n@gm:local: !pj {name} @ana:local", table)
    for line in (1, 2):
        assert t.text(line).startswith("⚠️ El nombre del personaje necesita al menos una letra visible")
    assert characters(table) == {}


def test_a_player_cannot_claim_the_gms_combatant_under_a_lookalike_name() -> None:
    table = make_table()
    t = play("""
@gm:local: !combate
@gm:local: !turnos 𝐎𝐑𝐂𝐎
@bob:local: !pj Orco
""", table)
    assert "ORCO es un personaje del máster" in t.text(3)
    assert list(characters(table)) == ["orco"] and characters(table)["orco"]["owner"] is None


def test_the_gms_turns_keep_a_players_character_and_name_the_new_npcs() -> None:
    table = make_table()
    t = play("""
@ana:local: !pj 𝐁𝐫𝐮𝐧𝐨
@gm:local: !combate
@gm:local: !turnos BRUNO, Orco
""", table)
    notice, turn = t.texts(3)
    assert notice == "🎭 PNJ nuevos del máster: Orco. Siguen siendo de sus jugadores: Bruno (@ana:local)."
    assert turn == "▶️ Bruno (@ana:local)"
    assert characters(table)["bruno"]["owner"] == "@ana:local" and not characters(table)["bruno"]["npc"]
    assert characters(table)["orco"]["npc"]


def test_a_player_creates_at_most_five_characters() -> None:
    table = make_table()
    t = play("\n".join(f"@ana:local: !pj Héroe {n}" for n in "ABCDEF") + "\n@ana:local: !pj Héroe B", table)
    assert t.acked(5)
    assert t.text(6).startswith("⚠️ Ya has creado 5 personajes en esta sala")
    assert len(characters(table)) == 5
    assert t.acked(7)


def test_a_room_holds_at_most_two_hundred_characters() -> None:
    table = make_table()
    t = play("\n".join(f"@gm:local: !pj Guardia {n}" for n in range(201)), table)
    assert t.acked(200)
    assert t.text(201) == "⚠️ Esta sala ya tiene 200 personajes, el máximo: no se crea ninguno más."
    assert len(characters(table)) == 200


def test_initiative_and_turns_respect_the_combatant_cap() -> None:
    table = make_table()
    cast = "\n".join(f"@gm:local: !pj Guardia {n}" for n in range(41))
    names = ", ".join(f"Guardia {n}" for n in range(41))
    t = play(cast + f"\n@gm:local: !combate\n@gm:local: !iniciativa\n@gm:local: !turnos {names}", table)
    for line in (43, 44):
        assert t.text(line) == ("⚠️ 41 combatientes son demasiados: como mucho 40. Nombra a los que luchan "
                                "(!iniciativa A, B, C) o prepara menos PNJ.")
    assert table.room(ROOM).combat.round == 0


# -- !pnj ---------------------------------------------------------------------------------------

def test_npcs_set_up_before_the_fight_share_a_card_and_can_ambush() -> None:
    table = make_table(system="savage", seed=5)
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Orco x3 grupo orcos
@gm:local: !npc Jefe
@gm:local: !combate
@gm:local: !sorpresa Orco 1, Orco 2, Orco 3, Jefe / McAvoy
@gm:local: !iniciativa
""", table)
    assert t.text(2) == ("👹 PNJ del máster: Orco 1, Orco 2, Orco 3 (grupo orcos: comparten carta). "
                         "Entrarán en el próximo combate (!combate, luego !iniciativa).")
    assert t.text(3) == "👹 PNJ del máster: Jefe. Entrará en el próximo combate (!combate, luego !iniciativa)."
    room = table.room(ROOM)
    assert all(room.characters[f"orco {n}"].npc and room.characters[f"orco {n}"].sheet == {"grupo": "orcos"}
               for n in (1, 2, 3))
    assert room.combat.round == 1 and "McAvoy" not in room.combat.order
    deal = t.texts(6)[0]
    assert "Orco 1/Orco 2/Orco 3 sin carta (en espera)" in deal and "Sorprendidos, sin carta esta ronda: McAvoy" in deal


def test_orcs_in_one_group_get_one_card() -> None:
    table = make_table(system="savage", seed=3)
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Orco x3 grupo orcos
@gm:local: !combate
@gm:local: !iniciativa
""", table)
    deal = t.texts(4)[0]
    assert re.search(r"Orco 1/Orco 2/Orco 3 [^\s,.]+", deal) and deal.count("Orco") == 3, deal  # one card, shown once


def test_more_npcs_of_the_same_name_continue_the_numbering() -> None:
    table = make_table()
    t = play("@gm:local: !pnj Orco x2\n@gm:local: !combate\n@gm:local: !pnj orco X2", table)
    assert t.text(3) == "👹 PNJ del máster: orco 3, orco 4. Entrarán en el combate con !iniciativa."
    assert sorted(characters(table)) == ["orco 1", "orco 2", "orco 3", "orco 4"]


@pytest.mark.parametrize("line, answer", [
    ("!pnj Orco x2 grupo orcos", "⚠️ Genérico no tiene grupos de Extras"),
    ("!pnj Elric", "⛔ Elric es el personaje de @ana:local: un PNJ necesita otro nombre."),
    ("!pnj Orco x41", "⚠️ De 1 a 40 PNJ de una vez: !pnj Orco x3."),
    ("!pnj Orco x0", "⚠️ De 1 a 40 PNJ de una vez: !pnj Orco x3."),
    ("!pnj \u3164 x3", "⚠️ El nombre del personaje necesita al menos una letra visible"),
    ("!pnj @Orco", "⚠️ El nombre del personaje debe tener entre 1 y 40 caracteres"),
])
def test_bad_npc_lines_change_nothing(line: str, answer: str) -> None:
    table = make_table()
    t = play(f"@gm:local: !pj Elric @ana:local\n@gm:local: {line}", table)
    assert t.text(2).startswith(answer)
    assert list(characters(table)) == ["elric"]


def test_npcs_cannot_join_a_started_combat_through_pnj() -> None:
    table = make_table()
    t = play("@gm:local: !pj Elric @ana:local\n@gm:local: !combate\n@gm:local: !iniciativa\n@gm:local: !pnj Orco",
             table)
    assert t.text(4).startswith("⚠️ El combate ya ha empezado: !pnj prepara PNJ antes de la iniciativa.")
    assert list(characters(table)) == ["elric"]


def test_npc_sheets_are_the_gms_but_their_state_is_public() -> None:
    table = make_table(system="savage", seed=5)
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Orco
@gm:local: !ficha Orco dureza 7 parada 6 aturdido 1
@gm:local: !pj Capitán
@ana:local: !ficha Orco
@ana:local: !ficha Capitán
@gm:local: !combate
@gm:local: !turnos Orco, McAvoy
@ana:local: !estado
@ana:local: !ficha McAvoy
@bob:local: !ficha McAvoy
@gm:local: !ficha Orco
""", table)
    assert t.text(5) == "🔒 La ficha de Orco es del máster. Lo que se ve de él (heridas, estados) está en !estado."
    assert t.text(6).startswith("🔒 La ficha de Capitán es del máster.")
    board = t.text(9)
    assert "Orco [" in board and "aturdido" in board.lower() and "7" not in board
    assert t.text(10).startswith("📜 McAvoy") and t.text(11).startswith("📜 McAvoy")
    room, gm = [a for a in t.for_line(12) if a["private_to"] is None], [a for a in t.for_line(12) if a["private_to"]]
    assert room == []  # issue 30: a GM's !ficha of a GM-owned sheet is answered only privately
    assert gm[0]["private_to"] == "@gm:local" and "Dureza 7" in gm[0]["text"]


def test_format_characters_are_dropped_from_a_claimed_name() -> None:
    t = play("@gm:local: !pj Bru\u200bno @ana:local\n@ana:local: !tiro d6")
    assert t.acked(1)
    assert t.text(2).startswith("Bruno · ")


@pytest.mark.parametrize(("args", "names", "group"), [
    ("Lobo grupo manada x2", ["Lobo 1", "Lobo 2"], "manada"),
    ("Lobo x2 grupo manada", ["Lobo 1", "Lobo 2"], "manada"),
    ("Lobo Gris x3", ["Lobo Gris 1", "Lobo Gris 2", "Lobo Gris 3"], None),
])
def test_npc_count_and_group_are_read_anywhere(args: str, names: list[str], group: str | None) -> None:
    table = make_table(system="savage")
    play(f"@gm:local: !pnj {args}", table=table)
    room = table.room("!console:local")
    assert room.character_names() == names
    assert all(room.find_character(n).sheet.get("grupo") == group for n in names)


@pytest.mark.parametrize("args", ["Lobo x-1", "Lobo x0", "Lobo x2 x3", "Lobo x41"])
def test_a_bad_npc_count_is_refused_and_creates_nothing(args: str) -> None:
    table = make_table(system="savage")
    t = play(f"@gm:local: !pnj {args}", table=table)
    assert t.text(1).startswith("⚠️ De 1 a 40 PNJ")
    assert table.room("!console:local").characters == {}
