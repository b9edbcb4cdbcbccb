"""The mute on IRC: ``+m`` on lock with ``+v`` for the speakers only (the plan is ``bot.irc.modes``).

The modes before the first lock are kept in the store and put back on unlock; a lock that replaces
another changes only the voices. The bot's own MODE changes count as made when it sends them (its view
never goes back to an older state when the server's echo of an earlier line comes in). Without ``+o``
the bot asks for it and catches up later."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.core.events import PowerLevels
from bot.core.render import Renderer
from bot.irc.channels import Channel, Channels, GameMasters
from bot.irc.client import Connection
from bot.irc.identity import People, fold
from bot.irc.modes import Member, MuteRecord, mode_lines, opens, plan
from bot.irc.sending import LineQueue
from bot.irc.store import IrcStore
from bot.irc.text import irc_lines

if TYPE_CHECKING:
    from bot.irc.bot import Metrics


class Mute:
    """Each channel's mute record, and its modes brought to it."""

    def __init__(self, store: IrcStore, channels: Channels, people: People, gms: GameMasters, connection: Connection,
                 lines: LineQueue, renderer: Renderer, metrics: Metrics) -> None:
        self.store = store
        self.channels = channels
        self.people = people
        self.gms = gms
        self.connection = connection
        self.lines = lines
        self.renderer = renderer
        self.metrics = metrics

    def keep(self, action: PowerLevels) -> Channel | None:
        """Keep what the lock asks for in the channel's mute record: the channel to reconcile, if it
        changed. The modes to restore are those from before the first lock: a record still waiting for
        its undoing keeps them."""
        channel = self.channels.room(action.room_id)
        record = self.store.mute_record(action.room_id)
        if channel is None:
            return None
        if action.lock:
            if record is None:
                me = fold(self.connection.nick)
                voiced = [self.people.id_of(k) or k for k, modes in channel.members.items() if "v" in modes and k != me]
                record = MuteRecord(True, list(action.speakers), channel.moderated, [v for v in voiced if v])
            record.locked, record.speakers = True, list(action.speakers)
        elif record is not None:
            record.locked = False
        if record is None:
            return None
        self.store.save_mute_record(action.room_id, record)
        self.metrics.power_level_changes += 1
        return channel

    def reconcile(self, channel: Channel) -> None:
        """Bring the channel's modes to what its mute record asks for; without ``+o``, ask for it once."""
        record = self.store.mute_record(channel.room_id)
        if record is None or not channel.synced:
            return
        if not self.channels.bot_is_op(channel):
            if not channel.asked_op:
                channel.asked_op = True
                message = self.renderer.render("irc/need_op", locked=record.locked, nick=self.connection.nick)
                # In the channel, and to its GMs in private: under +m without a voice the bot is not heard there.
                for target in [channel.name, *self.gms.nicks(channel)]:
                    self.lines.queue_text("NOTICE", target, irc_lines(message), [])
            return
        me = fold(self.connection.nick)
        members = []
        for key, modes in channel.members.items():
            person = self.people.known.get(key)
            if key != me:
                members.append(Member(person.nick if person else key, person.user_id if person else f"?{key}", "v" in modes))
        changes = plan(record, channel.moderated, members)
        for params in mode_lines(changes, self.connection.modes_per_line):
            # The lines that let players speak go at once: the floor opens as the GM's closing line says.
            push = self.lines.push_floor if opens(params[0]) else self.lines.push_raw
            push("MODE", channel.name, *params)
        channel.apply_modes(changes)  # as the server will have them: the next plan starts there
        if not record.locked:
            self.store.forget_mute_record(channel.room_id)
