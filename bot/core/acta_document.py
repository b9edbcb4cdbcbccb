"""The acta as a document people read (Markdown or HTML): ``rolbot acta`` and the web links.

Sessions get a title, combats and rounds headings, narration is prose, actions italics with the
character's name, each roll one line; locks and turns (moderation) are left out. Every piece of
user text is escaped for the format (``md`` filter, HTML autoescape)."""

from __future__ import annotations

import hashlib
import re
from base64 import b64encode
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from bot.core.acta import HIDDEN_IN_DOCUMENT, Format
from bot.core.records import Entry
from bot.core.render import Renderer, without_controls
from bot.core.store import Store

DATED_FROM_MS = 10**12
"""Timestamps at least this big are milliseconds since 1970 (Matrix); smaller ones are the
console's line numbers and carry no date."""
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass
class Session:
    number: int
    date: str | None = None
    entries: list[Entry] = field(default_factory=list)


class NoSuchActa(Exception):
    """Nothing to export: ``session`` None means the room has no recorded session at all."""

    def __init__(self, session: int | None, known: list[int]) -> None:
        super().__init__(session)
        self.session = session
        self.known = known


def pick_sessions(store: Store, room_id: str, session: int | None = None, every: bool = False) -> list[int]:
    """The session numbers asked for: one, all, or (default) the last; ``NoSuchActa`` if none."""
    known = store.acta.sessions(room_id)
    if not known or (session is not None and session not in known):
        raise NoSuchActa(session, known)
    if every:
        return known
    return [session if session is not None else known[-1]]


def sessions_of(store: Store, renderer: Renderer, room_id: str, numbers: list[int]) -> list[Session]:
    """The sessions as the document shows them: a roll is one compact line of its stored result, in the
    words of the game whose system rolled it (its ``acta_labels``)."""
    by_number = {n: Session(n) for n in numbers}
    for entry in store.acta.entries(room_id, numbers):
        session = by_number[entry.session]
        if session.date is None:
            session.date = _date(entry.ts)
        if entry.kind == "roll" and isinstance(entry.data.get("result"), dict):
            label, result = entry.data.get("label"), _result(entry.data["result"])
            entry = replace(entry, text=renderer.text("acta_roll", actor=entry.actor, r=result,
                                                      label=label if isinstance(label, str) else "",
                                                      labels=renderer.games_template(result["system"], "acta_labels")))
        if entry.kind not in HIDDEN_IN_DOCUMENT:
            session.entries.append(entry)
    return [by_number[n] for n in numbers]


def _result(result: dict[str, object]) -> dict[str, object]:
    """The fields of a roll's stored result the compact line reads (absent ones None)."""
    keys = ("system", "kind", "expr", "comment", "dice", "total", "outcome", "raises", "trait", "wild")
    return {key: result.get(key) for key in keys}


def _date(ts: int) -> str | None:
    """The day of a timestamp in milliseconds; None for the console's line numbers and for a time
    no calendar date fits (year past 9999)."""
    if ts < DATED_FROM_MS:
        return None
    try:
        return datetime.fromtimestamp(ts / 1000, UTC).strftime("%d/%m/%Y")
    except (ValueError, OverflowError, OSError):
        return None


def style(renderer: Renderer) -> str:
    """The HTML document's stylesheet (inline, so a saved file reads well on its own)."""
    return renderer.document("acta_style", "css")


def style_hash(css: str) -> str:
    """The CSP source that allows exactly this inline stylesheet."""
    return "'sha256-" + b64encode(hashlib.sha256(css.encode()).digest()).decode() + "'"


def render(renderer: Renderer, room_id: str, sessions: list[Session], fmt: Format) -> str:
    """The document; no control character reaches it, from the filters or from any value the
    templates write as it is (names, roll lines)."""
    if fmt == "html":
        return without_controls(renderer.document("acta_document", "html", room_id=room_id, sessions=sessions,
                                                   css=style(renderer)))
    text = renderer.document("acta_document", "txt", room_id=room_id, sessions=sessions)
    return without_controls(_BLANK_LINES.sub("\n\n", text).strip()) + "\n"


def export(store: Store, renderer: Renderer, room_id: str, fmt: Format = "md", session: int | None = None,
           every: bool = False) -> str:
    """The room's acta as a document (``NoSuchActa`` when there is nothing to show)."""
    numbers = pick_sessions(store, room_id, session, every)
    return render(renderer, room_id, sessions_of(store, renderer, room_id, numbers), fmt)
