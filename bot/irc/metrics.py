"""The IRC transport's own counters (its rows of ``/metrics``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.metrics import Row


@dataclass
class IrcMetrics:
    reconnects: int = 0
    missed_messages: int = 0

    def rows(self) -> list[Row]:
        return [
            ("rolbot_irc_reconnects_total", "counter", "Connections to the IRC server lost and made again.",
             self.reconnects),
            ("rolbot_irc_missed_messages_total", "counter",
             "Channel messages sent while the bot was away, where the server's chathistory tells.",
             self.missed_messages),
        ]
