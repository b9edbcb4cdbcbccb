"""Savage Worlds, issue 31 ("By the book, third pass"), the firing items 2, 3, 4 and 8: each test quotes
the house rule it implements."""

from __future__ import annotations

import pytest

from bot.console import ROOM_ID
from tests.games.savage.test_sheets import roll
from tests.scripted import FaceRng
from tests.transcript import Transcript, assert_refused, make_table, play, script_lines

CAST = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Pelear d8, Fuerza d6, Disparar d8, Dureza 6, Bennies 3
@gm:local: !pnj Orco x3 Pelear d8, Parada 6, Dureza 5
@gm:local: !pnj Voss comodín
@gm:local: !ficha Voss Vigor d6, Parada 5, Dureza 5, Bennies 1
@gm:local: !combate
@gm:local: !turnos Kira, Voss, Orco 1, Orco 2, Orco 3
"""
FIRST = 8
"""The first line after CAST: Kira's turn (order set by hand, no cards)."""


class Fight:
    """The cast and ``setup`` played on a seeded table; ``next`` plays more lines and numbers them."""

    def __init__(self, setup: str = "") -> None:
        self.table = make_table(system="savage", seed=1)
        self.done = script_lines(CAST + setup)
        play(CAST + setup, self.table)

    def next(self, script: str) -> tuple[Transcript, int]:
        """Play ``script``; its transcript and the number of its first line."""
        first = self.done + 1
        t = play("# earlier\n" * self.done + script, self.table)
        self.done += script_lines(script)
        return t, first

    def dice(self, *rolled: tuple[int, int]) -> FaceRng:
        """The table's next dice, (face, sides) in the order the engine rolls them."""
        rng = FaceRng(rolled)
        self.table.rng = rng  # type: ignore[assignment]
        return rng

    def sheet(self, name: str) -> dict:
        return self.table.room(ROOM_ID).find_character(name).sheet


def damage_rolls(t: Transcript, number: int) -> list[dict]:
    return [r for r in t.full_rolls(number) if r["kind"] == "damage"]


# Item 2: a burst's hits go to the declared targets in order, by the shooter's one ``!daño``.

SUBFUSIL = "@gm:local: !ficha Kira Arma Subfusil, Tipo de arma distancia, Munición 30\n"
"""A weapon with no ``Daño`` on the sheet: the burst's damage is the shooter's ``!daño``."""


def _three_hits(fight: Fight, targets: str) -> None:
    """Kira's burst: three d8 of 7 (−2 recoil: 5 vs 4, three hits, no raise) and a wild die of 1."""
    fight.dice((7, 8), (7, 8), (7, 8), (1, 6))
    t, line = fight.next(f"@bob:local: !tiro rof 3 Disparar objetivos {targets}")
    burst = t.full_rolls(line)[0]
    assert (burst["hits"], [s["total"] for s in burst["shots"]]) == (3, [5, 5, 5])


@pytest.mark.parametrize("said", ["!daño 2d6", "!daño Orco 1 2d6"])
def test_issue_31_item_2_the_shooters_one_damage_applies_every_hit_in_the_declared_order(said: str) -> None:
    """issue 31 item 2; 000: «aquí dirás "orden de exterminio" y los impactos de la cadencia irán en orden a
    los enemigos que hayas declarado y, en cuanto uno muera o caiga, seguirán con el siguiente». Shaken is
    not fallen: the second hit goes to the same Orco, the third to the next one once it is out."""
    fight = Fight(SUBFUSIL)
    _three_hits(fight, "Orco 1, Orco 2")
    rng = fight.dice((3, 6), (3, 6), (5, 6), (4, 6), (2, 6), (1, 6))
    t, line = fight.next(f"@bob:local: {said}")
    first, second, third = damage_rolls(t, line)
    assert (first["total"], first["shaken"], first["wounds"]) == (6, True, 0), "6 vs 5: Shaken, still up"
    assert (second["total"], second["wounds"]) == (9, 1), "9 vs 5: a raise, a wound: the Extra is out"
    assert third["total"] == 3 and third["shaken"] is False, "the third hit goes on to Orco 2: 3 vs 5"
    assert fight.sheet("Orco 1").get("fuera") and not fight.sheet("Orco 2").get("aturdido")
    assert rng.exhausted(), "three damage rolls, no more"
    t, line = fight.next("@bob:local: !daño Orco 2 2d6")
    assert "⛔" in t.text(line), "the burst's damage is rolled once"


def test_issue_31_item_2_a_bursts_damage_with_a_typed_raise_is_refused_and_stays_owed() -> None:
    """issue 31 item 2; 000: «Cuando un ataque impacta con uno o más aumentos, añade al daño total causado por
    ese ataque +1d6»: each hit of the burst brings its own raise die, so a typed «aumento» is refused."""
    fight = Fight(SUBFUSIL)
    _three_hits(fight, "Orco 1, Orco 2")
    t, line = fight.next("@bob:local: !daño 2d6 aumento")
    assert "sin «aumento»" in t.text(line) and not damage_rolls(t, line)
    fight.dice(*[(1, 6)] * 6)
    t, line = fight.next("@bob:local: !daño 2d6")
    assert len(damage_rolls(t, line)) == 3


def test_issue_31_item_2_a_wild_cards_soak_pauses_the_burst_until_answered() -> None:
    """issue 31 item 2; 000: «Resuelve cada tirada de daño por separado, apuntando sus efectos por completo,
    antes de pasar a la siguiente (incluyendo las tiradas de absorción gastando benis)»."""
    fight = Fight(SUBFUSIL)
    _three_hits(fight, "Voss, Orco 1")
    fight.dice((5, 6), (4, 6))
    t, line = fight.next("@bob:local: !daño 2d6")
    (hit,) = damage_rolls(t, line)
    assert (hit["total"], hit["wounds"]) == (9, 1), "9 vs 5: one wound, Voss may soak it"
    rng = fight.dice((1, 6), (2, 6), (2, 6), (2, 6))
    t, line = fight.next("@gm:local: !absorber Voss no")
    second, third = damage_rolls(t, line)
    assert second["total"] == 3 and third["total"] == 4, "the rest of the burst goes on, still at Voss"
    assert rng.exhausted()


def test_issue_31_item_2_the_gm_need_not_type_the_hits_of_an_npcs_burst() -> None:
    """issue 31 item 2: the GM's one ``!daño`` for the acting NPC's burst rolls every hit (000: «los
    impactos de la cadencia irán en orden a los enemigos que hayas declarado»)."""
    fight = Fight("@gm:local: !ficha Orco 1 Disparar d8\n@gm:local: !ficha Kira Dureza 5, Bennies 0\n"
                  "@gm:local: !siguiente\n@gm:local: !siguiente\n")
    fight.dice((7, 8), (7, 8))
    t, line = fight.next("@gm:local: !tiro Orco 1 rof 2 Disparar objetivos Kira, Orco 2")
    assert t.full_rolls(line)[0]["hits"] == 2
    rng = fight.dice((1, 6), (1, 6), (2, 6), (1, 6))
    t, line = fight.next("@gm:local: !daño 2d6")
    assert [r["dice"] for r in damage_rolls(t, line)] == [[1, 1], [2, 1]] and rng.exhausted()
    assert t.texts(line) == ["💥 Kira: sin efecto ([1, 1] vs 5).", "💥 Kira: sin efecto ([2, 1] vs 5)."], "both at Kira"


# Item 3: a benny never buys new damage.

SWORD = "@gm:local: !ficha Kira Arma Espada, Tipo de arma cuerpo, Daño fue+d6\n@gm:local: !ficha Orco 1 Dureza 7\n"
"""Kira's damage is d6 (Fuerza) + d6; the Orco's Toughness 7."""


def _attack_then_reroll(attack: list[tuple[int, int]], reroll: list[tuple[int, int]]) -> tuple[Fight, Transcript, int]:
    fight = Fight(SWORD)
    fight.dice(*attack)
    fight.next("@bob:local: !ataque Orco 1")
    fight.dice(*reroll)
    t, line = fight.next("@bob:local: !repetir")
    return fight, t, line


def test_issue_31_item_3_a_hit_that_stays_a_hit_keeps_the_damage_already_rolled() -> None:
    """issue 31 item 3; 000: the damage roll «no se trata de una tirada de rasgo. Los personajes Comodín no
    añaden ningún dado salvaje a esta tirada, ni se puede gastar benis para influir en el resultado»."""
    attack = [(6, 8), (1, 6), (3, 6), (2, 6)]  # 6 vs Parada 6: a hit; damage 3 + 2 = 5 vs 7, no effect
    fight, t, line = _attack_then_reroll(attack, [(7, 8), (2, 6)])  # 7: a better hit, still no raise
    (again,) = t.full_rolls(line)
    assert (again["total"], again["outcome"]) == (7, "success") and not damage_rolls(t, line)
    assert not fight.sheet("Orco 1").get("aturdido"), "the damage stays the 5 already rolled"
    assert fight.table.rng.exhausted()  # type: ignore[attr-defined]


def test_issue_31_item_3_a_new_raise_adds_only_the_raise_die() -> None:
    """issue 31 item 3; 000: «Cuando un personaje obtiene un aumento en una tirada de ataque ... añade +1d6
    al daño total causado» and «ni se puede gastar benis para influir en el resultado»: the weapon's dice
    stay the ones rolled (3 and 2), the raise adds its d6 (4): 9 vs 7, Shaken."""
    attack = [(6, 8), (1, 6), (3, 6), (2, 6)]
    fight, t, line = _attack_then_reroll(attack, [(8, 8), (2, 8), (1, 6), (4, 6)])  # 8+2 = 10: a raise
    again, damage = t.full_rolls(line)
    assert (again["total"], again["outcome"]) == (10, "raise")
    assert (damage["dice"], damage["total"], damage["shaken"]) == ([3, 2, 4], 9, True)
    assert fight.sheet("Orco 1").get("aturdido") and fight.table.rng.exhausted()  # type: ignore[attr-defined]


def test_issue_31_item_3_a_miss_turned_hit_rolls_its_damage() -> None:
    """issue 31 item 3 (held before: kept as a guard); 000: «Tras una tirada exitosa cuerpo a cuerpo o a
    distancia, el atacante debe determinar el daño ocasionado»."""
    attack = [(2, 8), (3, 6)]  # 3 vs Parada 6: a miss, no damage
    fight, t, line = _attack_then_reroll(attack, [(6, 8), (1, 6), (5, 6), (3, 6)])  # 6: a hit, 5 + 3 = 8 vs 7
    again, damage = t.full_rolls(line)
    assert again["outcome"] == "success" and (damage["total"], damage["shaken"]) == (8, True)
    assert fight.table.rng.exhausted()  # type: ignore[attr-defined]


def test_issue_31_item_3_a_shot_of_tiro_turned_hit_by_a_benny_may_roll_its_damage() -> None:
    """issue 31 item 3: ``!tiro Pelear contra Orco 1`` that missed and hit on ``!repetir`` lets its player
    roll the damage (000: «Tras una tirada exitosa ... el atacante debe determinar el daño ocasionado»)."""
    fight = Fight(SWORD)
    fight.dice((2, 8), (3, 6))
    fight.next("@bob:local: !tiro Pelear contra Orco 1")
    fight.dice((6, 8), (1, 6), (5, 6), (3, 6))
    t, line = fight.next("@bob:local: !repetir\n@bob:local: !daño Orco 1 d6+d6")
    (damage,) = damage_rolls(t, line + 1)
    assert damage["total"] == 8 and fight.sheet("Orco 1").get("aturdido")


@pytest.mark.parametrize("weapon", ["", "Daño 2d6"])
def test_issue_31_item_3_a_burst_rerolled_rolls_only_its_new_hits(weapon: str) -> None:
    """issue 31 items 2 and 3; 000: the damage roll is no trait roll, «ni se puede gastar benis para influir
    en el resultado»: a burst of one hit rerolled to three rolls the damage of the two new hits only (with
    ``Daño`` on the sheet at once; without, the shooter's ``!daño`` rolls the three it now owes)."""
    fight = Fight(SUBFUSIL + (f"@gm:local: !ficha Kira {weapon}\n" if weapon else ""))
    fight.dice((7, 8), (2, 8), (2, 8), (1, 6), *([(1, 6), (1, 6)] if weapon else []))  # 5, 0, 0: one hit
    t, line = fight.next("@bob:local: !tiro rof 3 Disparar objetivos Orco 1, Orco 2")
    assert t.full_rolls(line)[0]["hits"] == 1 and len(damage_rolls(t, line)) == (1 if weapon else 0)
    fight.dice((7, 8), (7, 8), (7, 8), (1, 6), *([(1, 6)] * 4 if weapon else []))  # three hits
    t, line = fight.next("@bob:local: !repetir")
    assert t.full_rolls(line)[0]["hits"] == 3 and len(damage_rolls(t, line)) == (2 if weapon else 0)
    if not weapon:
        fight.dice(*[(1, 6)] * 6)
        t, line = fight.next("@bob:local: !daño 2d6")
        assert len(damage_rolls(t, line)) == 3
    assert fight.table.rng.exhausted()  # type: ignore[attr-defined]


# Item 4: modifiers in words.

@pytest.mark.parametrize(("said", "reason", "value"), [
    ("a media distancia", "distancia", -2), ("media distancia", "distancia", -2), ("distancia media", "distancia", -2),
    ("a larga distancia", "distancia", -4), ("larga distancia", "distancia", -4), ("distancia larga", "distancia", -4),
    ("penumbra", "luz", -1), ("oscuridad", "luz", -2), ("a oscuras", "luz", -2), ("oscuridad total", "luz", -4),
    ("cuerpo a tierra", "cuerpo_a_tierra", -2), ("apuntado: cabeza", "apuntado", -4), ("a la cabeza", "apuntado", -4),
])
def test_issue_31_item_4_modifiers_said_in_words(said: str, reason: str, value: int) -> None:
    """issue 31 item 4; 000: «Los disparos a distancia media restan 2 de la tirada de ataque y los disparos a
    distancia larga 4», «Penumbra ... reducen en 1», «Oscuridad ... una penalización de -2», «Oscuridad
    total ... podría atacarle a -4», «Normalmente esta misma penalización se aplica también cuando se ataca
    a oponentes cuerpo a tierra» (cobertura media, −2), and a called shot to the head (001, −4)."""
    t = play(CAST + f"@bob:local: !tiro Disparar vs 4 {said}", system="savage")
    shown = roll(t, FIRST)["roll"]
    assert {"reason": reason, "value": value} in shown["modifiers"] and not shown["comment"], shown


@pytest.mark.parametrize("said", ["acciones 2", "2 acciones", "dos acciones"])
def test_issue_31_item_4_two_actions_said_in_words(said: str) -> None:
    """issue 31 item 4; 000: «realizar dos acciones normales impone una penalización de -2 a ambas»."""
    t = play(CAST + f"@bob:local: !tiro Disparar vs 4 {said}\n@bob:local: !tiro Pelear contra Orco 1",
             system="savage")
    shown = roll(t, FIRST)["roll"]
    assert {"reason": "multi", "value": -2} in shown["modifiers"] and not shown["comment"], shown
    assert "multiacción -2" in t.texts(FIRST + 1)[0], "the second declared action, at −2 too"


def test_issue_31_item_4_an_unknown_modifier_word_is_answered_with_a_hint() -> None:
    """issue 31 item 4: the house rules price no «moviendo» (000's Pen.Mov is the weapon's, −2 when it has
    it): a word that looks like a modifier is never silently a comment; in parentheses it is one."""
    assert_refused(CAST, "@bob:local: !tiro Disparar vs 4 moviendo", "(moviendo)", system="savage")
    assert_refused(CAST, "@bob:local: !ataque Orco 1 tumbado", "cuerpo a tierra", system="savage")
    t = play(CAST + "@bob:local: !tiro Disparar vs 4 (moviendo)", system="savage")
    assert roll(t, FIRST)["roll"]["comment"] == "moviendo"


# Item 8: the overwatch's reaction is one single shot.

GUARD = """
@gm:local: !ficha Kira Arma Subfusil, Tipo de arma distancia, Daño 2d6, Munición 30
@bob:local: !guardia
@gm:local: !guardia fuego
"""


def test_issue_31_item_8_a_reaction_shot_from_overwatch_is_one_single_shot() -> None:
    """issue 31 item 8; 000: «Acción de Guardia: Ponerte en Espera para Disparar ... El master hará ese
    disparo de reacción. Y sólo puede ser un único disparo, sin ráfaga»."""
    for burst in ("!tiro Kira rof 3 Disparar objetivos Orco 1", "!ataque Kira Orco 1 rof 3"):
        assert_refused(CAST + GUARD, f"@gm:local: {burst}", "sin ráfaga", system="savage")
    fight = Fight(GUARD)
    t, line = fight.next("@gm:local: !ataque Kira Orco 1")
    assert t.full_rolls(line)[0]["kind"] == "trait"
    assert fight.sheet("Kira")["municion"] == 29, "one bullet"
    assert_refused(CAST + GUARD + "@gm:local: !ataque Kira Orco 1", "@gm:local: !ataque Kira Orco 2", "único disparo",
                   system="savage")
