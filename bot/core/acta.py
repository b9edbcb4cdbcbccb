"""The room's acta: its in-character record, kept only while the GM has it on (``!acta activar``).

What a handled event adds to or changes in the record is derived once, at the end of its unit of work
(``derive``), from what the event was, the messages it queued and the room's state before and after;
``Table.handle`` writes it (``records``) in the event's own transaction, so a refused command (rolled
back with its messages) records nothing and a crash loses the event and its record together.

Recorded: narration (the GM's plain text), dialogue (a player's plain text), actions (``/me``),
rolls (the public message and the outcome's structured result), combats, rounds, turns and locks.
Never recorded: out-of-character text, commands themselves, posts the lock or the turn refused,
and secret rolls (a roll answered privately: nothing reveals one to the room, so none is ever kept).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from bot.core.records import Change, Entry, EntryKind
from bot.core.view import EventView
from bot.core.work import Said, SeenRoll

if TYPE_CHECKING:
    from bot.core.context import Context
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


ROUND_NAMED = ("new_round", "turn_start", "nobody_can_act")
"""The core's messages that name the round they are in (``round``); ``turn_start`` names the actor too."""
ActaBoard = tuple[int, tuple[str, ...], dict[str, list[str]]]
"""A running combat as the record compares it: round, order, each combatant's state labels."""


@dataclass(frozen=True, slots=True)
class Before:
    """The room as the record compares it after the event: the event that opened the lock (None: no
    lock), the combat's round (None: no combat), whether its rounds had started, and its state labels."""

    lock: str | None
    round: int | None
    started: bool
    board: ActaBoard | None


def before(ctx: Context) -> Before:
    """Taken before the event is handled, for ``derive``."""
    room = ctx.room
    combat = room.combat
    return Before(room.lock.event_id if room.lock else None, combat.round if combat else None,
                  combat is not None and combat.started, _board(ctx))


def derive(ctx: Context, before: Before, spoken: Line | None) -> None:
    """The record of a handled event, derived once at the end of its unit of work from what the event
    was (``spoken``: the line it put on the floor, None when the floor refused it or it said nothing),
    the messages it queued (the rolls the room saw, the rounds and turns announced) and the room's state
    ``before`` it and now (the lock, the combat, the state labels). An event that undid a command
    (``!deshacer``) only takes that step's entries out."""
    work = ctx.work
    _shown_rolls(ctx)
    if work.undone:
        work.records += [Change("undo", step) for step in work.undone]
        return
    if ctx.event.kind == "redaction":
        _redacted(ctx)
    elif ctx.event.edit and spoken is not None:
        _edited(ctx, spoken)
    if not ctx.room.acta.on:
        return
    if spoken is not None and not ctx.event.edit:
        _said(ctx, spoken)
    _lock(ctx, before)
    _combat(ctx, before)
    _told(ctx, before)
    _state_changes(ctx, before)


def _shown_rolls(ctx: EventView) -> None:
    """The rolls the room saw, in the room's last rolls (its table page)."""
    for said in ctx.work.said:
        if said.roll is not None:
            ctx.room.last_rolls = [*ctx.room.last_rolls, {"who": _roller(ctx, said)[:200],
                                                          "text": _roll_line(said.roll)[:500]}][-LAST_ROLLS:]


def _roll_line(roll: SeenRoll) -> str:
    return " · ".join(part.strip() for part in roll.body.splitlines() if part.strip())[:MAX_TEXT]


def _roller(ctx: EventView, said: Said) -> str:
    """Whom a roll is credited to: the character that rolled (``SeenRoll.who``), else whom the sender
    spoke for when it was rolled (``_speaker``: never a GM's user id)."""
    who = said.roll.who if said.roll is not None else None
    if who and not (ctx.is_gm() and who == ctx.sender):
        return who
    return _speaker(ctx, "roll", said.turn is not None, said.turn_of)


def _told(ctx: EventView, before: Before) -> None:
    """Each roll the room saw (its message, the structured result and the named roll's label), and the
    rounds and turns the core announced: a round's heading the first time a message names it. A turn
    (and its round's heading) comes before the rolls its start made (a Spirit roll to recover), which
    the room saw before the message that announces the turn."""
    headed = before.round if before.started else None
    told: list[_Told] = []
    for said in ctx.work.said:
        if said.kind in ROUND_NAMED:
            number = said.context["round"]
            start = len(told)
            while start and (earlier := told[start - 1].roll) is not None and _same_turn(earlier, said):
                start -= 1
            announced = []
            if number != headed:
                announced.append(_Told("round", "", "", {"round": number}))
                headed = number
            if said.kind == "turn_start":
                announced.append(_Told("turn", said.context["actor"], "", {"round": number}))
            told[start:start] = announced
        if said.roll is not None:
            label = said.roll.label[:80]
            told.append(_Told("roll", _roller(ctx, said), _roll_line(said.roll),
                              {"result": said.roll.result, **({"label": label} if label else {})}, said))
    for entry in told:
        record(ctx, entry.kind, entry.actor, entry.text, **entry.data)


@dataclass(frozen=True, slots=True)
class _Told:
    """An entry ``_told`` derived, in its place, with the message of its roll."""

    kind: EntryKind
    actor: str
    text: str
    data: dict[str, Any]
    roll: Said | None = None


def _same_turn(roll: Said, announcement: Said) -> bool:
    """A roll made when the combat stood where the announcement finds it (the turn it starts)."""
    return (roll.turn, roll.turn_of) == (announcement.turn, announcement.turn_of)


def _lock(ctx: EventView, before: Before) -> None:
    """A lock the event opened (named or not) or closed."""
    lock = ctx.room.lock
    if lock is not None and lock.event_id != before.lock:
        record(ctx, "lock", ctx.speaker_name, open=True, **({"character": lock.character} if lock.character else {}))
    elif lock is None and before.lock is not None:
        record(ctx, "lock", ctx.speaker_name, open=False)


def _combat(ctx: EventView, before: Before) -> None:
    """A combat the event declared, or ended (with the rounds it lasted)."""
    combat = ctx.room.combat
    if combat is not None and before.round is None:
        record(ctx, "combat")
    elif combat is None and before.round is not None:
        record(ctx, "combat_end", rounds=before.round)


def _board(ctx: Context) -> ActaBoard | None:
    """The combat's state labels (the ones ``!estado`` shows), when the room records a running combat."""
    combat = ctx.room.combat
    if not ctx.room.acta.on or combat is None or not combat.started:
        return None
    rules = ctx.game.combat
    labels = {}
    for name in combat.order:
        character = ctx.room.find_character(name)
        labels[name] = rules.conditions(ctx, combat, character) if character else []
    return combat.round, tuple(combat.order), labels


def _state_changes(ctx: Context, before: Before) -> None:
    """Each combatant whose state labels changed gets a ``state`` entry. A new round or a new order
    (cards dealt again, initiative) is the round's heading, not a change of state."""
    was, now = before.board, _board(ctx)
    if was is None or now is None or was[:2] != now[:2]:
        return
    for name, labels in now[2].items():
        if labels != was[2].get(name):
            record(ctx, "state", name, ", ".join(labels), before=was[2].get(name, []), after=labels)


def _said(ctx: EventView, line: Line) -> None:
    """Plain text or an action allowed on the floor: narration from the GM, dialogue from a player,
    ``/me`` from either (out-of-character text is not recorded)."""
    kind = _spoken_kind(ctx, line)
    if kind is not None:
        combat = ctx.room.combat
        fighting = combat is not None and combat.started
        record(ctx, kind, _speaker(ctx, kind, fighting, combat.current if combat and fighting else None),
               _spoken_text(ctx, line))


def _edited(ctx: EventView, line: Line) -> None:
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


def _redacted(ctx: EventView) -> None:
    """A message deleted from the chat leaves the record (a roll it asked for stays), when its sender,
    the GM or a room admin deleted it."""
    if ctx.event.target:
        ctx.work.records.append(Change("forget", ctx.event.target, by=ctx.sender, any_sender=ctx.is_gm()))

def erase(ctx: EventView, sessions: tuple[int, ...] | None) -> None:
    """Delete recorded sessions (None: all). Deleting the open one closes it."""
    acta = ctx.room.acta
    if sessions is None or acta.session in sessions:
        acta.open = False
    ctx.work.records.append(Change("erase", sessions=sessions))


def _speaker(ctx: EventView, kind: EntryKind, fighting: bool, turn_of: str | None) -> str:
    """Who an entry names: a player's character (else their user id); for the GM, the NPC whose turn
    it was (``turn_of`` while ``fighting``; on a player's turn, or out of combat, the GM speaks for no
    one) or the GM's own character."""
    if not ctx.is_gm():
        return ctx.speaker_name
    if fighting:
        current = ctx.room.find_character(turn_of or "")
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
