"""The ``[irc]`` section: its keys (``IrcConfig``'s fields), how it reads, which rooms are IRC's (its
channels, folded as IRC folds them), its channels' default mode and the secrets a log line must never
show. Light to import: no pydle."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.config import NO_SECRET, ConfigError, RoomRule, Secret, TransportSection, required, string

IRC_ACCOUNT_DOMAIN = "irc"
"""An IRC services account ``ana`` is the user id ``@ana:irc`` (config ``gms``, characters, turns)."""
IRC_FLOOD_BURST = 4
IRC_FLOOD_INTERVAL_S = 1.0
"""Token bucket for what the bot sends: a burst of 4 lines, then one a second (under ngircd's and
the common servers' excess-flood limits; replies waiting in the bucket are joined into fewer lines)."""
IRC_ENFORCEMENT_MODES = ("warn", "mute")
"""IRC cannot delete a message: no ``redact``."""


@dataclass(frozen=True)
class IrcConfig:
    server: str
    port: int = 6667
    tls: bool = False
    tls_verify: bool = True
    nick: str = "rolbot"
    password: Secret = NO_SECRET
    """SASL PLAIN (when the server offers it), else a NickServ IDENTIFY; ROLBOT_IRC_PASSWORD overrides."""
    account: str = ""
    """The services account to log in as (default: the nick)."""
    channels: tuple[str, ...] = ()
    flood_burst: int = IRC_FLOOD_BURST
    flood_interval_s: float = IRC_FLOOD_INTERVAL_S


_IRC_ACCOUNT = re.compile(r"^[^\s@:!#&,*?]{1,64}$")
_IRC_CHANNEL = re.compile(r"^[#&][^\s,\x07:]{1,49}$")
_IRC_NICK = re.compile(r"^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$")
_RFC1459_FOLD = str.maketrans("[]\\~", "{}|^")


def irc_account_id(account: str) -> str:
    """The user id of an IRC services account (accounts are case-insensitive)."""
    return f"@{account.casefold()}:{IRC_ACCOUNT_DOMAIN}"


def is_irc_channel(room_id: str) -> bool:
    return bool(_IRC_CHANNEL.match(room_id))


def irc_room_key(channel: str) -> str:
    """A channel's room id: its name folded as IRC folds it (``#Mesa`` and ``#mesa`` are one channel)."""
    return channel.translate(_RFC1459_FOLD).lower()


def irc_user_id(name: str) -> str:
    """A name in a channel's ``gms``: a bare services account ``ana`` stands for ``@ana:irc``."""
    return irc_account_id(name) if _IRC_ACCOUNT.match(name) else name


def parse_irc(irc: dict[str, Any], env: Mapping[str, str]) -> IrcConfig:
    server = required(irc, "server", "irc")
    port = irc.get("port", 6697 if irc.get("tls") else 6667)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port <= 65535:
        raise ConfigError("bad_irc_port", value=port)
    for key in ("tls", "tls_verify"):
        if key in irc and not isinstance(irc[key], bool):
            raise ConfigError("not_a_bool", key=key, where="irc")
    nick = string(irc, "nick", "irc") or "rolbot"
    if not _IRC_NICK.match(nick):
        raise ConfigError("bad_irc_nick", value=nick)
    channels = irc.get("channels", [])
    if not isinstance(channels, list) or not channels or not all(isinstance(c, str) and _IRC_CHANNEL.match(c)
                                                                  for c in channels):
        raise ConfigError("bad_irc_channels")
    burst = irc.get("flood_burst", IRC_FLOOD_BURST)
    if not isinstance(burst, int) or isinstance(burst, bool) or burst < 1:
        raise ConfigError("not_positive_int", key="flood_burst", where="irc")
    interval = irc.get("flood_interval_s", IRC_FLOOD_INTERVAL_S)
    if not isinstance(interval, int | float) or isinstance(interval, bool) or interval < 0:
        raise ConfigError("not_positive_int", key="flood_interval_s", where="irc")
    password = env.get("ROLBOT_IRC_PASSWORD") or string(irc, "password", "irc") or ""
    return IrcConfig(server=server, port=port, tls=irc.get("tls", False), tls_verify=irc.get("tls_verify", True),
                     nick=nick, password=Secret(password), account=string(irc, "account", "irc") or "",
                     channels=tuple(dict.fromkeys(channels)), flood_burst=burst, flood_interval_s=float(interval))


def channel_defaults(irc: IrcConfig, bot: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A channel with no mode of its own: ``[bot]`` enforcement if it exists on IRC, else mute (which
    falls back to warnings, said once, while the bot is no channel operator)."""
    default = bot.get("enforcement")
    mode = default if default in IRC_ENFORCEMENT_MODES else "mute"
    return {irc_room_key(channel): {"enforcement": mode} for channel in irc.channels}


def irc_secrets(irc: IrcConfig) -> list[str]:
    """The password as it is, and inside a SASL PLAIN ``AUTHENTICATE`` (base64 of ``identity NUL user
    NUL password``, identity empty or the user)."""
    if not irc.password:
        return []
    user, password = (irc.account or irc.nick).encode(), irc.password.value.encode()
    return [irc.password.value,
            *(base64.b64encode(b"\0".join((identity, user, password))).decode() for identity in (b"", user))]


SECTION = TransportSection(
    "irc", IrcConfig, parse_irc,
    RoomRule(is_irc_channel, hint="irc/room_id", key=irc_room_key, enforcement=IRC_ENFORCEMENT_MODES,
             user_id=irc_user_id, defaults=channel_defaults),
    secrets=irc_secrets)
