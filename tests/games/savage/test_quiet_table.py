"""Issue 30 for Savage Worlds: a quiet table (short attack results, one burst message, the joker and
Shaken explained once a fight) and no traps for the GM (the soak stays open until answered, bennies
by the book). Each docstring quotes the sentence of ``000``/``001`` it implements where one applies."""

from __future__ import annotations

import textwrap

from bot.console import ROOM_ID
from bot.core.table import Table
from tests.scripted import FaceRng
from tests.transcript import Transcript, make_table, play

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Espíritu d6, Fuerza d6, Vigor d8, Disparar d8, Pelear d6, Parada 5, Dureza 6, Bennies 3
@gm:local: !ficha Kira Arma Rifle, Tipo de arma distancia, Daño 2d8
@gm:local: !pnj Voss comodín
@gm:local: !ficha Voss Pelear d10, Fuerza d8, Vigor d8, Espíritu d6, Parada 7, Dureza 7, Bennies 0
@gm:local: !ficha Voss Arma Hacha, Tipo de arma cuerpo, Daño fue+d8
@gm:local: !pnj Orco x2 grupo orcos
@gm:local: !ficha Orco 1 Pelear d8, Fuerza d8, Parada 6, Dureza 7
@gm:local: !ficha Orco 2 Pelear d8, Fuerza d8, Parada 6, Dureza 7
@gm:local: !combate
@gm:local: !turnos Kira, Voss, Orco 1, Orco 2
"""
FIRST = 12
"""The first line after CAST (Kira's turn, order set by hand: no cards)."""


def sheet(table: Table, name: str) -> dict:
    return table.room(ROOM_ID).find_character(name).sheet


def then(table: Table, done: int, script: str) -> Transcript:
    """Play ``script`` on ``table`` after ``done`` events: its lines are numbered from ``done + 1``."""
    return play("# earlier\n" * done + script, table)


def phone_lines(text: str) -> int:
    return sum(len(textwrap.wrap(line, 38)) or 1 for line in text.split("\n"))


def current(table: Table) -> str | None:
    return table.room(ROOM_ID).combat.current


def fight(seed: int = 1) -> Table:
    table = make_table(system="savage", seed=seed)
    play(CAST, table)
    return table


# Item 5: the soak stays open until it is answered.

def test_another_damage_roll_leaves_an_incapacitated_wild_cards_soak_open() -> None:
    """001: «Después de calcular el daño, pero antes de aplicar las heridas, el personaje puede gastar un
    beni para realizar una tirada de absorción»: the GM's next damage roll in the same group turn (on
    someone else) neither closes Kira's chance nor rolls her Incapacitation; she soaks afterwards."""
    table = fight()
    play(CAST + "@gm:local: !ficha Kira Heridas 3\n@gm:local: !siguiente\n@gm:local: !siguiente", table)
    t = then(table, FIRST + 2, "@gm:local: !daño Kira 10\n@gm:local: !daño Voss 20\n@gm:local: !estado")
    assert "!absorber [no]" in t.text(FIRST + 3)
    assert not any("Incapacitación" in x for x in t.texts(FIRST + 4))
    assert "absorción pendiente" in t.text(FIRST + 5)
    table.rng = FaceRng([(7, 8), (2, 6)])  # soak: Vigor 7, -3 wounds: 4, a success
    t = then(table, FIRST + 5, "@bob:local: !absorber")
    assert "Absorbe 1 de 1" in t.text(FIRST + 6) and "incapacitado" not in sheet(table, "Kira")


def test_a_new_damage_on_a_victim_whose_soak_is_open_is_refused() -> None:
    """000: «Resuelve cada tirada de daño por separado, apuntando sus efectos por completo, antes de pasar a
    la siguiente (incluyendo las tiradas de absorción gastando benis)»: nothing is rolled or spent."""
    table = fight()
    play(CAST + "@gm:local: !siguiente", table)
    t = then(table, FIRST + 1, "@gm:local: !daño Kira 10\n@gm:local: !daño Kira 12\n@gm:local: !ataque Voss contra Kira")
    assert "!absorber [no]" in t.text(FIRST + 2)
    assert "aún puede absorber" in t.text(FIRST + 3) and "aún puede absorber" in t.text(FIRST + 4)
    assert sheet(table, "Kira")["heridas"] == 1


def test_next_is_refused_once_naming_who_may_soak_and_the_second_closes_it() -> None:
    """A ``!siguiente`` while a soak is open is refused once with who may still soak; a second one closes
    it (declined: the Incapacitation Vigor comes then) and the turn moves on."""
    table = fight()
    play(CAST + "@gm:local: !ficha Kira Heridas 3\n@gm:local: !siguiente", table)
    t = then(table, FIRST + 2, "@gm:local: !daño Kira 10\n@gm:local: !siguiente")
    refused = t.text(FIRST + 4)
    assert "Kira" in refused and "!absorber Kira" in refused and current(table) == "Voss"
    t = then(table, FIRST + 4, "@gm:local: !siguiente")
    closed = "\n".join(t.texts(FIRST + 5))
    assert "no absorbe" in closed and "Incapacitación (Vigor)" in closed and current(table) == "Orco 1"


def test_damage_on_the_victims_own_turn_keeps_the_turn_until_the_soak_is_answered() -> None:
    """Kira, incapacitated on her own turn, may still soak: the turn does not pass by itself and no Vigor
    is rolled until she answers; her answer passes it."""
    table = fight()
    play(CAST + "@gm:local: !ficha Kira Heridas 3", table)
    t = then(table, FIRST + 1, "@gm:local: !daño Kira 10\n@gm:local: !estado")
    assert current(table) == "Kira" and not any("Incapacitación" in x for x in t.texts(FIRST + 2))
    assert "absorción pendiente" in t.text(FIRST + 3)
    t = then(table, FIRST + 3, "@bob:local: !absorber no")
    answer = "\n".join(t.texts(FIRST + 4))
    assert "Incapacitación (Vigor)" in answer and current(table) == "Voss"


# Item 5: bennies by the published rule (the house rules are silent).

def test_a_players_new_wild_card_starts_with_three_bennies_and_an_npc_with_none() -> None:
    """A player's new Wild Card has 3 bennies; an NPC the GM creates has none of its own."""
    table = make_table(system="savage")
    t = play("@gm:local: !pj Kira @bob:local\n@gm:local: !pnj Voss comodín\n@bob:local: !beni", table)
    assert sheet(table, "Kira")["bennies"] == 3 and "Kira tiene 3 benis" in t.text(3)
    assert sheet(table, "Voss").get("bennies", 0) == 0


def test_a_stored_character_keeps_its_count() -> None:
    """Characters stored before keep their bennies: only a new character is given its 3."""
    table = fight()
    play(CAST + "@gm:local: !beni Kira -2\n@gm:local: !pj Kira @bob:local", table)
    assert sheet(table, "Kira")["bennies"] == 1


def test_a_new_session_sets_bennies_back_and_fills_the_gms_pool_without_the_acta() -> None:
    """``!sesion nueva`` (with or without the acta recording) sets every player's Wild Card back to 3
    and the GM's pool to one benny per player character; ``!beni master`` shows it."""
    table = fight()
    play(CAST + "@gm:local: !pj Bruno @cid:local\n@gm:local: !beni Kira -3", table)
    t = then(table, FIRST + 1, "@gm:local: !sesion nueva\n@gm:local: !beni master")
    assert sheet(table, "Kira")["bennies"] == 3 and sheet(table, "Bruno")["bennies"] == 3
    assert sheet(table, "Voss")["bennies"] == 0
    assert "Kira, Bruno vuelven a 3 benis" in t.text(FIRST + 2) and "el máster tiene 2 benis" in t.text(FIRST + 2)
    assert "El máster tiene 2 benis" in t.text(FIRST + 3)
    t = then(table, FIRST + 3, "@gm:local: !acta activar\n@gm:local: !beni Kira -1\n@gm:local: !sesion nueva")
    assert "Empieza la sesión" in "\n".join(t.texts(FIRST + 6)) and sheet(table, "Kira")["bennies"] == 3


def test_an_npc_wild_card_with_no_bennies_left_soaks_from_the_gms_pool() -> None:
    """The GM's pool pays for NPC Wild Cards that have none left."""
    table = fight(seed=2)
    play(CAST + "@gm:local: !sesion nueva", table)
    t = then(table, FIRST + 1, "@gm:local: !daño Voss 12\n@gm:local: !absorber Voss\n@gm:local: !beni master")
    assert "!absorber Voss" in t.gm_text(FIRST + 2)
    assert "🛡️ Absorbe 1 de 1" in "\n".join(t.texts(FIRST + 3, gm_copies=True))
    assert "El máster tiene 0 benis" in t.text(FIRST + 4) and sheet(table, "Voss")["bennies"] == 0


def test_spending_a_benny_while_shaken_ends_shaken() -> None:
    """000: «Un personaje puede gastar un beni en cualquier momento para eliminar el estado de aturdimiento»:
    ``!beni gastar`` while Shaken, with no soak open for that character, ends Shaken."""
    table = fight()
    t = play(CAST + "@gm:local: !daño Kira 6\n@bob:local: !beni gastar", table)
    assert "aturdido" not in sheet(table, "Kira") and sheet(table, "Kira")["bennies"] == 2
    assert "se le pasa el aturdimiento" in t.text(FIRST + 1)


# Item 1: the common result of an attack in three phone lines; explanations once a fight.

def test_an_attack_its_damage_and_the_open_soak_fit_three_phone_lines() -> None:
    """Actor, target, dice, outcome and effect (wounds, Shaken, the soak now open) in three 38-column
    lines once the event's messages are one."""
    table = fight(seed=3)
    t = then(table, FIRST - 1, "@bob:local: !ataque Voss\n@gm:local: !siguiente\n@gm:local: !ataque Voss contra Kira")
    merged = "\n".join(t.texts(FIRST + 2))
    assert "Voss" in merged and "Kira: 2 heridas" in merged and "aturdido" in merged and "!absorber" in merged
    assert phone_lines(merged) <= 3, merged
    assert phone_lines("\n".join(t.texts(FIRST))) <= 3


def whole_fight() -> list[str]:
    from tests.games.savage.test_whole_fight import CAST as WHOLE
    from tests.games.savage.test_whole_fight import FIGHT as WHOLE_FIGHT
    from tests.games.savage.test_whole_fight import answered

    t = play(answered(WHOLE + WHOLE_FIGHT), make_table(system="savage", seed=7))
    return [a["text"] for a in t.actions if a["action"] == "send" and not a.get("gm_copy")]


def test_the_jokers_bonus_and_what_shaken_means_are_said_once_a_fight() -> None:
    """000: a joker «añade +2 a todas las tiradas de rasgo y daño» and its holder «puede actuar en
    cualquier momento»; Shaken: «solo podrá hacer acciones gratuitas». Two jokers and several Shaken
    characters in one fight: each explanation once."""
    texts = whole_fight()
    assert sum(x.count("+2 a") for x in texts) == 1, [x for x in texts if "+2 a" in x]
    assert sum(x.count("acciones gratuitas") for x in texts) == 1, [x for x in texts if "acciones gratuitas" in x]
    assert sum("comodín" in x for x in texts) >= 2


# Item 1: a burst is one message, and its damage waits for a soak it opens.

def test_a_burst_stops_at_the_first_hit_that_opens_a_soak_and_goes_on_once_answered() -> None:
    """000: «los impactos de la cadencia irán en orden a los enemigos que hayas declarado» and «Resuelve
    cada tirada de daño por separado ... (incluyendo las tiradas de absorción gastando benis)»."""
    for seed in range(1, 60):
        table = make_table(system="savage", seed=seed)
        play(CAST + "@gm:local: !ficha Voss Disparar d10, Arma Subfusil, Tipo de arma distancia, Daño 2d6\n"
             "@gm:local: !ficha Kira Dureza 2\n@gm:local: !siguiente", table)
        t = then(table, FIRST + 2, "@gm:local: !tiro Voss rof 3 Disparar objetivos Kira x3")
        burst = [a for a in t.for_line(FIRST + 3) if a["action"] == "send" and not a.get("gm_copy")]
        hits = next(a["roll"]["hits"] for a in burst if "roll" in a)
        if hits >= 2:
            break
    else:
        raise AssertionError("no burst of two hits in 60 seeds")
    texts = t.texts(FIRST + 3)   # the burst's one room message (issue 30), as the parts it joins
    assert len(burst) == 1 and "🔫" in texts[0] and sum(x.startswith("💥 Kira") for x in texts) == 1
    assert all(phone_lines(x) <= 2 for x in texts[1:]), texts
    assert sheet(table, "Kira")["heridas"] >= 1
    t = then(table, FIRST + 3, "@bob:local: !absorber no")
    assert sum(x.startswith("💥 Kira") for x in t.texts(FIRST + 4)) == 1, t.texts(FIRST + 4)


# Item 6: a group of Extras with their stat block in one line.

def test_npc_copies_in_a_group_get_the_stat_block() -> None:
    """000: «Cada grupo distinto de Extras bajo el control del DJ ... comparte una carta de acción»: the
    copies share the group and every one gets the sheet; the stat block never becomes the group's name."""
    table = make_table(system="savage")
    play("@gm:local: !pnj Orco x3 grupo orcos Pelear d8, Parada 6, Dureza 7", table)
    for name in ("Orco 1", "Orco 2", "Orco 3"):
        got = sheet(table, name)
        assert (got["grupo"], got["pelear"], got["parada"], got["dureza"]) == ("orcos", "d8", 6, 7)


def test_a_players_sheet_of_a_free_name_is_a_new_wild_card_with_three_bennies() -> None:
    """A player's ``!ficha`` of a free name makes their new character, as ``!pj`` does: 3 bennies."""
    table = make_table(system="savage")
    play("@bob:local: !ficha Kira Agilidad d8, Pelear d6", table)
    assert sheet(table, "Kira")["bennies"] == 3
