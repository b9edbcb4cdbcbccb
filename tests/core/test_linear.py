"""Issue 10 item 2: every pattern run on user text is linear in it.

No timing assertion: each call runs under the hang watchdog with a per-call budget far above what
a linear pass over 64 kB takes, and far below what a quadratic one does (the old named-lock
pattern took minutes on these inputs)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import bot.core
from bot.core.events import Action, Event, Send
from bot.core.protocol import read_line
from bot.core.render import Renderer
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.table import MAX_COMMAND_ARGS
from bot.games import GAMES
from tests.transcript import GM, make_table
from tests.watchdog import watchdog

SIZE = 64 * 1024
BUDGET_SECONDS = 2


def _fill(prefix: str, unit: str, suffix: str = "") -> str:
    return prefix + unit * ((SIZE - len(prefix) - len(suffix)) // len(unit)) + suffix


WORST_CASES = [
    _fill("-----(", " "), _fill("-----(", " ", "x"), _fill("----- (", "a "), _fill("", "-", "("),
    _fill("", "—", " x"), _fill("-----", " -"), _fill("----- (x)", " -", "x"), _fill("-----(", "-", ")"),
    _fill("", "\u200b", "-----"), _fill("-----(", "\u200f "), _fill("", "- ", "x"),
    _fill("((", " "), _fill("((", "))", "x"), _fill("((", ")) ", "x"), _fill("((", "(("), _fill("off", " "),
    _fill("!a", "a", "-"), _fill("!a", " "), _fill("!a ", "\n"), _fill("//", "a", "("), _fill("/me", " ", "x"),
    _fill("@", "a"), _fill("@a:", "b:"), _fill("@a:", ": ", "x"), _fill("@", ":"), _fill("@a", "\u00a0"),
    _fill("", " ", "x"), _fill("", "\t"), _fill("", "a"), _fill("", "1d6+"), _fill("", "«»\""),
    _fill("", "A, "), _fill("", "A "),
]


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every module-level pattern of the table core and the console (a new one is tested too)."""
    modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(bot.core.__path__, "bot.core.")]
    modules.append(importlib.import_module("bot.console"))
    return [(f"{module.__name__}.{name}", value) for module in modules for name, value in vars(module).items()
            if isinstance(value, re.Pattern)]


PATTERNS = _patterns()


def test_the_core_patterns_are_found() -> None:
    names = {name for name, _ in PATTERNS}
    assert {"bot.core.protocol._COMMAND", "bot.core.protocol._OUT_OF_CHARACTER", "bot.console._LINE",
            "bot.core.room_commands.characters._USER_ID"} <= names


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
def test_every_core_pattern_is_linear(name: str, pattern: re.Pattern[str]) -> None:
    for text in WORST_CASES:
        for use in (pattern.match, pattern.search, pattern.fullmatch):
            with watchdog(f"{name} {use.__name__} {text[:30]}", BUDGET_SECONDS):
                use(text)


def test_reading_a_line_is_linear() -> None:
    for text in WORST_CASES:
        for emote in (False, True):
            with watchdog(f"read_line {text[:30]}", BUDGET_SECONDS):
                read_line(text, emote)


def _no_internal_error(actions: list[Action], text: str) -> None:
    """The table turns any exception, the watchdog's too, into its internal-error answer."""
    internal = Renderer().text("internal_error")
    assert not any(isinstance(a, Send) and a.message.body == internal for a in actions), text[:40]


def test_a_whole_event_is_linear() -> None:
    """The table reads every event, whatever its length, before anything cuts it."""
    table = make_table()
    for number, text in enumerate(WORST_CASES):
        for sender in (GM, "@ana:local"):
            with watchdog(f"handle {text[:30]}", BUDGET_SECONDS):
                actions = table.handle(Event("!r", sender, text, f"${number}{sender}"))
            _no_internal_error(actions, text)


@pytest.mark.parametrize("system", GAMES.keys())
def test_every_command_parser_is_linear(system: str) -> None:
    """Each command of the room's system, by the GM and by a player, in and out of combat, on every
    worst case cut to the longest arguments a command is given."""
    table = make_table(system=system)
    table.handle(Event("!r", GM, "!pj Ana @ana:local", "$pj"))
    names = sorted({name for group in (ROOM_COMMANDS, GAMES[system].commands) for command in group
                    for name in command.names})
    for number, name in enumerate(names):
        for sender in (GM, "@ana:local"):
            for case, text in enumerate(WORST_CASES):
                line = f"!{name} {text[:MAX_COMMAND_ARGS]}"
                with watchdog(f"{system} {line[:40]}", BUDGET_SECONDS):
                    actions = table.handle(Event("!r", sender, line, f"${number}.{sender}.{case}"))
                _no_internal_error(actions, line)
        if name == "combate":
            table.handle(Event("!r", GM, "!combate", f"$combat{number}"))
