"""The games' own patterns on user text are linear too (issue 10 item 2): 64 kB worst cases under
the hang watchdog, no timing assertion. Each of these took seconds to minutes when it was quadratic
in a run of spaces."""

from __future__ import annotations

import contextlib

import pytest

from bot.games.stormbringer.commands import split_against
from systems.dice import DiceError
from systems.savage.syntax import _targets as read_targets
from systems.savage.syntax import parse_savage
from systems.sombra.syntax import parse_initiative
from tests.watchdog import watchdog

SIZE = 64 * 1024
BUDGET_SECONDS = 2
SPACES = " " * SIZE


@pytest.mark.parametrize("text", [f"a{SPACES}b", f"a{SPACES}x2", f"a x{SPACES}2", f"a{SPACES}x{SPACES}"])
def test_savage_rate_of_fire_targets(text: str) -> None:
    """Whole expressions stop at 500 characters; the target list's own reading is linear anyway."""
    with watchdog(text[:40], BUDGET_SECONDS), contextlib.suppress(DiceError):
        read_targets(text, 3)


@pytest.mark.parametrize("text", [f"Ana{SPACES}b", f"Ana{SPACES}7{SPACES}6", f"Ana 7 6{SPACES}x"])
def test_sombra_initiative_entries(text: str) -> None:
    with watchdog(text[:40], BUDGET_SECONDS), pytest.raises(DiceError):
        parse_initiative(text + " !")


@pytest.mark.parametrize("text", [f"a{SPACES}b", f"a{SPACES}contra{SPACES}b", f"a vs{SPACES}"])
def test_stormbringer_ambush_split(text: str) -> None:
    with watchdog(text[:40], BUDGET_SECONDS):
        split_against(text)


def test_the_normalised_patterns_still_read_what_they_read() -> None:
    assert [c.name for c in parse_initiative("Ana  7 /  6, Lancha   barco  oportunidad")] == ["Ana", "Lancha"]
    result = parse_savage("rof 3 d8 objetivos cercano   x  2, lejano")
    assert result is not None and [(t.name, t.dice) for t in result.targets] == [("cercano", 2), ("lejano", 1)]
    assert split_against("Orco  contra   Ana,  Bruno") == ["Orco", "Ana, Bruno"]
