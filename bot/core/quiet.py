"""One message per event: what an event's commands said, merged at the end of its unit of work.

Every message the room reads that one event produced becomes ONE room message, its parts in order (the
plain text joined by new lines, the HTML by ``<br/>``), and every private message to the same readers
one private message: a transport (Matrix, IRC, the console) carries out one send per reader and
event. Reactions, redactions and power levels stay as they are. The merged send carries the roll
of its first part that shows one as ``roll`` and, when more of its parts show rolls, all of them in
order as ``rolls`` (docs/contracts.md#3.2).

The GMs' private copies (``privacy.addressed``) hold only what the room's copies left out. Out of
combat they go with the event, one per event; in combat they wait in the room's state
(``RoomState.gm_copies``) and go as one digest when a turn ends, at most ``TURN_DIGESTS`` a round,
and always when a round or the fight ends: at most four a round. A GM whose screen is open
(``ScreenPresence``) gets none: the screen shows the GMs' view of the room's messages instead.

During a turn the GM runs (an NPC's, a group of NPCs'), a GM's command whose room messages all report
an action that changed nothing (``Send.joinable``: a miss) posts nothing on its own: it gets a ✅, and
its lines wait in the room's state (``RoomState.held``) and join, in order, the room's next message,
whatever says it (the next attack, the turn line, the round's, ``!combate fin``, an undo). The turn
passing always lets them out: a turn that passes as a bare ✅ turns that ✅ into a message of them.
A player's command, or anything that changes the fight, is never held. Their GMs' copies go to the
digest as any other's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from markupsafe import Markup

from bot.core.combat import gms_turn
from bot.core.context import Context
from bot.core.events import Action, React, Send
from bot.core.privacy import recipients
from bot.core.records import Pending
from bot.core.render import MAX_BODY, Message
from bot.core.state import Character
from bot.core.view import EventView

BODY_JOIN = "\n"
HTML_JOIN = "<br/>"
TURN_DIGESTS = 3
"""Digests of the GMs' copies sent at a turn's end in one round; the round's end sends one more."""


def merged(parts: list[Send]) -> Send:
    """``parts`` (sends to the same readers) as one send: their texts in order, the first's addressing,
    everyone they mention, the first roll as ``roll`` and every roll as ``rolls`` when more than one."""
    first = parts[0]
    if len(parts) == 1:
        return first
    body = BODY_JOIN.join(p.message.body for p in parts)
    html = HTML_JOIN.join(p.message.html for p in parts)
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY - 1] + "…"
    rolled = [p for p in parts if p.roll is not None]
    main = rolled[0] if rolled else first
    mentions = tuple(dict.fromkeys(m for p in parts for m in p.mentions))
    reply_to = next((p.reply_to for p in parts if p.reply_to is not None), None)
    return replace(first, message=Message(body, html), mentions=mentions, reply_to=reply_to,
                   template=main.template, roll=main.roll, applied=main.applied, roll_id=main.roll_id,
                   rolls=tuple(p.roll for p in rolled if p.roll is not None) if len(rolled) > 1 else (),
                   roll_ids=tuple(p.roll_id for p in rolled) if len(rolled) > 1 else (),
                   secret=any(p.secret for p in parts), parts=tuple(p.message.body for p in parts))


def _readers(send: Send) -> tuple[Any, ...]:
    """Sends with the same key go to the same readers, the same way (``None``: the room)."""
    if send.private_to is None:
        return (None, send.thread)
    return (send.private_to, send.private_also, send.to_room_gms, send.secret, send.gm_copy, send.thread)


def one_per_reader(actions: list[Action]) -> tuple[list[Action], list[tuple[Send, Send | None]]]:
    """The event's actions with one send per readers, at the place of the first; and the room's
    messages, each with the GMs' copy of it (None: the GMs read the room's), taken out of the actions."""
    kept: list[Action | tuple[Any, ...]] = []
    groups: dict[tuple[Any, ...], list[Send]] = {}
    room: list[tuple[Send, Send | None]] = []
    last: Send | None = None
    for action in actions:
        if not isinstance(action, Send):
            kept.append(action)
            continue
        if action.gm_copy and last is not None and last.private_to is None:
            room[-1] = (last, action)  # the GMs' copy of the room's message just before it
            last = action
            continue
        last = action
        key = _readers(action)
        if key not in groups:
            groups[key] = []
            kept.append(key)
        groups[key].append(action)
        if action.private_to is None:
            room.append((action, None))
    return [merged(groups[item]) if isinstance(item, tuple) else item for item in kept], room


def open_items(ctx: Context) -> set[Pending]:
    """What the fight keeps open for someone to answer now (``CombatRules.pending``)."""
    combat = ctx.room.combat
    return set(ctx.game.combat.pending(ctx, combat)) if combat is not None and combat.started else set()


Turn = tuple[int, int] | None
"""Where a fight stands: its round and turn (None: no fight under way)."""


def turn_now(ctx: EventView) -> Turn:
    combat = ctx.room.combat
    return (combat.round, combat.turn) if combat is not None and combat.started else None


def _holds(ctx: Context, actions: list[Action], turn: Turn) -> bool:
    """The event's room messages are all joinable and said by a GM in a turn the GM runs, which goes on."""
    room = [a for a in actions if isinstance(a, Send) and a.private_to is None]
    return (bool(room) and all(send.joinable for send in room) and ctx.is_gm() and ctx.event.in_room
            and turn is not None and turn_now(ctx) == turn and gms_turn(ctx))


def _held_line(ctx: EventView, send: Send) -> dict[str, Any]:
    return {"event": ctx.event.event_id, "body": send.message.body, "html": send.message.html,
            "roll": send.roll, "roll_id": send.roll_id, "mentions": list(send.mentions),
            "template": send.template, "actor": send.actor, "thread": send.thread}


def _released(ctx: Context, actions: list[Action], turn: Turn) -> tuple[list[Action], set[int]]:
    """The event's actions with the held lines let out before its first room message; when it has none
    and the turn moved, they are its message in place of its ✅. The ids of the sends let out."""
    held = ctx.room.held
    room_at = next((i for i, a in enumerate(actions) if isinstance(a, Send) and a.private_to is None), None)
    if not held or (room_at is None and turn_now(ctx) == turn):
        return actions, set()
    ctx.room.held = []
    done = ctx.renderer.text("done_key")
    sends = [Send(ctx.event.room_id, Message(line["body"], str(Markup(line["html"]))), None,
                  tuple(line.get("mentions") or ()), template=line.get("template", ""), actor=line.get("actor", ""),
                  roll=line.get("roll"), roll_id=line.get("roll_id"), thread=line.get("thread", ""))
             for line in held]
    if room_at is None:
        kept = [a for a in actions if not (isinstance(a, React) and a.event_id == ctx.event.event_id
                                           and a.key == done)]
        return [*kept, *sends], {id(send) for send in sends}
    return [*actions[:room_at], *sends, *actions[room_at:]], {id(send) for send in sends}


def joinable(ctx: Context, actor: Character) -> None:
    """The event's last room message reports ``actor``'s action that changed nothing in the fight (a miss):
    when the actor is the GMs' it may be held (the module's doc). A player's action never is."""
    if not ctx.sheet_is_gms(actor):
        return
    actions = ctx.work.actions
    for at in range(len(actions) - 1, -1, -1):
        action = actions[at]
        if isinstance(action, Send) and action.private_to is None:
            actions[at] = replace(action, joinable=True)
            return


def forget_held(ctx: Context, event_id: str) -> None:
    """``!deshacer`` of the command that said them: its held lines are never said."""
    ctx.room.held = [line for line in ctx.room.held if line.get("event") != event_id]


def quiet(ctx: Context, actions: list[Action], screen_open: Callable[[str], bool],
          shown: Callable[[str], None], opened: set[Pending] | None = None, turn: Turn = None) -> list[Action]:
    """The event's actions as they go out: one send per readers; the GMs' copies as the module says.
    ``screen_open(gm)``: that GM's screen is open; ``shown(text)``: the GMs' view of the room's message;
    ``opened``: what the fight kept open before the event: when it opens more (a soak offered to a GM's
    character), the copies go now, as a turn's end would send them; ``turn``: where the fight stood
    before the event (``turn_now``), for the held lines (the module's doc)."""
    holds = _holds(ctx, actions, turn)
    let_out: set[int] = set()
    if not holds:
        actions, let_out = _released(ctx, actions, turn)
    out, room = one_per_reader(actions)
    if holds:
        ctx.room.held.extend(_held_line(ctx, send) for send, _ in room)
        out = [a for a in out if not (isinstance(a, Send) and a.private_to is None)]
        out.append(React(ctx.event.room_id, ctx.event.event_id, ctx.renderer.text("done_key")))
    room = [(send, gm) for send, gm in room if id(send) not in let_out]
    if not room:  # a ✅ that ended a turn (one passing to an NPC) still sends the copies the turn kept
        digest = _due(ctx, []) if ctx.room.gm_copies.get("lines") else []
        out.extend(_copies(ctx, digest, screen_open) if digest else [])
        return out
    copies = [gm for _, gm in room if gm is not None]
    if copies:
        shown(BODY_JOIN.join((gm or send).message.body for send, gm in room))
    urgent = opened is not None and bool(copies) and not open_items(ctx) <= opened
    asked = bool(copies) and ctx.is_gm() and all(send.roll is None for send, _ in room)
    digest = _due(ctx, [[c.message.body, c.message.html, c.roll, c.roll_id] for c in copies], urgent, asked)
    if digest:
        out.extend(_copies(ctx, digest, screen_open))
    return out


def _due(ctx: EventView, lines: list[list[Any]], urgent: bool = False, asked: bool = False) -> list[list[Any]]:
    """The GMs' copies to send now: this event's out of combat; in combat those kept, when a turn ends
    or the event left something open (``urgent``), up to ``TURN_DIGESTS`` a round, or the round or
    fight ends; and at once, not counted, when a GM asked for what they show (``asked``: a GM's
    command that rolled nothing, such as ``!ficha`` of an NPC)."""
    combat = ctx.room.combat
    now = [combat.round, combat.turn] if combat is not None and combat.started else None
    kept = ctx.room.gm_copies
    waiting: list[list[Any]] = [*kept.get("lines", []), *lines]
    at = kept.get("at")
    if now is None and at is None:
        ctx.room.gm_copies = {}
        return waiting
    sent = int(kept.get("sent", 0))
    if asked and now == at:
        ctx.room.gm_copies = {"at": now, "sent": sent, "lines": []}
        return waiting
    round_over = now is None or at is None or now[0] != at[0]
    turn_over = at is not None and (now != at or urgent) and sent < TURN_DIGESTS
    if round_over or turn_over:
        ctx.room.gm_copies = {"at": now, "sent": 0 if round_over else sent + bool(waiting), "lines": []} if now else {}
        return waiting
    ctx.room.gm_copies = {"at": now, "sent": sent, "lines": waiting}
    return []


def _copies(ctx: EventView, lines: list[list[Any]], screen_open: Callable[[str], bool]) -> list[Send]:
    """One private send of ``lines`` to the GMs whose screen is not open (none if all are)."""
    gms = recipients(ctx)
    readers = [gm for gm in gms if not screen_open(gm)]
    if not readers:
        return []
    parts = [Send(ctx.event.room_id, Message(line[0], str(Markup(line[1]))), roll=line[2], roll_id=line[3])
             for line in lines]
    return [replace(merged(parts), private_to=readers[0], template="gm_copy", actor=ctx.speaker_name,
                    private_also=tuple(readers[1:]), to_room_gms=not ctx.gms and len(readers) == len(gms),
                    secret=True, gm_copy=True)]
