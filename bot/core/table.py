"""The table core: one event in, a list of actions out, all of it committed at once."""

from __future__ import annotations

import json
import logging
import random
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from importlib.resources.abc import Traversable

from bot.core import acta, floor, moderation, quiet, sheets, tracker, undo
from bot.core import combat as rounds
from bot.core.commands import MAX_COMMAND_ARGS
from bot.core.context import Context, FoundCommand, named_gms
from bot.core.events import Action, Event, with_id
from bot.core.game import GameRegistry
from bot.core.protocol import Line, read_line
from bot.core.render import Renderer
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.screens import ScreenPresence
from bot.core.settings import TableSettings
from bot.core.state import RoomState, name_key
from bot.core.store import Store
from bot.core.targets import edit_distance, typos_allowed
from bot.core.work import UnitOfWork
from systems.refusal import Refusal

log = logging.getLogger(__name__)
RNG_KEY = "rng"
"""Meta key of a seeded run's RNG: ``{"seed": N, "state": ...}``, written with each event."""
TransportTemplates = tuple[str, Traversable, Mapping[str, str]]
"""A transport's name, the folder of its messages (``<name>/<kind>``) and the core kinds it words its own way."""
ROOMS_IN_MEMORY = 256
"""Rooms whose state stays loaded, the most recently used; the others are read from the store
again when they are next used (every event writes its room's whole state)."""


class Table:
    def __init__(self, store: Store, settings: TableSettings | None = None,
                 rng: random.Random | None = None, renderer: Renderer | None = None, *,
                 games: GameRegistry, templates_dir: str | None = None,
                 transports: Iterable[TransportTemplates] = (), editing: Iterable[str] = ()) -> None:
        """``games``: the registry of the games it plays (the shipped ones are ``bot.games.GAMES``, given by
        whoever builds the table); ``templates_dir`` is a group's folder of messages searched before the
        shipped templates (``[templates] dir``); ``transports``: each transport's name, folder of messages and
        the core messages it words its own way (kind -> its kind), used for the events of its rooms."""
        self.games = games
        self.store = store
        self.settings = settings or TableSettings()
        self.rng = rng or random.SystemRandom()
        transports = tuple(transports)
        self.renderer = renderer or Renderer([*games.template_folders(),
                                              *((name, folder) for name, folder, _ in transports)], templates_dir)
        self._renderers = {name: self.renderer.overriding(kinds) for name, _, kinds in transports if kinds}
        self._editing = frozenset(editing)
        self._rooms: OrderedDict[str, RoomState] = OrderedDict()
        self._seed: int | None = None
        self.watchers: list[Callable[[str], None]] = []
        """Called with the room id after each event of that room commits (the live table page)."""
        self.screens = ScreenPresence()
        """Which GMs have their screen open (the web layer says so) and what the screens show."""

    def resume_seed(self, seed: int) -> None:
        """A seeded ``random.Random`` that continues where the last run with ``seed`` over this
        database stopped (a fresh sequence the first time, or after a run with another seed).
        From now on its state is saved in the same transaction as each event."""
        self.rng = random.Random(seed)
        saved = self.store.meta.get(RNG_KEY)
        data = json.loads(saved) if saved else None
        if data and data["seed"] == seed:
            version, internal, gauss = data["state"]
            self.rng.setstate((version, tuple(internal), gauss))
        self._seed = seed

    def room(self, room_id: str) -> RoomState:
        state = self._rooms.get(room_id)
        if state is None:
            data = self.store.rooms.load(room_id)
            state = RoomState.from_dict(data) if data else RoomState()
            self._rooms[room_id] = state
            if len(self._rooms) > ROOMS_IN_MEMORY:
                self._rooms.popitem(last=False)
        else:
            self._rooms.move_to_end(room_id)
        return state

    def handle(self, event: Event, owner: str = "") -> list[Action]:
        """Handle ``event`` once: an event id seen before gives no actions. ``owner`` names the transport
        that owns the event's room: the outbox keeps it with the actions, for that transport's restart.

        If the transaction fails the room's cached state is dropped, so memory never holds
        a change the database rolled back."""
        try:
            actions = self._handle(event, owner)
        except Exception:
            self._rooms.pop(event.room_id, None)
            raise
        if actions is not None:
            for watcher in self.watchers:
                watcher(event.room_id)
        return actions or []

    def floor_epoch(self, room_id: str) -> str:
        """What decides who may write in the room now (lock, turn, exploration, grants). A message
        whose key comes late is judged only if this has not changed since it was sent."""
        room = self.room(room_id)
        combat = room.combat
        return json.dumps([room.lock.event_id if room.lock else None,
                           [combat.round, combat.turn, combat.order] if combat else None,
                           room.exploration is not None, sorted(room.granted)])

    def handle_undecryptable(self, event: Event, owner: str = "") -> list[Action] | None:
        """A message the transport cannot read yet (``kind == "encrypted"``; the sender is known).

        During a lock that keeps the sender off the floor it counts as writing and is judged now
        (handled, like ``handle``), unless the room lets off-topic text through locks. Otherwise
        what it says decides (a roll, plain talk out of turn...): nothing is recorded and ``None``
        says the transport must wait for its key and then ``handle`` the decrypted event under the
        same event id."""
        try:
            with self.store.transaction():
                if self.store.handled.seen(event.event_id):
                    return []
                ctx = self._context(event, owner)
                if floor.lock_allows_sender(ctx) or ctx.settings.ooc_in_locks:
                    return None
        except Exception:
            self._rooms.pop(event.room_id, None)
            raise
        return self.handle(event, owner)

    def _handle(self, event: Event, owner: str) -> list[Action] | None:
        """None: handled before."""
        with self.store.transaction():
            if not self.store.handled.claim(event.event_id, event.room_id, event.ts):
                return None
            ctx = self._context(event, owner)
            opened, turn = quiet.open_items(ctx), quiet.turn_now(ctx)
            try:
                before = acta.before(ctx)
                acta.derive(ctx, before, dispatch(ctx))
                tracker.update(ctx)
            except Exception:
                log.exception("error handling %s", event.event_id)
                ctx = self._context(event, owner, fresh=True)
                ctx.reply("internal_error")
            sheets.play_in(ctx.room, ctx.game, ctx.games)  # characters and a combat made by the event
            work = ctx.work
            room_id = event.room_id
            said = quiet.quiet(ctx, work.actions, partial(self.screens.open_for, room_id),
                               partial(self.screens.shown, room_id), opened, turn)
            actions = [with_id(a, f"{event.event_id}/{i}") for i, a in enumerate(said)]
            self.store.rolls.add([roll.to_row() for roll in work.rolls])
            for step in work.undoable:
                self.store.undo.push(event.room_id, step, undo.UNDO_DEPTH)
            for undone, after in work.undo_marks:
                self.store.undo.mark(event.room_id, undone, after)
            if work.refusal is not None or (work.commanded and ctx.is_gm()):  # only a GM's refusal is noted
                self.store.undo.note_refusal(event.room_id, event.sender, work.refusal)
            for roll_id in work.reveals:
                self.store.rolls.reveal(roll_id)
            for user_id, token in work.screen_links:
                self.store.screen_links.set_token(event.room_id, user_id, token)
            self.store.rooms.save(event.room_id, ctx.room.to_json(), ctx.room.page_token)
            self.store.acta.write(event.room_id, work.records)
            if self._seed is not None:
                self.store.meta.set(RNG_KEY, json.dumps({"seed": self._seed, "state": self.rng.getstate()}))
            self.store.outbox.queue(event.event_id, actions, owner)
        return actions

    def _context(self, event: Event, owner: str, fresh: bool = False) -> Context:
        """The room's sheets are put in the game it plays now (the configured one may have changed); its
        messages are worded for its transport (``owner``)."""
        if fresh:
            self._rooms.pop(event.room_id, None)
        room = self.room(event.room_id)
        renderer = self._renderers.get(owner, self.renderer)
        ctx = Context(event, room, self.settings.for_room(event.room_id), renderer, self.rng, self.games,
                      ROOM_COMMANDS, UnitOfWork(room), store=self.store,
                      recorded_sessions=partial(self.store.acta.sessions, event.room_id),
                      edits=owner in self._editing)
        sheets.play_in(ctx.room, ctx.game, ctx.games)
        return ctx

    def is_gm(self, room_id: str, user_id: str) -> bool:
        """Whether the core counts ``user_id`` a GM of the room now, as a command of theirs would be
        judged (``Context.is_gm``: configured, ``!master``, or the room's admin as the transport last said)."""
        room = self.room(room_id)
        return Context(Event(room_id, "", "", ""), room, self.settings.for_room(room_id), self.renderer, self.rng,
                       self.games, ROOM_COMMANDS, UnitOfWork(room)).is_gm(user_id)

    def context_for(self, event: Event, room: RoomState) -> Context:
        """A context over ``room`` (a copy of a room's state) that nothing commits: for readers of the
        state such as the table page."""
        ctx = Context(event, room, self.settings.for_room(event.room_id), self.renderer, self.rng, self.games,
                      ROOM_COMMANDS, UnitOfWork(room))
        sheets.play_in(ctx.room, ctx.game, ctx.games)
        return ctx

    def gms_of(self, room_id: str) -> list[str]:
        """The room's GMs the table knows by name (``Context.gms``: the config's, then ``!master``'s), for a
        transport to tell what only GMs may see; the GMs it knows by power it adds itself."""
        return named_gms(self.settings.for_room(room_id), self.room(room_id))

    def pending_actions(self) -> list[Action]:
        return self.store.outbox.pending()

    def action_done(self, action_id: str) -> None:
        self.store.outbox.done([action_id])

    def actions_done(self, action_ids: list[str]) -> None:
        self.store.outbox.done(action_ids)


def dispatch(ctx: Context) -> Line | None:
    """Lock and turn checks come first, before any other reply (docs/protocol.md#1.8). Returns the line
    the event put on the floor (plain text, an action, an allowed edit's new text), for the acta; None
    when it put none (a command, a refused post, a redaction)."""
    event = ctx.event
    if event.kind == "admins":
        moderation.set_admins(ctx)
        return None
    moderation.note_admin(ctx)
    if event.kind == "redaction":
        return None
    if event.kind not in ("text", "emote"):
        floor.judge(ctx, _NOT_READ, None)
        return None
    line = read_line(event.text, event.kind == "emote")
    command = ctx.find_command(line.name) if line.kind == "command" else None
    if event.edit:
        if not floor.judge(ctx, line, command):
            return None
        if command is not None:  # an edit runs nothing: its sender is told so, privately
            ctx.whisper(ctx.sender, "edit_not_run", command=command.name)
        return line
    if line.kind in ("dash", "named_dash", "short_dash") and ctx.is_gm():
        return floor.gm_dash_line(ctx, line)
    if line.kind == "short_dash" or line.bare:
        line = _TALK
    reason = floor.refusal(ctx, line, command)
    if command is not None and command.question and not floor.has_floor(ctx, line):
        if reason is not None:
            floor.refuse(ctx, reason)
        ctx.answer_privately = True
        _run(ctx, line, command)
        return None
    if reason is not None:
        if command is None or not floor.has_grant(ctx, command) or not _run_on_grant(ctx, line, command):
            floor.refuse(ctx, reason)
        return None
    if line.kind == "action":
        if not floor.may_explore(ctx):
            return None
        floor.explored(ctx)
        return line
    if command is not None:
        if not command.in_character or command.free or floor.may_explore(ctx):
            _run(ctx, line, command)
        return None
    if line.kind == "command":
        ctx.whisper(ctx.sender, "unknown_command", name=line.name[:40], closest=closest_command(ctx, line.name))
        return None
    return line


MAX_SUGGESTED_NAME = 24
"""An unknown command's name longer than this is no typo of a command's: no suggestion is looked for."""


def closest_command(ctx: Context, name: str) -> str | None:
    """The name of a command of the room (its game's and the core's) a typo away from ``name`` (one
    edit for up to 4 letters, two beyond; the first found of the fewest), as spelled; else None."""
    if len(name) > MAX_SUGGESTED_NAME:
        return None
    closest, fewest = None, typos_allowed(name) + 1
    for book in (ctx.game.commands, ctx.commands):
        for command in book:
            for spelled in command.names:
                edits = edit_distance(name, name_key(spelled))
                if edits < fewest:
                    closest, fewest = spelled, edits
    return closest


_NOT_READ = Line("talk")
"""Notices, media, reactions, polls and other events are never read: they only count as writing."""
_TALK = Line("talk")
"""A player's line of dashes and a name, or of a few dashes, is plain text: no player locks anything."""


def _run_on_grant(ctx: Context, line: Line, command: FoundCommand) -> bool:
    """Run ``command`` on the sender's grant. Only a valid command (one that spends the grant) counts:
    otherwise its answers and changes are dropped and the post is treated as without the grant."""
    mark = ctx.work.mark()
    ctx.on_grant = True
    _run(ctx, line, command)
    ctx.on_grant = False
    if ctx.grant_spent:
        return True
    ctx.work.rollback(mark)
    return False


def _run(ctx: Context, line: Line, command: FoundCommand) -> None:
    if len(line.args) > MAX_COMMAND_ARGS:
        ctx.whisper(ctx.sender, "command_too_long", limit=MAX_COMMAND_ARGS)
        return
    if command.gm_only and not ctx.is_gm():
        ctx.whisper(ctx.sender, "gm_only", command=command.name)
        return
    if command.needs_args and not line.args:
        ctx.whisper(ctx.sender, "usage", command=command)
        return
    run(ctx, command, line.args)


def run(ctx: Context, command: FoundCommand, args: str) -> None:
    """Run ``command``; a refusal rolls the event's unit of work back to where it stood before it and
    answers its sender alone with its one message. A command that changed the play can be taken back later (``!deshacer``)."""
    mark = ctx.work.mark()
    acted = rounds.acting(ctx)
    ctx.work.changing = False
    try:
        command.run(ctx, args)
        rounds.sweep_dead(ctx, acted)
        undo.keep(ctx, command, args, mark)
        ctx.work.commanded, ctx.work.refusal = True, None
        if command.in_character and not command.free:
            floor.explored(ctx)  # any in-character action, a roll too, is the exploration turn's one
    except Refusal as refusal:
        ctx.work.rollback(mark)
        undo.refused(ctx, command, args)
        ctx.whisper(ctx.sender, refusal.kind, **refusal.context())  # to the one who caused it, never the room
