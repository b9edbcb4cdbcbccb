"""The shipped unit passes ``systemd-analyze verify`` (.ci/run installs the tool where it is missing)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "rolbot.service"
ANALYZE = shutil.which("systemd-analyze")


def test_unit_is_hardened() -> None:
    text = UNIT.read_text()
    for line in ("NoNewPrivileges=yes", "ProtectSystem=strict", "StateDirectory=rolbot",
                 "Restart=on-failure", "DynamicUser=yes", "PrivateTmp=yes"):
        assert line in text
    assert "password" not in text.lower() or "ROLBOT_PASSWORD" in text


def test_unit_verifies(tmp_path: Path) -> None:
    assert ANALYZE is not None, "systemd-analyze is needed (.ci/run installs Debian's systemd)"
    rolbot = Path(sys.executable).with_name("rolbot")
    unit = tmp_path / "rolbot.service"
    unit.write_text(UNIT.read_text().replace("/opt/rolbot/venv/bin/rolbot", str(rolbot)))
    out = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [line for line in out.stderr.splitlines() if "rolbot.service" in line]
    assert out.returncode == 0 and problems == [], out.stderr
