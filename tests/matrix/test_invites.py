"""Who may invite the bot into a room (issue 19, item 5; docs/contracts.md#3.4): by default the users of its own
homeserver; ``[matrix] allowed_inviters`` adds those it names (user ids, ``*:server`` for a whole
server). Any Matrix user could invite it before, and make it serve a room of theirs. No homeserver
needed (a second server to invite from would need federation)."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, parse_config
from bot.matrix.invites import inviter_allowed

BOT = "@rolbot:rol.example.org"


@pytest.mark.parametrize("inviter, allowed, ok", [
    ("@directora:rol.example.org", (), True),             # its own homeserver
    ("@Directora:ROL.example.org", (), True),             # server names are not case-sensitive
    ("@mallory:malo.example", (), False),                 # anyone else, by default
    ("@mallory:rol.example.org.malo.example", (), False),
    ("@amiga:otro.example", ("@amiga:otro.example",), True),
    ("@otra:otro.example", ("@amiga:otro.example",), False),
    ("@quien:otro.example", ("*:otro.example",), True),
    ("@quien:sub.otro.example", ("*:otro.example",), False),
    ("@directora:rol.example.org", ("@amiga:otro.example",), True),  # the list widens the default
    ("@directora:rol.example.org", ("*:rol.example.org", "@amiga:otro.example"), True),
    ("@amiga:otro.example", ("*:rol.example.org", "@amiga:otro.example"), True),
    (None, (), False),                                    # an invite with no readable sender
    ("no-es-un-id", (), False),
])
def test_who_may_invite(inviter: str | None, allowed: tuple[str, ...], ok: bool) -> None:
    assert inviter_allowed(inviter, BOT, allowed) is ok


@pytest.mark.parametrize("inviter, ok", [
    ("@directora:rol.example.org", False),  # its own server no longer, by itself
    ("@amiga:otro.example", True),
    ("@otra:otro.example", False),
])
def test_a_bot_on_a_public_server_takes_invites_from_the_list_alone(inviter: str, ok: bool) -> None:
    assert inviter_allowed(inviter, BOT, ("@amiga:otro.example",), own_server=False) is ok


def test_invites_from_own_server_is_a_bool() -> None:
    assert config({"invites_from_own_server": False}).matrix.invites_from_own_server is False
    assert config().matrix.invites_from_own_server is True
    with pytest.raises(ConfigError, match="invites_from_own_server"):
        config({"invites_from_own_server": "no"})


def config(matrix: dict | None = None, bot: dict | None = None):
    section = {"homeserver": "http://127.0.0.1:8008", "user_id": BOT, "password": "x", **(matrix or {})}
    return parse_config({"matrix": section, "storage": {"path": "/tmp/rolbot-test"}, "bot": bot or {}}, env={})


def test_allowed_inviters_are_read_from_matrix() -> None:
    assert config().matrix.allowed_inviters == ()
    got = config({"allowed_inviters": ["@amiga:otro.example", "*:otro.example"]}).matrix.allowed_inviters
    assert got == ("@amiga:otro.example", "*:otro.example")


@pytest.mark.parametrize("value", [["amiga"], ["*"], ["*:"], ["@a:b", 7], "@a:b", ["*:con espacio"]])
def test_a_bad_inviter_is_refused(value: object) -> None:
    with pytest.raises(ConfigError) as err:
        config({"allowed_inviters": value})
    assert err.value.code in ("bad_inviter", "not_an_inviter_list")
    assert "allowed_inviters" in str(err.value) and "[matrix]" in str(err.value)


def test_the_old_place_in_bot_says_where_it_went() -> None:
    with pytest.raises(ConfigError) as err:
        config(bot={"allowed_inviters": ["@amiga:otro.example"]})
    assert err.value.code == "moved_key"
    assert "[bot]" in str(err.value) and "[matrix]" in str(err.value)
