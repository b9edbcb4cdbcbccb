"""Which GMs have their screen open: a port the web layer sets and the core reads.

The core never imports the web. The screen's page (``bot/web/screen_page.py``) says, while a GM's live
stream is connected, that it saw it (``seen``); the core asks ``open_for`` before it copies a message
to that GM privately (``bot/core/quiet.py``): the screen shows the GMs' view instead."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

OPEN_FOR_S = 60.0
"""A screen counts as open this long after its stream was last seen connected."""
GM_VIEWS_KEPT = 8
"""The GMs' views of a room's last messages the screen shows."""
ROOMS_KEPT = 256
"""Rooms whose GMs' views are kept, the most recently written (memory stays bounded)."""


class ScreenPresence:
    """The screens' streams seen lately, by room and GM, and the GMs' view of each room's last messages."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._seen: dict[tuple[str, str], float] = {}
        self._views: OrderedDict[str, deque[str]] = OrderedDict()

    def seen(self, room_id: str, user_id: str) -> None:
        """The GM's screen of the room has a live stream now."""
        now = self._clock()
        self._seen = {key: at for key, at in self._seen.items() if now - at <= OPEN_FOR_S}
        self._seen[(room_id, user_id)] = now

    def open_for(self, room_id: str, user_id: str) -> bool:
        at = self._seen.get((room_id, user_id))
        return at is not None and self._clock() - at <= OPEN_FOR_S

    def shown(self, room_id: str, body: str) -> None:
        """A message of the room as the GMs read it (what the screen lists)."""
        self._views.setdefault(room_id, deque(maxlen=GM_VIEWS_KEPT)).append(body)
        self._views.move_to_end(room_id)
        if len(self._views) > ROOMS_KEPT:
            self._views.popitem(last=False)

    def gm_views(self, room_id: str) -> list[str]:
        """The GMs' view of the room's last messages, oldest first."""
        return list(self._views.get(room_id, ()))
