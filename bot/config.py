"""The ``rolbot run`` configuration: a TOML file (docs/contracts.md#3.4) plus environment overrides.

Each transport's section (its keys, how it reads, which ``[rooms."…"]`` ids are its, its secrets) is
its package's ``TransportSection``, from the registry ``bot/transports``: this module names no network.
Secrets (password, access token) never appear in a repr or a log line.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from bot.core.render import Renderer
from bot.core.settings import RoomSettings, TableSettings
from bot.games import GAMES

if TYPE_CHECKING:
    from bot.irc.config import IrcConfig
    from bot.matrix.config import MatrixConfig

ENFORCEMENT_MODES = ("warn", "redact", "mute")
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


NO_SECRET = Secret("")


Section = TypeVar("Section")


def _same(name: str) -> str:
    return name


def _no_rooms(section: Any, bot: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {}


def _no_secrets(section: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class RoomRule:
    """Which ``[rooms."…"]`` ids are a transport's, and how its rooms' settings read."""

    claims: Callable[[str], bool]
    hint: str
    """The message kind that says what its room ids look like (``matrix/room_id``), for an id no
    transport claims."""
    key: Callable[[str], str] = _same
    """The id the table knows the room by (IRC folds a channel's case)."""
    enforcement: tuple[str, ...] = ENFORCEMENT_MODES
    """The modes its rooms may set (IRC cannot delete a message: no ``redact``)."""
    user_id: Callable[[str], str] = _same
    """A name in its rooms' ``gms`` as a user id (IRC: a bare services account ``ana`` is ``@ana:irc``)."""
    defaults: Callable[[Any, Mapping[str, Any]], dict[str, dict[str, Any]]] = _no_rooms
    """The settings of the rooms its section names (IRC's channels), from its parsed section and
    ``[bot]``; a room's own section wins."""


ANY_ROOM = RoomRule(claims=lambda room_id: True, hint="")
"""How ``[bot]`` reads: the rooms' defaults, whatever their network."""


@dataclass(frozen=True)
class TransportSection:
    """A transport's ``[name]`` section: the dataclass it fills (its fields are the keys the checker
    knows), how it reads, its rooms, the secrets a log line must never show, and the ``[bot]`` keys
    that moved to it (an old config is told where they went)."""

    name: str
    schema: type[Any]
    parse: Callable[[dict[str, Any], Mapping[str, str]], Any]
    """The section and the environment to a ``schema``; a ``ConfigError`` when wrong."""
    rooms: RoomRule
    secrets: Callable[[Any], list[str]] = _no_secrets
    """The parsed section's secrets as a log line could show them (``bot/runner.py`` masks them)."""
    moved: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """The whole configuration. A field named ``<prefix>_<key>`` (prefixes in ``CONFIG_PREFIXES``:
    ``web_bind``, ``log_level``) is the key ``<key>`` of that section, so a new such field is a key
    the checker knows (``section_keys``); a transport's keys are its ``TransportSection``'s dataclass' fields."""

    storage_path: str
    transports: Mapping[str, Any] = field(default_factory=dict)
    """Each configured transport's section, parsed, by its name (``matrix`` → a ``MatrixConfig``)."""
    web_bind: str | None = "127.0.0.1:8080"
    web_trusted_proxy: str | None = None
    """``[web] trusted_proxy``: the reverse proxy's address; only its ``X-Forwarded-For`` names the client."""
    table: TableSettings = field(default_factory=TableSettings)
    log_level: str = "INFO"
    log_libraries: str = "info"
    templates_dir: str | None = None
    """A group's own message files, searched before the shipped ones (same names)."""

    def section(self, schema: type[Section]) -> Section | None:
        """The configured section that filled ``schema`` (``config.section(IrcConfig)``), if any."""
        return next((s for s in self.transports.values() if isinstance(s, schema)), None)

    @property
    def matrix_config(self) -> MatrixConfig | None:
        """``[matrix]``, when the config has it: the name the Matrix package reads it by."""
        return self.transports.get("matrix")

    @property
    def matrix(self) -> MatrixConfig:
        if self.matrix_config is None:
            raise ConfigError("missing_key", key="matrix", where="matrix")
        return self.matrix_config

    @property
    def irc(self) -> IrcConfig | None:
        """``[irc]``, when the config has it: the name the IRC package reads it by."""
        return self.transports.get("irc")

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


def registered() -> list[TransportSection]:
    """The sections of the shipped transports (``bot/transports``, which imports this module)."""
    from bot.transports import TRANSPORTS

    return TRANSPORTS.sections()


def section_keys(transports: Sequence[TransportSection] | None = None) -> dict[str, frozenset[str]]:
    """Every section's keys, each from the one place that declares them: the dataclass the section
    fills (a transport's), or the ``Config`` fields of its prefix, plus the few keys kept elsewhere
    (``[web] public_url`` is in the rooms' settings; ``[bot]`` is the rooms' defaults and the keys that
    moved to a transport's section). ``rooms`` is each ``[rooms."…"]`` section."""
    transports = registered() if transports is None else transports
    config_fields = [f.name for f in fields(Config)]
    keys = {section: frozenset(name.removeprefix(prefix) for name in config_fields for prefix in prefixes
                               if name.startswith(prefix))
            for section, prefixes in CONFIG_PREFIXES.items()}
    return {**keys,
            **{t.name: frozenset(f.name for f in fields(t.schema)) for t in transports},
            "web": keys["web"] | {"public_url"},
            "bot": frozenset((*ROOM_KEYS, *(key for t in transports for key in t.moved))),
            "rooms": frozenset(ROOM_KEYS)}


def _close(word: str, known: frozenset[str]) -> str | None:
    """The known name ``word`` most resembles (a typo: ``pasword``), or None."""
    import difflib  # with the first typo: a config without one never needs it

    folded = {name.casefold(): name for name in known}
    match = difflib.get_close_matches(word.casefold(), folded, n=1)
    return folded[match[0]] if match else None


def _check_names(data: dict, transports: Sequence[TransportSection]) -> None:
    """Refuse the first unknown section or key (in the file's order), before anything is read from
    them: a misspelt ``pasword`` is itself the error, not the missing password it leaves behind."""
    keys = section_keys(transports)
    sections = frozenset(keys)
    for name, section in data.items():
        if not isinstance(section, dict):
            if name in sections:
                continue  # ``matrix = "x"``: ``table_of`` says it must be a table
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


def table_of(data: dict, name: str) -> dict:
    """The section ``name`` (empty when absent), refused when it is no table."""
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError("not_a_table", name=name)
    return value


def string(section: dict, key: str, where: str, default: str | None = None) -> str | None:
    """The key's text (``default`` when absent), refused when it is no string."""
    value = section.get(key, default)
    if value is not None and not isinstance(value, str):
        raise ConfigError("not_a_string", key=key, where=where)
    return value


def required(section: dict, key: str, where: str) -> str:
    """The key's text, refused when absent."""
    value = string(section, key, where)
    if value is None:
        raise ConfigError("missing_key", key=key, where=where)
    return value


def _user_list(section: dict, key: str, where: str, user_id: Callable[[str], str]) -> tuple[str, ...]:
    """User ids, each name read by the room's transport first (``user_id``)."""
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("not_a_user_list", key=key, where=where)
    users = []
    for user in map(user_id, value):
        if not user.startswith("@") or ":" not in user:
            raise ConfigError("bad_user_in_list", user=user, key=key, where=where)
        users.append(user)
    return tuple(users)


def _room_fields(section: dict, where: str, allowed: tuple[str, ...], rule: RoomRule) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in section.items():
        if key not in allowed:
            continue
        if key == "system":
            if value not in GAMES:
                raise ConfigError("unknown_system", value=value, where=where, known=GAMES.keys())
            out[key] = value
        elif key == "enforcement":
            if value not in rule.enforcement:
                raise ConfigError("bad_enforcement", value=value, where=where, known=rule.enforcement)
            out[key] = value
        elif key == "ooc_in_locks":
            if not isinstance(value, bool):
                raise ConfigError("not_a_bool", key=key, where=where)
            out[key] = value
        elif key == "gms":
            out[key] = _user_list(section, "gms", where, rule.user_id)
    return out


def parse_config(data: dict, env: Mapping[str, str] | None = None,
                 transports: Sequence[TransportSection] | None = None) -> Config:
    """``transports``: the sections of the transports it may configure (the registry's by default)."""
    if env is None:
        env = os.environ
    transports = registered() if transports is None else transports
    _check_names(data, transports)
    if not any(t.name in data for t in transports):
        raise ConfigError("no_transport", known=[t.name for t in transports])
    sections = {t.name: t.parse(table_of(data, t.name), env) for t in transports if t.name in data}

    storage = table_of(data, "storage")
    path = required(storage, "path", "storage")

    web = table_of(data, "web")
    bind = string(web, "bind", "web", default="127.0.0.1:8080")
    public_url = string(web, "public_url", "web")
    if public_url is not None and (not public_url.startswith(("http://", "https://")) or any(c.isspace() for c in public_url)):
        raise ConfigError("bad_public_url", value=public_url)
    if public_url is not None and not bind:
        raise ConfigError("public_url_without_bind", value=public_url)
    if bind:
        _host, sep, port = bind.rpartition(":")
        if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ConfigError("bad_bind", value=bind)
    trusted_proxy = string(web, "trusted_proxy", "web")
    if trusted_proxy is not None:
        try:
            ipaddress.ip_address(trusted_proxy)
        except ValueError:
            raise ConfigError("bad_trusted_proxy", value=trusted_proxy) from None

    botsec = table_of(data, "bot")
    for moved_to in transports:
        for key in moved_to.moved:
            if key in botsec:
                raise ConfigError("moved_key", key=key, old="bot", new=moved_to.name)
    defaults = RoomSettings(**_room_fields(botsec, "bot", ROOM_KEYS, ANY_ROOM),
                            public_url=public_url.rstrip("/") if public_url else None)
    rooms = _rooms(table_of(data, "rooms"), botsec, transports, sections)

    templates_dir = string(table_of(data, "templates"), "dir", "templates")
    if templates_dir is not None and not os.path.isdir(templates_dir):
        raise ConfigError("bad_templates_dir", value=templates_dir)

    level = string(table_of(data, "logging"), "level", "logging") or "INFO"
    if level.upper() not in LOG_LEVELS:
        raise ConfigError("bad_log_level", value=level, known=LOG_LEVELS)
    libraries = string(table_of(data, "logging"), "libraries", "logging") or "info"
    if libraries.lower() not in LIBRARY_LOG_LEVELS:
        raise ConfigError("bad_log_libraries", value=libraries, known=LIBRARY_LOG_LEVELS)
    return Config(
        storage_path=path,
        transports=sections,
        web_bind=bind or None,
        web_trusted_proxy=trusted_proxy,
        table=TableSettings(defaults=defaults, rooms=rooms),
        log_level=level.upper(),
        log_libraries=libraries.lower(),
        templates_dir=templates_dir,
    )


def _rooms(data: dict, bot: Mapping[str, Any], transports: Sequence[TransportSection],
           sections: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each ``[rooms."…"]`` section, read by the transport whose id it is, under the id the table knows
    it by; then the rooms a transport's own section names, with their defaults."""
    rooms: dict[str, dict[str, Any]] = {}
    for room_id, section in data.items():
        where = f'rooms."{room_id}"'
        rule = next((t.rooms for t in transports if t.rooms.claims(room_id)), None)
        if rule is None or not isinstance(section, dict):
            raise ConfigError("bad_room_id", where=where, hints=[t.rooms.hint for t in transports])
        rooms[rule.key(room_id)] = _room_fields(section, where, ROOM_KEYS, rule)
    for transport in transports:
        if transport.name in sections:
            for room_id, settings in transport.rooms.defaults(sections[transport.name], bot).items():
                room = rooms.setdefault(room_id, {})
                for key, value in settings.items():
                    room.setdefault(key, value)
    return rooms


def load_config(path: str, env: Mapping[str, str] | None = None,
                transports: Sequence[TransportSection] | None = None) -> Config:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError("no_file", path=path) from None
    except PermissionError:
        raise ConfigError("unreadable_file", path=path) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("not_toml", path=path, detail=str(err)) from None
    return parse_config(data, env, transports)
