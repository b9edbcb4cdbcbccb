"""Handing an event to the table from a transport: retried until its transaction commits."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from bot.core.events import Event

if TYPE_CHECKING:
    from bot.web import Metrics

log = logging.getLogger("rolbot")
Answer = TypeVar("Answer")


async def handle_until_committed(handle: Callable[[Event], Answer], event: Event, metrics: Metrics,
                                 stopping: Callable[[], bool]) -> Answer:
    """``handle(event)``, retried with a growing pause (0.5 s to 30 s) while it fails, so an event is
    never skipped by a passing database error; once the bot is stopping, the failure is raised."""
    delay = 0.5
    while True:
        try:
            return handle(event)
        except Exception:
            metrics.errors += 1
            log.exception("room %s: event %s not handled, retrying", event.room_id, event.event_id)
            if stopping():
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)
