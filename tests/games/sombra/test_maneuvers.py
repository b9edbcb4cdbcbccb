"""Sistema Sombra melee manoeuvres (issue 22 item 22): derribar, placar, apresar and struggling free,
the bayonet standing, the bayonet charge and «recepción de carga»."""

from __future__ import annotations

import pytest

from tests.games.sombra.test_table import CAST, sombra_table
from tests.transcript import assert_refused, play

FIGHT = CAST + """@gm:local: !ficha McAvoy pelea 13 cuchillo 14 fue 6 coo 5 arma I
@gm:local: !ficha Hans pelea 12 cuchillo 12 esquivar 14 coo 5 fue 5 arma I
@gm:local: !combate
@gm:local: !iniciativa McAvoy Hans
"""
TURN = 11
"""McAvoy's first turn."""


def test_derribar_wins_the_fight_and_the_loser_falls_on_a_failed_coordination_roll() -> None:
    """«Derribar: … con una tirada enfrentada de lucha desarmado. Si se pasa, el que va a caer deberá tirar
    por coordinación con un penalizador igual al dado menor de la tirada del rival… Si la falla, cae al
    suelo y no podrá hacer otra cosa durante el turno siguiente que reptar e intentar levantarse»."""
    table = sombra_table((2, 3, 4, 9, 8, 7, 5, 6, 7))
    t = play(FIGHT + "@ana:local: !ataque Hans pelea derribar\n@ana:local: !siguiente\n@gm:local: !ataque McAvoy\n",
             table)
    attack, fight, fall = t.texts(TURN)
    # McAvoy 2+3+4 = 9 <= 13; Hans 9+8+7 = 24 > 12: McAvoy wins, no blow, Hans rolls COO.
    assert "derribar" in attack and "Gana McAvoy" in fight and "Daño" not in fight
    # Coordination 3xCOO = 15 (an attribute read on the 3-30 scale of checks), +2 McAvoy's low die:
    # 5+6+7 = 18 +2 = 20 > 15: Hans falls.
    assert "Hans tira Coordinación" in fall and "= 18 +2 dado menor = 20 → fracaso medio" in fall
    assert "Hans cae al suelo" in fall
    assert "Hans está en el suelo" in t.text(TURN + 2)


def test_derribar_passed_coordination_unbalances_at_plus_5_for_the_next_turn() -> None:
    """«Si la pasa, se desequilibrará y tendrá un +5 temporal a sus tiradas»."""
    table = sombra_table((2, 3, 4, 9, 8, 7, 1, 2, 4, 1, 2, 3, 9, 9, 8))
    t = play(FIGHT + "@ana:local: !ataque Hans pelea derribar\n@ana:local: !siguiente\n"
             "@gm:local: !ataque McAvoy pelea\n", table)
    # 1+2+4 = 7 +2 = 9 <= 15: unbalanced.
    assert "se desequilibra" in t.texts(TURN)[2]
    hans, _ = t.texts(TURN + 2)
    assert "🎲 3d10: [1, 2, 3] → éxito bajo" in hans  # an NPC's roll: its modifiers are the GMs'


def test_placar_brings_both_down() -> None:
    """«Puede intentarse placar, derribar, arrebatar un arma…»: the rules give no detail; a tackle that
    wins throws the rival down with no roll to stay up, and the tackler goes down too."""
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(FIGHT + "@ana:local: !ataque Hans pelea placar\n@ana:local: !estado\n", table)
    assert "Hans y McAvoy caen al suelo" in t.texts(TURN)[1]
    board = t.text(TURN + 1)
    assert "McAvoy [en el suelo" in board and "Hans [en el suelo" in board


def test_apresar_holds_the_rival_who_struggles_free_with_two_strength_wins_in_a_row() -> None:
    """«Apresar: … para inmovilizarle… Para liberarse, deberán superarse dos enfrentamientos consecutivos
    de fuerza… Durante estos enfrentamientos, no se puede hacer otra cosa que forcejear»."""
    table = sombra_table((2, 3, 4, 9, 8, 7, 1, 2, 3, 9, 8, 7, 2, 2, 3, 9, 9, 8))
    t = play(FIGHT + """
@ana:local: !ataque Hans pelea apresar
@ana:local: !siguiente
@gm:local: !ataque McAvoy
@gm:local: !forcejeo
@gm:local: !forcejeo
""", table)
    assert "Hans queda apresado por McAvoy" in t.texts(TURN)[1]
    assert "apresado" in t.text(TURN + 2)
    # FUE contests on 3xFUE: Hans 1+2+3 = 6 vs 15, McAvoy 9+8+7 = 24 vs 18: Hans wins the first.
    assert "1 de 2" in t.texts(TURN + 3)[0] and "McAvoy sujeta" in t.texts(TURN + 3)[1]
    # Hans 2+2+3 = 7, McAvoy 9+9+8 = 26: the second in a row, free.
    assert "Hans se libera" in t.texts(TURN + 4)[0]


def test_a_failed_grab_leaves_the_grabber_at_a_disadvantage_next_turn() -> None:
    """«Si falláis, al siguiente turno estaréis en desventaja»: read as +5 to the grabber's rolls in
    his next turn."""
    table = sombra_table((9, 8, 7, 2, 3, 3, 1, 2, 3, 9, 9, 8))
    t = play(FIGHT + """
@ana:local: !ataque Hans pelea apresar
@ana:local: !siguiente
@gm:local: !siguiente
@ana:local: !ataque Hans pelea
""", table)
    assert "McAvoy queda en desventaja" in t.texts(TURN)[1]
    assert "+5 desventaja" in t.texts(TURN + 3)[0]


def test_struggling_is_refused_to_who_is_not_held() -> None:
    assert_refused(FIGHT, "@ana:local: !forcejeo", "no está apresado", system="sombra")


def test_a_bayonet_standing_still_is_at_plus_5() -> None:
    """«para usar una bayoneta estando parado, deberéis tirar por la habilidad de bayoneta con un +5»: the
    bayonet's own skill (issue 31 item 20: no longer the knife's)."""
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(FIGHT + "@gm:local: !ficha McAvoy bayoneta 14\n@ana:local: !ataque Hans bayoneta\n", table)
    assert ", bayoneta 14" in t.texts(TURN + 1)[0] and "+5 bayoneta sin carga" in t.texts(TURN + 1)[0]


def test_a_bayonet_charge_gets_its_advantage_and_knocks_down_when_it_wins() -> None:
    """«Puede realizarse tambien una carga de bayoneta (+2 a la tirada)» — an advantage, so -2 to a
    roll-under roll — «que si es exitosa actúa como un derribar»."""
    table = sombra_table((2, 3, 4, 9, 8, 7, 5, 6, 7))
    t = play(FIGHT + "@ana:local: !ataque Hans bayoneta carga\n", table)
    attack, fight, fall = t.texts(TURN)
    assert "-2 carga de bayoneta" in attack and "Gana McAvoy" in fight and "🩸 Pecho: herida leve" in fight
    assert "Hans cae al suelo" in fall


def test_receiving_a_charge_cancels_its_advantage_and_a_win_doubles_the_damage() -> None:
    """«…que puede contrarrestarse por el otro con una recepción de carga (que anula su ventaja pero
    impide disparar)… se tirará bayoneta enfrentado con su rival. Si se pasa, se provocará el doble del
    daño usual»."""
    table = sombra_table((4, 4, 5, 2, 3, 3))
    t = play(FIGHT + "@gm:local: !defensa Hans recepcion\n@ana:local: !ataque Hans bayoneta carga\n", table)
    assert "recepción de carga" in t.text(TURN)
    attack, fight = t.texts(TURN + 1)
    assert "(carga de bayoneta)" in attack and "-2 carga" not in attack
    # Neither has a bayonet skill: both use armas blancas with the bayonet fixed, +1 (issue 31 item 20).
    # Hans 2+3+3 = 8 +1 = 9 vs 12 by 3 beats McAvoy 4+4+5 = 13 +1 = 14 vs 14 by 0: type I, high die 3, FUE 5
    # adds 0, doubled: 6.
    assert "Gana Hans: golpea a McAvoy" in fight and "Daño I: pecho (3) 6" in fight and "(doble: carga recibida)" in fight


def test_an_unbalanced_characters_sheet_rolls_carry_the_plus_5_too() -> None:
    """«tendrá un +5 temporal a sus tiradas»: every roll, `!tiro Pelea` included."""
    table = sombra_table((2, 3, 4, 9, 8, 7, 1, 2, 4, 1, 2, 3))
    t = play(FIGHT + "@ana:local: !ataque Hans pelea derribar\n@ana:local: !siguiente\n@gm:local: !tiro Pelea\n",
             table)
    sends = [a for a in t.for_line(TURN + 2) if a["action"] == "send" and "applied" in a]
    assert {"reason": "desequilibrado", "value": 5} in sends[0]["applied"]


def test_a_bayonet_fixed_on_a_rifle_uses_the_rifle_skill_at_plus_1() -> None:
    """«Para usar una bayoneta acoplada a un fusil, se tira la habilidad [fusil] con un penalizador de -1»:
    read as one point harder (+1 to a roll-under roll); a melee fight, a type I blade. The +5 of standing still
    is the bayonet skill's alone (issue 31 item 20: it was added here too)."""
    table = sombra_table((2, 3, 4, 9, 8, 7))
    t = play(FIGHT + "@gm:local: !ficha McAvoy fusil 18\n@ana:local: !ataque Hans fusil bayoneta\n", table)
    attack, fight = t.texts(TURN + 1)
    assert ", fusil 18" in attack and "[2, 3, 4] +1 bayoneta calada → éxito medio" in attack
    # McAvoy wins: type I, high die 4 plus FUE 6 - 5 = 1: 5 at the chest (middle die 3).
    assert "Gana McAvoy" in fight and "🩸 Pecho: herida leve" in fight


@pytest.mark.parametrize("line, answer", [
    ("@ana:local: !ataque Hans pelea derribar placar", "Una sola maniobra"),
    ("@ana:local: !ataque Hans pelea carga", "La carga es de bayoneta"),
    ("@ana:local: !desencasquillar", "no está encasquillada"),
    ("@ana:local: !oportunidad McAvoy siempre", "Uso: !oportunidad"),
    ("@bob:local: !oportunidad McAvoy", "McAvoy"),
    ("@ana:local: !defensa McAvoy recepcion", "Falta en la ficha de McAvoy: bayoneta"),
])
def test_bad_manoeuvres_get_a_clear_answer_and_change_nothing(line: str, answer: str) -> None:
    setup = FIGHT.replace(" cuchillo 14", "") if "recepcion" in line else FIGHT
    assert_refused(setup, line, answer, system="sombra")
