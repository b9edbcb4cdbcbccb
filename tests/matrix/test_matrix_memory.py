"""A Matrix run at rest loads nothing it has not used yet (docs/performance.md, memory at rest): a quiet
start against a real Synapse, with no private room yet, imports no jinja2 (templates wait for the first
message)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("jinja2",)

HOOK = """
import runpy, sys, traceback
out, watched = sys.argv[1], sys.argv[2].split(",")
def hook(event, args):
    if event == "import" and args[0] in watched and args[0] not in sys.modules:
        with open(out, "a") as f:
            f.write(f"== {args[0]}\\n" + "".join(traceback.format_stack()))
sys.addaudithook(hook)
sys.argv = ["rolbot", *sys.argv[3:]]
runpy.run_module("bot.cli", run_name="__main__")
"""


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


async def test_a_quiet_matrix_start_imports_no_jinja(cast, tmp_path):
    config = cast.write_config(tmp_path / "rolbot.toml")
    imports = tmp_path / "imports.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "bot.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-c", HOOK, str(imports), ",".join(WATCHED), "run", "--config",
                                 str(config)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not _healthy(f"http://127.0.0.1:{cast.web_port}/healthz"):
            assert proc.poll() is None, (tmp_path / "bot.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the bot never became healthy"
            await asyncio.sleep(0.05)
        await asyncio.sleep(2)  # past the first sync's upkeep
    finally:
        proc.terminate()
        proc.wait(30)
    assert not imports.exists(), imports.read_text()
