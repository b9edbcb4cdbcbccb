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
