"""The ``[matrix]`` section: its keys (``MatrixConfig``'s fields), how it reads, which rooms are Matrix's
(``!`` ids) and the secrets a log line must never show. Light to import: no nio."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.config import NO_SECRET, ConfigError, RoomRule, Secret, TransportSection, required, string

INVITER = re.compile(r"^(@[^\s:]+|\*):[^\s:]+(:[0-9]{1,5})?$")


@dataclass(frozen=True)
class MatrixConfig:
    homeserver: str
    user_id: str
    password: Secret = NO_SECRET
    access_token: Secret = NO_SECRET
    device_name: str = "rolbot"
    sync_timeout_ms: int = 30000
    timeline_limit: int = 100
    undecryptable_wait_s: float = 30.0
    """How long a message the bot cannot decrypt waits for its key before its sender is told."""
    allowed_inviters: tuple[str, ...] = ()
    """Who may invite the bot besides the users of its own homeserver: user ids, ``*:server`` patterns."""
    invites_from_own_server: bool = True
    """False: only ``allowed_inviters`` may invite (a bot on a public homeserver such as matrix.org)."""


def _inviter_list(section: dict, key: str, where: str) -> tuple[str, ...]:
    """User ids and ``*:server`` patterns (every user of that server)."""
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("not_an_inviter_list", key=key, where=where)
    for entry in value:
        if not INVITER.match(entry):
            raise ConfigError("bad_inviter", value=entry, key=key, where=where)
    return tuple(value)


def parse_matrix(matrix: dict[str, Any], env: Mapping[str, str]) -> MatrixConfig:
    homeserver = required(matrix, "homeserver", "matrix")
    if not homeserver.startswith(("http://", "https://")):
        raise ConfigError("bad_homeserver", value=homeserver)
    user_id = required(matrix, "user_id", "matrix")
    if not user_id.startswith("@") or ":" not in user_id:
        raise ConfigError("bad_user_id", value=user_id)
    password = env.get("ROLBOT_PASSWORD") or string(matrix, "password", "matrix") or ""
    token = env.get("ROLBOT_ACCESS_TOKEN") or string(matrix, "access_token", "matrix") or ""
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
        device_name=string(matrix, "device_name", "matrix") or "rolbot",
        sync_timeout_ms=matrix.get("sync_timeout_ms", 30000),
        timeline_limit=matrix.get("timeline_limit", 100),
        undecryptable_wait_s=float(matrix.get("undecryptable_wait_s", 30)),
        allowed_inviters=_inviter_list(matrix, "allowed_inviters", "matrix"),
        invites_from_own_server=own_server,
    )


def is_matrix_room(room_id: str) -> bool:
    return room_id.startswith("!") and len(room_id) >= 2


def matrix_secrets(matrix: MatrixConfig) -> list[str]:
    return [matrix.password.value, matrix.access_token.value]


SECTION = TransportSection("matrix", MatrixConfig, parse_matrix, RoomRule(is_matrix_room, hint="matrix/room_id"),
                           secrets=matrix_secrets, moved=("allowed_inviters",))
