"""A private Synapse on loopback for the benchmarks and the fault tests (docs/development.md#4).

Built on the helpers of ``tests/integration/conftest.py`` (same config, same shared-secret
registration), with what they lack: a server that can be stopped and started again on the
same port and database, and statistics helpers shared by the benchmarks.
"""

from __future__ import annotations

import math
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from tests.matrix.conftest import PYTHON, Synapse, _write_config, free_port  # noqa: E402

ACCESS_LINE = re.compile(r"\{(?P<user>@[^}\s]+)\} Processed request: .*? \"(?P<method>[A-Z]+) (?P<path>[^ \"?]+)")
"""A line of Synapse's access log: the requester, the method and the path (query dropped)."""


class SynapseServer:
    """``with SynapseServer() as hs:`` -> ``hs.synapse`` (conftest's ``Synapse``: url, register)."""

    def __init__(self, directory: Path | None = None, access_log: bool = False) -> None:
        self.directory = directory or Path(tempfile.mkdtemp(prefix="rolbot-bench-synapse-"))
        self._own_dir = directory is None
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.config_path, self.secret = _write_config(self.directory, self.port)
        self.access_log = self.directory / "access.log"
        if access_log:
            self._log_requests()
        self.url = f"http://127.0.0.1:{self.port}"
        self.synapse = Synapse(self.url, self.secret, self.directory)
        self.proc: subprocess.Popen | None = None

    def _log_requests(self) -> None:
        """Write every client request to ``access.log`` (who, method, path): what the benchmarks
        count requests with, without a proxy in the bots' path."""
        log_yaml = self.directory / "log.yaml"
        config = yaml.safe_load(log_yaml.read_text())
        config["handlers"]["access"] = {"class": "logging.FileHandler", "filename": str(self.access_log),
                                        "formatter": "p"}
        config["loggers"] = {"synapse.access": {"level": "INFO", "handlers": ["access"], "propagate": False}}
        log_yaml.write_text(yaml.safe_dump(config))

    def requests(self, user_id: str) -> list[tuple[str, str]]:
        """(method, path) of every request ``user_id`` made so far, in order (needs ``access_log``)."""
        if not self.access_log.exists():
            return []
        out = []
        for line in self.access_log.read_text(errors="replace").splitlines():
            match = ACCESS_LINE.search(line)
            if match and match["user"] == user_id:
                out.append((match["method"], match["path"]))
        return out

    def start(self, timeout: float = 120) -> None:
        self.proc = subprocess.Popen([PYTHON, "-m", "synapse.app.homeserver", "--config-path", str(self.config_path)],
                                     cwd=self.directory, stdout=open(self.directory / "stdout.log", "ab"),
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.proc.poll() is not None:
                raise RuntimeError(f"Synapse exited: {(self.directory / 'stdout.log').read_text()[-3000:]}")
            if time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError(f"Synapse did not become healthy in {timeout:.0f} s")
            time.sleep(0.1)  # polling /health, the server's own readiness signal
        if self.synapse.admin is None:
            self.synapse.admin = self.synapse.register("admin", admin=True)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=2) as resp:
                return resp.status == 200
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def stop(self, kill: bool = False) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> SynapseServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.directory, ignore_errors=True)


def version() -> str:
    import synapse

    return synapse.__version__


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


class RolbotProcess:
    """``rolbot run`` as a subprocess, as in production; ready once ``/healthz`` answers 200."""

    def __init__(self, hs: SynapseServer, user, storage: Path, bot: dict | None = None,
                 sync_timeout_ms: int = 30000, launcher: list[str] | None = None) -> None:
        """``launcher``: what runs ``bot.cli`` (``run --config PATH`` appended); the module itself
        unless given (``bench/scale.py --tracemalloc`` wraps it)."""
        import json

        self.launcher = launcher or [PYTHON, "-m", "bot.cli"]

        self.web_port = free_port()
        storage.mkdir(parents=True, exist_ok=True)
        self.config_path = storage / "rolbot.toml"
        self.log = storage / "bot.log"
        lines = ["[matrix]", f'homeserver = "{hs.url}"', f'user_id = "{user.user_id}"',
                 f"password = {json.dumps(user.password)}", f"sync_timeout_ms = {sync_timeout_ms}",
                 "[storage]", f"path = {json.dumps(str(storage / 'state'))}",
                 "[web]", f'bind = "127.0.0.1:{self.web_port}"', "[bot]"]
        lines += [f"{k} = {json.dumps(v)}" for k, v in (bot or {}).items()]
        lines += ["[logging]", 'level = "WARNING"']
        self.config_path.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        import os

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([*self.launcher, "run", "--config", str(self.config_path)],
                                     cwd=ROOT, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.proc.poll() is not None:
                raise RuntimeError(self.log.read_text()[-3000:])
            if time.monotonic() > deadline:
                raise RuntimeError("rolbot never became healthy")
            time.sleep(0.05)  # polling /healthz, the bot's own readiness signal

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.web_port}/healthz", timeout=1) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
