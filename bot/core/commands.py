"""Commands as groups: one small function per command, its usage next to it.

The core has one group (the commands every room has, ``bot/core/room_commands/``) and each game
brings its own (``bot/games/<game>/``). What ``!ayuda`` says of them lives in its topics
(``templates/core/topic_*.txt``, ``templates/<game>/topic_*.txt``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.core import args
from bot.core.context import Context
from bot.core.state import name_key
from systems.refusal import Refusal

__all__ = ["Command", "CommandGroup", "Handler", "ParsedHandler"]

Handler = Callable[[Context, str], None]
ParsedHandler = Callable[[Context, args.Parsed], None]


MAX_COMMAND_ARGS = 2000
"""The longest text after a command's name the table reads (a sheet's export is kept within it)."""

@dataclass(frozen=True, slots=True)
class Command:
    names: tuple[str, ...]
    run: Handler
    usage: str = ""
    gm_only: bool = False
    in_character: bool = False
    """In-character commands (rolls) obey locks and combat turns."""
    needs_args: bool = False
    question: bool = False
    """A question (help, a rule): asked off the floor (a lock, another's turn), it is answered privately."""
    free: bool = False
    """An in-character command that is no new action (a reroll, a soak): it spends no exploration turn."""

    @property
    def name(self) -> str:
        return self.names[0]


class CommandGroup:
    """The commands of the core or of one game, found by any of their names."""

    def __init__(self) -> None:
        self._by_name: dict[str, Command] = {}
        self._commands: list[Command] = []

    def takes(self, *names: str, spec: args.Spec, gm_only: bool = False, in_character: bool = False,
              question: bool = False, free: bool = False, lenient: bool = False, changes: bool = False,
              before: Callable[[Context], None] | None = None) -> Callable[[ParsedHandler], ParsedHandler]:
        """Register the decorated function under ``names``, given its arguments as ``spec`` reads them
        (``bot/core/args.py``): its usage is the spec's, and a text that does not fit it is answered
        with that usage (with ``lenient``, it is read as no text at all: ``!siguiente ya``). ``before``
        checks what comes first, whatever the text (``!sesion`` needs the acta on); then a player who
        starts with a GM's keyword (``args.Key(gm=True)``) is refused before the rest is read. ``changes``:
        the command changes the play (a damage, an attack), so each run is an undo step even when it
        changed nothing (``bot/core/undo.py``); a command with forms that only show something marks its
        changing forms itself (``UnitOfWork.changing``)."""
        if lenient and args.parse(spec, "") is None:
            raise ValueError(f"a lenient command must take no text: {names[0]}")

        leads = args.gm_leads(spec)

        def register(fn: ParsedHandler) -> ParsedHandler:
            def run(ctx: Context, text: str) -> None:
                if before is not None:
                    before(ctx)
                word = args.gm_word(leads, text)
                if word is not None and not ctx.is_gm():
                    raise Refusal("gm_only", command=f"{cmd.name} {word}")
                parsed = args.parse(spec, text)
                if parsed is None and lenient:
                    parsed = args.parse(spec, "")
                if parsed is None:
                    raise Refusal("usage", command=cmd)
                ctx.work.changing = ctx.work.changing or changes
                fn(ctx, parsed)

            cmd = Command(tuple(names), run, args.usage(spec), gm_only, in_character, args.required(spec), question,
                          free)
            self._add(cmd)
            return fn

        return register

    def _add(self, cmd: Command) -> None:
        for name in cmd.names:
            key = name_key(name)
            if key in self._by_name:
                raise ValueError(f"command name registered twice: {name}")
            self._by_name[key] = cmd
        self._commands.append(cmd)

    @classmethod
    def joined(cls, *groups: CommandGroup) -> CommandGroup:
        """One group of the commands of ``groups``, in their order (a name in two of them is refused)."""
        joined = cls()
        for group in groups:
            for cmd in group:
                joined._add(cmd)
        return joined

    def find(self, name: str) -> Command | None:
        return self._by_name.get(name_key(name))

    def names(self) -> set[str]:
        return set(self._by_name)

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands)
