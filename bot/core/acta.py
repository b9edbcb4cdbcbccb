"""The room's acta: its in-character record, kept only while the GM has it on (``!acta activar``).

What a handled event adds to or changes in the record is gathered on the event's unit of work (``records``)
and written by ``Table.handle`` in the event's own transaction, so a refused command records
nothing and a crash loses the event and its record together.

Recorded: narration (the GM's plain text), dialogue (a player's plain text), actions (``/me``),
rolls (the public message and the outcome's structured result), combats, rounds, turns and locks.
Never recorded: out-of-character text, commands themselves, posts the lock or the turn refused,
and secret rolls (a roll answered privately: nothing reveals one to the room, so none is ever kept).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from bot.core.records import Change, Entry, EntryKind
from bot.core.view import EventView

if TYPE_CHECKING:
    from bot.core.protocol import Line

SESSION_GAP = 6 * 3600 * 1000
"""More than this between two entries (event timestamps, milliseconds) starts a new session."""
MAX_TEXT = 4000
LAST_ROLLS = 8
"""Public rolls the room keeps for its table page."""
Format = Literal["md", "html"]
FORMATS: tuple[Format, ...] = ("md", "html")
"""The exported document's formats (``rolbot acta --format``, the acta links)."""
HIDDEN_IN_DOCUMENT = ("lock", "turn")
"""Kept in the record, left out of the exported document (moderation, not story)."""



def record(ctx: EventView, kind: EntryKind, actor: str = "", text: str = "", **data: Any) -> None:
    """Add an entry for the event being handled, if the room records. A first entry, one after
    ``!sesion fin``, or one more than ``SESSION_GAP`` after the last opens a new session."""
    acta = ctx.room.acta
    if not acta.on:
        return
    ts = ctx.event.ts
    if not acta.open or (acta.last_ts and ts - acta.last_ts > SESSION_GAP):
        acta.session += 1
        acta.open = True
    acta.last_ts = max(acta.last_ts, ts)
    ctx.work.records.append(Entry(acta.session, kind, actor[:200], text[:MAX_TEXT], ctx.event.event_id, ts, data,
                             ctx.sender))


def roll(ctx: EventView, result: dict[str, Any], body: str, secret: bool = False, who: str | None = None,
         label: str = "") -> None:
    """A roll the room saw: the message ``body`` it got, the structured ``result`` (the roll JSON) and
    the named roll's ``label`` (``Pelear d6``). It is credited to ``who`` (the character that rolled),
    else to whom the sender speaks for (``_speaker``: never a GM's user id). A ``secret`` roll is
    neither recorded nor listed on the table page; revealing it (``!revelar``, a public message with
    the same result) records it then."""
    if secret:
        return
    line = " · ".join(part.strip() for part in body.splitlines() if part.strip())[:MAX_TEXT]
    actor = who if who and not (ctx.is_gm() and who == ctx.sender) else _speaker(ctx, "roll")
    ctx.room.last_rolls = [*ctx.room.last_rolls, {"who": actor[:200], "text": line[:500]}][-LAST_ROLLS:]
    record(ctx, "roll", actor, line, result=result, **({"label": label[:80]} if label else {}))


def said(ctx: EventView, line: Line) -> None:
    """Plain text or an action allowed on the floor: narration from the GM, dialogue from a player,
    ``/me`` from either (out-of-character text is not recorded)."""
    kind = _spoken_kind(ctx, line)
    if kind is not None:
        record(ctx, kind, _speaker(ctx, kind), _spoken_text(ctx, line))


def edited(ctx: EventView, line: Line) -> None:
    """An allowed edit: the entry of the edited message takes the new text, or goes if the new text
    is no longer in character. Only the message's sender may edit it (Matrix lets anyone send an edit
    naming any event; clients show only the sender's)."""
    target = ctx.event.target
    if not target:
        return
    kind = _spoken_kind(ctx, line)
    if kind is None:
        ctx.work.records.append(Change("forget", target, by=ctx.sender))
    else:
        ctx.work.records.append(Change("edit", target, kind, _spoken_text(ctx, line)[:MAX_TEXT], by=ctx.sender))


def redacted(ctx: EventView) -> None:
    """A message deleted from the chat leaves the record (a roll it asked for stays), when its sender,
    the GM or a room admin deleted it."""
    if ctx.event.target:
        ctx.work.records.append(Change("forget", ctx.event.target, by=ctx.sender, any_sender=ctx.is_gm()))


def undone(ctx: EventView, source: str) -> None:
    """An undone command's entries (its rolls, the states and turns it recorded) leave the record; its
    rolls stay in the roll history."""
    ctx.work.records.append(Change("undo", source))


def erase(ctx: EventView, sessions: tuple[int, ...] | None) -> None:
    """Delete recorded sessions (None: all). Deleting the open one closes it."""
    acta = ctx.room.acta
    if sessions is None or acta.session in sessions:
        acta.open = False
    ctx.work.records.append(Change("erase", sessions=sessions))


def _speaker(ctx: EventView, kind: EntryKind) -> str:
    """Who an entry names: a player's character (else their user id); for the GM, the NPC whose turn
    it is (on a player's turn, or out of combat, the GM speaks for no one) or the GM's own character."""
    if not ctx.is_gm():
        return ctx.speaker_name
    combat = ctx.room.combat
    if combat is not None and combat.started:
        current = ctx.room.find_character(combat.current or "")
        return current.name if current is not None and current.owner is None else ""
    character = ctx.character
    return character.name if character is not None and kind != "narration" else ""


def _spoken_kind(ctx: EventView, line: Line) -> EntryKind | None:
    if line.kind == "action":
        return "action"
    if line.kind == "talk":
        return "narration" if ctx.is_gm() else "dialogue"
    return None


def _spoken_text(ctx: EventView, line: Line) -> str:
    return line.args if line.kind == "action" else ctx.event.text.strip()
