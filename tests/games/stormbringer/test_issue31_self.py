"""Issue 31, item 16 for Stormbringer: the GM who names the acting combatant before its target attacks that
target (and the parry follows that blow); a blow at the attacker itself is refused with a hint."""

from __future__ import annotations

from tests.core.test_unknown_target import SETUPS
from tests.transcript import assert_refused, make_table, play

SETUP = SETUPS["stormbringer"]  # Guerrero 1's turn, then Elric's


def test_the_gm_naming_the_actor_first_attacks_the_target_named_after() -> None:
    """The house rules (002) are silent on who a named attacker is; the published game has a combatant attack
    another one on its turn: on Guerrero 1's turn the GM's `!ataque Guerrero 1 Elric` is Guerrero 1 attacking
    Elric, and the parry that follows is Elric's («Con cada arma tenemos un % de ataque y otro de parada»)."""
    t = play(SETUP + "@gm:local: !ataque Guerrero 1 Elric\n@gm:local: !parada\n",
             table=make_table(system="stormbringer", seed=4))
    attack = t.texts(7)[0]
    assert attack.startswith("Guerrero 1 · ⚔️ Ataque") and "Elric puede !parada" in attack, attack
    assert t.texts(8)[0].startswith("Elric"), t.texts(8)


def test_attacking_oneself_is_refused_with_a_hint() -> None:
    """The house rules (002) are silent; in the published game nobody attacks itself: the GM's
    `!ataque Guerrero 1` on Guerrero 1's turn is refused, saying to name the target, and spends nothing."""
    assert_refused(SETUP, "@gm:local: !ataque Guerrero 1", "Guerrero 1 no puede atacarse", system="stormbringer")
    assert_refused(SETUP, "@gm:local: !ataque Guerrero 1 +10", "!ataque OBJETIVO", system="stormbringer")
