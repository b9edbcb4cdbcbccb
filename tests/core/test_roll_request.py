"""One ``!tiro`` is one ``RollRequest``: read once, the roller's vitality checked once, the roll's
object (``Outcome.as_json``) built once, however many parts of the table look at it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from bot.console import ROOM_ID
from bot.core import combat as rounds
from bot.core.events import Event, Send
from tests.transcript import make_table, play

GM = "@gm:local"
ANA = "@ana:local"
SETUP = f"""
{GM}: !pj McAvoy {ANA}
{GM}: !ficha McAvoy disparar d8 pelear d6 dureza 6 parada 5
{GM}: !pnj Orco
{GM}: !ficha Orco dureza 7 parada 6
"""


def counted(calls: Counter[str], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return fn(*args, **kwargs)

    return wrapper


@pytest.mark.parametrize(("system", "line"), [
    ("savage", "!tiro Disparar contra Orco"),
    ("savage", "!tiro Pelear contra Orco"),
    ("generic", "!tiro 2d6+1"),
])
def test_a_roll_checks_vitality_once_and_builds_its_object_once(system: str, line: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table(system=system)
    play(SETUP, table)
    calls: Counter[str] = Counter()
    monkeypatch.setattr(rounds, "require_up", counted(calls, "require_up", rounds.require_up))
    built: list[type] = []
    resolver = type(table.games[system].system)
    original = resolver.roll

    def roll(self: Any, text: str, rng: Any) -> Any:
        outcome = original(self, text, rng)
        kind = type(outcome)
        if kind not in built:
            built.append(kind)
            monkeypatch.setattr(kind, "as_json", counted(calls, "as_json", kind.as_json))
        return outcome

    monkeypatch.setattr(resolver, "roll", roll)
    sends = [a for a in table.handle(Event(ROOM_ID, ANA, line, "$roll")) if isinstance(a, Send)]
    assert sends and sends[0].roll is not None
    assert calls == {"require_up": 1, "as_json": 1}
