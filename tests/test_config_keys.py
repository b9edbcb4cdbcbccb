"""Every section and key of the ``rolbot run`` config is checked: a misspelt one (``pasword``) is one
Spanish line naming it, with «¿querías decir …?» when a known one is close (issue 19, item 8)."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, parse_config, section_keys
from bot.core.settings import RoomSettings
from bot.irc.config import IrcConfig
from bot.matrix.config import MatrixConfig
from bot.transports import TRANSPORTS
from tests.test_startup_errors import assert_one_line, rolbot, write_config

ROOT = Path(__file__).resolve().parents[1]
MATRIX = {"homeserver": "http://127.0.0.1:8008", "user_id": "@rolbot:localhost", "password": "x"}
GOOD = {"matrix": MATRIX, "storage": {"path": "/tmp/rolbot-test"}}


def refusal(data: dict) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        parse_config(data, env={})
    return err.value


@pytest.mark.parametrize("data, wrong, meant", [
    ({"matrix": {**{k: v for k, v in MATRIX.items() if k != "password"}, "pasword": "x"}, "storage": GOOD["storage"]},
     "pasword", "password"),
    ({**GOOD, "matrix": {**MATRIX, "homeservr": "http://x"}}, "homeservr", "homeserver"),
    ({**GOOD, "storage": {"path": "/tmp/x", "pth": "/tmp/y"}}, "pth", "path"),
    ({**GOOD, "web": {"bnd": "127.0.0.1:8080"}}, "bnd", "bind"),
    ({**GOOD, "web": {"publicurl": "https://rol.example.org"}}, "publicurl", "public_url"),
    ({**GOOD, "logging": {"levl": "DEBUG"}}, "levl", "level"),
    ({**GOOD, "templates": {"dri": "/tmp"}}, "dri", "dir"),
    ({**GOOD, "bot": {"enforcment": "warn"}}, "enforcment", "enforcement"),
    ({**GOOD, "bot": {"allowed_inviter": ["@a:b"]}}, "allowed_inviter", "allowed_inviters"),
    ({**GOOD, "rooms": {"!a:b": {"sistema": "savage"}}}, "sistema", "system"),
    ({**GOOD, "irc": {"server": "irc.example.org", "chanels": ["#mesa"]}}, "chanels", "channels"),
])
def test_a_misspelt_key_is_named_with_the_one_it_resembles(data: dict, wrong: str, meant: str) -> None:
    err = refusal(data)
    assert err.code == "unknown_key"
    assert f"«{wrong}»" in str(err) and f"¿querías decir «{meant}»?" in str(err), str(err)


def test_the_key_is_checked_before_what_it_would_have_set() -> None:
    """``pasword`` alone is reported as itself, not as a missing password."""
    data = {"matrix": {"homeserver": "http://x", "user_id": "@a:b", "pasword": "x"}, "storage": {"path": "/x"}}
    assert "[matrix]" in str(refusal(data)) and refusal(data).code == "unknown_key"


@pytest.mark.parametrize("section, meant", [("strorage", "storage"), ("matirx", "matrix"), ("loging", "logging"),
                                            ("room", "rooms"), ("Web", "web")])
def test_a_misspelt_section_is_named_with_the_one_it_resembles(section: str, meant: str) -> None:
    err = refusal({**GOOD, section: {"x": 1}})
    assert err.code == "unknown_section"
    assert f"[{section}]" in str(err) and f"¿querías decir [{meant}]?" in str(err), str(err)


def test_nothing_close_lists_what_is_known() -> None:
    err = refusal({**GOOD, "matrix": {**MATRIX, "color": "rojo"}})
    assert "¿querías" not in str(err) and "«color»" in str(err)
    assert all(f.name in str(err) for f in fields(MatrixConfig))
    err = refusal({**GOOD, "musica": {}})
    assert "¿querías" not in str(err) and "[musica]" in str(err) and "[storage]" in str(err)


def test_a_key_outside_any_section_says_which_section_it_belongs_to() -> None:
    err = refusal({**GOOD, "level": "DEBUG"})
    assert err.code == "key_outside_section" and "«level»" in str(err) and "[logging]" in str(err), str(err)


def test_the_known_keys_are_the_fields_each_section_fills() -> None:
    """One declaration per section: what it fills (a new field is a new key, with no list to edit)."""
    keys = section_keys()
    assert keys["matrix"] == {f.name for f in fields(MatrixConfig)}
    assert keys["irc"] == {f.name for f in fields(IrcConfig)}
    for transport in TRANSPORTS:
        assert keys[transport.name] == {f.name for f in fields(transport.config.schema)}
    config_fields = {f.name for f in fields(Config)}
    assert {f"storage_{k}" for k in keys["storage"]} <= config_fields and keys["storage"] == {"path"}
    assert {"level"} <= keys["logging"] and {"bind", "public_url"} <= keys["web"] and keys["templates"] == {"dir"}
    for section in ("matrix", "irc"):
        for key in keys[section]:
            err = None
            try:
                parse_config({**GOOD, "irc": {"server": "irc.example.org", "channels": ["#mesa"]},
                              section: {**GOOD.get(section, {"server": "irc.example.org", "channels": ["#mesa"]}),
                                        key: object()}}, env={})
            except ConfigError as caught:
                err = caught
            assert err is None or err.code not in ("unknown_key", "unknown_section"), (section, key)


@pytest.mark.parametrize("name", ["rolbot.example.toml", "rolbot-irc.example.toml"])
def test_the_example_configs_use_only_known_keys(name: str) -> None:
    data = tomllib.loads((ROOT / "config" / name).read_text())
    config = parse_config(data, env={"ROLBOT_PASSWORD": "x"})
    assert config.storage_path == "/var/lib/rolbot"


def test_rolbot_run_names_the_misspelt_key_in_one_line(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tmp_path / "s")
    config.write_text(config.read_text().replace("password", "pasword"))
    assert_one_line(rolbot("run", "--config", str(config)), "«pasword»", "[matrix]", "¿querías decir «password»?")


@pytest.mark.parametrize("data, where", [
    ({**GOOD, "bot": {"language": "en"}}, "[bot]"),
    ({**GOOD, "rooms": {"!a:b": {"system": "savage", "language": "ca"}}}, '[rooms."!a:b"]'),
])
def test_language_is_no_setting_and_a_config_that_still_sets_it_is_told_to_delete_it(data: dict, where: str) -> None:
    """``language`` was parsed and never read (issue 23, item 4); it is no contract: the key is gone, and a
    config that asks for another language hears why and what to do, in one line."""
    err = refusal(data)
    assert err.code == "unknown_key" and "«language»" in str(err) and where in str(err), str(err)
    assert "español" in str(err) and "borra" in str(err), str(err)
    assert "language" not in {f.name for f in fields(RoomSettings)}


@pytest.mark.parametrize("data", [
    {**GOOD, "bot": {"language": "es"}}, {**GOOD, "rooms": {"!a:b": {"system": "savage", "language": "es"}}},
])
def test_a_config_from_an_earlier_version_with_language_es_still_starts(data: dict) -> None:
    """The example config of earlier versions set ``language = "es"``: an upgrade must not stop the bot."""
    without = {**data, **{name: ({room: {k: v for k, v in t.items() if k != "language"} for room, t in section.items()}
                                 if name == "rooms" else {k: v for k, v in section.items() if k != "language"})
                          for name, section in data.items() if name in ("bot", "rooms")}}
    assert parse_config(data, env={}).table == parse_config(without, env={}).table


def test_language_elsewhere_is_an_unknown_key_like_any_other() -> None:
    err = refusal({**GOOD, "matrix": {**MATRIX, "language": "es"}})
    assert err.code == "unknown_key" and "español" not in str(err) and "válidas:" in str(err), str(err)


def test_rolbot_run_refuses_a_language_setting_in_one_line(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", tmp_path / "s")
    config.write_text(config.read_text() + '[rooms."!mesa:localhost"]\nlanguage = "en"\n')
    assert_one_line(rolbot("run", "--config", str(config)), "«language»", '[rooms."!mesa:localhost"]', "español")
