"""The GM's screen: a private page (``/master/<token>``, ``!pantalla``) from which a GM runs the fight.

It is a transport that owns no room: each control becomes the chat command it stands for, sent as an
``Event`` from that GM to ``TransportHub.submit``, so the table judges it as it would the GM's chat
line (rules, refusals, acta, undo) and the room's own transport posts the answers in the room. The
page is ``bot/web/screen_page.py`` (with the web app's other pages); the controls ``bot/screen/controls.py``."""

from __future__ import annotations

import asyncio
import secrets
import time

from bot.core.events import Action, Event
from bot.transport import Capabilities, TransportHub

EVENT_PREFIX = "$pantalla-"
"""The screen's event ids: unique (128 random bits each), never a network's."""


class Screen:
    """The screen's side of the transport contract (``bot/transport.py``)."""

    name = "screen"
    capabilities = Capabilities(network_redacts=False, bot_can_mute=False)

    def __init__(self, hub: TransportHub) -> None:
        self.hub = hub
        self.table = hub.table
        self._stopped = asyncio.Event()

    def owns(self, room_id: str) -> bool:
        return False

    async def run(self) -> None:
        await self._stopped.wait()

    def stop(self) -> None:
        self._stopped.set()

    def deliver(self, actions: list[Action]) -> None:
        """Never called: the hub hands a room's actions to the transport that owns it, and this owns none."""

    async def send(self, room_id: str, user_id: str, text: str) -> list[Action]:
        """``text`` as a chat line of the GM ``user_id`` in the room, through the hub: the table's
        answer, committed and handed to the room's transport. The event carries what the core knows
        of that GM (an admin stays one) and what the room's network allows (the screen cannot know the
        bot's power there: a GM's commands never need it)."""
        owner = self.hub.owner(room_id)
        network = owner.capabilities if owner is not None else self.capabilities
        event = Event(room_id, user_id, text, EVENT_PREFIX + secrets.token_urlsafe(16), ts=int(time.time() * 1000),
                      sender_is_admin=user_id in self.table.room(room_id).admins, in_room=False,
                      **network.event_flags(may_redact=True, may_mute=True))
        return await self.hub.submit(event)
