"""The ``rolbot roll`` contract (docs/contracts.md#3.1), run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def rolbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=60)


def test_seeded_json_is_reproducible_and_seed_dependent() -> None:
    first = rolbot("roll", "--seed", "3", "--json", "4d6kh3+1")
    again = rolbot("roll", "--seed", "3", "--json", "4d6kh3+1")
    other = rolbot("roll", "--seed", "4", "--count", "5", "--json", "4d6kh3+1")
    assert first.returncode == 0 and first.stdout == again.stdout
    data = json.loads(first.stdout)
    assert data["system"] == "generic" and isinstance(data["total"], int)
    assert len(data["dice"]) == 4 and all(isinstance(d, int) for d in data["dice"])
    assert data["total"] == sum(sorted(data["dice"])[1:]) + 1
    assert first.stdout.splitlines()[0] not in other.stdout.splitlines() or len(set(other.stdout.splitlines())) > 1


@pytest.mark.parametrize(
    "system, expr, fields",
    [
        ("savage", "d8+1 vs 6", {"raises", "wild"}),
        ("stormbringer", "d100 vs 46", set()),
        ("reino", "d20+3 vs 15", {"natural"}),
        ("sombra", "3d10+2 vs 14", {"high", "location", "low"}),
    ],
)
def test_system_checks_print_the_contract(system: str, expr: str, fields: set[str]) -> None:
    out = rolbot("roll", "--system", system, "--seed", "7", "--count", "50", "--json", expr)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 50
    for row in rows:
        assert {"system", "total", "dice", "outcome"} | fields <= row.keys()
        assert row["system"] == system and isinstance(row["total"], int)
    assert len({row["outcome"] for row in rows}) > 1


@pytest.mark.parametrize("expr", ["99999999d99999999", "1d1!", "banana", "1d6+" * 5000])
def test_bad_expressions_exit_2_with_one_spanish_line(expr: str) -> None:
    out = rolbot("roll", expr)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("⚠️")


def test_unknown_system_exits_2() -> None:
    out = rolbot("roll", "--system", "dnd", "1d6")
    assert out.returncode == 2 and "dnd" in out.stderr


def test_plain_output_reads_like_the_bot() -> None:
    out = rolbot("roll", "--seed", "1", "3d10", "(chequeo)")
    assert out.returncode == 0
    assert out.stdout.startswith("🎲 3d10 (chequeo): [") and out.stdout.rstrip().split(" = ")[1].isdigit()


def test_count_20000_json_completes() -> None:
    out = rolbot("roll", "--count", "20000", "--json", "4d6kh3+1")
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 20000


@pytest.mark.parametrize("system, expr", [("reino", "d20+3 vs"), ("reino", "d20 cd"), ("savage", "d8 vs"),
                                          ("stormbringer", "d100 vs"), ("sombra", "3d10 vs")])
def test_a_check_without_its_target_is_refused(system: str, expr: str) -> None:
    out = rolbot("roll", "--system", system, expr)
    assert out.returncode == 2 and out.stdout == "" and "Falta" in out.stderr


@pytest.mark.parametrize("count", ["0", "-1", "100001"])
def test_roll_count_out_of_range_is_one_line_and_exit_2(count: str) -> None:
    proc = rolbot("roll", "--count", count, "d6")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "--count" in proc.stderr


def test_roll_prints_each_roll_as_it_is_made() -> None:
    proc = rolbot("roll", "--seed", "5", "--count", "3", "--json", "d6")
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0 and len(rows) == 3 and all(r["system"] == "generic" for r in rows)


# -- rolbot console as a tool (issue 29, item 8; docs/contracts.md#3.2) --

def console(db: str, lines: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--jsonl", "--db", db,
                           *options], input=lines, capture_output=True, text=True, timeout=60)


def test_a_second_console_run_on_the_same_db_answers_every_line(tmp_path) -> None:
    """Each run is new: its lines are answered even though the ids (``$`` + line number) repeat; the
    state (a character claimed in the first run) carries over."""
    db = str(tmp_path / "c.db")
    first = console(db, "@gm:local: !pj Kira @ana:local\n@ana:local: !tiro 1d6\n")
    again = console(db, "@ana:local: !tiro 1d6\n@ana:local: !tiro 1d8\n")
    assert first.returncode == 0 and again.returncode == 0 and again.stderr == ""
    events = [json.loads(line)["event"] for line in again.stdout.splitlines()]
    assert events == ["$1", "$2"]
    assert "Kira" in again.stdout  # the character claimed in the first run rolls


def test_console_reanudar_skips_what_the_crashed_run_handled_and_says_so_first(tmp_path) -> None:
    db = str(tmp_path / "c.db")
    script = "@ana:local: !tiro 1d6\n@ana:local: !tiro 1d8\n"
    assert console(db, script).returncode == 0
    resumed = console(db, script + "@ana:local: !tiro 1d10\n", "--reanudar")
    assert resumed.returncode == 0, resumed.stderr
    assert [json.loads(line)["event"] for line in resumed.stdout.splitlines()] == ["$3"]
    notes = resumed.stderr.splitlines()
    assert notes and "reanuda" in notes[0] and "2 líneas" in resumed.stderr
    assert console(db, script).stdout.count('"event": "$') == 2  # and a new run answers them again


def test_console_reanudar_without_a_db_is_refused_in_one_line() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--reanudar"], input="@ana:local: hola\n",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == "" and len(out.stderr.splitlines()) == 1
    assert "--reanudar" in out.stderr and "--db" in out.stderr


def _on_a_terminal(lines: list[str], *options: str) -> str:
    """``rolbot console`` with stdin, stdout and stderr on a pty; each line typed once the terminal
    shows the one before, then Ctrl-D. Returns all the terminal showed until the process ended."""
    import os
    import pty
    import select
    import time

    main_fd, tty_fd = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", *options],
                            stdin=tty_fd, stdout=tty_fd, stderr=tty_fd, close_fds=True)
    os.close(tty_fd)
    shown = b""

    def read_until(seen: bytes | None, seconds: float) -> None:
        """Read what the terminal shows until ``seen`` is among it (None: until the process is gone)."""
        nonlocal shown
        end = time.monotonic() + seconds
        while time.monotonic() < end and (seen is None or seen not in shown):
            ready, _, _ = select.select([main_fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(main_fd, 4096)
                except OSError:  # the process closed its side of the terminal
                    return
                if not chunk:
                    return
                shown += chunk

    read_until(b"Ctrl-D", 30)
    for line in lines:
        os.write(main_fd, line.encode() + b"\n")
        read_until(line.encode(), 10)
    os.write(main_fd, b"\x04")
    read_until(None, 30)
    assert proc.wait(timeout=30) == 0, shown.decode()
    os.close(main_fd)
    return shown.decode().replace("\r\n", "\n")


def test_console_on_a_terminal_shows_a_banner_and_each_line_once() -> None:
    shown = _on_a_terminal(["@ana:local: hola a todos", "@ana:local: !tiro 1d6"], "--system", "savage")
    lines = shown.splitlines()
    banner = lines[0]
    assert "savage" in banner and "Ctrl-D" in banner
    assert shown.count("hola a todos") == 1  # the terminal's own echo, no second copy
    assert shown.count("!tiro 1d6") == 1 and "🎲" in shown


def test_console_off_a_terminal_prints_no_banner() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.cli", "console"], input="@ana:local: hola\n",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == "" and out.stdout == "@ana:local: hola\n"


ENGLISH = ["usage:", "options:", "show this help", "positional arguments", "the following arguments",
           "invalid choice", "expected one argument", "unrecognized arguments", "invalid int value", "argument "]


@pytest.mark.parametrize("command", [(), ("roll",), ("console",), ("acta",), ("run",)])
def test_help_is_spanish_and_describes_every_option(command: tuple[str, ...]) -> None:
    import re

    out = rolbot(*command, "--help")
    assert out.returncode == 0 and out.stderr == ""
    assert not [word for word in ENGLISH if word in out.stdout], out.stdout
    assert "uso: rolbot" in out.stdout and "opciones:" in out.stdout
    options = re.findall(r"^  (-[-\w]+(?:, -[-\w]+)?(?: [A-ZÁÉÍÓÚÑ_{][^ ]*)?)(.*)\n( {8,}\S.*)?", out.stdout,
                         re.MULTILINE)
    assert options and all((description + more).strip() for _name, description, more in options), out.stdout


@pytest.mark.parametrize("args, words", [
    (("console", "--enforce", "nada"), ["no es válido", "«nada»"]),
    (("acta",), ["faltan argumentos obligatorios", "--db"]),
    (("roll", "--seed"), ["se esperaba un argumento"]),
    (("roll", "--count", "mucho", "d6"), ["no es un número entero"]),
    (("tirar",), ["no es válido", "«tirar»"]),
    (("console", "--nada"), ["argumentos no reconocidos"]),
])
def test_argument_errors_are_spanish(args: tuple[str, ...], words: list[str]) -> None:
    out = rolbot(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert "rolbot" in out.stderr and "uso:" in out.stderr
    assert not [word for word in ENGLISH if word in out.stderr], out.stderr
    assert all(word in out.stderr for word in words), out.stderr


def test_run_help_names_matrix_and_irc() -> None:
    out = rolbot("--help")
    assert "Matrix" in out.stdout and "IRC" in out.stdout
    run = rolbot("run", "--help")
    assert "Matrix" in run.stdout and "IRC" in run.stdout
