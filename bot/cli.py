"""The ``rolbot`` command line: ``roll``, ``console`` and ``run`` (docs/contracts.md#3)."""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
from collections.abc import Sequence

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


def cmd_console(args: argparse.Namespace) -> int:
    from bot.console import run_console
    from bot.core.settings import RoomSettings, TableSettings
    from bot.core.store import Store
    from bot.core.table import Table

    renderer = Renderer()
    if args.system is not None and args.system not in GAMES:
        return _fail(renderer, "unknown_system", key=args.system, known=GAMES.keys())
    defaults = RoomSettings(system=args.system, gms=tuple(args.gm), enforcement=args.enforce)
    try:
        store = Store(args.db)
    except StartupError as err:
        return _startup_failed(err)
    table = Table(store, TableSettings(defaults), make_rng(args.seed), renderer, games=GAMES)
    if args.db and args.seed is not None:
        table.resume_seed(args.seed)
    return run_console(table, sys.stdin, sys.stdout, args.jsonl)


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


class _Help(str):
    """A text's key in ``templates/core/cli_help.txt``: rendered when the help or the version is shown,
    not on every start."""


@functools.cache
def _help_text(key: str) -> str:
    installed = ""
    if key == "version":
        from importlib.metadata import version

        installed = version("rolbot")
    return Renderer().text("cli_help", key=key, systems=GAMES.keys(), version=installed)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's, with the ``_Help`` texts rendered from their template."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _shown(action.help)

    def add_text(self, text: str | None) -> None:
        super().add_text(_shown(text))


def _shown(text: str | None) -> str | None:
    return _help_text(text) if isinstance(text, _Help) else text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rolbot", description=_Help("rolbot"), formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=_Help("version"))
    sub = parser.add_subparsers(dest="command", required=True)

    roll = sub.add_parser("roll", help=_Help("roll"), formatter_class=_HelpFormatter)
    roll.add_argument("--system", default=None, help=_Help("roll.system"))
    roll.add_argument("--seed", type=int, default=None)
    roll.add_argument("--count", type=int, default=1)
    roll.add_argument("--json", action="store_true")
    roll.add_argument("expr", nargs="+")
    roll.set_defaults(func=cmd_roll)

    console = sub.add_parser("console", help=_Help("console"), formatter_class=_HelpFormatter)
    console.add_argument("--system", default=None)
    console.add_argument("--seed", type=int, default=None)
    console.add_argument("--gm", action="append", default=[], metavar="SENDER")
    console.add_argument("--enforce", choices=ENFORCEMENT_MODES, default="redact")
    console.add_argument("--jsonl", action="store_true")
    console.add_argument("--db", default=None, metavar="PATH")
    console.set_defaults(func=cmd_console)

    acta = sub.add_parser("acta", help=_Help("acta"), formatter_class=_HelpFormatter)
    acta.add_argument("--db", required=True, metavar="PATH", help=_Help("acta.db"))
    acta.add_argument("--room", required=True, metavar="ROOM_ID", help=_Help("acta.room"))
    which = acta.add_mutually_exclusive_group()
    which.add_argument("--sesion", type=int, default=None, metavar="N", help=_Help("acta.sesion"))
    which.add_argument("--todas", action="store_true", help=_Help("acta.todas"))
    acta.add_argument("--format", choices=FORMATS, default=FORMATS[0], help=_Help("acta.format"))
    acta.set_defaults(func=cmd_acta)

    run = sub.add_parser("run", help=_Help("run"), formatter_class=_HelpFormatter)
    run.add_argument("--config", required=True, metavar="PATH", help=_Help("run.config"))
    run.add_argument("--setup-crypto", action="store_true", help=_Help("run.setup_crypto"))
    run.add_argument("--reset-cross-signing", action="store_true", help=_Help("run.reset_cross_signing"))
    run.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
