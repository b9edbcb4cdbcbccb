"""Sistema Sombra at the table, by the book (issue 22 items 17-21): weapon skills, rate of fire,
opposed melee with the defender's declared dodge or parry, one useless arm, one stun duration."""

from __future__ import annotations

import pytest

from tests.games.sombra.test_table import CAST, sheet, sombra_table
from tests.transcript import assert_refused, play

SKILLS = "@gm:local: !ficha McAvoy fusil 18 pistola 9 ametralladora 7 cuchillo 11 pelea 13\n"
SETUP = CAST + SKILLS
FIRST = 8
"""The first line after SETUP (CAST has 6 lines)."""
FIGHT = SETUP + "@gm:local: !combate\n@gm:local: !iniciativa McAvoy Hans\n"
TURN = FIRST + 2
"""The first line in McAvoy's first turn of FIGHT."""


def line_after(setup: str, n: int = 1) -> int:
    return sum(1 for x in setup.splitlines() if x.strip()) + n


# --- item 17: the sheet's weapon skills ----------------------------------------------------------

@pytest.mark.parametrize("word, skill, value", [
    ("fusil", "fusil", 18), ("Subfusil", "fusil", 18), ("pistola", "pistola", 9),
    ("ametralladora", "ametralladora", 7),
])
def test_attack_uses_the_named_weapon_skill_of_the_sheet(word: str, skill: str, value: int) -> None:
    """«Fusil/Subfusil: Fusiles de asalto…», «Pistola: Semiautomáticas o revólveres», «Ametralladora»:
    each is a skill of its own on the sheet, and `!ataque X fusil` rolls against it, not Disparo."""
    table = sombra_table((2, 3, 1))
    t = play(SETUP + f"@ana:local: !ataque Hans {word}\n", table)
    assert f"McAvoy → Hans, {skill} {value}: 🎲" in t.text(FIRST)
    # Hans is the GM's: the number the roll is judged against goes to the GMs only.
    # Issue 30: the room reads the dice and the outcome; the sums are on !detalle.
    assert f"3d10 vs {value}:" in t.gm_text(FIRST) and "3d10: [2, 3, 1] → éxito bajo" in t.text(FIRST)


def test_a_weapon_skill_missing_from_the_sheet_is_named() -> None:
    """A skill the sheet lacks is refused by name and nothing is rolled."""
    assert_refused(CAST, "@ana:local: !ataque Hans fusil", "Falta en la ficha de McAvoy: fusil", system="sombra")


# --- item 18: rate of fire -------------------------------------------------------------------

def test_a_pistol_fires_once_a_turn() -> None:
    """«Pistola: … Disparan con una cadencia de fuego de 1, 2 en caso de anunciar fuego de cobertura»."""
    assert_refused(FIGHT + "@ana:local: !ataque Hans pistola\n", "@ana:local: !ataque Hans pistola",
                   "una vez por turno", system="sombra")


def test_a_pistol_fires_twice_with_declared_covering_fire_the_second_at_plus_5() -> None:
    """«2 en caso de anunciar fuego de cobertura (el segundo disparo sale con penalizador de +5)»."""
    table = sombra_table((1, 2, 3, 1, 2, 4))
    t = play(FIGHT + "@ana:local: !ataque Hans pistola cobertura\n@ana:local: !ataque Hans pistola\n"
             "@ana:local: !ataque Hans pistola\n", table)
    assert "fuego de cobertura" in t.text(TURN)
    # 1+2+4 = 7, +5 for the second shot = 12 > 9: a miss.
    second = t.text(TURN + 1)
    assert "[1, 2, 4] +5 2.º disparo → fracaso medio" in second
    assert "ya ha disparado 2 veces" in t.text(TURN + 2)


def test_a_rifle_shoots_twice_the_second_at_plus_5_and_a_new_turn_resets_it() -> None:
    """«Apuntando: … Se pueden tirar dos disparos, pero el segundo tendrá un penalizador de +5»."""
    table = sombra_table((1, 2, 3, 2, 2, 3, 1, 2, 3))
    t = play(FIGHT + """
@ana:local: !ataque Hans fusil
@ana:local: !ataque Hans fusil
@ana:local: !ataque Hans fusil
@ana:local: !siguiente
@gm:local: !siguiente
@ana:local: !ataque Hans fusil
""", table)
    assert "+5 2.º disparo" not in t.text(TURN)
    assert "[2, 2, 3] +5 2.º disparo → éxito medio" in t.text(TURN + 1)
    assert "ya ha disparado 2 veces" in t.text(TURN + 2)
    assert "2.º disparo" not in t.text(TURN + 5) and "[1, 2, 3] → éxito bajo" in t.text(TURN + 5)


def test_a_burst_is_one_roll_per_bullet_each_with_its_own_result() -> None:
    """«Rafaga normal: … La primera bala no tiene penalizador, si a partir de la segunda… (desde a +1 a
    +5 por bala…). Se tira una vez por bala»: `rafaga 3` rolls three times from one command."""
    table = sombra_table((1, 2, 3, 2, 2, 5, 9, 9, 8))
    t = play(FIGHT + "@ana:local: !ataque Hans fusil rafaga 3\n@ana:local: !ataque Hans fusil\n", table)
    bullets = t.texts(TURN)
    assert len(bullets) == 3 and table.rng.exhausted()
    # Bullet 1: 1+2+3 = 6, no penalty. Bullet 2: 2+2+5 = 9 +5 = 14 <= 18. Bullet 3: 9+9+8 = 26 +10 = 36.
    assert "bala 1 de 3" in bullets[0] and "[1, 2, 3] → éxito bajo" in bullets[0] and "+0" not in bullets[0]
    assert bullets[1].startswith("🎲 Bala 2: [2, 2, 5] +5 bala 2 → éxito medio")
    assert bullets[2].startswith("🎲 Bala 3: [9, 9, 8] +10 bala 3 → fracaso medio")
    assert "ya ha disparado" in t.text(TURN + 1)


def test_a_pistol_cannot_fire_a_burst() -> None:
    """Bursts are the selector of rifles and machine guns («ráfaga de 3 por presión de gatillo»)."""
    assert_refused(FIGHT, "@ana:local: !ataque Hans pistola rafaga 2", "no dispara en ráfaga", system="sombra")


# --- item 19: opposed melee, the defender's dodge and parry -----------------------------------

MELEE = SETUP + "@gm:local: !ficha Hans pelea 12 esquivar 14\n"
MELEE_FIGHT = FIGHT + "@gm:local: !ficha Hans pelea 12 esquivar 14\n"


def test_melee_is_a_fight_between_both_rolls_and_the_better_one_strikes() -> None:
    """«Lucha desarmado: Se trata de una "pelea" entre ambas tiradas… El mejor resultado, da el golpe con
    el daño consiguiente»: with no defence declared both fight, and the better result hits the other."""
    table = sombra_table((2, 3, 4, 2, 3, 2))
    t = play(MELEE + "@ana:local: !ataque Hans pelea\n", table)
    attack, defence = t.texts(line_after(MELEE))
    # McAvoy 2+3+4 = 9 vs 13 (Hans's Esquivar 14 is 11-20: normal, +0), a medium success by 4;
    # Hans 2+3+2 = 7 vs 12 (McAvoy's Esquivar 2x6+7 = 19: normal), a medium success by 5:
    # Hans's blow lands (type 0: the low die 2 at the chest, the middle die 2).
    assert "McAvoy → Hans, pelea 13" in attack and "[2, 3, 4] → éxito medio" in attack
    assert "Hans pelea" in defence and "[2, 3, 2] → éxito medio" in defence
    assert "Gana Hans: golpea a McAvoy" in defence and "🩸 Pecho: sin herida" in defence  # the damage roll: !detalle (issue 30)
    assert "heridas" not in sheet(table, "Hans")


def test_the_rivals_dodge_capacity_sets_the_difficulty() -> None:
    """«La dificultad viene determinada por la esquiva del rival (capacidad): … 1 a 10: Fácil -5»."""
    table = sombra_table((2, 3, 4, 5, 5, 6))
    t = play(SETUP + "@gm:local: !ficha Hans pelea 12 esquivar 8\n@ana:local: !ataque Hans pelea\n", table)
    attack, defence = t.texts(FIRST + 1)
    assert "[2, 3, 4] -5 esquiva → éxito medio" in attack and "esquiva 8" not in attack
    assert "Gana McAvoy" in defence and "🩸 Pecho: sin herida" in defence


def test_a_declared_dodge_rolls_the_defenders_esquivar_and_only_avoids() -> None:
    """«Esquivar: de forma activa, declarándolo, se tira por la capacidad de esquivar»."""
    table = sombra_table((4, 4, 5, 2, 3, 3))
    t = play(MELEE_FIGHT + "@gm:local: !defensa Hans esquiva\n@ana:local: !ataque Hans pelea\n", table)
    assert "Hans esquivará" in t.text(line_after(MELEE_FIGHT))
    attack, defence = t.texts(line_after(MELEE_FIGHT, 2))
    # McAvoy 4+4+5 = 13 vs 13, by 0; Hans's Esquivar 14: 2+3+3 = 8, by 6.
    assert "[4, 4, 5] → éxito medio" in attack
    assert "Hans esquiva" in defence and "[2, 3, 3] → éxito medio" in defence and "Hans evita el golpe" in defence
    assert "Daño" not in defence


def test_a_declared_parry_rolls_the_fighting_skill_at_minus_4_and_forbids_attacking() -> None:
    """«Parada: se tiraría la habilidad de lucha desarmado… restándole -4 a la tirada… Solo se puede
    parar o atacar»."""
    table = sombra_table((2, 3, 4, 3, 4, 6))
    t = play(FIGHT + "@gm:local: !ficha Hans pelea 12 esquivar 14\n@gm:local: !defensa Hans parada\n"
             "@ana:local: !ataque Hans pelea\n@ana:local: !siguiente\n@gm:local: !ataque McAvoy\n", table)
    attack, defence = t.texts(TURN + 2)
    assert "[2, 3, 4] → éxito medio" in attack
    # Hans: 3+4+6 = 13 -4 parada = 9 <= 12, margin 3; McAvoy 9 vs 13, margin 4: McAvoy wins.
    assert "Hans para" in defence and "[3, 4, 6] → éxito medio" in defence
    assert "Gana McAvoy" in defence
    assert "Hans ha declarado parada" in t.text(TURN + 4)


def test_defence_is_declared_by_the_gm_or_the_characters_player_only() -> None:
    assert_refused(MELEE, "@bob:local: !defensa McAvoy esquiva", "McAvoy", system="sombra")
    assert_refused(MELEE, "@ana:local: !defensa McAvoy volar", "Uso: !defensa", system="sombra")


# --- item 20: one useless arm ---------------------------------------------------------------

def test_a_serious_wound_disables_that_arm_only() -> None:
    """«Brazos (4, 5): … En heridas graves, el brazo queda inutilizado»: that arm, not every attack.
    A one-handed weapon (a pistol) goes to the other hand; a rifle needs both arms."""
    table = sombra_table((2, 3, 1))
    t = play(SETUP + """
@gm:local: !daño McAvoy 11 brazo izquierdo
@ana:local: !ataque Hans fusil
@ana:local: !ataque Hans pistola
""", table)
    assert "brazo izquierdo: 11 contra RES 5 → herida grave" in t.text(FIRST)
    assert sheet(table, "McAvoy")["heridas"] == {"brazo_izquierdo": {"severity": "serious", "damage": 11}}
    assert "brazo izquierdo inutilizado" in t.text(FIRST + 1)
    assert ", pistola 9" in t.text(FIRST + 2)


def test_both_arms_useless_stop_every_attack() -> None:
    assert_refused(SETUP + "@gm:local: !daño McAvoy 11 brazo izquierdo\n@gm:local: !daño McAvoy 11 brazo derecho\n",
                   "@ana:local: !ataque Hans pistola", "inutilizados", system="sombra")


# --- item 21: one stun duration --------------------------------------------------------------

def test_a_stun_is_stated_once_and_its_count_is_the_one_shown_later() -> None:
    """«Cabeza (0): en heridas leves (daño > resistencia) dos asaltos aturdido»: hurt in one's own turn,
    the turn under way does not count, and the board shows the same two turns the blow announced."""
    t = play(FIGHT + "@gm:local: !daño McAvoy 8 cabeza\n@gm:local: !estado\n", system="sombra")
    blow = t.text(TURN)
    assert blow.count("aturdido") == 1 and "aturdido 2 turnos" in blow
    assert "aturdido (2 turnos)" in t.text(TURN + 1)


def test_a_fight_between_equal_skills_is_even_by_exact_enumeration() -> None:
    """«El mejor resultado, da el golpe»: with equal skills each side strikes equally often, a side strikes
    only with a success, and a rival who cannot defend is struck on every success; counted over every
    pair of rolls (1000 x 1000)."""
    from collections import Counter

    from systems.sombra.rules import SombraDice, fight_winner, resolve_check
    from tests.scripted import all_faces

    checks = [resolve_check(SombraDice(f), 13) for f in all_faces(10, 10, 10)]
    # The winner depends only on each roll's level and margin: one representative roll per pair of them.
    counts = Counter((c.level, c.margin) for c in checks)
    sample = {(c.level, c.margin): c for c in checks}
    strikes: Counter[int] = Counter()
    for key_a, count_a in counts.items():
        for key_b, count_b in counts.items():
            strikes[fight_winner(sample[key_a], sample[key_b])] += count_a * count_b
    successes = sum(c.succeeded for c in checks)
    assert sum(strikes.values()) == 1000 ** 2 and strikes[0] == strikes[1] > 0
    # Every pair with a success on the side that strikes: at most the pairs where that side succeeds.
    assert strikes[0] <= successes * 1000
    # Both failing, nobody strikes: at least those pairs end with -1.
    assert strikes[-1] >= (1000 - successes) ** 2
    assert sum(fight_winner(a, None) == 0 for a in checks) == successes
