"""Savage Worlds by the book (issue 21, first half): Extras, the soak at its moment, incapacitation after
the soak, one recovery roll, Nervios de acero, Healing, hold and the joker, soak rerolls, surprise, a
fight with no enemies left and the messages. Each docstring quotes the sentence of ``000``/``001`` it
implements."""

from __future__ import annotations

from bot.console import ROOM_ID
from bot.core.table import Table
from tests.scripted import FaceRng
from tests.transcript import GM, Transcript, make_table, play

BOB = "@bob:local"
CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 parada 6 bennies 3 vigor d8 espiritu d8 atletismo d6 notar d8 sanar d6
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha McAvoy dureza 6 parada 5 bennies 2 vigor d6 espiritu d6 atletismo d8 notar d4
"""
FIRST = 5
"""The first line after CAST."""


def sheet(table: Table, name: str) -> dict:
    return table.room(ROOM_ID).find_character(name).sheet


def roll_of(t: Transcript, number: int) -> dict:
    """The roll object of the first message answering ``number`` that shows one, as the GM sees it."""
    return t.full_rolls(number)[0]


def rolls_of(t: Transcript, number: int) -> list[dict]:
    """Every roll object answering ``number`` (the GM's copy when there is one)."""
    return t.full_rolls(number)


def scripted(table: Table, *faces: tuple[int, int]) -> FaceRng:
    table.rng = FaceRng(faces)  # type: ignore[assignment]
    return table.rng  # type: ignore[return-value]


def then(table: Table, done: int, script: str) -> Transcript:
    """Play ``script`` on ``table`` after ``done`` events: its lines are numbered from ``done + 1``."""
    return play("# earlier\n" * done + script, table)


def reasons(made: dict) -> dict[str, int]:
    return {m["reason"]: m["value"] for m in made["modifiers"]}


# Item 1: Extras are Extras.

def test_npcs_the_gm_creates_are_extras_unless_made_wild_cards() -> None:
    """000: «Cada grupo distinto de Extras bajo el control del DJ ... comparte una carta de acción»; a GM's
    NPC is an Extra (no wild die) unless ``!pnj NOMBRE comodín`` or ``Comodín sí`` makes it a Wild Card."""
    table = make_table(system="savage", seed=3)
    t = play(CAST + """
@gm:local: !pnj Orco
@gm:local: !pnj Capitán comodín
@gm:local: !ficha Orco pelear d6
@gm:local: !ficha Capitán pelear d6
@gm:local: !combate
@gm:local: !turnos Orco, Capitán, Lobo, Brujo
@gm:local: !ficha Brujo comodín sí pelear d6
@gm:local: !tiro Orco Pelear
@gm:local: !tiro Capitán Pelear
@gm:local: !tiro Lobo Pelear
@gm:local: !tiro Brujo Pelear
""", table)
    assert "capitan" in table.room(ROOM_ID).characters and "capitan comodin" not in table.room(ROOM_ID).characters
    assert "Capitán" in t.text(FIRST + 1)
    assert roll_of(t, FIRST + 7)["wild"] is None, "!pnj makes an Extra"
    assert roll_of(t, FIRST + 8)["wild"] is not None, "!pnj NOMBRE comodín makes a Wild Card"
    assert roll_of(t, FIRST + 9)["wild"] is None, "!turnos makes an Extra"
    assert roll_of(t, FIRST + 10)["wild"] is not None, "Comodín sí on the sheet"


def test_a_wounded_extra_is_out_of_the_fight() -> None:
    """000: «Los Extras heridos quedan fuera de juego. Están muertos o incapacitados, ya se determinará,
    pero están fuera de combate.»"""
    table = make_table(system="savage", seed=3)
    t = play(CAST + """
@gm:local: !pnj Orco
@gm:local: !ficha Orco dureza 5
@gm:local: !combate
@gm:local: !turnos Orco, Kira
@gm:local: !daño Orco 9
@gm:local: !estado
""", table)
    assert "Orco: fuera de combate" in t.texts(FIRST + 4)[0]
    assert sheet(table, "Orco").get("fuera") == 1 and sheet(table, "Orco").get("heridas", 0) == 0
    assert "Orco [fuera de combate]" in t.text(FIRST + 5)


def test_the_gm_sets_any_state_with_ficha() -> None:
    """000: «Los personajes incapacitados ... no pueden realizar acciones»: the GM may still put any
    state on a sheet by hand."""
    table = make_table(system="savage")
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Kira, McAvoy
@gm:local: !ficha Kira incapacitado 1 desangrando 1
@gm:local: !ficha McAvoy aturdido 1
@gm:local: !estado
""", table)
    assert (sheet(table, "Kira")["incapacitado"], sheet(table, "Kira")["desangrando"]) == (1, 1)
    assert sheet(table, "McAvoy")["aturdido"] == 1
    board = t.text(FIRST + 4)
    assert "incapacitado" in board and "desangrándose" in board and "aturdido" in board


def test_an_ally_a_player_controls_acts_on_that_players_card() -> None:
    """000: «Los aliados que estén bajo el control de su jugador actuarán en esta misma carta de acción.»"""
    table = make_table(system="savage", seed=4)
    t = play(CAST + """
@gm:local: !pnj Perro grupo Kira
@gm:local: !combate
@gm:local: !iniciativa Kira, Perro, McAvoy
""", table)
    state = table.room(ROOM_ID).combat.data["deck"]["in_play"]
    assert set(state) == {"Kira", "McAvoy"}
    deal = t.texts(FIRST + 2)[0]
    card = state["Kira"]
    assert f"Kira/Perro {card}" in deal  # one card, shown once for both (issue 31 item 10)


# Items 2, 3 and 14: the soak at its moment, incapacitation after it, soak rerolls.

FIGHT = CAST + """
@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !turnos Orco, Kira, McAvoy
"""
F = FIRST + 3
"""The first line after FIGHT (Orco's turn, set by hand: no cards, no dice dealt)."""


def test_a_soak_stays_open_until_its_player_answers() -> None:
    """001: «Después de calcular el daño, pero antes de aplicar las heridas, el personaje puede gastar un
    beni para realizar una tirada de absorción» (issue 30 item 5: it stays open until answered). McAvoy's
    chance outlives the next damage roll (on Kira); the GM's ``!siguiente`` waits for Kira's once."""
    table = make_table(system="savage", seed=5)
    t = play(FIGHT + """
@gm:local: !daño McAvoy 11
@gm:local: !daño Kira 10
@ana:local: !absorber
@gm:local: !siguiente
@bob:local: !absorber
""", table)
    assert "!absorber [no]" in t.text(F) and "!absorber [no]" in t.text(F + 1)
    assert t.text(F + 2).startswith("McAvoy · 🛡️ Absorbe")
    assert "Aún puede absorber: Kira" in t.text(F + 3) and table.room(ROOM_ID).combat.current == "Orco"
    assert t.text(F + 4).startswith("Kira · 🛡️ Absorbe")
    assert (sheet(table, "McAvoy")["bennies"], sheet(table, "Kira")["bennies"]) == (1, 2)


def test_a_soak_out_of_turn_needs_no_grant_and_no_declines_it() -> None:
    """000: «Los personajes pueden gastar un beni para realizar una tirada de absorción»: the victim's
    player soaks on another's turn without !permite; ``!absorber no`` declines and spends nothing."""
    table = make_table(system="savage")
    t = play(FIGHT + "@gm:local: !daño Kira 10\n@bob:local: !absorber no\n@bob:local: !absorber", table)
    assert t.text(F + 1) == "🛡️ Kira no absorbe el daño."
    assert "no tiene heridas que absorber ahora" in t.text(F + 2)
    assert sheet(table, "Kira")["bennies"] == 3 and sheet(table, "Kira")["heridas"] == 1
    scripted(table, (2, 8), (6, 6), (3, 6))  # Vigor d8 2, wild d6 6+3 = 9: a raise, both wounds soaked
    t = then(table, F + 2, "@gm:local: !daño McAvoy 14\n@ana:local: !absorber")
    assert "Absorbe 2 de 2" in t.text(F + 4) and sheet(table, "McAvoy")["heridas"] == 0
    assert sheet(table, "McAvoy")["bennies"] == 1 and "aturdido" not in sheet(table, "McAvoy")


def test_incapacitating_damage_offers_the_soak_and_rolls_vigor_only_when_declined() -> None:
    """000: «el Comodín queda incapacitado, debiendo hacer una tirada de Vigor inmediatamente» and 001:
    «Después de calcular el daño, pero antes de aplicar las heridas, el personaje puede gastar un beni
    para realizar una tirada de absorción»: the Vigor roll waits for the chance to soak."""
    table = make_table(system="savage")
    play(FIGHT + "@gm:local: !ficha Kira heridas 2", table)
    scripted(table, (5, 8), (2, 6))  # the incapacitation Vigor: d8 5, wild 2, heridas -3 -> 2, a failure
    t = then(table, F, "@gm:local: !daño Kira 14\n@bob:local: !absorber no")
    hit = t.text(F + 1)
    assert "Kira: 2 heridas (total 3), incapacitado" in hit and "!absorber [no]" in hit and "Incapacitación" not in hit
    declined, vigor = t.texts(F + 2)
    assert declined == "🛡️ Kira no absorbe el daño." and "Incapacitación (Vigor)" in vigor
    assert reasons(roll_of(t, F + 2))["heridas"] == -3 and roll_of(t, F + 2)["total"] == 2
    assert sheet(table, "Kira")["desangrando"] == 1 and table.rng.exhausted()


def test_a_full_soak_of_incapacitating_damage_never_rolls_vigor() -> None:
    """000: «El éxito en esta tirada reduce la cantidad de heridas sufridas en una, más otra por cada
    aumento obtenido»: soaked, the hero is not incapacitated and rolls no Vigor for it."""
    table = make_table(system="savage")
    play(FIGHT + "@gm:local: !ficha Kira heridas 2", table)
    scripted(table, (8, 8), (4, 8), (1, 6))  # soak: d8 8+4 = 12, -2 wounds = 10: a raise, 2 soaked
    t = then(table, F, "@gm:local: !daño Kira 14\n@bob:local: !absorber\n@gm:local: !siguiente")
    assert "Absorbe 2 de 2" in t.text(F + 2)
    assert not any("Incapacitación" in x for x in t.texts(F + 2) + t.texts(F + 3))
    kira = sheet(table, "Kira")
    assert kira["heridas"] == 2 and "incapacitado" not in kira and table.rng.exhausted()
    assert "Kira" in table.room(ROOM_ID).combat.order


def test_the_next_turn_rolls_the_vigor_a_soak_did_not_prevent() -> None:
    """000: «debiendo hacer una tirada de Vigor inmediatamente»: once the chance to soak has passed (the
    next turn here), the Vigor roll comes, never before."""
    table = make_table(system="savage")
    play(FIGHT + "@gm:local: !ficha Kira heridas 3 bennies 1", table)
    scripted(table, (1, 8), (2, 6),  # soak: 2 - 3 = -1, a failure; no benny left: the chance is over
             (6, 8), (3, 6))  # incapacitation Vigor: 6 - 3 = 3, a failure
    t = then(table, F, "@gm:local: !daño Kira 9\n@bob:local: !absorber\n@gm:local: !siguiente")
    assert "incapacitado" in t.text(F + 1) and not any("Incapacitación" in x for x in t.texts(F + 1))
    soak, vigor = t.texts(F + 2)
    assert "Absorbe 0 de 1" in soak and "Incapacitación (Vigor)" in vigor and table.rng.exhausted()
    assert not any("Incapacitación" in x for x in t.texts(F + 3))


def test_a_second_soak_is_the_reroll_and_a_full_soak_has_none() -> None:
    """000: «Lo que sí podría, sin embargo, es emplear un segundo beni en repetir la tirada de Vigor, como
    en toda tirada de rasgo»; after every wound is soaked there is nothing to reroll and nothing is spent."""
    table = make_table(system="savage")
    play(FIGHT, table)
    scripted(table, (5, 8), (2, 6),  # first soak: 5, a success: 1 of 3
             (8, 8), (4, 8), (1, 6))  # second benny: 12, two raises: 3 of 3, the better counts
    t = then(table, F - 1, "@gm:local: !daño Kira 17\n@bob:local: !absorber\n@bob:local: !absorber\n"
             "@bob:local: !absorber\n@bob:local: !absorber repetir")
    assert "Absorbe 1 de 3" in t.text(F + 1) and "(otro beni: !repetir)" in t.text(F + 1)
    assert "repite la absorción con otro beni" in t.text(F + 2) and "absorbe 3 de 3" in t.text(F + 2)
    assert "ya absorbió todas las heridas" in t.text(F + 3) and "ya absorbió todas las heridas" in t.text(F + 4)
    kira = sheet(table, "Kira")
    assert (kira["bennies"], kira["heridas"], "aturdido" in kira) == (1, 0, False) and table.rng.exhausted()


# Item 7: Nervios de acero everywhere.

def test_nervios_de_acero_lowers_the_wound_penalty_of_every_automatic_roll() -> None:
    """000: «Cada herida que un personaje Comodín reciba impone una penalización acumulativa de -1 ... a
    todas sus tiradas de rasgo»; Nervios de acero ignores one of them (two with the improved edge) in
    every roll the bot makes: the start-of-turn Spirit, the interrupt, the soak, the incapacitation
    Vigor and the bleeding Vigor, as in ``!tiro``."""
    table = make_table(system="savage", seed=7)
    t = play(CAST + """
@gm:local: !ficha Kira heridas 2 nervios_de_acero 1 aturdido 1
@gm:local: !ficha McAvoy heridas 3 nervios_de_acero 2 incapacitado 1 desangrando 1
@gm:local: !combate
@gm:local: !turnos Kira, Orco
@bob:local: !beni recuperar
@bob:local: !esperar
@bob:local: !interrumpir Orco
@gm:local: !daño Kira 10
@bob:local: !absorber
@gm:local: !combate fin
@gm:local: !combate
@gm:local: !iniciativa McAvoy, Orco
@gm:local: !siguiente
""", table)
    assert reasons(roll_of(t, FIRST + 3))["heridas"] == -1, "start-of-turn Spirit"
    assert "Kira · 🎲 1d6 (heridas -1)" in t.texts(FIRST + 6)[0], "interrupt"
    assert reasons(roll_of(t, FIRST + 8))["heridas"] == -1, "soak"
    bleeding = [r for r in rolls_of(t, FIRST + 12) if r["kind"] == "bleeding"]
    assert len(bleeding) == 1 and reasons(bleeding[0])["heridas"] == -1, "bleeding Vigor: 3 wounds, 2 ignored"


def test_nervios_de_acero_lowers_the_incapacitation_vigor_penalty() -> None:
    """000: «el Comodín queda incapacitado, debiendo hacer una tirada de Vigor inmediatamente», with the
    wound penalty Nervios de acero leaves."""
    table = make_table(system="savage", seed=8)
    t = play(FIGHT + "@gm:local: !ficha Kira heridas 2 nervios_de_acero 1 bennies 0\n@gm:local: !daño Kira 13", table)
    vigor = [r for r in rolls_of(t, F + 1) if r["kind"] == "incapacitation"]
    assert len(vigor) == 1 and reasons(vigor[0])["heridas"] == -2


# Item 6: one recovery roll.

def test_a_shaken_character_gets_one_spirit_roll_at_the_start_of_its_turn() -> None:
    """000: «Al comenzar su turno, un personaje aturdido debe intentar recuperarse de este estado
    realizando una tirada de Espíritu»: one roll; a later ``!recuperar`` or ``!tiro Espíritu`` that turn
    is refused and rolls nothing, while «Un personaje puede gastar un beni en cualquier momento para
    eliminar el estado de aturdimiento»."""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !ficha Kira aturdido 1\n@gm:local: !combate", table)
    scripted(table, (2, 8), (3, 6))  # the start-of-turn Spirit: 3, a failure
    t = then(table, FIRST + 1, """@gm:local: !turnos Kira, McAvoy
@bob:local: !recuperar
@bob:local: !tiro Espíritu
@bob:local: !beni recuperar
""")
    assert "sigue con el aturdimiento (este turno solo acciones gratuitas" in t.texts(FIRST + 2)[0]
    assert "ya hizo su tirada de Espíritu este turno" in t.text(FIRST + 3)
    assert "ya hizo su tirada de Espíritu este turno" in t.text(FIRST + 4)
    assert "se le pasa el aturdimiento" in t.text(FIRST + 5) and table.rng.exhausted()
    assert "aturdido" not in sheet(table, "Kira") and sheet(table, "Kira")["bennies"] == 2


def test_without_a_spirit_die_the_one_recovery_roll_is_recuperar() -> None:
    """000: «Al comenzar su turno, un personaje aturdido debe intentar recuperarse»: with no Spirit on
    the sheet, ``!recuperar dN`` is that roll, once."""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !pnj Orco\n@gm:local: !ficha Orco aturdido 1\n@gm:local: !combate\n"
         "@gm:local: !turnos Orco, Kira", table)
    scripted(table, (1, 6))  # an Extra's d6: 1, a failure
    t = then(table, FIRST + 3, "@gm:local: !recuperar Orco d6\n@gm:local: !recuperar Orco d6")
    assert "sigue con el aturdimiento" in t.text(FIRST + 4) and "ya hizo su tirada" in t.text(FIRST + 5)
    assert table.rng.exhausted()


# Item 10: healing stops bleeding.

def test_healing_stabilises_a_bleeding_character_and_only_stops_the_bleeding() -> None:
    """000: «Otros personajes pueden detener un desangramiento realizando sobre el personaje una tirada
    de Sanar. Si tienen éxito, la víctima se estabilizará inmediatamente sin necesidad de que tenga que
    hacer más tiradas. Este uso de Sanar solo detiene el desangramiento.»"""
    table = make_table(system="savage")
    play(CAST + """@gm:local: !ficha McAvoy heridas 3 incapacitado 1 desangrando 1
@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !turnos Kira, Orco, McAvoy
""", table)
    scripted(table, (4, 6), (2, 6))  # Sanar d6 4: a success
    t = then(table, FIRST + 3, """@bob:local: !sanar Kira
@bob:local: !sanar Orco
@bob:local: !sanar McAvoy
@bob:local: !heal McAvoy
""")
    assert "otro personaje" in t.text(FIRST + 4)
    assert "Orco no se está desangrando" in t.text(FIRST + 5)
    healed = t.texts(FIRST + 6)
    assert healed[0].startswith("Kira · Sanar d6 contra McAvoy") and "McAvoy se estabiliza" in healed[-1]
    assert "McAvoy no se está desangrando" in t.text(FIRST + 7) and table.rng.exhausted()
    mcavoy = sheet(table, "McAvoy")
    assert "desangrando" not in mcavoy and mcavoy["incapacitado"] == 1 and mcavoy["heridas"] == 3


def test_a_failed_healing_roll_leaves_the_bleeding() -> None:
    """000: «Si tienen éxito, la víctima se estabilizará»: a failure does not."""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !ficha McAvoy heridas 3 incapacitado 1 desangrando 1\n@gm:local: !combate\n"
         "@gm:local: !turnos Kira, McAvoy", table)
    scripted(table, (2, 6), (3, 6))
    t = then(table, FIRST + 2, "@bob:local: !sanar McAvoy")
    assert "sigue desangrándose" in t.texts(FIRST + 3)[-1] and sheet(table, "McAvoy")["desangrando"] == 1


# Item 11: hold and the joker.

def test_a_held_character_acts_between_turns_with_actuar_and_no_roll() -> None:
    """000: «Un héroe podría esperar a ver qué ocurre durante la ronda realizando la acción de espera y
    actuar en un momento posterior de la ronda de combate si así lo desea.»"""
    table = make_table(system="savage")
    play(FIGHT + "@gm:local: !siguiente", table)  # Orco's turn ends; Kira's starts
    scripted(table)
    t = then(table, F, "@bob:local: !esperar\n@bob:local: !actuar\n@gm:local: !siguiente\n@ana:local: !act")
    assert "queda en espera" in t.texts(F + 1)[0] and t.texts(F + 1)[1].startswith("▶️ McAvoy")
    assert "Kira deja de esperar y actúa ahora" in t.texts(F + 2)[0] and "▶️ Kira" in t.texts(F + 2)[-1]
    assert "▶️ McAvoy" in t.texts(F + 3)[-1]
    assert "McAvoy no está en espera" in t.text(F + 4) and table.rng.exhausted()


def _joker_for_kira() -> tuple[Table, Transcript]:
    for seed in range(1, 400):
        table = make_table(system="savage", seed=seed)
        t = play(CAST + "@gm:local: !pnj Orco\n@gm:local: !combate\n@gm:local: !iniciativa Kira, Orco, McAvoy", table)
        in_play = table.room(ROOM_ID).combat.data["deck"]["in_play"]
        if in_play["Kira"].startswith("🃏") and not in_play["McAvoy"].startswith("🃏"):
            return table, t
    raise AssertionError("no joker for Kira in 400 seeds")


def test_a_joker_holder_interrupts_at_will_and_others_roll_athletics() -> None:
    """000: «Cuando un jugador recibe una carta de comodín, su personaje puede actuar en cualquier
    momento de la ronda de combate que desee, incluso interrumpiendo las acciones de otro personaje.»"""
    table, t = _joker_for_kira()
    assert "Kira 🃏" in t.texts(FIRST + 2)[0] and "¡comodín! (+2 a rasgo y daño, actúa cuando quiera)" in t.texts(FIRST + 2)[0]
    # The deal said it and what it means; the turn that follows does not repeat it (issue 31 item 10).
    assert "🃏 Kira: comodín." not in t.texts(FIRST + 2) and "\n".join(t.texts(FIRST + 2)).count("comodín") == 1
    assert not any("añade «comodin»" in x for x in t.texts(FIRST + 2))
    scripted(table)
    t = then(table, FIRST + 2, "@bob:local: !esperar\n@gm:local: !estado")
    current = table.room(ROOM_ID).combat.current
    t = then(table, FIRST + 4, f"@bob:local: !interrumpir {current}")
    message = t.texts(FIRST + 5)[0]
    assert "comodín" in message and "🎲" not in message and "Kira actúa primero" in message
    assert "▶️ Kira" in t.texts(FIRST + 5)[-1] and table.rng.exhausted()


def test_a_shaken_holder_acts_right_after_and_rolls_spirit_then() -> None:
    """000: «Un personaje en espera que quede aturdido por cualquier causa al final de la acción de otro
    personaje deja de estar en espera y debe actuar inmediatamente tras él», and at that turn «un
    personaje aturdido debe intentar recuperarse de este estado realizando una tirada de Espíritu»."""
    table = make_table(system="savage")
    play(FIGHT + "@gm:local: !siguiente", table)  # Kira's turn
    scripted(table, (6, 8), (1, 6))  # her Spirit roll when she acts: 6, a success
    t = then(table, F, "@bob:local: !esperar\n@gm:local: !daño Kira 5\n@gm:local: !siguiente")
    assert "Sale de la espera" in t.text(F + 2)
    spirit, turn = t.texts(F + 3)
    assert "💫 Espíritu" in spirit and "se recupera" in spirit
    assert turn == "▶️ Kira (@bob:local)" and table.rng.exhausted()


def test_a_surprise_attacker_without_a_card_is_not_told_it_keeps_one() -> None:
    """000: «el bando que inició la lucha no recibe cartas de acción, sino que comienza el combate en
    espera»: holding again, it has no card to keep."""
    table = make_table(system="savage", seed=5)
    t = play(CAST + """@gm:local: !pnj Orco
@gm:local: !combate
@gm:local: !sorpresa Orco / McAvoy
@gm:local: !iniciativa Kira, McAvoy, Orco
@gm:local: !esperar
""", table)
    held = t.texts(FIRST + 4)[0]
    assert "Orco queda en espera" in held and "conserva su carta" not in held


# Item 19: surprise.

def test_the_bot_rolls_notice_for_the_surprised_and_who_succeeds_is_not_surprised() -> None:
    """000: «Las víctimas del ataque por sorpresa deben hacer tiradas de Notar. Quienes logren superarlas
    recibirán carta de acción de la forma normal. Quienes fallen la tirada no recibirán carta de acción
    y no podrán actuar durante la primera ronda del combate.»"""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !pnj Orco\n@gm:local: !combate", table)
    scripted(table, (6, 8), (2, 6),  # Kira, Notar d8: 6, a success
             (1, 4), (2, 6))  # McAvoy, Notar d4: 2, a failure
    t = then(table, FIRST + 1, "@gm:local: !sorpresa Orco / Kira, McAvoy")
    *notices, summary = t.texts(FIRST + 2)
    assert notices[0].startswith("Kira · Notar d8") and notices[1].startswith("McAvoy · Notar d4")
    assert [roll_of(t, FIRST + 2)["outcome"], rolls_of(t, FIRST + 2)[1]["outcome"]] == ["success", "failure"]
    assert "Orco empieza en espera" in summary and "McAvoy no actúa en la primera ronda" in summary
    assert "Kira ve venir el ataque" in summary and table.rng.exhausted()
    surprise = table.room(ROOM_ID).combat.data["surprise"]
    assert surprise == {"on_hold": ["Orco"], "lose_first_round": ["McAvoy"]}


# Item 20: a fight with no enemies left.

def test_the_gm_is_told_when_no_enemy_is_left_standing() -> None:
    """000: «Los Extras heridos quedan fuera de juego ... están fuera de combate»: with the last enemy
    down the GM hears it, with ``!combate fin``; an ally of the players is no enemy."""
    table = make_table(system="savage")
    t = play(CAST + """@gm:local: !pnj Orco
@gm:local: !pnj Lobo
@gm:local: !pnj Perro grupo Kira
@gm:local: !ficha Orco dureza 5
@gm:local: !ficha Lobo dureza 5
@gm:local: !combate
@gm:local: !turnos Kira, Orco, Lobo, Perro, McAvoy
@gm:local: !daño Orco 9
@gm:local: !daño Lobo 9
""", table)
    assert len(t.texts(FIRST + 7)) == 1
    hit, notice = [a for a in t.for_line(FIRST + 8) if a["action"] == "send" and not a.get("gm_copy")]
    assert "Lobo: fuera de combate" in hit["text"] and notice["private_to"] == GM
    assert "No queda ningún enemigo en pie" in notice["text"] and "!combate fin" in notice["text"]


# Item 22: messages.

def test_an_extra_with_no_bennies_is_not_offered_bennies() -> None:
    """000: «Un personaje puede gastar un beni en cualquier momento para eliminar el estado de
    aturdimiento»: only one who has a benny is told so."""
    table = make_table(system="savage")
    play(CAST + "@gm:local: !pnj Orco\n@gm:local: !ficha Orco aturdido 1 pelear d6\n@gm:local: !combate", table)
    scripted(table, (2, 6))
    t = then(table, FIRST + 2, "@gm:local: !turnos Orco, Kira\n@gm:local: !tiro Orco Pelear\n"
             "@gm:local: !recuperar Orco d6")
    turn = t.texts(FIRST + 3)[0]
    assert "💫 Orco, aturdido: !recuperar dN tira Espíritu;" in turn and "beni" not in turn
    assert "tiene el estado aturdido" in t.text(FIRST + 4) and "beni" not in t.text(FIRST + 4)
    assert "sigue con el aturdimiento" in t.text(FIRST + 5) and "beni" not in t.text(FIRST + 5)


def test_the_room_is_not_told_a_gm_wild_card_may_soak() -> None:
    """Issue 19's rule: a GM's sheet's bennies are the GM's; the offer to soak (which says it has one)
    goes only in the GMs' copy."""
    t = play(CAST + "@gm:local: !pnj Capitán comodín\n@gm:local: !ficha Capitán dureza 5 bennies 1\n"
             "@gm:local: !combate\n@gm:local: !turnos Kira, Capitán\n@gm:local: !daño Capitán 10", system="savage")
    assert "Capitán: 1 herida" in t.text(FIRST + 4) and "absorber" not in t.text(FIRST + 4)
    assert "!absorber Capitán" in t.gm_text(FIRST + 4)
    t = play(CAST + "@gm:local: !pnj Capitán comodín\n@gm:local: !ficha Capitán dureza 5 bennies 2 vigor d6\n"
             "@gm:local: !combate\n@gm:local: !turnos Kira, Capitán\n@gm:local: !daño Capitán 14\n"
             "@gm:local: !absorber Capitán\n@gm:local: !siguiente", system="savage", seed=2)
    # The GMs' copy of the soak comes with the turn's end (issue 30).
    assert "beni" not in t.text(FIRST + 5).split("Queda:")[1] and "1 beni" in t.gm_text(FIRST + 6).split("Queda:")[1]


def test_a_holder_keeps_its_card_and_its_hold_into_the_next_round() -> None:
    """000: «La acción de espera dura hasta que se decide dejarlo. Si un personaje en espera conserva su
    carta de acción al comienzo de la ronda, no recibe una nueva.»"""
    table = make_table(system="savage", seed=4)
    t = play(CAST + "@gm:local: !pnj Orco\n@gm:local: !combate\n@gm:local: !iniciativa Kira, McAvoy, Orco", table)
    card = table.room(ROOM_ID).combat.data["deck"]["in_play"]["Kira"]
    order = table.room(ROOM_ID).combat.order
    before, after = order.index("Kira"), len(order) - order.index("Kira") - 1
    t = then(table, FIRST + 2, "@gm:local: !siguiente\n" * before + "@bob:local: !esperar\n" + "@gm:local: !siguiente\n" * after)
    deal = t.texts(FIRST + 3 + before + after)[0]  # the last !siguiente ends round 1
    assert deal.startswith("🃏 Cartas de acción") and f"Kira {card} (en espera)" in deal
    assert table.room(ROOM_ID).combat.data["deck"]["in_play"]["Kira"] == card
