"""The Matrix transport as the registry (``bot/transports``) knows it: light to import, nio only once built."""

from __future__ import annotations

import logging
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from bot.matrix.config import SECTION
from bot.matrix.metrics import MatrixMetrics
from bot.transport import ActionRegistry, RunMode, Transport, TransportDescription

if TYPE_CHECKING:
    from bot.config import Config
    from bot.core.table import Table
    from bot.metrics import Metrics


def _build(config: Config, table: Table, metrics: Metrics, mode: RunMode) -> Transport:
    from bot.matrix.bot import MatrixBot

    return MatrixBot(config, table, metrics, setup_only=mode.setup_only, reset_cross_signing=mode.reset_cross_signing)


def _actions() -> ActionRegistry[Any]:
    from bot.matrix.outbox import ACTIONS

    return ACTIONS


TRANSPORT = TransportDescription(
    SECTION, _build, _actions, files("templates") / "matrix", metrics=MatrixMetrics,
    loggers={"nio": logging.ERROR},  # nio's schema warnings on every error response are noise
    templates={"no_power": "matrix/no_power", "turn_start": "matrix/turn_start", "new_round": "matrix/new_round"},
    sets_up=True, edits_messages=True,
)
