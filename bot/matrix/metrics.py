"""The Matrix transport's own counters and gauges (its rows of ``/metrics``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.metrics import Row


@dataclass
class MatrixMetrics:
    syncs: int = 0
    sync_lag_seconds: float = 0.0
    """Time between an event's server timestamp and the moment the table handled it (last event)."""
    last_sync_ts: float = 0.0
    undecryptable: int = 0
    encrypted_rooms: int = 0
    cross_signing_conflict: bool = False
    """The account's master key on the homeserver is not one the bot holds: it runs without cross-signing."""

    def rows(self) -> list[Row]:
        return [
            ("rolbot_syncs_total", "counter", "Sync responses processed.", self.syncs),
            ("rolbot_sync_lag_seconds", "gauge", "Delay from an event's server timestamp to its handling.",
             round(self.sync_lag_seconds, 3)),
            ("rolbot_last_sync_timestamp_seconds", "gauge", "Unix time of the last sync response.",
             round(self.last_sync_ts, 3)),
            ("rolbot_undecryptable_total", "counter", "Encrypted messages the bot could not decrypt on arrival.",
             self.undecryptable),
            ("rolbot_encrypted_rooms", "gauge", "Joined rooms with end-to-end encryption.", self.encrypted_rooms),
            ("rolbot_cross_signing_conflict", "gauge",
             "1 when the account's cross-signing identity is not the bot's: it runs without cross-signing "
             "(rolbot run --reset-cross-signing replaces it).", int(self.cross_signing_conflict)),
        ]
