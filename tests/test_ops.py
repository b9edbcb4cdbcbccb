"""Operations (issue 19, item 8): what a self-hoster meets before the first game: a fresh clone's
tests, the licence, ``rolbot --version``, the example config, the systemd unit and its install steps."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "rolbot.service"


def rolbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


# --------------------------------------------------------------------------- the house rules


def _tracked_copy(target: Path) -> Path:
    """The checkout's files (tracked and new, not ignored) copied where no ``shared/`` is above them."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_a_fresh_clone_without_the_house_rules_skips_their_checks_with_the_reason(tmp_path: Path) -> None:
    """The README's test command on a clone with no ``../shared``: the checks against the house rules
    skip and say why; with ``ROLBOT_REQUIRE_RULES=1`` (what .ci/run sets, where the rules are beside
    the clone) the same missing folder fails them."""
    clone = _tracked_copy(tmp_path / "rolbot")
    assert not any((p / "shared" / "rules").is_dir() for p in clone.parents)
    env = {k: v for k, v in os.environ.items() if k != "ROLBOT_REQUIRE_RULES"}
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/core/test_rulebook.py"]
    skipped = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True, timeout=300)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert re.search(r"\b5 skipped\b", skipped.stdout) and " failed" not in skipped.stdout, skipped.stdout
    assert "shared/rules" in skipped.stdout, "the skip says what is missing"
    required = subprocess.run(command, cwd=clone, env={**env, "ROLBOT_REQUIRE_RULES": "1"},
                              capture_output=True, text=True, timeout=300)
    assert required.returncode == 1 and re.search(r"\b5 failed\b", required.stdout), required.stdout


def test_ci_requires_the_house_rules() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^export ROLBOT_REQUIRE_RULES=1$", script, re.MULTILINE)
    assert script.index("ROLBOT_REQUIRE_RULES=1") < script.index("python -m pytest -q")


# --------------------------------------------------------------------------- what the project ships


def test_the_licence_is_mit_as_pyproject_says() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 rolbot contributors" in text
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in text


def test_no_other_programs_output_is_tracked() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    assert "ergoscf.out" not in tracked and not (ROOT / "ergoscf.out").exists()


def test_rolbot_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    proc = rolbot("--version")
    assert proc.returncode == 0 and proc.stdout == f"rolbot {version('rolbot')}\n", proc
    assert version("rolbot") == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_example_config_has_no_password_but_says_where_it_goes() -> None:
    text = (ROOT / "config" / "rolbot.example.toml").read_text()
    matrix = tomllib.loads(text)["matrix"]
    assert "password" not in matrix and "access_token" not in matrix
    assert re.search(r"^# password = ", text, re.MULTILINE) and "ROLBOT_PASSWORD" in text


# --------------------------------------------------------------------------- the systemd unit


def _unit_values(key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith(f"{key}=")]


def test_a_bad_config_is_not_restarted_forever() -> None:
    """``rolbot run`` exits 2 on a config it cannot use; systemd must not retry that every 5 s."""
    from bot.cli import EXIT_BAD_INPUT

    assert _unit_values("Restart") == ["on-failure"]
    prevented = [status for value in _unit_values("RestartPreventExitStatus") for status in value.split()]
    assert str(EXIT_BAD_INPUT) in prevented


SYSTEMD_STEPS = re.compile(r"### 5\. Con systemd\n+```sh\n(.*?)\n```", re.DOTALL)


def _install_steps(root: Path) -> str:
    """The systemd install steps (docs/self-hosting.md) as a script that writes under ``root`` instead of ``/``
    (``sudo`` dropped; ``systemctl`` and ``journalctl`` left out)."""
    match = SYSTEMD_STEPS.search((ROOT / "docs" / "self-hosting.md").read_text())
    assert match is not None, "docs/self-hosting.md: section «5. Con systemd» with one sh block"
    steps = [line for line in match[1].splitlines() if not re.match(r"\s*(sudo )?(systemctl|journalctl)\b", line)]
    script = "\n".join(steps).replace("sudo ", "")
    return re.sub(r"(?<=[\s=])/(etc|usr)/", lambda m: f"{root}/{m[1]}/", script)


def _run_steps(root: Path) -> None:
    """The steps on a system that has systemd (so ``/etc/systemd/system`` exists) under ``root``."""
    (root / "etc" / "systemd" / "system").mkdir(parents=True, exist_ok=True)
    subprocess.run(["bash", "-euo", "pipefail", "-c", _install_steps(root)], cwd=ROOT, check=True, timeout=60)


def test_the_install_steps_never_overwrite_an_edited_config(tmp_path: Path) -> None:
    _run_steps(tmp_path)
    config, env = tmp_path / "etc/rolbot/rolbot.toml", tmp_path / "etc/rolbot/rolbot.env"
    assert config.read_text() == (ROOT / "config" / "rolbot.example.toml").read_text()
    assert env.stat().st_mode & 0o077 == 0
    config.write_text(config.read_text() + '\n[rooms."!mia:example.org"]\nsystem = "savage"\n')
    env.write_text("ROLBOT_PASSWORD=la-de-verdad\n")
    edited = config.read_text(), env.read_text()
    _run_steps(tmp_path)  # installing again (an upgrade) keeps both
    assert (config.read_text(), env.read_text()) == edited
    assert (tmp_path / "etc/systemd/system/rolbot.service").read_text() == UNIT.read_text()


def test_the_units_documentation_is_installed_by_the_steps(tmp_path: Path) -> None:
    """Every ``Documentation=`` of the unit is a ``file://`` the install steps put in place (there is
    no project web site), so ``systemctl help rolbot`` opens it."""
    documentation = [uri for value in _unit_values("Documentation") for uri in value.split()]
    assert documentation and all(uri.startswith("file:///") for uri in documentation)
    _run_steps(tmp_path)
    for uri in documentation:
        path = Path(str(tmp_path) + uri.removeprefix("file://"))
        assert path.is_file(), uri
        assert path.read_text() == (ROOT / path.name).read_text()


@pytest.mark.parametrize("key", ["RestartPreventExitStatus", "Documentation"])
def test_the_unit_keys_sit_in_their_sections(key: str) -> None:
    section = ""
    for line in UNIT.read_text().splitlines():
        if line.startswith("["):
            section = line
        elif line.startswith(f"{key}="):
            assert section == ("[Unit]" if key == "Documentation" else "[Service]")


INSTALLED_DOCS = "usr/share/doc/rolbot"
DOC_LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
DOC_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def test_every_file_the_installed_docs_link_to_is_installed(tmp_path: Path) -> None:
    """Issue 29, item 10: following every relative link from the installed README, page after page, lands
    on a file the install steps put in ``/usr/share/doc/rolbot`` (the screenshots, the example rounds, the
    rules' coverage), never outside it."""
    _run_steps(tmp_path)
    top = (tmp_path / INSTALLED_DOCS).resolve()
    pages, seen, missing = [top / "README.md"], set(), []
    while pages:
        page = pages.pop()
        if page in seen:
            continue
        seen.add(page)
        for target in DOC_LINK.findall(DOC_FENCE.sub("", page.read_text(encoding="utf-8"))):
            path = target.partition("#")[0]
            if not path or re.match(r"[a-z]+:", target):
                continue
            linked = (page.parent / path).resolve()
            if not linked.is_relative_to(top) or not linked.is_file():
                missing.append(f"{page.relative_to(top)} -> {target}")
            elif linked.suffix == ".md":
                pages.append(linked)
    assert missing == []
    assert len(seen) > 10
