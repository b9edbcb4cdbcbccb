"""The command registry: one small function per command, its usage next to it.

Command descriptions (the prose of ``!ayuda``) live in ``templates/help.txt``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.state import name_key

if TYPE_CHECKING:
    from bot.core.context import Context

Handler = Callable[["Context", str], None]


@dataclass(frozen=True, slots=True)
class Command:
    names: tuple[str, ...]
    run: Handler
    usage: str = ""
    gm_only: bool = False
    in_character: bool = False
    """In-character commands (rolls) obey locks and combat turns."""
    needs_args: bool = False
    systems: tuple[str, ...] = ()
    """Empty: every system; otherwise only rooms playing one of these."""

    @property
    def name(self) -> str:
        return self.names[0]

    def available_in(self, system: str) -> bool:
        return not self.systems or system in self.systems


REGISTRY: dict[str, list[Command]] = {}


def command(
    *names: str,
    usage: str = "",
    gm_only: bool = False,
    in_character: bool = False,
    needs_args: bool = False,
    systems: tuple[str, ...] = (),
) -> Callable[[Handler], Handler]:
    """Register ``fn`` under ``names`` (Spanish first, English alias second)."""

    def register(fn: Handler) -> Handler:
        cmd = Command(tuple(names), fn, usage, gm_only, in_character, needs_args, systems)
        for name in names:
            REGISTRY.setdefault(name_key(name), []).append(cmd)
        return fn

    return register


def find_command(name: str, system: str) -> Command | None:
    return next((c for c in REGISTRY.get(name, []) if c.available_in(system)), None)


def commands_for(system: str) -> list[Command]:
    seen: dict[str, Command] = {}
    for cmds in REGISTRY.values():
        for cmd in cmds:
            if cmd.available_in(system):
                seen.setdefault(cmd.name + "/" + ",".join(cmd.systems), cmd)
    return sorted(seen.values(), key=lambda c: (bool(c.systems), c.name))
