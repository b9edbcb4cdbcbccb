"""The ``rolbot run`` configuration: a TOML file (docs/contracts.md#3.4) plus environment overrides.

Secrets (password, access token) never appear in a repr or a log line.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from bot.core.render import Renderer
from bot.core.settings import RoomSettings, TableSettings
from bot.games import GAMES

ENFORCEMENT_MODES = ("warn", "redact", "mute")
IRC_ENFORCEMENT_MODES = ("warn", "mute")
"""IRC cannot delete a message: no ``redact``."""
ROOM_KEYS = tuple(f.name for f in fields(RoomSettings) if f.name != "public_url")
"""What ``[bot]`` and each ``[rooms."…"]`` may set: a room's settings (``public_url`` is ``[web]``'s)."""
RETIRED_ROOM_KEYS = {"language": ("spanish_only", "es")}
"""Room keys an earlier version accepted, each with why it went and the one value that still starts the bot:
``language = "es"`` (in the example config earlier versions shipped) is tolerated and never read, so an
upgrade does not stop the bot; any other value in ``[bot]`` or ``[rooms."…"]`` is told to delete the line
(rolbot speaks Spanish only)."""
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LIBRARY_LOG_LEVELS = ("info", "debug")
"""``[logging] libraries``: ``debug`` lets nio, aiohttp and pydle log below INFO (never the crypto store's SQL)."""


class ConfigError(Exception):
    """A configuration problem. ``code`` names the ``templates/config_error.txt`` message; ``params``
    fill it. ``str()`` is that message (Spanish, for the person running the bot)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return Renderer().text("config_error", code=self.code, params=self.params)


@dataclass(frozen=True)
class Secret:
    value: str = field(repr=False)

    def __repr__(self) -> str:
        return "Secret('***')" if self.value else "Secret('')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self.value)


@dataclass(frozen=True)
class MatrixConfig:
    homeserver: str
    user_id: str
    password: Secret = Secret("")
    access_token: Secret = Secret("")
    device_name: str = "rolbot"
    sync_timeout_ms: int = 30000
    timeline_limit: int = 100
    undecryptable_wait_s: float = 30.0
    """How long a message the bot cannot decrypt waits for its key before its sender is told."""
    allowed_inviters: tuple[str, ...] = ()
    """Who may invite the bot besides the users of its own homeserver: user ids, ``*:server`` patterns."""
    invites_from_own_server: bool = True
    """False: only ``allowed_inviters`` may invite (a bot on a public homeserver such as matrix.org)."""


IRC_ACCOUNT_DOMAIN = "irc"
"""An IRC services account ``ana`` is the user id ``@ana:irc`` (config ``gms``, characters, turns)."""
IRC_FLOOD_BURST = 4
IRC_FLOOD_INTERVAL_S = 1.0
"""Token bucket for what the bot sends: a burst of 4 lines, then one a second (under ngircd's and
the common servers' excess-flood limits; replies waiting in the bucket are joined into fewer lines)."""


@dataclass(frozen=True)
class IrcConfig:
    server: str
    port: int = 6667
    tls: bool = False
    tls_verify: bool = True
    nick: str = "rolbot"
    password: Secret = Secret("")
    """SASL PLAIN (when the server offers it), else a NickServ IDENTIFY; ROLBOT_IRC_PASSWORD overrides."""
    account: str = ""
    """The services account to log in as (default: the nick)."""
    channels: tuple[str, ...] = ()
    flood_burst: int = IRC_FLOOD_BURST
    flood_interval_s: float = IRC_FLOOD_INTERVAL_S


@dataclass(frozen=True)
class Config:
    """The whole configuration. A field named ``<prefix>_<key>`` (prefixes in ``CONFIG_PREFIXES``:
    ``web_bind``, ``log_level``) is the key ``<key>`` of that section, so a new such field is a key
    the checker knows (``section_keys``); ``[matrix]`` and ``[irc]`` keys are their dataclasses' fields."""

    matrix_config: MatrixConfig | None
    """``[matrix]``, when the config has it (``matrix`` is for the Matrix transport, which needs it)."""
    storage_path: str
    irc: IrcConfig | None = None
    web_bind: str | None = "127.0.0.1:8080"
    web_trusted_proxy: str | None = None
    """``[web] trusted_proxy``: the reverse proxy's address; only its ``X-Forwarded-For`` names the client."""
    table: TableSettings = field(default_factory=TableSettings)
    log_level: str = "INFO"
    log_libraries: str = "info"
    templates_dir: str | None = None
    """A group's own message files, searched before the shipped ones (same names)."""

    @property
    def matrix(self) -> MatrixConfig:
        if self.matrix_config is None:
            raise ConfigError("missing_key", key="matrix", where="matrix")
        return self.matrix_config

    @property
    def db_path(self) -> str:
        return os.path.join(self.storage_path, "rolbot.sqlite3")

    @property
    def session_path(self) -> str:
        return os.path.join(self.storage_path, "matrix_session.json")

    def web_host_port(self) -> tuple[str, int] | None:
        if not self.web_bind:
            return None
        host, _, port = self.web_bind.rpartition(":")
        return host.strip("[]") or "127.0.0.1", int(port)


CONFIG_PREFIXES = {"storage": ("storage_",), "web": ("web_",), "templates": ("templates_",),
                   "logging": ("log_", "logging_")}
"""The sections whose keys are ``Config`` fields, by the prefix of those fields' names."""


def section_keys() -> dict[str, frozenset[str]]:
    """Every section's keys, each from the one place that declares them: the dataclass the section
    fills, or the ``Config`` fields of its prefix, plus the few keys kept elsewhere (``[web]
    public_url`` is in the rooms' settings; ``[bot]`` is the rooms' defaults and who may invite).
    ``rooms`` is each ``[rooms."…"]`` section."""
    config_fields = [f.name for f in fields(Config)]
    keys = {section: frozenset(name.removeprefix(prefix) for name in config_fields for prefix in prefixes
                               if name.startswith(prefix))
            for section, prefixes in CONFIG_PREFIXES.items()}
    return {**keys,
            "matrix": frozenset(f.name for f in fields(MatrixConfig)),
            "irc": frozenset(f.name for f in fields(IrcConfig)),
            "web": keys["web"] | {"public_url"},
            "bot": frozenset((*ROOM_KEYS, "allowed_inviters")),
            "rooms": frozenset(ROOM_KEYS)}


def _close(word: str, known: frozenset[str]) -> str | None:
    """The known name ``word`` most resembles (a typo: ``pasword``), or None."""
    folded = {name.casefold(): name for name in known}
    match = difflib.get_close_matches(word.casefold(), folded, n=1)
    return folded[match[0]] if match else None


def _check_names(data: dict) -> None:
    """Refuse the first unknown section or key (in the file's order), before anything is read from
    them: a misspelt ``pasword`` is itself the error, not the missing password it leaves behind."""
    keys = section_keys()
    sections = frozenset(keys)
    for name, section in data.items():
        if not isinstance(section, dict):
            if name in sections:
                continue  # ``matrix = "x"``: ``_table`` says it must be a table
            raise ConfigError("key_outside_section", key=name,
                              sections=sorted(s for s, known in keys.items() if name in known))
        if name not in sections:
            raise ConfigError("unknown_section", name=name, close=_close(name, sections), known=sorted(sections))
        tables = [(f'rooms."{room}"', table) for room, table in section.items()] if name == "rooms" \
            else [(name, section)]
        for where, table in tables:
            if isinstance(table, dict):  # a room that is no table: ``bad_room_id``
                _check_keys(table, where, keys[name], RETIRED_ROOM_KEYS if name in ("bot", "rooms") else {})


def _check_keys(table: dict, where: str, known: frozenset[str], retired: Mapping[str, tuple[str, str]]) -> None:
    for key in table:
        if key in retired and table[key] == retired[key][1]:
            continue
        if key not in known:
            raise ConfigError("unknown_key", key=key, where=where, close=_close(key, known), known=sorted(known),
                              retired=retired[key][0] if key in retired else None)


def _table(data: dict, name: str) -> dict:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError("not_a_table", name=name)
    return value


def _str(section: dict, key: str, where: str, default: str | None = None) -> str | None:
    value = section.get(key, default)
    if value is not None and not isinstance(value, str):
        raise ConfigError("not_a_string", key=key, where=where)
    return value


def _required(section: dict, key: str, where: str) -> str:
    value = _str(section, key, where)
    if value is None:
        raise ConfigError("missing_key", key=key, where=where)
    return value


def _user_list(section: dict, key: str, where: str, irc: bool = False) -> tuple[str, ...]:
    """User ids; in an IRC channel's section a bare services account ``ana`` stands for ``@ana:irc``."""
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("not_a_user_list", key=key, where=where)
    users = []
    for user in value:
        if irc and _IRC_ACCOUNT.match(user):
            user = irc_account_id(user)
        if not user.startswith("@") or ":" not in user:
            raise ConfigError("bad_user_in_list", user=user, key=key, where=where)
        users.append(user)
    return tuple(users)


_INVITER = re.compile(r"^(@[^\s:]+|\*):[^\s:]+(:[0-9]{1,5})?$")


def _inviter_list(section: dict, key: str, where: str) -> tuple[str, ...]:
    """User ids and ``*:server`` patterns (every user of that server)."""
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("not_an_inviter_list", key=key, where=where)
    for entry in value:
        if not _INVITER.match(entry):
            raise ConfigError("bad_inviter", value=entry, key=key, where=where)
    return tuple(value)


_IRC_ACCOUNT = re.compile(r"^[^\s@:!#&,*?]{1,64}$")
_IRC_CHANNEL = re.compile(r"^[#&][^\s,\x07:]{1,49}$")
_IRC_NICK = re.compile(r"^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$")


def irc_account_id(account: str) -> str:
    """The user id of an IRC services account (accounts are case-insensitive)."""
    return f"@{account.casefold()}:{IRC_ACCOUNT_DOMAIN}"


def is_irc_channel(room_id: str) -> bool:
    return room_id.startswith(("#", "&"))


def irc_room_key(channel: str) -> str:
    """A channel's room id: its name folded as IRC folds it (``#Mesa`` and ``#mesa`` are one channel)."""
    return channel.translate(_RFC1459_FOLD).lower()


_RFC1459_FOLD = str.maketrans("[]\\~", "{}|^")

def _room_fields(section: dict, where: str, allowed: tuple[str, ...], irc: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key not in allowed:
            continue
        if key == "system":
            if value not in GAMES:
                raise ConfigError("unknown_system", value=value, where=where, known=GAMES.keys())
            out[key] = value
        elif key == "enforcement":
            known = IRC_ENFORCEMENT_MODES if irc else ENFORCEMENT_MODES
            if value not in known:
                raise ConfigError("bad_enforcement", value=value, where=where, known=known)
            out[key] = value
        elif key == "ooc_in_locks":
            if not isinstance(value, bool):
                raise ConfigError("not_a_bool", key=key, where=where)
            out[key] = value
        elif key == "gms":
            out[key] = _user_list(section, "gms", where, irc)
    return out


def _matrix_config(matrix: dict, env: Mapping[str, str]) -> MatrixConfig:
    homeserver = _required(matrix, "homeserver", "matrix")
    if not homeserver.startswith(("http://", "https://")):
        raise ConfigError("bad_homeserver", value=homeserver)
    user_id = _required(matrix, "user_id", "matrix")
    if not user_id.startswith("@") or ":" not in user_id:
        raise ConfigError("bad_user_id", value=user_id)
    password = env.get("ROLBOT_PASSWORD") or _str(matrix, "password", "matrix") or ""
    token = env.get("ROLBOT_ACCESS_TOKEN") or _str(matrix, "access_token", "matrix") or ""
    if not password and not token:
        raise ConfigError("missing_credentials")
    for key in ("sync_timeout_ms", "timeline_limit", "undecryptable_wait_s"):
        if key in matrix and (not isinstance(matrix[key], int) or isinstance(matrix[key], bool) or matrix[key] < 1):
            raise ConfigError("not_positive_int", key=key, where="matrix")
    own_server = matrix.get("invites_from_own_server", True)
    if not isinstance(own_server, bool):
        raise ConfigError("not_a_bool", key="invites_from_own_server", where="matrix")
    return MatrixConfig(
        homeserver=homeserver.rstrip("/"),
        user_id=user_id,
        password=Secret(password),
        access_token=Secret(token),
        device_name=_str(matrix, "device_name", "matrix") or "rolbot",
        sync_timeout_ms=matrix.get("sync_timeout_ms", 30000),
        timeline_limit=matrix.get("timeline_limit", 100),
        undecryptable_wait_s=float(matrix.get("undecryptable_wait_s", 30)),
        allowed_inviters=_inviter_list(matrix, "allowed_inviters", "matrix"),
        invites_from_own_server=own_server,
    )


def _irc_config(irc: dict, env: Mapping[str, str]) -> IrcConfig:
    server = _required(irc, "server", "irc")
    port = irc.get("port", 6697 if irc.get("tls") else 6667)
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port <= 65535:
        raise ConfigError("bad_irc_port", value=port)
    for key in ("tls", "tls_verify"):
        if key in irc and not isinstance(irc[key], bool):
            raise ConfigError("not_a_bool", key=key, where="irc")
    nick = _str(irc, "nick", "irc") or "rolbot"
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
    password = env.get("ROLBOT_IRC_PASSWORD") or _str(irc, "password", "irc") or ""
    return IrcConfig(server=server, port=port, tls=irc.get("tls", False), tls_verify=irc.get("tls_verify", True),
                     nick=nick, password=Secret(password), account=_str(irc, "account", "irc") or "",
                     channels=tuple(dict.fromkeys(channels)), flood_burst=burst, flood_interval_s=float(interval))


def parse_config(data: dict, env: Mapping[str, str] | None = None) -> Config:
    if env is None:
        env = os.environ
    _check_names(data)
    if "matrix" not in data and "irc" not in data:
        raise ConfigError("no_transport")
    mcfg = _matrix_config(_table(data, "matrix"), env) if "matrix" in data else None
    icfg = _irc_config(_table(data, "irc"), env) if "irc" in data else None

    storage = _table(data, "storage")
    path = _required(storage, "path", "storage")

    web = _table(data, "web")
    bind = _str(web, "bind", "web", default="127.0.0.1:8080")
    public_url = _str(web, "public_url", "web")
    if public_url is not None and (not public_url.startswith(("http://", "https://")) or any(c.isspace() for c in public_url)):
        raise ConfigError("bad_public_url", value=public_url)
    if public_url is not None and not bind:
        raise ConfigError("public_url_without_bind", value=public_url)
    if bind:
        _host, sep, port = bind.rpartition(":")
        if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ConfigError("bad_bind", value=bind)
    trusted_proxy = _str(web, "trusted_proxy", "web")
    if trusted_proxy is not None:
        try:
            ipaddress.ip_address(trusted_proxy)
        except ValueError:
            raise ConfigError("bad_trusted_proxy", value=trusted_proxy) from None

    botsec = _table(data, "bot")
    if "allowed_inviters" in botsec:
        raise ConfigError("moved_key", key="allowed_inviters", old="bot", new="matrix")
    defaults = RoomSettings(**_room_fields(botsec, "bot", ROOM_KEYS), public_url=public_url.rstrip("/") if public_url else None)

    rooms: dict[str, dict] = {}
    for room_id, section in _table(data, "rooms").items():
        where = f'rooms."{room_id}"'
        irc = is_irc_channel(room_id)
        if not ((room_id.startswith("!") and len(room_id) >= 2) or (irc and _IRC_CHANNEL.match(room_id))) \
                or not isinstance(section, dict):
            raise ConfigError("bad_room_id", where=where)
        rooms[irc_room_key(room_id) if irc else room_id] = _room_fields(section, where, ROOM_KEYS, irc)
    if icfg is not None:
        # An IRC channel with no mode of its own: [bot] enforcement if it exists on IRC, else mute
        # (which falls back to warnings, said once, while the bot is no channel operator).
        default = botsec.get("enforcement")
        for channel in icfg.channels:
            room = rooms.setdefault(irc_room_key(channel), {})
            room.setdefault("enforcement", default if default in IRC_ENFORCEMENT_MODES else "mute")

    templates_dir = _str(_table(data, "templates"), "dir", "templates")
    if templates_dir is not None and not os.path.isdir(templates_dir):
        raise ConfigError("bad_templates_dir", value=templates_dir)

    level = _str(_table(data, "logging"), "level", "logging") or "INFO"
    if level.upper() not in LOG_LEVELS:
        raise ConfigError("bad_log_level", value=level, known=LOG_LEVELS)
    libraries = _str(_table(data, "logging"), "libraries", "logging") or "info"
    if libraries.lower() not in LIBRARY_LOG_LEVELS:
        raise ConfigError("bad_log_libraries", value=libraries, known=LIBRARY_LOG_LEVELS)
    return Config(
        matrix_config=mcfg,
        storage_path=path,
        irc=icfg,
        web_bind=bind or None,
        web_trusted_proxy=trusted_proxy,
        table=TableSettings(defaults=defaults, rooms=rooms),
        log_level=level.upper(),
        log_libraries=libraries.lower(),
        templates_dir=templates_dir,
    )


def load_config(path: str, env: Mapping[str, str] | None = None) -> Config:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError("no_file", path=path) from None
    except PermissionError:
        raise ConfigError("unreadable_file", path=path) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("not_toml", path=path, detail=str(err)) from None
    return parse_config(data, env)
