"""``rolbot console``: a local table on stdin/stdout, no server (docs/contracts.md#3.2)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from bot.core.events import Action, Edit, Event, PowerLevels, React, Redact, Send, Tracker
from bot.core.render import Renderer
from bot.core.table import Table
from bot.transport import ActionRegistry, pending_of

ROOM_ID = "!console:local"
RUN_KEY = "console_run"
"""``store.meta``: the number of the last console run over this database (docs/contracts.md#3.2)."""


class ConsoleRoom:
    """The console as the outbox knows it: the transport of its one room."""

    name = "console"

    def owns(self, room_id: str) -> bool:
        return room_id == ROOM_ID


CONSOLE = ConsoleRoom()
_LINE = re.compile(r"^(@[^\s:]+:\S+?):(?:\s(.*))?$", re.DOTALL)


def read_events(lines: IO[str], run: int = 0) -> Iterator[Event | tuple[int, str]]:
    """Events from ``SENDER: TEXT`` lines; unreadable lines come back as (line number, text). The
    event of line N is ``$N`` to whoever reads the output; inside, run ``run`` tags it (``$N~run``) so
    that no run takes another's events for its own (run 0: the untagged ids of earlier versions)."""
    tag = f"~{run}" if run else ""
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            yield number, line
            continue
        yield Event(ROOM_ID, match[1], match[2] or "", f"${number}{tag}", ts=number)


_RUN_TAG = re.compile(r"^(\$\d+)~\d+")


def shown_id(internal: str | None) -> str | None:
    """An event's, action's or roll's id as printed: the run's tag dropped (``$3~2/0`` is ``$3/0``)."""
    return None if internal is None else _RUN_TAG.sub(r"\1", internal)


def start_run(table: Table, resume: bool) -> int:
    """This run's number: the last one again to resume it (``--reanudar``), else the next, recorded."""
    last = table.store.meta.get(RUN_KEY)
    run = int(last) if last and last.isdigit() else 0
    if not resume:
        run += 1
    table.store.meta.set(RUN_KEY, str(run))
    return run


ACTIONS: ActionRegistry[Callable[[Any], dict[str, Any] | None]] = ActionRegistry("console")
"""The fields each kind of action adds to its ``--jsonl`` line (docs/contracts.md#3.2); None: not printed."""


@ACTIONS.on(Send)
def _send_json(action: Send) -> dict[str, Any]:
    data: dict[str, Any] = {"event": action.reply_to, "text": action.message.body, "html": action.message.html,
                            "mentions": list(action.mentions), "private_to": action.private_to}
    if action.private_also or action.to_room_gms:
        data.update(private_also=list(action.private_also), to_room_gms=action.to_room_gms)
    if action.gm_copy:
        data.update(gm_copy=True)
    if action.roll is not None:
        data.update(roll=action.roll, roll_id=action.roll_id, secret=action.secret,
                    applied=[{"reason": r, "value": v} for r, v in action.applied])
        if action.rolls:
            data.update(rolls=list(action.rolls), roll_ids=[shown_id(i) for i in action.roll_ids])
    if action.parts:
        data.update(parts=list(action.parts))
    return data


@ACTIONS.on(Redact)
def _redact_json(action: Redact) -> dict[str, Any]:
    return {"event": action.event_id, "reason": action.reason}


@ACTIONS.on(PowerLevels)
def _power_levels_json(action: PowerLevels) -> dict[str, Any]:
    return {"event": action.reply_to, "lock": action.lock, "speakers": list(action.speakers)}


@ACTIONS.on(React)
def _react_json(action: React) -> dict[str, Any]:
    return {"event": action.event_id, "key": action.key}


@ACTIONS.on(Edit)
def _edit_json(action: Edit) -> dict[str, Any]:
    """Never printed in practice: the console does not edit (later offenders of a lock are told privately)."""
    return {"event": action.ref, "text": action.message.body, "html": action.message.html,
            "mentions": list(action.mentions)}


@ACTIONS.on(Tracker)
def _tracker_json(action: Tracker) -> dict[str, Any] | None:
    """The console keeps no tracker (its turn lines say whose turn it is): nothing is printed."""
    return None


def shown(actions: list[Action]) -> list[Action]:
    """The actions the console prints (a tracker's are not)."""
    return [a for a in actions if not isinstance(a, Tracker)]


def action_json(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"action": action.kind, "event": None, "text": None, "html": None, "id": action.action_id}
    data.update(ACTIONS[action](action) or {})
    for key in ("id", "event", "roll_id"):
        if key in data:
            data[key] = shown_id(data[key])
    return data


def run_console(table: Table, stdin: IO[str], stdout: IO[str], jsonl: bool, resume: bool = False,
                terminal: bool = False) -> int:
    """Each run is new: its lines are all answered. Replies committed but never printed (a crash
    between the two) come first; ``resume`` re-reads the last run's input and skips the events it
    handled (said at the start, and how many at the end, on stderr). On a ``terminal`` a banner
    comes first, and the typed lines are not printed again (the terminal shows them)."""
    renderer = table.renderer
    run = start_run(table, resume)
    if terminal:
        print(renderer.text("console_banner", system=_system(table), jsonl=jsonl), file=sys.stderr, flush=True)
    if resume:
        print(renderer.text("console_resumed"), file=sys.stderr, flush=True)
    skipped = 0
    for event_id, actions in _by_event(pending_of(CONSOLE, table.store)):
        _print(stdout, renderer, jsonl, event_id, actions)
        table.actions_done([a.action_id for a in actions])
    try:
        for item in read_events(stdin, run):
            if isinstance(item, tuple):
                print(renderer.text("console_bad_line", number=item[0], line=item[1][:80]), file=sys.stderr)
                continue
            if resume and table.store.handled.seen(item.event_id):
                skipped += 1
                continue
            actions = table.handle(item, owner=CONSOLE.name)
            _print(stdout, renderer, jsonl, None if terminal else item, actions)
            table.actions_done([a.action_id for a in actions])
    except KeyboardInterrupt:
        print(file=sys.stderr)
    if skipped:
        print(renderer.text("console_skipped", count=skipped), file=sys.stderr)
    return 0


def _system(table: Table) -> str:
    """The key of the console room's game (set by ``!sistema`` in an earlier run, or by ``--system``)."""
    return (table.room(ROOM_ID).system or table.settings.for_room(ROOM_ID).system
            or table.games.default.key)


def _by_event(actions: list[Action]) -> Iterator[tuple[str, list[Action]]]:
    """Pending actions grouped by the event they answer (an action id is ``EVENT_ID/N``)."""
    groups: dict[str, list[Action]] = {}
    for action in actions:
        groups.setdefault(action.action_id.rpartition("/")[0], []).append(action)
    yield from groups.items()


def _print(stdout: IO[str], renderer: Renderer, jsonl: bool, event: Event | str | None,
           actions: list[Action]) -> None:
    """Print and flush: an action is marked done only once it is out of the process. ``event``: the
    line answered (None: not printed again), or the id of one answered before a crash."""
    actions = shown(actions)
    if jsonl:
        stdout.writelines(json.dumps(action_json(a), ensure_ascii=False) + "\n" for a in actions)
    elif isinstance(event, str):
        stdout.write(renderer.text("console_view", event=None, pending=shown_id(event), actions=actions) + "\n")
    elif event is not None or actions:
        stdout.write(renderer.text("console_view", event=event, pending=None, actions=actions) + "\n")
    stdout.flush()
