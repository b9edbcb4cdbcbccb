"""Spanish and the acta (issue 20 item 8): agreement with one, phrases about characters that need no
gender, round numbers that never go back, and rolls in the acta credited to the character who rolled,
with their skill and the Savage wild die apart.

Gender: rolbot does not know a character's gender (no sheet field says it), so every sentence about a
character is worded so it needs none: a state is named as the game names it (``tiene el estado
aturdido``) or with a noun (``sufre aturdimiento``), never as an adjective agreeing with the character
(``está aturdido``, ``sale ileso``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.console import ROOM_ID
from bot.core.acta_document import export
from bot.core.table import Table
from tests.transcript import GM, make_table, play

TEMPLATES = Path(__file__).parents[2] / "templates"
GLUED = re.compile(r"[a-záéíóúñ)]\.[A-ZÁÉÍÓÚ¿¡📖]")
"""A sentence glued to the next one (``fatiga.Protocolo``)."""
ADJECTIVES = r"(?:ileso|muerto|aturdido|herido|desprevenido|caído|moribundo|indefenso|sorprendido|malherido)"
GENDERED = re.compile(r"(?:\}\}|\bestás?|\bsale|\bqueda|\bsigue|\bestar|\bestaba) " + ADJECTIVES + r"\b")
"""An adjective agreeing with a character: after the character's name or a verb about it."""


def texts(t, number: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [a["text"] for a in t.for_line(number) if a["action"] == "send"]


def wild_apart(roll: dict) -> str:
    """How the acta (Markdown) shows a Savage trait roll's dice: the trait die's faces, then the wild die's."""
    dice, trait = roll["dice"], roll["trait"]
    cut = next(i for i in range(1, len(dice) + 1) if sum(dice[:i]) == trait)
    return f"\\[{'!+'.join(map(str, dice[:cut]))}\\] 🐺\\[{'!+'.join(map(str, dice[cut:]))}\\]"


def acta(table: Table) -> str:
    return export(table.store, table.renderer, ROOM_ID, "md")


@pytest.mark.parametrize("system", ["savage", "stormbringer", "reino", "sombra", "generic"])
def test_no_help_answer_glues_two_sentences(system: str) -> None:
    """``fatiga.Protocolo`` (the old one-wall ``!ayuda``) is gone: no answer of ``!ayuda`` glues sentences."""
    topics = ["", "ficha", "combate", "protocolo", "sintaxis", "tiradas", "master", "heridas", "tareas", "tiro"]
    t = play("\n".join(f"{GM}: !ayuda {topic}" for topic in topics), system=system)
    for number in range(1, len(topics) + 1):
        for text in texts(t, number):
            assert not GLUED.search(text.replace("!ayuda", "")), text


def test_no_template_words_a_character_with_a_gendered_adjective() -> None:
    found = [f"{path.relative_to(TEMPLATES)}: {m[0]}" for path in TEMPLATES.rglob("*.*") if path.suffix in (".txt", ".html")
             for m in GENDERED.finditer(path.read_text(encoding="utf-8"))]
    assert found == []


def test_a_miss_in_sombra_needs_no_gender() -> None:
    t = play("""
@gm:local: !pj McAvoy @ana:local
@gm:local: !pnj Luz
@gm:local: !ficha McAvoy disparo 3 res 5 vel 5 agi 5
@gm:local: !ficha Luz res 5 vel 4 agi 4
@gm:local: !combate
@gm:local: !iniciativa
@ana:local: !ataque Luz disparo
""", system="sombra", seed=5)
    attack = " ".join(texts(t, 7))
    assert "Luz no recibe ningún daño" in attack and "ileso" not in attack, attack


def test_one_is_singular_in_the_dice_statistics() -> None:
    t = play(f"{GM}: !tiro d%\n{GM}: !dados")
    stats = texts(t, 2)[0]
    assert "(1 tirada a la vista" in stats and "d100: 1 dado," in stats and "1 dados" not in stats


def test_one_npc_will_enter_the_fight() -> None:
    t = play(f"{GM}: !pnj Jefe\n{GM}: !pnj Orco x2")
    assert "Entrará en el próximo combate" in texts(t, 1)[0] and "Entrarán en el próximo combate" in texts(t, 2)[0]


def test_a_players_gm_only_fields_are_named_in_agreement() -> None:
    t = play("@gm:local: !pj Kira @bob:local\n@bob:local: !ficha Kira Agilidad d8, Bennies 3, Heridas 1, Fatiga 1",
             system="savage")
    (note,) = texts(t, 2)
    assert "no se han cambiado Heridas, Fatiga: solo el máster los cambia" in note, note  # issue 30: Bennies is pasted


def lines(t, n: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Every line of line ``n``'s answers: a round's deal or order and its first turn are one message (issue 30)."""
    return [line for text in texts(t, n) for line in text.splitlines()]


ROUNDS = """
@gm:local: !acta activar
@gm:local: !pj Kira @bob:local
@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !turnos Kira Orco
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !iniciativa reiniciar Orco Kira
@gm:local: !siguiente
@gm:local: !combate fin
"""


@pytest.mark.parametrize("system", ["savage", "stormbringer", "reino", "sombra"])
def test_an_order_set_again_mid_round_goes_on_to_the_next_round_never_back_to_one(system: str) -> None:
    table = make_table(system=system)
    t = play(ROUNDS, table)
    assert any(line.startswith("▶️ Ronda 3: turno de ") for line in lines(t, 9)), texts(t, 9)  # after the order
    assert texts(t, 11) == ["🏁 Fin del combate tras 3 rondas."]
    headings = re.findall(r"^#### Ronda (\d+)", acta(table), re.MULTILINE)
    assert headings == ["1", "2", "3"]


def test_an_order_set_again_before_anyone_acted_stays_in_the_round() -> None:
    t = play(ROUNDS.replace("@gm:local: !siguiente\n@gm:local: !siguiente\n@gm:local: !siguiente\n", "", 1),
             system="savage")
    assert any(line.startswith("▶️ Ronda 1: turno de ") for line in lines(t, 6)), texts(t, 6)


CREDIT = """
@gm:local: !acta activar
@gm:local: !pj Kira @bob:local
@gm:local: !pj Luz @gm:local
@gm:local: !pnj Orco
@gm:local: !ficha Kira Pelear d8, Disparar d8, Parada 5, Dureza 6
@gm:local: !ficha Orco Pelear d6, Parada 5, Dureza 6, Comodín no
@gm:local: !ficha Luz Pelear d10, Parada 7, Dureza 6
@gm:local: !combate
@gm:local: !turnos Orco Kira Luz
@gm:local: !tiro Pelear contra Kira
@gm:local: !siguiente
@bob:local: !tiro Disparar vs 4
@gm:local: !siguiente
@gm:local: !tiro Pelear contra Orco
@gm:local: !combate fin
@gm:local: !pj Luz @ana:local
@gm:local: !tiro 2d6
"""


def test_the_acta_credits_each_roll_to_the_character_who_rolled_with_its_skill_and_the_wild_die_apart() -> None:
    table = make_table(system="savage", seed=3)
    t = play(CREDIT, table)
    # The GM on Orco's turn rolls for Orco, with its sheet (whose die only the GMs see: issue 19).
    assert texts(t, 10)[0].startswith("Orco · Pelear contra Kira") and t.gm_text(10).startswith("Orco · Pelear d6")
    lines = [line for line in acta(table).splitlines() if "🎲" in line]
    assert len(lines) == 4, lines
    orco, kira, luz, plain = lines
    # Issue 29: a GM-owned sheet's roll keeps its dice and outcome in the acta, not its die size or total.
    assert orco.startswith("- Orco · 🎲 Pelear: \\[") and "🐺" not in orco and "1d6" not in orco  # an Extra
    kira_roll = next(a["roll"] for a in t.for_line(12) if "roll" in a)
    assert kira.startswith(f"- Kira · 🎲 Disparar d8 — 1d8: {wild_apart(kira_roll)} = {kira_roll['total']}")
    assert luz.startswith("- Luz · 🎲 Pelear: \\[") and "1d10" not in luz  # a character the GM plays
    assert "@gm" not in plain and plain.startswith("- 🎲 2d6: \\[")


def test_the_wild_die_is_apart_with_its_explosions() -> None:
    table = make_table(system="savage", seed=10)
    play("@gm:local: !acta activar\n@gm:local: !pj Kira @bob:local\n" + "\n".join(["@bob:local: !tiro d4"] * 12), table)
    rolls = [e for e in table.store.acta.entries(ROOM_ID, [1]) if e.kind == "roll"]
    lines = [line for line in acta(table).splitlines() if "🎲" in line]
    for entry, line in zip(rolls, lines, strict=True):
        assert wild_apart(entry.data["result"]) in line, (line, entry.data["result"])
    assert any("!+" in line for line in lines), lines
