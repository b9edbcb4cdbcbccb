"""Savage Worlds, issue 31 ("By the book, third pass"), small traps found while finishing it: ``!daño NAME
N`` when N ends a character's name, and the hold of a watcher or holder Shaken some other way than by a
hit it keeps (or soaks away). Each docstring quotes the house rule it implements, or says they are silent."""

from __future__ import annotations

from bot.console import ROOM_ID
from tests.games.savage.test_flow_by_the_book import scripted, sheet, then
from tests.transcript import assert_refused, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Vigor d6, Fuerza d8, Pelear d8, Parada 5, Dureza 6, Bennies 2
@gm:local: !ficha Kira Arma Espada, Tipo de arma cuerpo, Daño fue+d6
@gm:local: !pnj Orco 1
@gm:local: !ficha Orco 1 Pelear d6, Parada 5, Dureza 5
@gm:local: !pnj Orco 2
@gm:local: !ficha Orco 2 Pelear d6, Parada 5, Dureza 5
@gm:local: !combate
@gm:local: !turnos Kira, Orco 1, Orco 2
"""
FIRST = 10
"""The first line after CAST."""


def test_issue31_slip1_a_number_that_ends_a_name_is_the_name_and_the_amount_is_missing() -> None:
    """Issue 31 slip 1: the house rules are silent on the command's words; 000 asks for a damage roll
    («el atacante debe determinar el daño ocasionado»). ``!daño Orco 1`` names Orco 1 (a trailing number
    that completes a name is the name), and with no hit owed the answer says the damage is missing, with
    both ways of giving it; nothing changes."""
    assert_refused(CAST, "@gm:local: !daño Orco 1", "Falta el daño contra Orco 1: !daño Orco 1 2d6 (dados) o "
                   "!daño Orco 1 7 (total)", system="savage")


def test_issue31_slip1_a_number_after_the_whole_name_is_still_the_total() -> None:
    """Issue 31 slip 1: ``!daño Orco 1 5`` is 5 points against Orco 1's Toughness 5: 0 over, Shaken
    (000: «Si el daño iguala o supera la Dureza, el objetivo queda aturdido»)."""
    table = make_table(system="savage")
    t = play(CAST + "@gm:local: !daño Orco 1 5", table)
    assert t.text(FIRST) == "💥 Orco 1: aturdido (5)."
    assert sheet(table, "Orco 1").get("aturdido") and not sheet(table, "Orco 2").get("aturdido")


def test_issue31_slip1_the_owed_hit_of_a_name_alone_rolls_the_weapon() -> None:
    """Issue 31 slip 1, 000: «Tras una tirada exitosa ... el atacante debe determinar el daño ocasionado»:
    Kira's ``!tiro Pelear contra Orco 1`` hits, and her ``!daño Orco 1`` rolls her Espada (fue+d6: d8+d6)
    as ``!daño Orco 1 d8+d6`` would."""
    table = make_table(system="savage")
    play(CAST, table)
    # Pelear d8 6, wild d6 2: 6 vs Parry 5, a success (no raise: 6 < 9).
    scripted(table, (6, 8), (2, 6))
    t = then(table, FIRST - 1, "@bob:local: !tiro Pelear contra Orco 1")
    assert t.text(FIRST) == "Kira · Pelear d8 contra Orco 1 · 🎲 1d8: [6] 🐺[2] = 6 → éxito"
    # d8 3 + d6 4 = 7 vs Toughness 5: 2 over, Shaken.
    scripted(table, (3, 8), (4, 6))
    t = then(table, FIRST, "@bob:local: !daño Orco 1")
    assert t.text(FIRST + 1) == "💥 Orco 1: aturdido (7)." and table.rng.exhausted()  # an NPC: no Toughness shown
    roll = t.full_rolls(FIRST + 1)[0]
    assert (roll["expr"], roll["dice"], roll["total"]) == ("1d8!+1d6!", [3, 4], 7)
    assert sheet(table, "Orco 1").get("aturdido") and not sheet(table, "Orco 2").get("aturdido")


# Slip 2: Shaken and on hold (or on guard) never together, whatever makes it Shaken.

HOLD = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Vigor d6, Atletismo d6, Disparar d8, Parada 5, Dureza 6, Bennies 2
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana Vigor d6, Atletismo d6, Parada 5, Dureza 6, Bennies 2
@gm:local: !pnj Orco
@gm:local: !ficha Orco Disparar d8, Atletismo d6, Parada 5, Dureza 5
@gm:local: !combate
@gm:local: !turnos Kira, Orco, Ana
"""
AFTER_HOLD = 9
"""The first line after HOLD."""


def test_issue31_slip2_a_watcher_the_gm_makes_shaken_leaves_the_guard() -> None:
    """Issue 31 slip 2, 000: «Un personaje en espera que quede aturdido por cualquier causa ... deja de estar
    en espera»; the guard (XCOM: «Ponerte en Espera para Disparar») is a hold too. Kira on guard, made Shaken
    by the GM's ``!ficha Kira aturdido 1`` (not by damage), is no longer on guard nor holding, and
    ``!guardia fuego`` finds nobody to shoot."""
    table = make_table(system="savage")
    t = play(HOLD + "@bob:local: !guardia\n@gm:local: !ficha Kira aturdido 1\n@gm:local: !estado\n"
             "@gm:local: !guardia fuego", table)
    assert t.texts(AFTER_HOLD + 1) == ["⏸️ Kira tiene el estado aturdido: sale de la espera y actúa tras este turno."]
    assert "de guardia" not in t.text(AFTER_HOLD + 2) and "en espera" not in t.text(AFTER_HOLD + 2)
    assert table.room(ROOM_ID).combat.order == ["Orco", "Kira", "Ana"]  # «debe actuar inmediatamente tras él»
    assert t.text(AFTER_HOLD + 3) == "👁️ Nadie está de guardia."
    state = table.room(ROOM_ID).combat.data
    assert state["overwatch"] == [] and state["holding"] == []


def test_issue31_slip2_a_holder_who_soaks_away_the_shaken_keeps_the_hold() -> None:
    """Issue 31 slip 2, 000: «Un personaje en espera que quede aturdido por cualquier causa al final de la
    acción de otro personaje deja de estar en espera» and «Si el personaje absorbe todas las heridas causadas
    por el ataque, también elimina el estado de aturdimiento»: Kira on guard takes a wound and Shaken, soaks
    the wound away, so she is not Shaken at the end of the action: she keeps her guard and her place."""
    table = make_table(system="savage")
    play(HOLD + "@bob:local: !guardia", table)
    # The GM's trap: 2d6+6 = 3 + 2 + 6 = 11 vs Toughness 6: 5 over, one raise: 1 wound and Shaken.
    scripted(table, (3, 6), (2, 6))
    t = then(table, AFTER_HOLD, "@gm:local: !daño Kira 2d6+6")
    assert t.text(AFTER_HOLD + 1) == ("💥 Kira: 1 herida, aturdido ([3, 2] vs 6). Sale de la espera: actúa tras este "
                                 "turno. 🛡️ !absorber [no]")
    # Her soak: Vigor d6 5, wild d6 2: 5 vs 4, a success, soaks 1 of 1: no wound and no Shaken.
    scripted(table, (5, 6), (2, 6))
    t = then(table, AFTER_HOLD + 1, "@bob:local: !absorber\n@gm:local: !estado")
    assert "Absorbe 1 de 1" in t.text(AFTER_HOLD + 2) and table.rng.exhausted()
    assert t.text(AFTER_HOLD + 2).endswith("Queda: 0 heridas; 1 beni. Sigue de guardia.")
    assert not sheet(table, "Kira").get("aturdido") and not sheet(table, "Kira").get("heridas")
    state = table.room(ROOM_ID).combat.data
    assert state["overwatch"] == ["Kira"] and state["holding"] == ["Kira"]
    assert table.room(ROOM_ID).combat.order == ["Kira", "Orco", "Ana"]
    assert "de guardia" in t.text(AFTER_HOLD + 3)
