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
