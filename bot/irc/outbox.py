"""Carrying out the table's actions on IRC (``ACTIONS``): notices in the channel or in private, the GM's
confirmation of a lock as a private notice, the mute as channel modes; IRC takes no line back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.events import Action, Edit, PowerLevels, React, Redact, Send, Tracker
from bot.core.render import Renderer
from bot.irc.channels import Channel, Channels, GameMasters
from bot.irc.identity import People
from bot.irc.mute import Mute
from bot.irc.sending import LineQueue
from bot.irc.text import BOLD, irc_lines, plain_lines
from bot.irc.translate import Translator
from bot.transport import ActionRegistry

log = logging.getLogger("rolbot.irc")

"""Core messages that name Matrix things: their IRC wording."""


@dataclass
class Batch:
    """What the handlers of one batch of actions share."""

    private: set[str]
    """Who gets a private message in the batch (a secret roll's GM copy is not doubled)."""
    muted: dict[str, Channel] = field(default_factory=dict)
    """The channels a lock changed: their modes are reconciled once, after the batch."""


ACTIONS: ActionRegistry[Callable[[Outbox, Any, Batch], None]] = ActionRegistry("irc")
"""How IRC carries out each kind of action (``Outbox.deliver``)."""


class Outbox:
    def __init__(self, channels: Channels, people: People, gms: GameMasters, translator: Translator, mute: Mute,
                 lines: LineQueue, renderer: Renderer, done: Callable[[str], None]) -> None:
        self.channels = channels
        self.people = people
        self.gms = gms
        self.translator = translator
        self.mute = mute
        self.lines = lines
        self.renderer = renderer
        self._action_done = done

    def deliver(self, actions: list[Action]) -> None:
        """The table's actions; the channels a lock changed are brought to it once, after all of them
        (a named lock replacing a narration is an unlock and a lock: only the voices change)."""
        batch = Batch({a.private_to for a in actions if isinstance(a, Send) and a.private_to is not None})
        for action in actions:
            ACTIONS[action](self, action, batch)
        for channel in batch.muted.values():
            self.mute.reconcile(channel)

    def _done(self, action_id: str) -> None:
        if action_id:
            self._action_done(action_id)

    @ACTIONS.on(Redact)
    def _redact(self, action: Redact, batch: Batch) -> None:
        """IRC cannot take a line back (the warning says so)."""
        self._done(action.action_id)

    @ACTIONS.on(PowerLevels)
    def _mute(self, action: PowerLevels, batch: Batch) -> None:
        """The lock is kept in the channel's mute record; the channel is reconciled after the batch."""
        channel = self.mute.keep(action)
        if channel is not None:
            batch.muted[channel.name] = channel
        self._done(action.action_id)

    @ACTIONS.on(Send)
    def _send(self, action: Send, batch: Batch) -> None:
        channel = self.channels.room(action.room_id)
        if channel is None:
            self._done(action.action_id)
            return
        lines = [self.people.nicks_for_ids(line) for line in irc_lines(action.message)]
        if action.private_to:
            self._send_private(channel, action, lines, batch)
            return
        addressed = [n for n in (self.people.nick_of(u) for u in action.mentions) if n]
        if not addressed and action.reply_to:
            person = self.translator.sender_of(action.reply_to)
            addressed = [person.nick] if person else []
        if addressed and lines:
            lines[0] = f"{', '.join(addressed)}: {_unlabelled(lines[0], addressed)}"
        self.lines.queue_text("NOTICE", channel.name, lines, [action.action_id], joinable=True)

    def _send_private(self, channel: Channel, action: Send, lines: list[str], batch: Batch) -> None:
        assert action.private_to is not None
        targets = [nick for nick in (self.people.nick_of(u) for u in (action.private_to, *action.private_also)) if nick]
        if action.to_room_gms:
            # A secret roll goes to its roller and to the channel's GMs (a refusal to its writer alone).
            targets += [n for n in self.gms.nicks(channel) if self.people.id_of(n) not in batch.private]
        if not targets:
            log.info("%s: private message for %s, who is not here: dropped", channel.name, action.private_to)
            self._done(action.action_id)
        for i, nick in enumerate(dict.fromkeys(targets)):
            self.lines.queue_text("NOTICE", nick, lines, [action.action_id] if i == 0 else [])

    @ACTIONS.on(React)
    def _react(self, action: React, batch: Batch) -> None:
        """A reaction (a lock's 🔒/🔓 for the GM, a bookkeeping command's ✅): IRC has no reactions, so a
        private notice with the emoji to whoever wrote the event, nothing in the channel."""
        person = self.translator.sender_of(action.event_id)
        if person is None:
            self._done(action.action_id)
            return
        self.lines.queue_text("NOTICE", person.nick, plain_lines(action.key), [action.action_id])

    @ACTIONS.on(Edit)
    @ACTIONS.on(Tracker)
    def _not_kept(self, action: Edit | Tracker, batch: Batch) -> None:
        """IRC edits no line and keeps no tracker: the core sends neither here (its turn lines stay)."""
        self._done(action.action_id)


def _unlabelled(line: str, addressed: list[str]) -> str:
    """A line that starts by naming the one it is addressed to (``ana · 🎲 2d6+1 ...``, bold or not) without
    that label: the highlight (``ana: ``) already names them."""
    if len(addressed) == 1:
        for label in (f"{addressed[0]} · ", f"{BOLD}{addressed[0]}{BOLD} · "):
            if line.startswith(label):
                return line[len(label):]
    return line
