"""The run's counters, for ``GET /metrics`` (Prometheus text format) and ``GET /healthz``.

The table's, the outbox's and the web pages' counters are ``Metrics``' own; each transport keeps its
own in a part of its package (``bot/matrix/metrics.py``), which gives its rows, and says whether it is
connected in ``Metrics.transports``. A transport imports this module, never the web app."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

Row = tuple[str, Literal["counter", "gauge"], str, int | float]
"""One metric: its name, its type, its help line and its value now."""


class MetricsPart(Protocol):
    """A transport's own counters (its description's ``metrics``): made with no arguments."""

    def rows(self) -> list[Row]: ...


Part = TypeVar("Part", bound=MetricsPart)


@dataclass
class Metrics:
    events_handled: int = 0
    replies: int = 0
    redactions: int = 0
    power_level_changes: int = 0
    errors: int = 0
    retries: int = 0
    rate_limited: int = 0
    coalesced_messages: int = 0
    coalesced_replies: int = 0
    started: float = field(default_factory=time.time)
    transports: dict[str, bool] = field(default_factory=dict)
    """Each configured transport (``matrix``, ``irc``) and whether it is connected now."""
    parts: dict[type[MetricsPart], MetricsPart] = field(default_factory=dict)
    """Each transport's own counters, their rows in this order (the runner makes them in the registry's)."""
    web_streams: int = 0
    web_streams_refused: int = 0
    acta_renders: int = 0
    acta_renders_in_progress: int = 0

    def part(self, kind: type[Part]) -> Part:
        """The counters of ``kind`` (a transport's), made on first use."""
        found = self.parts.get(kind)
        if found is None:
            found = self.parts[kind] = kind()
        assert isinstance(found, kind)
        return found

    @property
    def healthy(self) -> bool:
        """Every configured transport connected (each says what connected means: Matrix's first sync,
        IRC's channels joined); not before one says it is there."""
        return bool(self.transports) and all(self.transports.values())

    def render(self) -> str:
        rows: list[Row] = [
            ("rolbot_events_handled_total", "counter", "Chat events handled by the table.", self.events_handled),
            ("rolbot_replies_total", "counter", "Messages sent by the bot.", self.replies),
            ("rolbot_redactions_total", "counter", "Events redacted by the bot.", self.redactions),
            ("rolbot_power_level_changes_total", "counter", "Power level changes (mute locks).",
             self.power_level_changes),
            ("rolbot_errors_total", "counter", "Failed requests and handler errors.", self.errors),
            ("rolbot_retries_total", "counter", "Requests retried (rate limit, network, 5xx).", self.retries),
            ("rolbot_rate_limited_total", "counter", "Requests the homeserver refused with 429.", self.rate_limited),
            ("rolbot_coalesced_messages_total", "counter", "Messages that grouped several replies under a rate limit.",
             self.coalesced_messages),
            ("rolbot_coalesced_replies_total", "counter", "Replies sent inside a coalesced message.",
             self.coalesced_replies),
            *(row for part in self.parts.values() for row in part.rows()),
            ("rolbot_web_streams", "gauge", "Live table streams open now.", self.web_streams),
            ("rolbot_web_streams_refused_total", "counter",
             "Live table streams refused: the server's, the address's or the room's limit reached.",
             self.web_streams_refused),
            ("rolbot_acta_renders_total", "counter", "Actas rendered for the web (a fetch of an unchanged one is not).",
             self.acta_renders),
            ("rolbot_acta_renders_in_progress", "gauge", "Actas being rendered now, in the worker process.",
             self.acta_renders_in_progress),
            ("rolbot_up", "gauge", "1 once every configured transport is connected.", int(self.healthy)),
        ]
        out = []
        for name, kind, help_text, value in rows:
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", f"{name} {value}"]
        return "\n".join(out) + "\n"
