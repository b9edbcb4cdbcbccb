"""How the table answers: a message rendered through the privacy rule, addressed, with the roll it shows.

``Context.reply``, ``announce``, ``whisper`` and ``tell_gms`` come here. Every message is rendered for
the room and, when it names a GM-owned sheet, for the GMs (``bot/core/privacy.py``); one that shows a
roll carries it. Each message is also noted on the event's unit of work (``Said``): the acta is derived
from those at the event's end, a roll the room saw among them (a secret one waits for ``!revelar``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core import privacy
from bot.core.events import Send
from bot.core.records import RollRecord
from bot.core.render import Message
from bot.core.state import name_key
from bot.core.text import clean, clean_json, json_encoder
from bot.core.view import EventView
from bot.core.work import Said, SeenRoll
from systems.base import Outcome, sized_dice

ROLLER_KEYS = ("who", "attacker", "name")
"""The context keys of a game's roll message that name who rolled (``name``: the subject of a soak, a
recovery...; of a damage roll it is the target, so the acta does not credit a damage roll to it)."""


@dataclass(frozen=True, slots=True)
class Addressing:
    """Who a message goes to. ``reply``: it answers the event; ``mentions``: whom it pings; ``private_to``
    (and ``private_also``): only they get it; ``to_room_gms``: the transport adds the room's GMs it knows
    by power (no GM is named)."""

    reply: bool = True
    mentions: tuple[str, ...] = ()
    private_to: str | None = None
    private_also: tuple[str, ...] = ()
    to_room_gms: bool = False


ROOM = Addressing()
"""An answer to the event, in the room."""
_json = json_encoder()
"""A roll record's JSON columns, as ``json.dumps(..., ensure_ascii=False)`` writes them."""


@dataclass(frozen=True, slots=True)
class ShownRoll:
    """The roll a message shows, already recorded (``record_roll``): its object, its record's id and
    whether it is secret."""

    json: dict[str, Any]
    """Already ``clean_json``'d (``rolls.answer`` cleans it once; a stored record's was cleaned when stored)."""
    roll_id: str | None = None
    secret: bool = False


def note_said(view: EventView, kind: str, seen: SeenRoll | None = None, **context: Any) -> None:
    """Note the message ``kind`` for the event's end (the acta), also when it was not sent (a turn
    acknowledged with a reaction still has its place in the acta)."""
    combat = view.room.combat
    turn = (combat.round, combat.turn) if combat is not None and combat.started else None
    view.work.said.append(Said(kind, context, turn, combat.current if combat and turn else None, seen))


def render_send(view: EventView, kind: str, to: Addressing = ROOM, *, roll: Outcome | None = None,
                shown: ShownRoll | None = None, rendered: privacy.Views | None = None, ref: str = "",
                **context: Any) -> None:
    """Queue a message (``ref``: the name it may be edited by later, ``Send.ref``). ``roll``: the outcome
    a game's own message shows (the template's ``r``), recorded as the room's roll; ``shown``: a roll
    recorded already (``bot/core/rolls.py``); ``rendered``: the message already rendered from ``kind`` and
    ``context``. A roll shown in the room is noted for the acta; a secret one (sent privately) is not,
    until it is revealed.
    What it shows of a GM-owned sheet follows ``bot/core/privacy.py``: whoever is no GM gets the
    room's copy, and the GMs get theirs privately when it says more."""
    private_to = to.private_to
    if view.answer_privately and private_to is None:
        private_to = view.sender
    params = {"r": roll, **context}
    views = rendered or privacy.render_views(view, kind, params)
    who = ""
    roll_json, roll_id, secret = (shown.json, shown.roll_id, shown.secret) if shown else (None, None, False)
    if roll_json is None and roll is not None:  # a game's own roll
        roll_json = clean_json(roll.as_json())
        who = next((v for k in ROLLER_KEYS if isinstance(v := context.get(k), str)), "")
        roll_id = record_roll(view, roll, privacy.public_roll(roll_json, views) or {}, who or view.speaker_name,
                              "", (), private_to is not None, views.public, full=roll_json)
        secret = private_to is not None
    public_json = privacy.public_roll(roll_json, views)
    seen = None
    if public_json is not None and not secret and private_to is None:
        named = context.get("who")
        label = context.get("label")
        credited = named if isinstance(named, str) else None if public_json.get("kind") == "damage" else who
        # The acta shows no more of the label than the room's copy does (an NPC's skill without its die).
        shown_label = next((c for c in ((label, label.rsplit(" ", 1)[0]) if isinstance(label, str) and label else ())
                            if f" · {c}" in views.public.body), "")
        seen = SeenRoll(public_json, views.public.body, credited or None, shown_label)
    note_said(view, kind, seen, **context)
    applied = tuple((clean(str(r)), int(v)) for r, v in context.get("applied", ())) if roll_json is not None else ()
    in_room = view.event.in_room
    send = Send(
        view.event.room_id, views.public, view.event.event_id if to.reply and in_room else None,
        to.mentions, private_to, thread=view.event.thread if in_room and private_to is None else "",
        template=kind, actor=view.speaker_name, roll=public_json, applied=applied, roll_id=roll_id,
        private_also=to.private_also, to_room_gms=to.to_room_gms, secret=secret, ref=ref,
    )
    view.work.actions += privacy.addressed(view, send, views, roll_json)


def record_roll(view: EventView, outcome: Any, roll_json: dict[str, Any], who: str, label: str,
                applied: Sequence[tuple[str, int]], secret: bool, message: Message,
                target: str | None = None, full: dict[str, Any] | None = None) -> str:
    """Keep a roll for ``!historial``, ``!dados``, ``!revelar`` and ``!detalle`` (stored with the event);
    its id. ``roll_json`` already ``clean_json``'d; ``message`` is the room's copy; ``target`` whom it was
    rolled against; ``full``: the roll object as the GMs see it, when ``roll_json`` (the room's) leaves
    part of it out."""
    event = view.event
    roll_id = f"{event.event_id}/r{len(view.work.rolls)}"
    view.work.rolls.append(RollRecord(
        roll_id, event.room_id, event.event_id, event.ts, name_key(clean(who)), view.sender, view.system_key,
        clean(label), int(secret), 0,
        _json({"who": clean(who), "target": clean(target) if target is not None else None, "roll": roll_json,
               "applied": clean_json(list(applied)),
               **({"gm_roll": clean_json(full)} if full is not None and full != roll_json else {})}),
        _json(sized_dice(outcome)),
        _json({"body": message.body, "html": message.html}),
    ))
    return roll_id
