"""What stops rolbot before it can work is one Spanish line on stderr and exit status 2, never a
traceback (issue 10, item 18). Every case runs ``python -m bot.cli`` as a real process; the
homeserver is a closed local port, so nothing here needs a Matrix server."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest
from aiohttp import web

from bot.core.store import SCHEMA_VERSION, Store
from tests.watchdog import watchdog

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rolbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def assert_one_line(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rolbot: "), proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


def write_config(path: Path, storage: Path, bind: str | None = None, level: str | None = None) -> Path:
    """A ``rolbot run`` config whose homeserver is a closed local port."""
    lines = ["[matrix]", f'homeserver = "http://127.0.0.1:{free_port()}"', 'user_id = "@rolbot:localhost"',
             'password = "x"', "[storage]", f"path = {json.dumps(str(storage))}",
             "[web]", f'bind = "{bind or f"127.0.0.1:{free_port()}"}"']
    if level is not None:
        lines += ["[logging]", f'level = "{level}"']
    path.write_text("\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------------------- databases


def _good_db(path: Path) -> bytes:
    store = Store(str(path))
    store.db.conn.executemany("INSERT INTO rooms (room_id, data) VALUES (?, ?)",
                              [(f"!r{i}:local", "x" * 500) for i in range(300)])
    store.close()
    return path.read_bytes()


def _not_sqlite(path: Path) -> None:
    path.write_text("estas son mis notas de la partida, no una base de datos\n" * 20)


def _truncated(path: Path) -> None:
    data = _good_db(path)
    path.write_bytes(data[: len(data) // 2])


def _malformed(path: Path) -> None:
    data = bytearray(_good_db(path))
    data[4096 * 3: 4096 * 3 + 200] = b"\xff" * 200
    path.write_bytes(bytes(data))


def _newer_schema(path: Path) -> None:
    _good_db(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


@contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """Root ignores file modes: there the file is made immutable (and mutable again afterwards)."""
    _good_db(path)
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o444)
        yield


BAD_DATABASES: dict[str, tuple[Callable[[Path], object], str]] = {
    "not_sqlite": (_not_sqlite, "no es una base de datos SQLite"),
    "truncated": (_truncated, "dañada o truncada"),
    "malformed": (_malformed, "dañada o truncada"),
    "newer_schema": (_newer_schema, "versión más nueva"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATABASES))
def test_console_refuses_a_bad_database(tmp_path: Path, case: str) -> None:
    make, words = BAD_DATABASES[case]
    db = tmp_path / "mesa.db"
    make(db)
    before = db.read_bytes()
    assert_one_line(rolbot("console", "--db", str(db)), words, str(db))
    assert db.read_bytes() == before


def test_run_refuses_a_bad_database(tmp_path: Path) -> None:
    """The same ``Store`` opens both: one case is enough to show ``rolbot run`` reports it."""
    storage = tmp_path / "state"
    storage.mkdir()
    _not_sqlite(storage / "rolbot.sqlite3")
    proc = rolbot("run", "--config", str(write_config(tmp_path / "c.toml", storage)))
    assert_one_line(proc, "no es una base de datos SQLite")


def test_an_unwritable_database_is_refused(tmp_path: Path) -> None:
    storage = tmp_path / "state"
    storage.mkdir()
    db = storage / "rolbot.sqlite3"
    with unwritable(db):
        assert_one_line(rolbot("console", "--db", str(db)), "no se puede escribir")
        assert_one_line(rolbot("run", "--config", str(write_config(tmp_path / "c.toml", storage))),
                        "no se puede escribir")


def test_a_database_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    assert_one_line(rolbot("console", "--db", str(tmp_path / "no" / "existe.db")), "no se puede abrir ni crear")


def test_the_schema_version_is_sqlite_user_version(tmp_path: Path) -> None:
    Store(str(tmp_path / "mesa.db")).close()
    conn = sqlite3.connect(tmp_path / "mesa.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 1
    conn.close()


# --------------------------------------------------------------------------- rolbot run


def test_a_storage_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    storage = tmp_path / "state"
    storage.write_text("no soy una carpeta\n")
    proc = rolbot("run", "--config", str(write_config(tmp_path / "c.toml", storage)))
    assert_one_line(proc, "es un fichero", str(storage))


def test_a_storage_path_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fichero").write_text("x\n")
    storage = tmp_path / "fichero" / "state"
    proc = rolbot("run", "--config", str(write_config(tmp_path / "c.toml", storage)))
    assert_one_line(proc, "no se puede crear", str(storage))


def test_a_web_port_in_use_is_refused(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = rolbot("run", "--config", str(write_config(tmp_path / "c.toml", tmp_path / "s", f"127.0.0.1:{port}")))
    assert_one_line(proc, "ya está en uso", str(port))


def test_an_unresolvable_bind_address_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tmp_path / "s", "no-existe.invalid:8080")
    assert_one_line(rolbot("run", "--config", str(config)), "no se puede resolver", "no-existe.invalid")


def test_a_bad_logging_level_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tmp_path / "s", level="CHARLATAN")
    assert_one_line(rolbot("run", "--config", str(config)), "[logging]", "CHARLATAN")


@pytest.mark.parametrize("content", ['{"homeserver": "http://', "[]", '{"user_id": 7}', "\udcff"])
def test_a_corrupt_saved_session_is_refused(tmp_path: Path, content: str) -> None:
    storage = tmp_path / "state"
    storage.mkdir()
    (storage / "matrix_session.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    proc = rolbot("run", "--config", str(write_config(tmp_path / "c.toml", storage)))
    assert_one_line(proc, "matrix_session.json", "dañada")


def test_an_unreachable_homeserver_logs_readable_retries_and_sigterm_stops_it(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tmp_path / "state")
    homeserver = config.read_text().split('homeserver = "http://')[1].split('"')[0]
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(config)], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        retries: list[str] = []
        with watchdog("three login retries", 30):
            while len(retries) < 3:
                line = proc.stderr.readline()
                assert line, f"rolbot exited: {proc.wait()}"
                if "retrying" in line:
                    retries.append(line)
        for line in retries:
            assert homeserver in line and "Connection refused" in line, line
            assert "Error(" not in line and "ConnectionKey" not in line and "ssl=" not in line, line
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        with watchdog("rolbot exiting after SIGTERM", 30):
            rest = proc.stderr.read()
            code = proc.wait()
        print(f"stopped {time.monotonic() - started:.2f} s after SIGTERM")
        assert code == 0 and "Traceback" not in rest, rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_public_url_with_the_web_server_off_is_refused(tmp_path: Path) -> None:
    """``bind = ""`` turns the web server off: links to its pages would lead nowhere."""
    config = write_config(tmp_path / "c.toml", tmp_path / "s")
    text = config.read_text().replace('bind = "', 'public_url = "https://rol.example.org"\nbind = "#')
    config.write_text(text.split('bind = "#')[0] + 'bind = ""\n')
    assert 'bind = ""' in config.read_text() and "public_url" in config.read_text()
    assert_one_line(rolbot("run", "--config", str(config)), "public_url", "[web]", "bind")


# --------------------------------------------------------------------------- the homeserver itself
# (issue 19, item 7) A homeserver that is not Matrix was reported as a wrong password; https to a
# plain-HTTP port, or a server that never answers, kept the bot past SIGTERM. The servers here run
# in the test's event loop, so ``rolbot run`` is an asyncio subprocess.


async def rolbot_async(*args: str, timeout: float = 40) -> subprocess.CompletedProcess[str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", *args, cwd=ROOT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        raise AssertionError(f"rolbot run still running after {timeout} s: {err.decode()[-2000:]}") from None
    return subprocess.CompletedProcess(list(args), proc.returncode or 0, out.decode(), err.decode())


@asynccontextmanager
async def http_server(handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> AsyncIterator[str]:
    """A plain-HTTP aiohttp server answering every path with ``handler``; its ``host:port``."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await runner.cleanup()


def with_homeserver(config: Path, url: str) -> Path:
    text = config.read_text()
    config.write_text(text.replace(text.split('homeserver = "')[1].split('"')[0], url, 1))
    return config


NOT_MATRIX = {
    "404 page": (404, "<html><body><h1>404 Not Found</h1></body></html>"),
    "a web site": (200, "<!doctype html><html><head><title>Mi blog</title></head><body>Hola</body></html>"),
}


@pytest.mark.parametrize("case", sorted(NOT_MATRIX))
async def test_a_homeserver_that_is_not_matrix_is_its_own_error(tmp_path: Path, case: str) -> None:
    status, body = NOT_MATRIX[case]

    async def answer(_: web.Request) -> web.Response:
        return web.Response(status=status, text=body, content_type="text/html")

    async with http_server(answer) as where:
        config = with_homeserver(write_config(tmp_path / "c.toml", tmp_path / "state"), f"http://{where}")
        proc = await rolbot_async("run", "--config", str(config))
    assert_one_line(proc, "no es un servidor Matrix", f"http://{where}")
    assert "contraseña" not in proc.stderr


async def test_https_to_a_plain_http_port_is_its_own_error(tmp_path: Path) -> None:
    async def answer(_: web.Request) -> web.Response:
        return web.json_response({"versions": ["v1.11"]})

    async with http_server(answer) as where:
        config = with_homeserver(write_config(tmp_path / "c.toml", tmp_path / "state"), f"https://{where}")
        proc = await rolbot_async("run", "--config", str(config))
    assert_one_line(proc, f"https://{where}", f"http://{where}", "sin TLS")


@pytest.mark.parametrize("scheme", ["https", "http"])
async def test_sigterm_stops_a_bot_waiting_on_a_server_that_never_answers(tmp_path: Path, scheme: str) -> None:
    """The TLS handshake (https) or the first request (http) never gets an answer."""
    accepted = asyncio.Event()
    held: list[asyncio.StreamWriter] = []

    async def hold(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # accepted, never answered
        accepted.set()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    config = with_homeserver(write_config(tmp_path / "c.toml", tmp_path / "state"), f"{scheme}://127.0.0.1:{port}")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", "--config", str(config),
                                                cwd=ROOT, stderr=asyncio.subprocess.PIPE)
    try:
        await asyncio.wait_for(accepted.wait(), 30)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 10)
        print(f"stopped {time.monotonic() - started:.2f} s after SIGTERM")
        assert proc.returncode == 0 and b"Traceback" not in err, err.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for writer in held:
            writer.close()
        server.close()


async def test_a_stop_during_a_hung_login_is_a_clean_stop_of_all_transports(tmp_path: Path, caplog) -> None:
    """``run_transports`` (Matrix beside IRC) stopped while the homeserver never answers: exit 0 and
    no ERROR, as ``rolbot run`` with Matrix alone."""
    from bot.config import load_config
    from bot.runner import run_transports

    accepted = asyncio.Event()
    held: list[asyncio.StreamWriter] = []

    async def hold(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        accepted.set()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    config = load_config(str(with_homeserver(write_config(tmp_path / "c.toml", tmp_path / "state"),
                                             f"https://127.0.0.1:{port}")), env={})
    stop = asyncio.Event()
    running = asyncio.ensure_future(run_transports(config, stop))
    try:
        await asyncio.wait_for(accepted.wait(), 30)
        stop.set()
        assert await asyncio.wait_for(running, 10) == 0
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    finally:
        running.cancel()
        for writer in held:
            writer.close()
        server.close()


# --------------------------------------------------------------------------- one bot per state directory
# (issue 29, item 5) A second ``rolbot run`` on the same ``[storage] path`` started with the running one's
# device and crypto store; ``rolbot console --db`` on its database wrote beside it.


@contextmanager
def running_bot(config: Path) -> Iterator[subprocess.Popen[str]]:
    """``rolbot run`` on ``config`` (its homeserver a closed port), once it retries its login, stopped after."""
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(config)], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        with watchdog("the first bot retrying its login", 30):
            while "retrying" not in (line := proc.stderr.readline()):
                assert line, f"rolbot exited: {proc.wait()}"
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_second_bot_on_the_same_state_is_refused_naming_the_first(tmp_path: Path) -> None:
    storage = tmp_path / "state"
    config = write_config(tmp_path / "c.toml", storage)
    with running_bot(config) as first:
        assert_one_line(rolbot("run", "--config", str(write_config(tmp_path / "d.toml", storage))),
                        f"pid {first.pid}", str(storage / "rolbot.sqlite3"))
        assert_one_line(rolbot("console", "--db", str(storage / "rolbot.sqlite3")), f"pid {first.pid}")
        assert first.poll() is None


def test_the_lock_of_a_dead_bot_is_taken_over_with_a_log_line(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    db = tmp_path / "rolbot.sqlite3"
    Path(f"{db}.lock").write_text(f"{dead.pid}\n")
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--db", str(db)], cwd=ROOT, input="@ana:local: hola\n",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert f"pid {dead.pid}" in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert Path(f"{db}.lock").read_text() == ""  # a clean exit leaves no pid behind


# --------------------------------------------------------------------------- a name that does not resolve
# (issue 29, item 6) A homeserver whose name does not resolve was retried forever at start.

QUICK_RESOLVE = ("import sys; import bot.matrix.session as session; session.UNRESOLVED_TRIES = {tries}; "
                 "session.UNRESOLVED_WINDOW_S = {window}; from bot.cli import main; sys.exit(main(sys.argv[1:]))")
"""``rolbot run`` with the tries and the window of an unresolved homeserver made short for the test."""


def test_a_homeserver_name_that_does_not_resolve_is_one_line_after_its_tries(tmp_path: Path) -> None:
    config = with_homeserver(write_config(tmp_path / "c.toml", tmp_path / "state"), "http://nohay.invalid:8008")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", QUICK_RESOLVE.format(tries=3, window=3), "run", "--config",
                           str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert_one_line(proc, "nohay.invalid", "3 intentos")
    assert took < 30, took


QUICK_IRC_RESOLVE = ("import sys; import bot.irc.bot as irc; irc.UNRESOLVED_TRIES = {tries}; "
                     "irc.UNRESOLVED_WINDOW_S = {window}; from bot.cli import main; sys.exit(main(sys.argv[1:]))")


def test_an_irc_server_name_that_does_not_resolve_is_one_line_after_its_tries(tmp_path: Path) -> None:
    """The same for ``[irc] server`` (it was retried forever): one Spanish line naming it, exit 2."""
    config = tmp_path / "c.toml"
    config.write_text("\n".join(["[irc]", 'server = "nohay.invalid"', "port = 6667", 'nick = "rolbot"',
                                 'channels = ["#mesa"]', "[storage]", f"path = {json.dumps(str(tmp_path / 'st'))}",
                                 "[web]", f'bind = "127.0.0.1:{free_port()}"']) + "\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", QUICK_IRC_RESOLVE.format(tries=3, window=3), "run", "--config",
                           str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert_one_line(proc, "nohay.invalid", "3 intentos", "[irc]")
    assert time.monotonic() - started < 30
