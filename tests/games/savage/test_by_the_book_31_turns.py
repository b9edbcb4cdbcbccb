"""Savage Worlds, issue 31 ("By the book, third pass"), items 6, 7 and 10: the soak on one's own turn,
Shaken and on hold never together, and the turn's bookkeeping (the joker of a group said once, who
cannot act named each round, a hit on the incapacitated, action counts per fight, ``Daño del arma``).
Each docstring quotes the house rule it implements, or says the house rules are silent."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.table import Table
from tests.games.savage.test_flow_by_the_book import scripted, sheet, then
from tests.scripted import FaceRng
from tests.transcript import assert_refused, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Vigor d6, Atletismo d6, Pelear d6, Disparar d8, Parada 5, Dureza 6, Bennies 2
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana Vigor d6, Atletismo d6, Parada 5, Dureza 6, Bennies 2
@gm:local: !pnj Orco
@gm:local: !ficha Orco Disparar d8, Atletismo d6, Parada 5, Dureza 5, Arma Rifle, Tipo de arma distancia, Daño 2d8
@gm:local: !combate
"""
FIRST = 8
"""The first line after CAST."""


def current(table: Table) -> str | None:
    return table.room(ROOM_ID).combat.current


# Item 6: a soak on one's own turn.

def test_issue31_item6_damage_on_the_victims_own_turn_leaves_the_soak_open() -> None:
    """Issue 31 item 6, 001: «Después de calcular el daño, pero antes de aplicar las heridas, el personaje
    puede gastar un beni para realizar una tirada de absorción»: a trap (the GM's ``!daño``) and a guard
    firing (the GM's ``!ataque Orco Kira``) on Kira's own turn leave the soak open as on anyone else's; her
    turn stays hers. (Held since issue 30: a guard test.)"""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !turnos Kira, Orco, Ana", table)
    scripted(table, (4, 6), (5, 6))  # the trap: 2d6+8 = 4 + 5 + 8 = 17 vs Toughness 6: 11 over, 2 raises
    t = then(table, FIRST + 1, "@gm:local: !daño Kira 2d6+8\n@gm:local: !estado")
    assert t.text(FIRST + 2) == "💥 Kira: 2 heridas, aturdido (17 vs 6). 🛡️ !absorber [no]"
    assert "absorción pendiente" in t.text(FIRST + 3) and current(table) == "Kira"
    scripted(table)  # she declines: no die rolls; the GM gives her back a benny
    t = then(table, FIRST + 3, "@bob:local: !absorber no\n@gm:local: !beni Kira +1")
    assert "no absorbe" in t.text(FIRST + 4) and current(table) == "Kira" and table.rng.exhausted()
    # The guard: Orco (an Extra, no wild die) Disparar d8 7 vs 4, a success; damage 2d8 6 + 3 = 9 vs
    # Toughness 6: 3 over, a success, and Kira is already Shaken: a wound (000: «Si ya lo estaba, sufrirá
    # una herida y seguirá aturdida»), her third.
    scripted(table, (7, 8), (6, 8), (3, 8))
    t = then(table, FIRST + 5, "@gm:local: !ataque Orco Kira")
    assert "Kira: 1 herida (total 3), aturdido ([6, 3] vs 6)" in t.texts(FIRST + 6)[1]
    assert "!absorber [no]" in "\n".join(t.texts(FIRST + 6)) and current(table) == "Kira"
    # Her soak: Vigor d6 6!+1 = 7, less her 2 wounds (not the one about to be taken: «No cuentes los
    # modificadores por heridas que el personaje está a punto de sufrir») = 5 vs 4, a success: soaked.
    scripted(table, (6, 6), (1, 6), (2, 6))
    t = then(table, FIRST + 6, "@bob:local: !absorber")
    assert "Absorbe 1 de 1" in t.text(FIRST + 7) and sheet(table, "Kira")["heridas"] == 2
    assert current(table) == "Kira" and table.rng.exhausted()  # it is still her turn


# Item 7: Shaken and on hold never together.

SHAKEN_KIRA = CAST + "@gm:local: !ficha Kira aturdido 1\n@gm:local: !turnos Kira, Orco, Ana\n"
"""Kira's turn, Shaken, with no Espíritu on her sheet: no Spirit roll, she stays Shaken."""


def test_issue31_item7_a_shaken_character_cannot_go_on_hold() -> None:
    """Issue 31 item 7: the house rules are silent on going on hold while Shaken; 000 takes the hold away
    from a holder who becomes Shaken («Un personaje en espera que quede aturdido por cualquier causa ...
    deja de estar en espera»), and the published game does not let a Shaken character go on hold: ``!esperar``
    (and ``!guardia``, a hold to fire) is refused, privately, saying why; nothing changes."""
    for command in ("!esperar", "!guardia"):
        assert_refused(SHAKEN_KIRA, f"@bob:local: {command}", "aturdido: no puede ponerse en espera", system="savage")
    t = play(SHAKEN_KIRA + "@bob:local: !esperar", system="savage")
    refused = t.messages(FIRST + 2)
    assert len(refused) == 1 and refused[0]["private_to"] == "@bob:local"
    assert "!beni Kira recuperar" in refused[0]["text"], "it says how to end Shaken first"


def test_issue31_item7_a_holder_who_becomes_shaken_loses_the_hold_and_acts_right_after() -> None:
    """Issue 31 item 7, 000: «Un personaje en espera que quede aturdido por cualquier causa al final de la
    acción de otro personaje deja de estar en espera y debe actuar inmediatamente tras él.» Kira holds;
    Orco's guard shot leaves her Shaken: she is no longer holding and her turn comes right after Orco's,
    before Ana's. (Held since issue 21: a guard test, with an attack instead of the GM's total.)"""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !ficha Kira Espíritu d6\n@gm:local: !turnos Kira, Orco, Ana\n@bob:local: !esperar", table)
    assert current(table) == "Orco"
    # Orco (an Extra): Disparar d8 5 vs 4, a success; 2d8 4 + 2 = 6 vs Toughness 6: 0 over, Shaken.
    scripted(table, (5, 8), (4, 8), (2, 8))
    t = then(table, FIRST + 4, "@gm:local: !ataque Orco Kira\n@gm:local: !estado")
    assert t.texts(FIRST + 5)[1] == "💥 Kira: aturdido ([4, 2] vs 6). Sale de la espera: actúa tras este turno."
    assert "en espera" not in t.text(FIRST + 6) and table.rng.exhausted()
    # Her turn, right after Orco's: Espíritu d6 4, wild 1: 4 vs 4, she recovers.
    scripted(table, (4, 6), (1, 6))
    t = then(table, FIRST + 6, "@gm:local: !siguiente")
    spirit, turn = t.texts(FIRST + 7)
    assert "💫 Espíritu" in spirit and "se recupera" in spirit and turn == "▶️ Kira (@bob:local)"
    assert table.room(ROOM_ID).combat.order == ["Orco", "Kira", "Ana"] and table.rng.exhausted()


def test_issue31_item7_a_watcher_who_becomes_shaken_is_no_longer_on_guard() -> None:
    """Issue 31 item 7, 000: «Un personaje en espera que quede aturdido por cualquier causa ... deja de estar
    en espera»; the guard (XCOM: «Ponerte en Espera para Disparar») is a hold too: Kira, Shaken on guard,
    is no longer on guard, and the GM's ``!guardia fuego`` finds nobody to shoot."""
    table = make_table(system="savage")
    t = play(CAST + "@gm:local: !turnos Kira, Orco, Ana\n@bob:local: !guardia\n@gm:local: !daño Kira 7\n"
             "@gm:local: !estado\n@gm:local: !guardia fuego", table)
    assert "Sale de la espera" in t.text(FIRST + 2)  # 7 vs Toughness 6: Shaken
    assert "de guardia" not in t.text(FIRST + 3) and t.text(FIRST + 4) == "👁️ Nadie está de guardia."
    assert table.room(ROOM_ID).combat.data["overwatch"] == []


def test_issue31_item7_a_shaken_holder_cannot_interrupt() -> None:
    """Issue 31 item 7: a holder the GM leaves Shaken (``!ficha Kira aturdido 1``, «por cualquier causa»)
    is no longer on hold (000: «deja de estar en espera»): she cannot interrupt Orco, nor act from the hold;
    refused privately with why, nothing changes."""
    setup = CAST + "@gm:local: !turnos Kira, Orco, Ana\n@bob:local: !esperar\n@gm:local: !ficha Kira aturdido 1"
    for command in ("!interrumpir Orco", "!actuar"):
        assert_refused(setup, f"@bob:local: {command}", "Kira tiene el estado aturdido: no puede", system="savage")
    t = play(setup + "\n@bob:local: !interrumpir Orco", system="savage")
    assert t.messages(FIRST + 3)[0]["private_to"] == "@bob:local" and "🎲" not in t.text(FIRST + 3)


# Item 10: the turn's bookkeeping.

WOLVES = CAST + "@gm:local: !pnj Lobo x3 grupo lobos Pelear d6, Parada 5, Dureza 4\n"
"""Three Extras sharing a card; seed 39 deals them the joker 🃏1 (Orco Q♦, Kira Q♣, Ana 9♠)."""
W = FIRST + 1
"""The first line after WOLVES."""


def test_issue31_item10_the_joker_of_a_group_of_extras_is_announced_once() -> None:
    """Issue 31 item 10 (the house rules are silent on the messages; 000: «Cada grupo distinto de Extras
    ... comparte una carta de acción»): the group's one card is shown once, its joker said once, in the
    deal; the wolves' turn that follows does not say it again."""
    t = play(WOLVES + "@gm:local: !iniciativa", system="savage", seed=39)
    said = "\n".join(t.texts(W))
    deal = t.texts(W)[0]
    assert deal.startswith("🃏 Cartas de acción: Lobo 1/Lobo 2/Lobo 3 🃏1 ¡comodín! (+2 a rasgo y daño, actúa")
    assert "Orco Q♦, Kira Q♣, Ana 9♠. Quedan 50 cartas." in deal  # 54 cards - 4 dealt: one for the wolves
    assert said.count("comodín") == 1 and said.count("🃏1") == 1, said
    assert t.texts(W)[-1] == "▶️ Lobo 1, Lobo 2 y Lobo 3 (un solo turno para el grupo)"


def test_issue31_item10_the_round_line_names_everyone_who_cannot_act() -> None:
    """Issue 31 item 10, 000: incapacitated characters «No pueden realizar acciones y no reciben cartas de
    acción en combate», and «Los Extras que queden incapacitados son inmediatamente retirados del juego»:
    the deal that opens each round names who gets no card because they cannot act."""
    table = make_table(system="savage", seed=39)
    t = play(WOLVES + "@gm:local: !ficha Kira Heridas 3, Incapacitado 1\n@gm:local: !iniciativa\n"
             "@gm:local: !daño Lobo 2 9\n" + "@gm:local: !siguiente\n" * 3, table)
    first = t.texts(W + 1)[0]
    assert "Kira" not in first.split(".")[0] and first.endswith("No puede actuar: Kira (incapacitado).")
    round_2 = t.texts(W + 5)
    assert round_2[0].endswith("No pueden actuar: Kira (incapacitado); Lobo 2 (fuera de combate).")
    assert round_2[1].startswith("🔔 Ronda 2.")
    # Turns set by hand (no cards): the round's line comes with the same words.
    t = play(CAST + "@gm:local: !ficha Kira Heridas 3, Incapacitado 1\n@gm:local: !turnos Orco, Kira, Ana\n"
             "@gm:local: !siguiente\n@gm:local: !siguiente", system="savage")
    assert t.texts(FIRST + 3)[:2] == ["No puede actuar: Kira (incapacitado).", "🔔 Ronda 2. Orden: Orco → Kira → Ana."]


def test_issue31_item10_a_second_hit_on_the_incapacitated_is_no_shaken_and_no_soak() -> None:
    """Issue 31 item 10 (the house rules are silent on a hit on one already incapacitated; 000: «Los
    personajes Comodín son incapacitados cuando sufren más de tres heridas ... un Comodín jamás tendrá más
    de tres heridas»): the second ``!daño`` says Kira stays incapacitated, not «aturdido», offers no soak
    and changes nothing (no second Vigor roll either)."""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !turnos Orco, Kira, Ana\n@gm:local: !daño Kira 30", table)
    scripted(table, (4, 6), (2, 6))  # declined: Vigor d6 4 - 3 wounds = 1, wild 2 - 3: 1 or less, she would die...
    table.rng = FaceRng([(6, 6), (3, 6), (2, 6)])  # type: ignore[assignment]  # ...so 6!+3 = 9 - 3 = 6: a success
    t = then(table, FIRST + 2, "@bob:local: !absorber no")
    assert "Incapacitación (Vigor)" in "\n".join(t.texts(FIRST + 3)) and table.rng.exhausted()
    before = dict(sheet(table, "Kira"))
    assert before["incapacitado"] == 1 and before["heridas"] == 3 and before["bennies"] == 2
    scripted(table)
    t = then(table, FIRST + 3, "@gm:local: !daño Kira 20\n@gm:local: !estado")
    assert t.text(FIRST + 4) == "💥 Kira: sigue con la incapacitación (20 vs 6)."
    assert "absorción pendiente" not in t.text(FIRST + 5) and sheet(table, "Kira") == before
    assert table.room(ROOM_ID).combat.data["hits"] == {} and table.rng.exhausted()


def test_issue31_item10_action_counts_start_at_zero_in_every_new_fight() -> None:
    """Issue 31 item 10, 001: «Los personajes pueden realizar hasta un máximo de tres acciones durante su
    turno»: the count is the turn's; a new fight's first turn (round 1 again, Kira first again) starts at
    zero, not «ya hizo 1 acción»."""
    t = play(CAST + "@gm:local: !turnos Kira, Orco\n@bob:local: !tiro Pelear\n@gm:local: !combate fin\n"
             "@gm:local: !combate\n@gm:local: !turnos Kira, Orco\n@bob:local: !tiro Pelear\n@bob:local: !tiro Pelear",
             system="savage")
    assert "Pelear d6" in t.text(FIRST + 1) and "Pelear d6" in t.text(FIRST + 5)
    assert "ya hizo 1 acción" in t.text(FIRST + 6), "the second roll of the same turn is still refused"


def test_issue31_item10_dano_del_arma_is_the_weapons_damage() -> None:
    """Issue 31 item 10 (the house rules are silent on sheet names; 000: «Las armas cuerpo a cuerpo causan
    una cantidad de daño igual a Fuerza del atacante más un segundo dado de daño»): ``Daño del arma Fue+d8``
    is the weapon's damage, with or without a separator, and ``!ataque`` rolls it."""
    for said in ("Daño del arma Fue+d8", "Arma Hacha, Daño del arma: Fue+d8", "Daño del arma=Fue+d8"):
        table = make_table(system="savage")
        play(CAST + f"@gm:local: !ficha Kira Fuerza d8, Tipo de arma cuerpo, {said}", table)
        kira = sheet(table, "Kira")
        assert str(kira["arma_dano"]).lower() == "fue+d8" and kira.get("arma") in (None, "Hacha"), (said, kira)
    scripted(table, (6, 6), (1, 6), (1, 6), (5, 8), (3, 8))  # Pelear d6 6!+1 = 7 vs Parry 5; Fue d8 5 + d8 3
    t = then(table, FIRST + 1, "@gm:local: !turnos Kira, Orco\n@bob:local: !ataque Orco")
    assert "Orco: " in t.texts(FIRST + 3)[1] and table.rng.exhausted()
