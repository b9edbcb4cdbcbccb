"""The transport contract (``bot/transport.py``): a core that knows no network, and one handler per
kind of action in every transport."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.console import ACTIONS as CONSOLE_ACTIONS
from bot.core.events import Send
from bot.irc.bot import ACTIONS as IRC_ACTIONS
from bot.matrix.outbox import ACTIONS as MATRIX_ACTIONS
from bot.transport import ACTION_KINDS, ActionRegistry

REGISTRIES = [MATRIX_ACTIONS, IRC_ACTIONS, CONSOLE_ACTIONS]


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.transport)
def test_every_action_kind_has_a_handler_in_each_transport(registry: ActionRegistry[object]) -> None:
    assert ACTION_KINDS and registry.missing() == []


@dataclass(frozen=True)
class Shout:
    """A kind of action no transport knows."""

    room_id: str
    kind: str = "shout"


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.transport)
def test_a_new_action_kind_without_a_handler_is_named(registry: ActionRegistry[object]) -> None:
    assert registry.missing((*ACTION_KINDS, Shout)) == ["Shout"]


def test_a_kind_registered_twice_is_refused() -> None:
    registry: ActionRegistry[int] = ActionRegistry("toy")
    registry.add(Send, 1)
    with pytest.raises(ValueError):
        registry.add(Send, 2)
