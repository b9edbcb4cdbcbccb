"""The IRC transport as the registry (``bot/transports``) knows it: light to import, pydle only once built
(a run without ``[irc]`` never imports it)."""

from __future__ import annotations

import logging
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from bot.irc.config import SECTION
from bot.irc.metrics import IrcMetrics
from bot.transport import ActionRegistry, RunMode, Transport, TransportDescription

if TYPE_CHECKING:
    from bot.config import Config
    from bot.core.table import Table
    from bot.metrics import Metrics


def _build(config: Config, table: Table, metrics: Metrics, mode: RunMode) -> Transport:
    from bot.irc.bot import IrcBot

    return IrcBot(config, table, metrics)


def _actions() -> ActionRegistry[Any]:
    from bot.irc.outbox import ACTIONS

    return ACTIONS


TRANSPORT = TransportDescription(
    SECTION, _build, _actions, files("templates") / "irc", metrics=IrcMetrics,
    loggers={"rolbot.irc.pydle": logging.ERROR, "pydle": logging.INFO},  # pydle's "unknown command" chatter
    templates={"no_power": "irc/no_power"},
)
