"""What a run does not use stays unloaded (docs/performance.md, memory at rest)."""

from __future__ import annotations

import subprocess
import sys

from bot.memory import release_freed_memory

LAZY = ("snowballstemmer", "cryptography", "sqlite_utils", "difflib")
"""Loaded on first use only: the stemmer with the first ``!regla``, cryptography to sign a device, sqlite-utils
with the first migration, difflib with the first typo to guess (issue 28 item 7)."""


def test_the_bot_modules_do_not_import_what_waits_for_first_use() -> None:
    code = ("import sys, bot.cli, bot.runner, bot.matrix, bot.matrix.crosssign; "
            f"print(*[m for m in {LAZY!r} if m in sys.modules])")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_a_run_starts_without_a_game_or_jinja() -> None:
    """What ``rolbot run`` imports at start loads no game (``bot.games.<game>``, ``systems.<game>``): a game
    waits for a room that plays it; nor jinja2: the command line's help is rendered only when shown."""
    code = ("import sys, bot.cli, bot.runner\nfrom bot.games import GAMES\n"
            "renderer = bot.cli.Renderer()\n"
            "parser = bot.cli.build_parser(renderer)\n"
            "with bot.cli.spanish_argparse(renderer):\n"
            "    parser.parse_args(['run', '--config', 'x'])\n"
            "games = [f'bot.games.{key}' for key in GAMES.keys()] + [f'systems.{key}' for key in GAMES.keys()]\n"
            "print(*[m for m in [*games, 'jinja2'] if m in sys.modules])")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_release_freed_memory_runs_anywhere() -> None:
    release_freed_memory()


def test_a_new_character_loads_no_other_game() -> None:
    """``!pj`` in a room of one game imports only that game: the other games are looked at only for a sheet
    key the room's game does not take (``sheets.play_in``)."""
    code = ("import sys\nfrom bot.games import GAMES\nfrom tests.transcript import make_table, play\n"
            "table = make_table(system='savage', seed=1)\n"
            "play('@gm:local: !pj Ana @ana:local\\n@ana:local: !tiro 1d6', table)\n"
            "print(*[key for key in GAMES.keys() if key != 'savage' and f'bot.games.{key}' in sys.modules])")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_a_start_with_the_schema_up_to_date_does_not_import_sqlite_utils(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 28 item 7: sqlite-utils (with dateutil, click and pluggy, about 3 MB) makes and migrates the schema;
    reopening a database already up to date, the core's and Matrix's and IRC's parts, reads and writes through
    the connection alone, and an event is handled without it too."""
    path = str(tmp_path / "mesa.db")
    opening = ("import sys\nfrom bot.core.store import Store\nfrom bot.matrix.store import MatrixStore\n"
               "from bot.irc.store import IrcStore\nfrom tests.transcript import make_table, play\n"
               f"store = Store({path!r})\nMatrixStore(store)\nIrcStore(store)\nstore.close()\n"
               f"play('@gm:local: !pj Ana @ana:local\\n@ana:local: !tiro 2d6', make_table(db={path!r}))\n"
               "print(*[m for m in ('sqlite_utils', 'click', 'dateutil', 'pluggy') if m in sys.modules])")
    made = subprocess.run([sys.executable, "-c", opening], capture_output=True, text=True, check=True).stdout.split()
    assert made == ["sqlite_utils", "click", "dateutil", "pluggy"]  # a new file: the migrations use it
    reopened = subprocess.run([sys.executable, "-c", opening], capture_output=True, text=True, check=True).stdout
    assert reopened.split() == []
