"""The ``rolbot`` command line: ``roll``, ``console`` and ``run`` (docs/contracts.md#3)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from importlib.metadata import version
from typing import Any

from bot.core.acta import FORMATS
from bot.core.errors import StartupError
from bot.core.render import Renderer
from bot.core.state import ENFORCEMENT_MODES
from bot.games import GAMES
from systems.dice import DiceError

EXIT_BAD_INPUT = 2
MAX_COUNT = 100_000
"""``rolbot roll --count``: more is a mistake, not a session."""


def make_rng(seed: int | None) -> random.Random:
    """SystemRandom in play; a seeded Random for reproducible runs and tests."""
    return random.SystemRandom() if seed is None else random.Random(seed)


def _fail(renderer: Renderer, code: str, **params: object) -> int:
    print(renderer.text("dice_error", code=code, params=params), file=sys.stderr)
    return EXIT_BAD_INPUT


def _startup_failed(err: StartupError) -> int:
    print(Renderer().text(err.template, code=err.code, params=err.params), file=sys.stderr)
    return EXIT_BAD_INPUT


def holding_the_database(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` run holding its ``--db``'s lock (``bot/core/store/lock.py``): one process per database."""
    def holding(args: argparse.Namespace) -> int:
        if not args.db:
            return command(args)
        from bot.core.store.lock import database_lock

        try:
            with database_lock(args.db):
                return command(args)
        except StartupError as err:
            return _startup_failed(err)
    return holding


def prepare_storage(path: str) -> None:
    """The ``[storage]`` folder, created if missing (owner only)."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except FileExistsError:
        raise StartupError("storage_not_a_dir", path=path) from None
    except OSError as err:
        raise StartupError("storage_cannot_create", path=path, reason=err.strerror or str(err)) from None


def cmd_roll(args: argparse.Namespace) -> int:
    renderer = Renderer()
    key = args.system or GAMES.default.key
    if key not in GAMES:
        return _fail(renderer, "unknown_system", key=key, known=GAMES.keys())
    if not 1 <= args.count <= MAX_COUNT:
        return _fail(renderer, "bad_count", limit=MAX_COUNT)
    system = GAMES[key].system
    rng = make_rng(args.seed)
    text = " ".join(args.expr)
    for _ in range(args.count):
        try:
            result = system.roll(text, rng)
        except DiceError as err:
            return _fail(renderer, err.code, **err.params)
        if args.json:
            sys.stdout.write(json.dumps(result.as_json(), ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(renderer.render(result.template, r=result).body + "\n")
    return 0


@holding_the_database
def cmd_console(args: argparse.Namespace) -> int:
    from bot.console import run_console
    from bot.core.settings import RoomSettings, TableSettings
    from bot.core.store import Store
    from bot.core.table import Table

    renderer = Renderer()
    if args.system is not None and args.system not in GAMES:
        return _fail(renderer, "unknown_system", key=args.system, known=GAMES.keys())
    if args.reanudar and not args.db:
        print(renderer.text("cli_help", key="console.reanudar_without_db"), file=sys.stderr)
        return EXIT_BAD_INPUT
    defaults = RoomSettings(system=args.system, gms=tuple(args.gm), enforcement=args.enforce)
    try:
        store = Store(args.db)
    except StartupError as err:
        return _startup_failed(err)
    table = Table(store, TableSettings(defaults), make_rng(args.seed), renderer, games=GAMES)
    if args.db and args.seed is not None:
        table.resume_seed(args.seed)
    return run_console(table, sys.stdin, sys.stdout, args.jsonl, resume=args.reanudar, terminal=sys.stdin.isatty())


def cmd_acta(args: argparse.Namespace) -> int:
    """``rolbot acta``: the room's recorded acta as Markdown or HTML on stdout (docs/contracts.md#3.5)."""
    from bot.core.acta_document import NoSuchActa, export
    from bot.core.store import Store

    renderer = Renderer()
    if not os.path.isfile(args.db):
        return _startup_failed(StartupError("db_missing", path=args.db))
    try:
        store = Store(args.db)
    except StartupError as err:
        return _startup_failed(err)
    try:
        text = export(store, renderer, args.room, args.format, args.sesion, args.todas)
    except NoSuchActa as missing:
        print(renderer.text("acta_missing", room=args.room, session=missing.session, known=missing.known),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from bot.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as err:
        print(Renderer().text("config_error", code=err.code, params=err.params, for_cli=True), file=sys.stderr)
        return EXIT_BAD_INPUT
    if (args.setup_crypto or args.reset_cross_signing) and config.matrix_config is None:
        print(Renderer().text("config_error", code="missing_key", params={"key": "homeserver", "where": "matrix"},
                              for_cli=True), file=sys.stderr)
        return EXIT_BAD_INPUT
    from bot.runner import run

    os.umask(0o077)  # every file the bot and its libraries write holds state: owner-only
    try:
        prepare_storage(config.storage_path)
        return run(config, setup_only=args.setup_crypto, reset_cross_signing=args.reset_cross_signing)
    except StartupError as err:
        return _startup_failed(err)


ARGPARSE_HOOKS = ("_", "ngettext")
"""The names through which argparse looks up its own strings (gettext's functions, bound at its import)."""


@contextmanager
def spanish_argparse(renderer: Renderer) -> Iterator[None]:
    """argparse's own strings (usage, section titles, its errors) in Spanish while the parser is built
    and used: each is looked up in ``templates/core/cli_argparse.txt`` (one not there stays as it is)."""

    def gettext(message: str | None) -> str | None:
        spanish = renderer.text("cli_argparse", message=message.strip()) if message else ""
        if message is None or not spanish:
            return message
        return message[:len(message) - len(message.lstrip())] + spanish + message[len(message.rstrip()):]

    def ngettext(singular: str, plural: str, count: int) -> str | None:
        return gettext(singular if count == 1 else plural)

    saved = {name: getattr(argparse, name) for name in ARGPARSE_HOOKS}
    for name, hook in zip(ARGPARSE_HOOKS, (gettext, ngettext), strict=True):
        setattr(argparse, name, hook)
    try:
        yield
    finally:
        for name, hook in saved.items():
            setattr(argparse, name, hook)


class HelpKey(str):
    """A key of ``templates/core/cli_help.txt`` standing for its text until help is shown: building the
    parser renders nothing (a ``rolbot run`` never reads a template for its command line)."""


class SpanishHelp(argparse.HelpFormatter):
    """Renders what help shows as it is shown: a ``HelpKey`` from ``cli_help``, any other text (argparse's
    own section titles and help) through argparse's ``_`` (Spanish inside ``spanish_argparse``)."""

    def __init__(self, prog: str, *, words: Callable[[HelpKey], str], **kwargs: Any) -> None:
        super().__init__(prog, **kwargs)
        self._words = words

    def _spanish(self, text: str | None) -> str | None:
        if isinstance(text, HelpKey):
            return self._words(text)
        return vars(argparse)["_"](text) if text and text is not argparse.SUPPRESS else text

    def start_section(self, heading: str | None) -> None:
        super().start_section(self._spanish(heading))

    def add_text(self, text: str | None) -> None:
        super().add_text(self._spanish(text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return self._spanish(action.help)


def build_parser(renderer: Renderer | None = None) -> argparse.ArgumentParser:
    """The parser; its texts from ``templates/core/cli_help.txt`` and argparse's own in Spanish when shown
    inside ``spanish_argparse`` (building it renders nothing)."""
    renderer = renderer or Renderer()

    def words(key: HelpKey) -> str:
        return renderer.text("cli_help", key=str(key), systems=GAMES.keys(), version=version("rolbot"),
                             enforcement=ENFORCEMENT_MODES, formats=FORMATS)

    def integer(value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(renderer.text("cli_help", key="integer", value=value)) from None

    formatter = partial(SpanishHelp, words=words)
    text = HelpKey

    def sub_parser(name: str, help_key: str, description: str | None = None) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text(help_key), description=text(description or help_key),
                              formatter_class=formatter)

    parser = argparse.ArgumentParser(prog="rolbot", description=text("rolbot"), formatter_class=formatter)
    parser.add_argument("--version", action="version", version=text("version"), help=text("version.help"))
    sub = parser.add_subparsers(dest="orden", required=True, title=text("commands"))

    roll = sub_parser("roll", "roll")
    roll.add_argument("--system", default=None, metavar="SISTEMA", help=text("roll.system"))
    roll.add_argument("--seed", type=integer, default=None, metavar="N", help=text("seed"))
    roll.add_argument("--count", type=integer, default=1, metavar="N", help=text("roll.count"))
    roll.add_argument("--json", action="store_true", help=text("roll.json"))
    roll.add_argument("expr", nargs="+", metavar="EXPRESIÓN", help=text("roll.expr"))
    roll.set_defaults(func=cmd_roll)

    console = sub_parser("console", "console", "console.description")
    console.add_argument("--system", default=None, metavar="SISTEMA", help=text("console.system"))
    console.add_argument("--seed", type=integer, default=None, metavar="N", help=text("seed"))
    console.add_argument("--gm", action="append", default=[], metavar="USUARIO", help=text("console.gm"))
    console.add_argument("--enforce", choices=ENFORCEMENT_MODES, default="redact", help=text("console.enforce"))
    console.add_argument("--jsonl", action="store_true", help=text("console.jsonl"))
    console.add_argument("--db", default=None, metavar="RUTA", help=text("console.db"))
    console.add_argument("--reanudar", action="store_true", help=text("console.reanudar"))
    console.set_defaults(func=cmd_console)

    acta = sub_parser("acta", "acta")
    acta.add_argument("--db", required=True, metavar="RUTA", help=text("acta.db"))
    acta.add_argument("--room", required=True, metavar="SALA", help=text("acta.room"))
    which = acta.add_mutually_exclusive_group()
    which.add_argument("--sesion", type=integer, default=None, metavar="N", help=text("acta.sesion"))
    which.add_argument("--todas", action="store_true", help=text("acta.todas"))
    acta.add_argument("--format", choices=FORMATS, default=FORMATS[0], help=text("acta.format"))
    acta.set_defaults(func=cmd_acta)

    run = sub_parser("run", "run")
    run.add_argument("--config", required=True, metavar="RUTA", help=text("run.config"))
    run.add_argument("--setup-crypto", action="store_true", help=text("run.setup_crypto"))
    run.add_argument("--reset-cross-signing", action="store_true", help=text("run.reset_cross_signing"))
    run.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    renderer = Renderer()
    parser = build_parser(renderer)
    with spanish_argparse(renderer):
        args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
