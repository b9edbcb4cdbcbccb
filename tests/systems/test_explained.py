"""``systems/explained.py``: an explanation is given the first time in a fight, and the two copies of one
message (the room's, the GMs') rendered one after the other say the same."""

from __future__ import annotations

from systems.explained import Explained


def test_first_time_only_and_the_same_for_both_copies_of_one_message() -> None:
    seen: list[str] = []
    message = Explained(seen)
    assert message("defences") and message("defences")     # the GMs' copy of the same message agrees
    assert seen == ["defences"]
    assert not Explained(seen)("defences") and Explained(seen)("landed")


def test_out_of_a_fight_everything_is_explained() -> None:
    told = Explained(None)
    assert told("defences") and told("defences")
