"""The table core: one event in, a list of actions out, all of it committed at once."""

from __future__ import annotations

import logging
import random
from dataclasses import replace

from bot import plugins  # noqa: F401  (registers the commands)
from bot.core import floor, room_commands  # noqa: F401  (registers the commands)
from bot.core.commands import Command, find_command
from bot.core.context import Context
from bot.core.events import Action, Event
from bot.core.protocol import Line, read_line
from bot.core.render import Renderer
from bot.core.settings import TableSettings
from bot.core.state import RoomState
from bot.core.store import Store
from systems.dice import DiceError

log = logging.getLogger(__name__)
MAX_COMMAND_ARGS = 2000


class Table:
    def __init__(self, store: Store, settings: TableSettings | None = None,
                 rng: random.Random | None = None, renderer: Renderer | None = None) -> None:
        self.store = store
        self.settings = settings or TableSettings()
        self.rng = rng or random.SystemRandom()
        self.renderer = renderer or Renderer()
        self._rooms: dict[str, RoomState] = {}

    def room(self, room_id: str) -> RoomState:
        state = self._rooms.get(room_id)
        if state is None:
            data = self.store.load_room(room_id)
            state = RoomState.from_dict(data) if data else RoomState()
            self._rooms[room_id] = state
        return state

    def handle(self, event: Event) -> list[Action]:
        """Handle ``event`` once: an event id seen before gives no actions.

        If the transaction fails the room's cached state is dropped, so memory never holds
        a change the database rolled back."""
        try:
            return self._handle(event)
        except Exception:
            self._rooms.pop(event.room_id, None)
            raise

    def _handle(self, event: Event) -> list[Action]:
        with self.store.transaction():
            if self.store.was_handled(event.event_id):
                return []
            ctx = self._context(event)
            try:
                dispatch(ctx)
            except Exception:
                log.exception("error handling %s", event.event_id)
                ctx = self._context(event, fresh=True)
                ctx.reply("internal_error")
            actions = [replace(a, action_id=f"{event.event_id}/{i}") for i, a in enumerate(ctx.actions)]
            self.store.save_room(event.room_id, ctx.room.to_json())
            self.store.queue_actions(event.event_id, actions)
            self.store.mark_handled(event.event_id, event.room_id, event.ts)
        return actions

    def _context(self, event: Event, fresh: bool = False) -> Context:
        if fresh:
            self._rooms.pop(event.room_id, None)
        return Context(event, self.room(event.room_id), self.settings.for_room(event.room_id),
                       self.renderer, self.rng)

    def pending_actions(self) -> list[Action]:
        return self.store.pending_actions()

    def action_done(self, action_id: str) -> None:
        self.store.actions_done([action_id])

    def actions_done(self, action_ids: list[str]) -> None:
        self.store.actions_done(action_ids)


def dispatch(ctx: Context) -> None:
    """Lock and turn checks come first, before any other reply (DESIGN.md 1.8)."""
    event = ctx.event
    if event.kind not in ("text", "emote"):
        floor.judge(ctx, _NOT_READ, None)
        return
    line = read_line(event.text, event.kind == "emote")
    command = find_command(line.name, ctx.system_key) if line.kind == "command" else None
    if event.edit:
        floor.judge(ctx, line, command)
        return
    if line.kind in ("dash", "named_dash") and ctx.is_gm():
        floor.gm_dash_line(ctx, line)
        return
    reason = floor.refusal(ctx, line, command)
    if reason is not None:
        if command is None or not floor.has_grant(ctx, command) or not _run_on_grant(ctx, line, command):
            floor.refuse(ctx, reason)
        return
    if line.kind == "action":
        floor.may_explore(ctx)
    elif command is not None:
        _run(ctx, line, command)
    elif line.kind == "command":
        ctx.reply("unknown_command", name=line.name[:40])


_NOT_READ = Line("talk")
"""Notices, media, reactions, polls and other events are never read: they only count as writing."""


def _run_on_grant(ctx: Context, line: Line, command: Command) -> bool:
    """Run ``command`` on the sender's grant. Only a valid command (one that spends the grant) counts:
    otherwise its answers and changes are dropped and the post is treated as without the grant."""
    snapshot, answered = ctx.room.to_json(), len(ctx.actions)
    ctx.on_grant = True
    _run(ctx, line, command)
    ctx.on_grant = False
    if ctx.grant_spent:
        return True
    del ctx.actions[answered:]
    ctx.room.restore(snapshot)
    return False


def _run(ctx: Context, line: Line, command: Command) -> None:
    if len(line.args) > MAX_COMMAND_ARGS:
        ctx.reply("command_too_long", limit=MAX_COMMAND_ARGS)
        return
    if command.gm_only and not ctx.is_gm():
        ctx.reply("gm_only", command=command.name)
        return
    if command.needs_args and not line.args:
        ctx.reply("usage", command=command)
        return
    try:
        command.run(ctx, line.args)
    except DiceError as err:
        ctx.reply("dice_error", code=err.code, params=err.params)
