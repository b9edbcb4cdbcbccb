"""Issue 31, items 17 and 17b for Reino: the victim halves a hit's damage with an Action Point (``!pa
mitad``), a hit's damage not rolled before ``!siguiente`` stays owed (the screen lists it, ``!permite``
lets its attacker roll it later, it never blocks the next attack and is never applied twice), and ``!pa
gastar`` with no use named lists the uses instead of spending a point."""

from __future__ import annotations

from bot.core.api import Pending
from bot.core.table import Table
from tests.games.reino.test_table import sheet
from tests.games.test_pending import pending
from tests.scripted import FaceRng
from tests.transcript import Transcript, make_table, play

ROOM = "!console:local"
CAST = """
@gm:local: !pj Ana @ana:local
@gm:local: !pj Bruno @bob:local
@gm:local: !ficha Ana defensa 15 pr 20 umbral 8 fortaleza 1 pa 2 ataque 4 fuerza 2 arma_dano 1d8
@gm:local: !ficha Bruno defensa 14 pr 15 umbral 9 fortaleza 2 pa 2 ataque 3
@gm:local: !pnj Jefe
@gm:local: !ficha Jefe defensa 12 pr 25 umbral 10 fortaleza 3 pa 1 ataque 5 arma_dano 1d10 secuaz no
@gm:local: !combate
@gm:local: !turnos Jefe, Ana, Bruno
"""
FIRST = 9
"""The line number of the first line after ``CAST``."""


def table_with(*dice: tuple[int, int]) -> Table:
    """A reino table whose dice show exactly ``dice`` ((face, sides), in order, and no more)."""
    table = make_table(system="reino")
    table.rng = FaceRng(dice)  # type: ignore[assignment]
    return table


def said(t: Transcript, line: int) -> str:
    return "\n".join(t.texts(line))


# --- item 17: the victim halves the damage with an Action Point ----------------------------------


def test_item_17_the_victims_player_halves_the_damage_shown() -> None:
    """Issue 31 item 17. 003, Puntos de Acción: «Reducir el daño sufrido por un ataque a la mitad». Jefe's
    d20 15 + Ataque 5 = 20 >= Defensa 15 hits (a critical needs 15 + 10 = 25); 1d10 shows 9 >= Umbral 8:
    Fortaleza d20 14 + 1 = 15 vs CD 10 + 9 = 19 fails. Ana's player then types ``!pa mitad``: 9 // 2 = 4,
    PR 20 -> 16, below the Umbral 8: no save is due any more; PA 2 -> 1. No die is rolled again."""
    table = table_with((15, 20), (9, 10), (14, 20))
    t = play(CAST + "@gm:local: !ataque Ana\n@gm:local: !daño\n@ana:local: !pa mitad\n", table=table)
    assert "PR 20 → 11, sufre una herida grave" in said(t, FIRST + 1)
    answer = said(t, FIRST + 2)
    assert "Ana recibe 4 de daño" in answer and "mitad por un Punto de Acción" in answer, answer
    assert "PR 20 → 16" in answer and "Fortaleza" not in answer, answer
    assert (sheet(table, "Ana")["pr"], sheet(table, "Ana")["pa"]) == (16, 1)
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_item_17_a_wound_save_still_due_reads_the_same_die_against_the_halved_dc() -> None:
    """Issue 31 item 17. 003: «debe realizar una prueba de Fortaleza con una CD de 10 + el daño del ataque».
    The GM gives 16 by hand: Fortaleza d20 17 + 1 = 18 vs CD 26 fails. Halved, 16 // 2 = 8 >= Umbral 8 is
    still a serious wound, now CD 10 + 8 = 18: the same die, 17 + 1 = 18 >= 18, succeeds. PR 20 -> 12."""
    table = table_with((17, 20))
    t = play(CAST + "@gm:local: !daño Ana 16\n@ana:local: !pa mitad\n", table=table)
    assert "vs CD 26" in said(t, FIRST) and "fallada" in said(t, FIRST)
    answer = said(t, FIRST + 1)
    assert "PR 20 → 12" in answer and "vs CD 18: [17] + 1 = 18 → superada" in answer, answer
    assert sheet(table, "Ana")["pr"] == 12 and "estados" not in sheet(table, "Ana")
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_item_17_halving_a_blow_that_dropped_the_victim_stands_it_up_again() -> None:
    """Issue 31 item 17. 003: «Si los Puntos de Resistencia bajan a cero o menos como consecuencia del daño,
    el personaje quedará Inconsciente y Moribundo». 22 on PR 20 drops Ana (20 - 22 = -2). Halved, 11:
    PR 20 -> 9, neither unconscious nor dying; 11 >= Umbral 8: Fortaleza d20 12 + 1 = 13 vs CD 21 fails."""
    table = table_with((12, 20))
    t = play(CAST + "@gm:local: !daño Ana 22\n@ana:local: !pa mitad\n", table=table)
    assert "cae Inconsciente y Moribundo" in said(t, FIRST)
    assert "PR 20 → 9" in said(t, FIRST + 1) and "vs CD 21" in said(t, FIRST + 1)
    assert sheet(table, "Ana")["pr"] == 9 and "estados" not in sheet(table, "Ana")


def test_item_17_the_gm_halves_for_an_npc() -> None:
    """Issue 31 item 17: for an NPC the GM types ``!pa mitad``. Ana's d20 10 + Ataque 4 = 14 >= Defensa 12
    (a critical needs 22); 1d8 5 + FUE 2 = 7 < Umbral 10. Halved: 7 // 2 = 3, PR 25 -> 22, Jefe's PA 1 -> 0;
    the room reads no PR of the GM's character."""
    table = table_with((10, 20), (5, 8))
    t = play(CAST + "@gm:local: !siguiente\n@ana:local: !ataque Jefe\n@ana:local: !daño\n@gm:local: !pa mitad\n",
             table=table)
    assert "Jefe recibe 3 de daño" in said(t, FIRST + 3) and "PR" not in said(t, FIRST + 3)
    assert (sheet(table, "Jefe")["pr"], sheet(table, "Jefe")["pa"]) == (22, 0)


def test_item_17_only_right_after_the_damage_and_only_by_the_victims_side() -> None:
    """Issue 31 item 17: «before any other roll or ``!siguiente``»; another player cannot spend Ana's point;
    a hit already halved (the GM's ``!daño NOMBRE N pa``) is not halved again. Each refusal changes nothing."""
    hit = CAST + "@gm:local: !daño Ana 6\n"
    for between, line, answer in (
        ("@gm:local: !tiro d20\n", "@ana:local: !pa mitad", "!pa mitad va justo después"),
        ("@gm:local: !siguiente\n", "@ana:local: !pa mitad", "!pa mitad va justo después"),
        ("", "@bob:local: !pa mitad", "Solo el máster o el jugador de Ana"),
        ("", "@bob:local: !pa mitad Ana", "Solo el máster o el jugador de Ana"),
        ("", "@gm:local: !pa mitad Bruno", "!pa mitad va justo después"),
    ):
        table = make_table(system="reino")
        t = play(hit + between + line, table=table)
        last = FIRST + (2 if between else 1)
        assert answer in said(t, last), (between, line, said(t, last))
        assert (sheet(table, "Ana")["pr"], sheet(table, "Ana")["pa"]) == (14, 2)
    table = make_table(system="reino")
    t = play(CAST + "@gm:local: !daño Ana 6 pa\n@ana:local: !pa mitad\n", table=table)
    assert "mitad por un Punto de Acción" in said(t, FIRST) and "!pa mitad va justo después" in said(t, FIRST + 1)
    assert (sheet(table, "Ana")["pr"], sheet(table, "Ana")["pa"]) == (17, 1)  # 6 // 2 = 3 once


def test_item_17_the_gms_damage_pa_is_the_same_choice() -> None:
    """Issue 31 item 17: the GM's ``!daño pa`` is the victim's choice made for it. Jefe's d20 15 + 5 = 20
    hits Ana; ``!daño pa``: 1d10 9 // 2 = 4, PR 20 -> 16, PA 2 -> 1, below the Umbral 8: no save."""
    table = table_with((15, 20), (9, 10))
    t = play(CAST + "@gm:local: !ataque Ana\n@gm:local: !daño pa\n", table=table)
    assert "PR 20 → 16" in said(t, FIRST + 1) and "mitad por un Punto de Acción" in said(t, FIRST + 1)
    assert (sheet(table, "Ana")["pr"], sheet(table, "Ana")["pa"]) == (16, 1)


# --- item 17b: damage owed, rolled later with !permite ---------------------------------------------

OWED = CAST + """
@gm:local: !siguiente
@ana:local: !ataque Jefe
@ana:local: !siguiente
"""
"""Ana hits Jefe (d20 10 + 4 = 14 >= 12) and ends her turn without rolling the damage."""


def test_item_17b_damage_not_rolled_stays_owed_and_the_screen_lists_it() -> None:
    """Issue 31 item 17b: «A hit's damage not rolled before ``!siguiente`` stays owed (the screen lists
    it)». On Bruno's turn the GM's screen shows Ana's blow on Jefe as owed, to roll with ``!permite Ana``."""
    assert pending(OWED, table_with((10, 20))) == [Pending("damage_owed", "Ana", "permite Ana", target="Jefe",
                                                           amount=1)]
    assert pending(CAST + "@gm:local: !siguiente\n@ana:local: !ataque Jefe\n", table_with((10, 20))) == \
        [Pending("damage", "Ana", "daño", target="Jefe", amount=1)]


def test_item_17b_its_attacker_rolls_it_later_when_the_gm_allows_once() -> None:
    """Issue 31 item 17b: «its attacker can roll it later when the GM allows (``!permite``)» and «is never
    applied twice». Off her turn Ana's ``!daño`` is refused; after ``!permite Ana`` it rolls 1d8 5 + FUE 2 =
    7 on Jefe (PR 25 -> 18, 7 < Umbral 10); a second ``!daño`` finds nothing owed."""
    table = table_with((10, 20), (5, 8))
    late = OWED + "@ana:local: !daño\n@gm:local: !permite Ana\n@ana:local: !daño\n"
    t = play(late + "@gm:local: !permite Ana\n@ana:local: !daño\n", table=table)
    assert "Es el turno de Bruno" in said(t, FIRST + 3) and t.redacted(FIRST + 3)
    assert "= 7" in said(t, FIRST + 5) and "PR" not in said(t, FIRST + 5)  # the room reads no NPC's PR
    assert sheet(table, "Jefe")["pr"] == 18 and table.rng.exhausted()  # type: ignore[attr-defined]
    assert pending(late, table_with((10, 20), (5, 8))) == []


def test_item_17b_an_owed_blow_never_blocks_the_next_attack() -> None:
    """Issue 31 item 17b: «it never blocks the attacker's next attack». Round 2, Ana's turn: her d20 11 + 4 =
    15 >= 12 hits again; ``!daño`` rolls that new blow (1d8 3 + 2 = 5, PR 25 -> 20); the older one stays owed
    and, on her own turn too, waits for the GM's ``!permite``: then 1d8 6 + 2 = 8, PR 20 -> 12."""
    table = table_with((10, 20), (11, 20), (3, 8), (6, 8))
    t = play(OWED + """
@gm:local: !siguiente
@gm:local: !siguiente
@ana:local: !ataque Jefe
@ana:local: !daño
@ana:local: !daño
@gm:local: !permite Ana
@ana:local: !daño
""", table=table)
    assert "impacta" in said(t, FIRST + 5)
    assert "= 5" in said(t, FIRST + 6) and "quedó pendiente" in said(t, FIRST + 7)
    assert "= 8" in said(t, FIRST + 9) and sheet(table, "Jefe")["pr"] == 12
    assert table.rng.exhausted()  # type: ignore[attr-defined]


def test_item_17b_spending_a_point_without_a_use_lists_the_uses() -> None:
    """Issue 31 item 17b: «``!pa gastar`` with no use named lists the uses 003 gives (``!pa éxito``, ``!pa
    mitad``, ...) and spends nothing». 003's three uses: a failed roll made a success, stabilising, halving
    an attack's damage."""
    table = make_table(system="reino")
    t = play(CAST + "@ana:local: !pa gastar\n@gm:local: !pa gastar Bruno\n", table=table)
    for line in (FIRST, FIRST + 1):
        answer = said(t, line)
        assert "!pa éxito" in answer and "!pa mitad" in answer and "!estabilizar NOMBRE pa" in answer, answer
    assert (sheet(table, "Ana")["pa"], sheet(table, "Bruno")["pa"]) == (2, 2)


def test_item_17_a_victim_who_fell_on_its_own_turn_may_still_halve() -> None:
    """Issue 31 item 17: the turn of a character who falls passes by itself, which would close the halving
    before its player could answer; while it is open the turn waits. On Ana's turn the GM gives her 22 (a
    trap): PR 20 -> -2, she falls; ``!pa mitad``: 11, PR 20 -> 9, she stands; 11 >= Umbral 8: Fortaleza d20
    5 + 1 = 6 vs CD 21 fails."""
    table = table_with((5, 20))
    t = play(CAST + "@gm:local: !siguiente\n@gm:local: !daño Ana 22\n@ana:local: !pa mitad\n", table=table)
    assert "▶️" not in said(t, FIRST + 1), said(t, FIRST + 1)
    assert "PR 20 → 9" in said(t, FIRST + 2) and sheet(table, "Ana")["pr"] == 9
    assert table.room(ROOM).combat.current == "Ana"  # type: ignore[union-attr]


def test_item_17b_one_who_leaves_the_fight_owes_nothing() -> None:
    """Issue 31 item 17b: the screen lists owed damage of those still fighting; ``!sale`` of the attacker
    drops it (nobody is left to roll it)."""
    assert pending(OWED + "@gm:local: !sale Ana\n", table_with((10, 20))) == []
