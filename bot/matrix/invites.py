"""Who may invite the bot into a room (docs/contracts.md#3.4): by default the users of its own homeserver;
``[matrix] allowed_inviters`` widens that to those the list names (user ids, and ``*:server`` for every
user of a server); ``invites_from_own_server = false`` leaves only the list (a bot on a public
homeserver). Pure: no I/O."""

from __future__ import annotations

ANY_USER = "*"
"""``*:server`` in ``allowed_inviters``: every user of that server."""


def server_of(user_id: str) -> str | None:
    """The server name of a user id (``@name:server``), lower-cased; ``None`` for anything else."""
    local, sep, server = user_id.partition(":")
    if not sep or not server or not local.startswith("@"):
        return None
    return server.lower()


def inviters(bot_user: str, allowed: tuple[str, ...], own_server: bool = True) -> tuple[str, ...]:
    """Who may invite: every user of the bot's own homeserver (unless not ``own_server``), and those
    ``allowed`` names."""
    return (f"{ANY_USER}:{server_of(bot_user)}", *allowed) if own_server else allowed


def inviter_allowed(inviter: str | None, bot_user: str, allowed: tuple[str, ...], own_server: bool = True) -> bool:
    """``inviter`` is one of ``inviters(...)``: named, or a user of a ``*:server``."""
    server = server_of(inviter) if inviter else None
    if inviter is None or server is None:
        return False
    return any(entry == inviter or entry.lower() == f"{ANY_USER}:{server}" for entry in inviters(bot_user, allowed, own_server))
