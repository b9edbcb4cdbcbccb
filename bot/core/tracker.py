"""The combat's tracker: one message in the room that holds the order, whose turn it is and what each
combatant shows, kept by a transport that edits its messages (``Context.edits``: Matrix posts it once,
pins it, edits it in place and unpins it at the end). IRC and the console keep their turn lines.

After each event the core renders the tracker as the room may see it (``bot/core/privacy.py``) and
asks the transport to show it when it changed (``Tracker``); ``!estado`` points to it while few
messages came after its last change."""

from __future__ import annotations

import hashlib

from bot.core import combat as rounds
from bot.core import privacy
from bot.core.context import Context
from bot.core.events import Send, Tracker

POINT_WITHIN = 20
"""``!estado`` links to the tracker unless more room messages than this came after its last change."""


def update(ctx: Context) -> None:
    """At the end of an event: show the tracker if what it holds changed, end it once the fight is over,
    else count the room's messages since it last changed (the event's own and the bot's answers)."""
    if not ctx.edits:
        return
    room, combat = ctx.room, ctx.room.combat
    if combat is None or not combat.started:
        if room.tracker:
            ctx.work.actions.append(Tracker(ctx.event.room_id, "end"))
            room.tracker, room.tracker_age = "", 0
        return
    message = privacy.render_views(ctx, "tracker", {"combat": combat, "rows": rounds.board(ctx, combat)}).public
    shown = hashlib.sha256(f"{message.body}\0{message.html}".encode()).hexdigest()[:32]
    if shown != room.tracker:
        ctx.work.actions.append(Tracker(ctx.event.room_id, "show", message))
        room.tracker, room.tracker_age = shown, 0
        return
    sends = sum(1 for a in ctx.work.actions if isinstance(a, Send) and a.private_to is None)
    room.tracker_age += sends + (1 if ctx.event.in_room and ctx.event.kind not in ("redaction", "admins") else 0)


def point(ctx: Context) -> bool:
    """``!estado`` in the room during a fight the tracker shows: answer with a link to it (True), unless
    more than ``POINT_WITHIN`` messages came after its last change or a lock is on (the list is posted)."""
    room = ctx.room
    if not (ctx.edits and room.tracker and room.tracker_age <= POINT_WITHIN) or room.lock or ctx.answer_privately:
        return False
    ctx.work.actions.append(Tracker(ctx.event.room_id, "point", answer=ctx.event.event_id))
    return True
