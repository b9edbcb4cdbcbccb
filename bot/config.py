"""The ``rolbot run`` configuration: a TOML file (DESIGN.md 3.4) plus environment overrides.

Secrets (password, access token) never appear in a repr or a log line.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.render import Renderer
from bot.core.settings import RoomSettings, TableSettings
from bot.games import GAMES

ENFORCEMENT_MODES = ("warn", "redact", "mute")
ROOM_KEYS = ("system", "gms", "enforcement", "ooc_in_locks", "language")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


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


@dataclass(frozen=True)
class Config:
    matrix: MatrixConfig
    storage_path: str
    web_bind: str | None = "127.0.0.1:8080"
    allowed_inviters: tuple[str, ...] = ()
    table: TableSettings = field(default_factory=TableSettings)
    log_level: str = "INFO"
    templates_dir: str | None = None
    """A group's own message files, searched before the shipped ones (same names)."""

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


def _user_list(section: dict, key: str, where: str) -> tuple[str, ...]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("not_a_user_list", key=key, where=where)
    for user in value:
        if not user.startswith("@") or ":" not in user:
            raise ConfigError("bad_user_in_list", user=user, key=key, where=where)
    return tuple(value)


def _room_fields(section: dict, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key not in allowed:
            continue
        if key == "system":
            if value not in GAMES:
                raise ConfigError("unknown_system", value=value, where=where, known=GAMES.keys())
            out[key] = value
        elif key == "enforcement":
            if value not in ENFORCEMENT_MODES:
                raise ConfigError("bad_enforcement", value=value, where=where, known=ENFORCEMENT_MODES)
            out[key] = value
        elif key == "ooc_in_locks":
            if not isinstance(value, bool):
                raise ConfigError("not_a_bool", key=key, where=where)
            out[key] = value
        elif key == "gms":
            out[key] = _user_list(section, "gms", where)
        elif key == "language":
            out[key] = _str(section, "language", where)
    return out


def parse_config(data: dict, env: Mapping[str, str] | None = None) -> Config:
    if env is None:
        env = os.environ
    matrix = _table(data, "matrix")
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
            raise ConfigError("not_positive_int", key=key)
    mcfg = MatrixConfig(
        homeserver=homeserver.rstrip("/"),
        user_id=user_id,
        password=Secret(password),
        access_token=Secret(token),
        device_name=_str(matrix, "device_name", "matrix") or "rolbot",
        sync_timeout_ms=matrix.get("sync_timeout_ms", 30000),
        timeline_limit=matrix.get("timeline_limit", 100),
        undecryptable_wait_s=float(matrix.get("undecryptable_wait_s", 30)),
    )

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

    botsec = _table(data, "bot")
    unknown = set(botsec) - {*ROOM_KEYS, "allowed_inviters"}
    if unknown:
        raise ConfigError("unknown_keys", unknown=sorted(unknown), where="bot",
                          known=("allowed_inviters", *ROOM_KEYS))
    defaults = RoomSettings(**_room_fields(botsec, "bot", ROOM_KEYS), public_url=public_url.rstrip("/") if public_url else None)
    inviters = _user_list(botsec, "allowed_inviters", "bot")

    rooms: dict[str, dict] = {}
    for room_id, section in _table(data, "rooms").items():
        where = f'rooms."{room_id}"'
        if not room_id.startswith("!") or len(room_id) < 2 or not isinstance(section, dict):
            raise ConfigError("bad_room_id", where=where)
        unknown = set(section) - set(ROOM_KEYS)
        if unknown:
            raise ConfigError("unknown_keys", unknown=sorted(unknown), where=where, known=ROOM_KEYS)
        rooms[room_id] = _room_fields(section, where, ROOM_KEYS)

    templates_dir = _str(_table(data, "templates"), "dir", "templates")
    if templates_dir is not None and not os.path.isdir(templates_dir):
        raise ConfigError("bad_templates_dir", value=templates_dir)

    level = _str(_table(data, "logging"), "level", "logging") or "INFO"
    if level.upper() not in LOG_LEVELS:
        raise ConfigError("bad_log_level", value=level, known=LOG_LEVELS)
    return Config(
        matrix=mcfg,
        storage_path=path,
        web_bind=bind or None,
        allowed_inviters=inviters,
        table=TableSettings(defaults=defaults, rooms=rooms),
        log_level=level.upper(),
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
