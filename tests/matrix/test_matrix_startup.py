"""A wrong password against a real Synapse: one Spanish line and exit 2 (issue 10, item 18)."""

from __future__ import annotations

import subprocess
import sys

from tests.matrix.conftest import ROOT


async def test_a_wrong_password_is_one_line_and_exit_2(cast, tmp_path):
    config = cast.write_config(tmp_path / "rolbot.toml", matrix={"password": "no-es-esta"})
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "rechazado el inicio de sesión" in lines[0], proc.stderr
    assert cast.bot_user.user_id in lines[0]
