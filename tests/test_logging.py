"""What ``rolbot run`` logs (issue 19, item 3): its own lines at ``[logging] level``; the libraries'
(the crypto store's SQL through peewee, nio, aiohttp, pydle) never below INFO unless
``[logging] libraries = "debug"``, and peewee's SQL (the store's pickled keys as parameters) never."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator

import pytest

from bot.config import ConfigError, parse_config
from bot.runner import configure_logging

LIBRARIES = ("nio", "aiohttp", "pydle", "rolbot.irc.pydle")
NAMES = ("", "rolbot", "peewee", *LIBRARIES)


def config(**logging_section: str):
    return parse_config({"matrix": {"homeserver": "http://127.0.0.1:8008", "user_id": "@rolbot:localhost",
                                    "password": "x"},
                         "storage": {"path": "/tmp/rolbot-test"}, "logging": logging_section}, env={})


@pytest.fixture(autouse=True)
def saved_levels() -> Iterator[None]:
    levels = {name: logging.getLogger(name).level for name in NAMES}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def level(name: str) -> int:
    return logging.getLogger(name).getEffectiveLevel()


def test_debug_is_the_bots_own_the_libraries_stay_at_info() -> None:
    configure_logging(config(level="DEBUG"))
    assert level("rolbot") == logging.DEBUG
    for name in ("peewee", *LIBRARIES):
        assert level(name) >= logging.INFO, name


def test_libraries_debug_opens_them_but_never_the_store_sql() -> None:
    configure_logging(config(level="DEBUG", libraries="debug"))
    for name in LIBRARIES:
        assert level(name) == logging.DEBUG, name
    assert level("peewee") >= logging.INFO


def test_libraries_follow_a_level_above_info() -> None:
    configure_logging(config(level="WARNING"))
    for name in ("rolbot", "peewee", *LIBRARIES):
        assert level(name) >= logging.WARNING, name


def test_a_bad_libraries_value_is_refused() -> None:
    with pytest.raises(ConfigError) as err:
        config(libraries="todo")
    assert err.value.code == "bad_log_libraries"
    assert "libraries" in str(err.value) and "todo" in str(err.value)


def test_a_library_printing_the_irc_password_at_debug_logs_it_masked(capsys: pytest.CaptureFixture[str]) -> None:
    """pydle logs every line it sends at DEBUG, ``IDENTIFY <password>`` included: the config's secrets
    never reach a log line, whatever ``libraries`` says."""
    cfg = parse_config({"irc": {"server": "127.0.0.1", "nick": "rolbot", "channels": ["#mesa"],
                                "password": "s3cr3t-nickserv"},
                        "matrix": {"homeserver": "http://127.0.0.1:8008", "user_id": "@rolbot:localhost",
                                   "password": "m4trix-pass"},
                        "storage": {"path": "/tmp/rolbot-test"}, "logging": {"level": "DEBUG", "libraries": "debug"}},
                       env={})
    handler = logging.StreamHandler()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        configure_logging(cfg)
        logging.getLogger("pydle.client").debug(">> %s", "PRIVMSG NickServ :IDENTIFY s3cr3t-nickserv")
        logging.getLogger("nio").debug("login with m4trix-pass")
        logging.getLogger("pydle.client").debug(">> AUTHENTICATE %s", base64.b64encode(b"\0rolbot\0s3cr3t-nickserv").decode())
    finally:
        root.removeHandler(handler)
    err = capsys.readouterr().err
    assert "IDENTIFY ***" in err and "login with ***" in err and "AUTHENTICATE ***" in err
    assert "s3cr3t-nickserv" not in err and "m4trix-pass" not in err


async def test_the_run_says_its_version_transports_and_web_address_once_ready(tmp_path, caplog) -> None:
    """Issue 29, item 10: one INFO line once every transport is connected: the version, the transports
    and where the web server listens (and the public address the links use)."""
    import asyncio
    import dataclasses
    import socket
    from importlib.metadata import version

    from bot.runner import run_transports
    from bot.transport import TransportRegistry
    from bot.transports import TRANSPORTS
    from tests.core.test_toy_transport import load_toy, toy_config

    toy = load_toy(tmp_path)

    class Waiting(toy.ToyTransport):  # type: ignore[misc, name-defined]
        """The toy, connected until the run stops it."""

        stopped = asyncio.Event()

        async def run(self) -> None:
            await super().run()
            await self.stopped.wait()

        def stop(self) -> None:
            self.stopped.set()

    description = dataclasses.replace(toy.TRANSPORT, build=lambda config, table, metrics, mode: Waiting(
        "juguete", config.section(toy.ToyConfig).rooms, table.store, metrics))
    transports = TransportRegistry(*TRANSPORTS, description)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = {**toy_config(tmp_path), "web": {"bind": f"127.0.0.1:{port}", "public_url": "https://rol.example.org"}}
    config = parse_config(data, env={}, transports=transports.sections())
    stop = asyncio.Event()
    caplog.set_level(logging.INFO, logger="rolbot")
    running = asyncio.ensure_future(run_transports(config, stop, transports=transports))
    try:
        for _ in range(100):
            if any("ready" in r.getMessage() for r in caplog.records if r.name == "rolbot"):
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        assert await asyncio.wait_for(running, 10) == 0
    [line] = [r.getMessage() for r in caplog.records if r.name == "rolbot" and "ready" in r.getMessage()]
    assert version("rolbot") in line and "juguete" in line, line
    assert f"http://127.0.0.1:{port}" in line and "https://rol.example.org" in line, line
