"""Issue 30 (a quiet table) for Savage Worlds' soak: the answer to ``!absorber`` is the common result in
at most three phone lines (the trait, the dice, the TN, the outcome, what it soaked and what is left);
what the table read once this fight (that Vigor is rolled and a benny spent, how to reroll) is not
repeated, and the reroll's command for the soaker's own player is ``!repetir``.

001: «Después de calcular el daño, pero antes de aplicar las heridas, el personaje puede gastar un beni
para realizar una tirada de absorción»: Vigor against 4, each success and raise soaking one wound."""

from __future__ import annotations

from bench.evening import phone_lines
from tests.games.savage.test_quiet_table import FIRST, fight, then
from tests.scripted import FaceRng


def test_a_soak_is_three_phone_lines_once_the_fight_read_its_explanation() -> None:
    table = fight()
    # Vigor d8 and the wild d6: 2 and 1 (fail against 4), twice.
    table.rng = FaceRng([(2, 8), (1, 6), (2, 8), (1, 6)])
    t = then(table, FIRST - 1, """@gm:local: !daño Kira 10
@bob:local: !absorber
@bob:local: !absorber no
@gm:local: !daño Kira 10
@bob:local: !absorber
""")
    # 10 vs Toughness 6: one raise, a wound and Shaken; the soak: d8 [2], wild [1], best 2 < 4, a failure.
    first = t.text(FIRST + 1)
    assert first == ("Kira · 🛡️ Absorbe 0 de 1 (Vigor, gasta un beni): 1d8 vs 4: [2] 🐺[1] = 2 → fallo. "
                     "Queda: 1 herida, aturdido; 2 benis (otro beni: !repetir).")
    assert phone_lines(first) <= 4, first   # three, and the explanation the fight reads once
    # The second soak: the wound's -1 on Vigor, best of 2-1 and 1-1: 1 < 4; two wounds, Shaken, one benny.
    second = t.text(FIRST + 4)
    assert second == ("Kira · 🛡️ Absorbe 0 de 1: 1d8 (heridas -1) vs 4: [2] 🐺[1] = 1 → fallo. "
                      "Queda: 2 heridas, aturdido; 1 beni.")
    assert phone_lines(second) <= 3, second


def test_a_gm_soaking_for_a_player_names_the_full_reroll_command() -> None:
    table = fight()
    table.rng = FaceRng([(2, 8), (1, 6)])
    t = then(table, FIRST - 1, "@gm:local: !daño Kira 10\n@gm:local: !absorber Kira\n")
    # The GM's !repetir would be his own; the player rerolls her soak with the command that names her.
    assert t.text(FIRST + 1).endswith("(otro beni: !absorber Kira repetir).")
