"""Who may invite the bot into a room (docs/contracts.md#3.4): by default the users of its own homeserver;
``[matrix] allowed_inviters`` widens that to those the list names (user ids, and ``*:server`` for every
user of a server); ``invites_from_own_server = false`` leaves only the list (a bot on a public
homeserver). The rules are pure functions; ``Membership`` acts on them and on the bot's other
membership changes (a room it left, a private room its player left)."""

from __future__ import annotations

import logging
from typing import Any

from bot.matrix.errors import PermanentError
from bot.matrix.session import Session
from bot.matrix.store import MatrixStore

log = logging.getLogger("rolbot.matrix")

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


class Membership:
    """The bot's answer to membership changes: it joins a room when an allowed user invites it (and
    rejects the invite otherwise), forgets a room it left, and leaves a private room its player left."""

    def __init__(self, session: Session, matrix_store: MatrixStore, allowed: tuple[str, ...], own_server: bool) -> None:
        """``allowed``, ``own_server``: ``[matrix] allowed_inviters`` and ``invites_from_own_server``."""
        self.session = session
        self.matrix_store = matrix_store
        self.user_id = session.user_id
        self.allowed = allowed
        self.own_server = own_server

    async def invited(self, room_id: str, info: Any) -> None:
        """An invite in a sync (``info``: nio's ``InviteInfo``): join, or reject it and say who may invite."""
        inviter = None
        for ev in info.invite_state:
            src = getattr(ev, "source", None)
            if (isinstance(src, dict) and src.get("type") == "m.room.member"
                    and src.get("state_key") == self.user_id and isinstance(src.get("sender"), str)):
                inviter = src["sender"]
        client = self.session.client
        try:
            allowed, own = self.allowed, self.own_server
            if not inviter_allowed(inviter, self.user_id, allowed, own):
                log.warning("invite to %s from %s refused: who may invite the bot is %s; to allow them, add \"%s\" "
                            "(or \"*:%s\", their whole server) to allowed_inviters in [matrix]", room_id, inviter,
                            ", ".join(inviters(self.user_id, allowed, own)) or "nobody", inviter,
                            server_of(inviter or "") or "SERVER")
                await self.session.request("reject invite", lambda: client.room_leave(room_id), attempts=4)
                return
            log.info("invited to %s by %s: joining", room_id, inviter)
            await self.session.request("join room", lambda: client.join(room_id), attempts=6)
        except PermanentError as err:
            log.error("invite to %s: %s", room_id, err)

    async def forget(self, room_id: str) -> None:
        """Ask the homeserver to forget a room the bot left."""
        client = self.session.client
        try:
            await self.session.request("forget room", lambda: client.room_forget(room_id), attempts=3)
        except PermanentError as err:
            log.info("room %s: %s", room_id, err)

    async def private_room_left(self, room_id: str, sources: list[Any]) -> None:
        """A player who left (or rejected) their private room gets a new one with the next private
        message: the bot forgets this one and leaves it."""
        client = self.session.client
        for src in sources:
            if not isinstance(src, dict) or src.get("type") != "m.room.member":
                continue
            user, content = src.get("state_key"), src.get("content")
            if (not isinstance(user, str) or user == self.user_id or not isinstance(content, dict)
                    or content.get("membership") not in ("leave", "ban") or self.matrix_store.private_room(user) != room_id):
                continue
            log.info("%s left their private room %s: the next private message goes to a new one", user, room_id)
            self.matrix_store.forget_private_room(user)
            try:
                await self.session.request("leave private room", lambda: client.room_leave(room_id), attempts=3)
            except PermanentError as err:
                log.info("room %s: %s", room_id, err)
