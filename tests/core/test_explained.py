"""Issue 30: an explanation is given the first time in a fight (``first_time``, kept in
``Combat.explained``), and a template's ``first(KEY)`` (``explainer``) gives the room's and the GMs' views
of one message, rendered one after the other, the same answer. The games use only this memory."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from bot.core.api import Combat, Context, RoomState, explainer, first_time


def context(combat: Combat | None) -> Context:
    """What the helpers read of a context: its room's fight."""
    return cast(Context, SimpleNamespace(room=RoomState(combat=combat)))


def test_first_time_only_and_the_same_for_both_views_of_one_message() -> None:
    combat = Combat()
    ctx = context(combat)
    message = explainer(ctx)
    assert message("defences") and message("defences")     # the GMs' view of the same message agrees
    assert combat.explained == ["defences"]
    assert not explainer(ctx)("defences") and explainer(ctx)("landed")
    assert not first_time(ctx, "landed") and first_time(ctx, "joker") and not first_time(ctx, "joker")


def test_out_of_a_fight_everything_is_explained() -> None:
    told = explainer(context(None))
    assert told("defences") and told("defences") and first_time(context(None), "defences")
