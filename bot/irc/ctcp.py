"""CTCP queries: VERSION, PING and TIME are answered at most once a minute per sender, after every
table reply waiting in the bucket; no other is answered (ACTION is a ``/me``: ``Translator``)."""

from __future__ import annotations

import importlib.metadata
import time

from bot.irc.client import Connection
from bot.irc.flood import PerSender
from bot.irc.sending import CTCP, LineQueue

CTCP_ANSWERED = ("VERSION", "PING", "TIME")
CTCP_INTERVAL_S = 60.0
CTCP_QUEUED = 10
"""CTCP replies waiting in the bucket at most: more are not answered."""
CTCP_PING_MAX = 64


class CtcpAnswers:
    def __init__(self, connection: Connection, lines: LineQueue) -> None:
        self.connection = connection
        self.lines = lines
        self.senders = PerSender(CTCP_INTERVAL_S)

    def answer(self, nick: str, user: str | None, host: str | None, query: str, argument: str) -> None:
        """Answer a CTCP VERSION, PING or TIME: at most once a minute per sender, after the table's
        replies, through the bucket."""
        query = query.upper()
        if query not in CTCP_ANSWERED or self.connection.is_me(nick):
            return
        if self.lines.count(CTCP) >= CTCP_QUEUED or not self.senders.allow(f"{user}@{host}" if user and host else nick):
            return
        if query == "VERSION":
            answer = f"rolbot {importlib.metadata.version('rolbot')}"
        elif query == "PING":
            answer = "".join(c for c in argument[:CTCP_PING_MAX] if c.isprintable())
        else:
            answer = time.strftime("%a %b %d %H:%M:%S %Y %z")
        body = f"{query} {answer}" if answer else query
        self.lines.push(CTCP, "NOTICE", [nick, f"\x01{body}\x01"])
