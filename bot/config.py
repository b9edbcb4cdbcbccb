"""The ``rolbot run`` configuration: a TOML file (DESIGN.md 3.4) plus environment overrides.

Secrets (password, access token) never appear in a repr or a log line.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

from bot.settings import RoomSettings, TableSettings

SYSTEM_KEYS = ("generic", "savage", "stormbringer", "reino", "sombra")
ENFORCEMENT_MODES = ("warn", "redact", "mute")
ROOM_KEYS = ("system", "gms", "enforcement", "ooc_in_locks", "language")


class ConfigError(Exception):
    """A configuration problem, explained in Spanish for the person running the bot."""


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


@dataclass(frozen=True)
class Config:
    matrix: MatrixConfig
    storage_path: str
    web_bind: str | None = "127.0.0.1:8080"
    allowed_inviters: tuple[str, ...] = ()
    table: TableSettings = field(default_factory=TableSettings)
    log_level: str = "INFO"

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
        raise ConfigError(f"la sección [{name}] debe ser una tabla")
    return value


def _str(section: dict, key: str, where: str, default: str | None = None, required: bool = False) -> str | None:
    value = section.get(key, default)
    if value is None:
        if required:
            raise ConfigError(f"falta la clave obligatoria «{key}» en [{where}]")
        return None
    if not isinstance(value, str):
        raise ConfigError(f"«{key}» en [{where}] debe ser un texto entre comillas")
    return value


def _user_list(section: dict, key: str, where: str) -> tuple[str, ...]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"«{key}» en [{where}] debe ser una lista de ids de usuario, p. ej. [\"@ana:servidor\"]")
    for user in value:
        if not user.startswith("@") or ":" not in user:
            raise ConfigError(f"«{user}» en «{key}» de [{where}] no es un id de usuario de Matrix (@nombre:servidor)")
    return tuple(value)


def _room_fields(section: dict, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key not in allowed:
            continue
        if key == "system":
            if value not in SYSTEM_KEYS:
                raise ConfigError(f"sistema desconocido «{value}» en [{where}]; válidos: {', '.join(SYSTEM_KEYS)}")
            out[key] = value
        elif key == "enforcement":
            if value not in ENFORCEMENT_MODES:
                raise ConfigError(
                    f"«enforcement» en [{where}] debe ser uno de: {', '.join(ENFORCEMENT_MODES)} (no «{value}»)")
            out[key] = value
        elif key == "ooc_in_locks":
            if not isinstance(value, bool):
                raise ConfigError(f"«ooc_in_locks» en [{where}] debe ser true o false")
            out[key] = value
        elif key == "gms":
            out[key] = _user_list(section, "gms", where)
        elif key == "language":
            out[key] = _str(section, "language", where)
    return out


def parse_config(data: dict, env: dict[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    matrix = _table(data, "matrix")
    homeserver = _str(matrix, "homeserver", "matrix", required=True)
    if not homeserver.startswith(("http://", "https://")):
        raise ConfigError(f"«homeserver» en [matrix] debe empezar por http:// o https:// (no «{homeserver}»)")
    user_id = _str(matrix, "user_id", "matrix", required=True)
    if not user_id.startswith("@") or ":" not in user_id:
        raise ConfigError(f"«user_id» en [matrix] no es un id de usuario de Matrix (@nombre:servidor): «{user_id}»")
    password = env.get("ROLBOT_PASSWORD") or _str(matrix, "password", "matrix") or ""
    token = env.get("ROLBOT_ACCESS_TOKEN") or _str(matrix, "access_token", "matrix") or ""
    if not password and not token:
        raise ConfigError("falta «password» o «access_token» en [matrix] "
                          "(o las variables de entorno ROLBOT_PASSWORD / ROLBOT_ACCESS_TOKEN)")
    for key in ("sync_timeout_ms", "timeline_limit"):
        if key in matrix and (not isinstance(matrix[key], int) or matrix[key] < 1):
            raise ConfigError(f"«{key}» en [matrix] debe ser un entero positivo")
    mcfg = MatrixConfig(
        homeserver=homeserver.rstrip("/"),
        user_id=user_id,
        password=Secret(password),
        access_token=Secret(token),
        device_name=_str(matrix, "device_name", "matrix", default="rolbot"),
        sync_timeout_ms=matrix.get("sync_timeout_ms", 30000),
        timeline_limit=matrix.get("timeline_limit", 100),
    )

    storage = _table(data, "storage")
    path = _str(storage, "path", "storage", required=True)

    web = _table(data, "web")
    bind = _str(web, "bind", "web", default="127.0.0.1:8080")
    if bind:
        host, sep, port = bind.rpartition(":")
        if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ConfigError(f"«bind» en [web] debe tener la forma «host:puerto» (no «{bind}»)")

    botsec = _table(data, "bot")
    unknown = set(botsec) - {*ROOM_KEYS, "allowed_inviters"}
    if unknown:
        raise ConfigError(f"clave desconocida {', '.join(sorted(unknown))} en [bot]; válidas: "
                          f"allowed_inviters, {', '.join(ROOM_KEYS)}")
    defaults = RoomSettings(**_room_fields(botsec, "bot", ROOM_KEYS))
    inviters = _user_list(botsec, "allowed_inviters", "bot")

    rooms: dict[str, dict] = {}
    for room_id, section in _table(data, "rooms").items():
        where = f'rooms."{room_id}"'
        if not room_id.startswith("!") or len(room_id) < 2 or not isinstance(section, dict):
            raise ConfigError(f"[{where}]: la clave debe ser un id de sala (empieza por «!») con sus ajustes")
        unknown = set(section) - set(ROOM_KEYS)
        if unknown:
            raise ConfigError(f"clave desconocida {', '.join(sorted(unknown))} en [{where}]; válidas: {', '.join(ROOM_KEYS)}")
        rooms[room_id] = _room_fields(section, where, ROOM_KEYS)

    level = _str(_table(data, "logging"), "level", "logging", default="INFO").upper()
    return Config(
        matrix=mcfg,
        storage_path=path,
        web_bind=bind or None,
        allowed_inviters=inviters,
        table=TableSettings(defaults=defaults, rooms=rooms),
        log_level=level,
    )


def load_config(path: str, env: dict[str, str] | None = None) -> Config:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"no existe el fichero de configuración «{path}»") from None
    except PermissionError:
        raise ConfigError(f"no se puede leer el fichero de configuración «{path}» (permisos)") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"el fichero «{path}» no es TOML válido: {err}") from None
    return parse_config(data, env)
