"""Issue 20, item 1, the pure rules: a latecomer's card or roll leaves everyone else's alone."""

from __future__ import annotations

import random

from systems.reino.rules import Combatant, join_combat, leave_combat, start_combat
from systems.savage.deck import ActionDeck
from tests.scripted import faces


def test_a_card_dealt_late_is_the_top_of_the_pile_and_the_others_keep_theirs() -> None:
    deck = ActionDeck.new(random.Random(3)).deal(["Kira", "orcos"], rng=random.Random(3))
    late = deck.deal_late("Rurik")
    assert late.in_play == {**deck.in_play, "Rurik": deck.pile[-1]}
    assert late.pile == deck.pile[:-1] and late.discards == deck.discards


def test_a_late_reino_roll_keeps_the_rolls_made_and_leaving_takes_only_ones_own() -> None:
    seq = start_combat(faces(20, 12, 5), [Combatant("Ana", 2), Combatant("Orco", 1)])
    joined = join_combat(faces(20, 9), seq, Combatant("Rurik", 3))
    assert joined.rolls[:2] == seq.rolls and joined.rolls[2].total == 12
    assert [r.name for r in joined.order] == ["Ana", "Rurik", "Orco"]
    left = leave_combat(joined, "Ana")
    assert [r.name for r in left.rolls] == ["Orco", "Rurik"] and [c.name for c in left.combatants] == ["Orco", "Rurik"]
