"""``rolbot console``: a local table on stdin/stdout, no server (DESIGN.md 3.2)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import IO

from bot.core.events import Action, Event, PowerLevels, React, Redact, Send
from bot.core.render import Renderer
from bot.core.table import Table

ROOM_ID = "!console:local"
_LINE = re.compile(r"^(@[^\s:]+:\S+?):(?:\s(.*))?$", re.DOTALL)


def read_events(lines: IO[str]) -> Iterator[Event | tuple[int, str]]:
    """Events from ``SENDER: TEXT`` lines; unreadable lines come back as (line number, text)."""
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            yield number, line
            continue
        yield Event(ROOM_ID, match[1], match[2] or "", f"${number}", ts=number)


def action_json(action: Action) -> dict:
    data: dict = {"action": action.kind, "event": None, "text": None, "html": None, "id": action.action_id}
    if isinstance(action, Send):
        data.update(event=action.reply_to, text=action.message.body, html=action.message.html,
                    mentions=list(action.mentions), private_to=action.private_to)
    elif isinstance(action, Redact):
        data.update(event=action.event_id, reason=action.reason)
    elif isinstance(action, PowerLevels):
        data.update(event=action.reply_to, lock=action.lock, speakers=list(action.speakers))
    elif isinstance(action, React):
        data.update(event=action.event_id, key=action.key)
    return data


def run_console(table: Table, stdin: IO[str], stdout: IO[str], jsonl: bool) -> int:
    renderer = table.renderer
    for item in read_events(stdin):
        if isinstance(item, tuple):
            print(renderer.text("console_bad_line", number=item[0], line=item[1][:80]), file=sys.stderr)
            continue
        actions = table.handle(item)
        if jsonl:
            stdout.writelines(json.dumps(action_json(a), ensure_ascii=False) + "\n" for a in actions)
        else:
            stdout.write(_chat_view(renderer, item, actions) + "\n")
        table.actions_done([a.action_id for a in actions])
        stdout.flush()
    return 0


def _chat_view(renderer: Renderer, event: Event, actions: list[Action]) -> str:
    return renderer.text("console_view", event=event, actions=actions)
