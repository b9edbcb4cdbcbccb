"""What a GM-owned sheet holds stays the GMs': the one rule every message of the table goes through.

A sheet is the GMs' when its owner is a GM (``Context.sheet_is_gms``: an NPC, or a character a GM
plays). Every message is rendered for the room first: templates see ``gm_view`` False and ask
``gm_sheet(NAME)`` before they show a number of NAME's sheet (its Parry, Toughness, Defense, DR,
threshold, PR, bennies, skill values...), and ``gm_numbers`` before they show the numbers a roll is
judged against when the message names a GM-owned sheet. Nor may the room work such a number out: a
roll, initiative or damage of a GM-owned sheet (its roller named by ``ROLLER_KEYS``, or an entry of
a list that names it) shows the dice faces and the outcome, not its total, expression, modifiers or
thresholds (templates ask ``gm_roll``, or ``gm_sheet(NAME)`` for one entry). "Worked out" means a
number shown equals a GM number, or one plus the sum of the dice shown beside it; a bound an outcome
implies (a hit reached the Parry) is fine. Outcomes, conditions and the initiative order always show.
When the message names such a sheet, it is rendered again for the GMs (``gm_view`` True); if that
copy says more, it goes to them privately (``addressed``, marked ``gm_copy``). The roll object of
what the room gets carries none of those numbers (``public_roll``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from bot.core.events import Send
from bot.core.render import Message
from bot.core.state import Character, name_key
from bot.core.view import EventView

PRIVATE_ROLL_KEYS = frozenset({
    "tn", "dc", "target", "defense", "toughness", "skill", "margin", "damage_reduction", "threshold",
    "fortitude_dc", "critical_max", "critical_threshold", "effective", "parry", "armor", "armour",
    "modifier", "modifiers", "strength", "strength_bonus",
})
"""What a roll object holds of the numbers it is judged against (or of a sheet: a d20 game's modifier is
the sheet's skill or save, its damage the sheet's Strength): left out of the room's copy of a roll that names a GM-owned sheet."""
GM_ROLL_KEYS = frozenset({
    "total", "expr", "natural", "modifier", "modifiers", "bonus", "roll_modifier", "trait", "rolled", "inflicted",
    "vel", "agi",
})
"""What a roll object holds that, with its dice, gives back a GM-owned sheet's number (its total, its
expression, its modifiers): left out of the room's copy of that sheet's roll, and of an entry of a roll
object's list that names one (an initiative order)."""
ROLLER_KEYS = ("roller", "who", "attacker")
"""The context keys of a message that name whose roll it shows, the first present (``roller``: a
damage's attacker, whose ``name`` is the target; a defence's defender, whose ``attacker`` is not)."""
NAMED_DEPTH = 2
"""How deep into lists and tuples of a message's context names are looked for (``rows`` of pairs)."""


@dataclass(frozen=True)
class Views:
    """A message as the room gets it and, when it names GM-owned sheets, as the GMs get it."""

    public: Message
    gm: Message | None
    """None: the message names no GM-owned sheet (everyone gets ``public``)."""
    owned: frozenset[str] = frozenset()
    """The name keys of the GM-owned sheets the message names."""
    gm_roll: bool = False
    """The roll it shows is a GM-owned sheet's (``ROLLER_KEYS``): the room's roll object has no total."""


def gm_owned(ctx: EventView, context: dict[str, Any]) -> frozenset[str]:
    """The name keys of the GM-owned characters a message's context names (its string values, the
    characters in it, and the strings inside its lists and tuples)."""
    found: set[str] = set()
    for value in context.values():
        for name in _names(value, NAMED_DEPTH):
            character = ctx.room.find_character(name)
            if character is not None and ctx.sheet_is_gms(character):
                found.add(name_key(character.name))
    return frozenset(found)


def _names(value: Any, depth: int) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Character):
        yield value.name
    elif depth and isinstance(value, (list, tuple)):
        for item in value:
            yield from _names(item, depth - 1)


def render_views(ctx: EventView, kind: str, params: dict[str, Any]) -> Views:
    """``kind`` rendered for the room and, if it names a GM-owned sheet (or left one's numbers out),
    for the GMs. The GMs' copy is rendered only when the room's read what differs in it (``gm_view``,
    ``gm_numbers`` when it names such a sheet, a ``gm_sheet`` that said yes); else it is the same."""
    owned = gm_owned(ctx, params)
    roller = next((params[k] for k in ROLLER_KEYS if k in params), None)
    rolled = isinstance(roller, str) and name_key(roller) in owned
    hid: list[str] = []
    read: list[str] = []
    public = ctx.renderer.render(kind, **params, **_view(ctx, owned, rolled, False, hid, read))
    owned |= {name_key(name) for name in hid}
    if not (owned or hid):
        return Views(public, None)
    if not (hid or read or rolled):
        return Views(public, public, owned)
    gm = ctx.renderer.render(kind, **params, **_view(ctx, owned, rolled, True, hid, []))
    return Views(public, gm, owned, rolled)


class _Flag:
    """A yes or no a template reads (``gm_view``, ``gm_numbers``, ``gm_roll``): each read is noted in ``read``, so the
    GMs' copy, where it has the other value, is rendered only if the room's copy asked."""

    __slots__ = ("name", "read", "value")

    def __init__(self, name: str, value: bool, read: list[str]) -> None:
        self.name, self.value, self.read = name, value, read

    def __bool__(self) -> bool:
        self.read.append(self.name)
        return self.value

    def __str__(self) -> str:
        self.read.append(self.name)
        return str(self.value)

    def __eq__(self, other: object) -> bool:
        self.read.append(self.name)
        return self.value == (other.value if isinstance(other, _Flag) else other)

    def __hash__(self) -> int:
        return hash(self.value)


def _view(ctx: EventView, owned: frozenset[str], rolled: bool, gm_view: bool, hid: list[str],
          read: list[str]) -> dict[str, Any]:
    """What a template asks about GM-owned sheets in one copy; ``hid`` gathers the names it left out,
    ``read`` the flags it read whose value the other copy changes."""
    def gm_sheet(name: object) -> bool:
        """In this copy, the sheet of the character called ``name`` is the GMs' (leave out its numbers)."""
        if gm_view or not isinstance(name, str):
            return False
        character = ctx.room.find_character(name)
        if character is None or not ctx.sheet_is_gms(character):
            return False
        hid.append(character.name)
        return True

    numbers = bool(owned) and not gm_view
    return {"gm_view": _Flag("gm_view", gm_view, read), "gm_sheet": gm_sheet,
            "gm_numbers": _Flag("gm_numbers", numbers, read) if numbers else False,
            "gm_roll": rolled and not gm_view}


def public_roll(roll_json: dict[str, Any] | None, views: Views) -> dict[str, Any] | None:
    """The roll object as the room gets it: without the judged-against numbers when the message
    names a GM-owned sheet; of a GM-owned sheet's roll, its dice and outcome without what gives its
    numbers back (``GM_ROLL_KEYS``); an entry of a list that names a GM-owned sheet likewise."""
    if roll_json is None or views.gm is None:
        return roll_json
    hidden = PRIVATE_ROLL_KEYS | GM_ROLL_KEYS if views.gm_roll else PRIVATE_ROLL_KEYS
    return {k: _public_entries(v, views.owned) for k, v in roll_json.items() if k not in hidden}


def _public_entries(value: Any, owned: frozenset[str]) -> Any:
    """A list of a roll object (an initiative order) with its entries that name a GM-owned sheet bare."""
    if not isinstance(value, list):
        return value
    return [{k: v for k, v in item.items() if k not in PRIVATE_ROLL_KEYS | GM_ROLL_KEYS}
            if isinstance(item, dict) and isinstance(item.get("name"), str) and name_key(item["name"]) in owned
            else item for item in value]


def recipients(ctx: EventView) -> tuple[str, ...]:
    """Who gets the GMs' copies: the GMs named by the config or ``!master``, else the room's creators and
    users of power level 50+ (IRC operators) the transport has shown the core."""
    return tuple(ctx.gms) or tuple(ctx.room.admins)


def addressed(ctx: EventView, send: Send, views: Views, roll_json: dict[str, Any] | None) -> list[Send]:
    """``send`` (the room's copy, ``views.public`` with its public roll) as its readers may get it: whole
    when they are all GMs; else as it is, and the GMs' copy (the whole ``roll_json``) to the GMs
    privately when theirs says more."""
    gm = views.gm
    if gm is None or (gm == send.message and roll_json == send.roll):
        return [send]
    readers = (send.private_to, *send.private_also) if send.private_to is not None else ()
    if readers and all(ctx.is_gm(user) for user in readers):
        return [replace(send, message=gm, roll=roll_json)]
    if send.private_to is not None:  # a player's secret roll: the GMs get theirs below
        send = replace(send, private_also=tuple(u for u in send.private_also if not ctx.is_gm(u)), to_room_gms=False)
    gms = recipients(ctx)
    if not gms:
        return [send]
    return [send, replace(send, message=gm, mentions=(), private_to=gms[0], roll=roll_json, private_also=gms[1:],
                          to_room_gms=not ctx.gms, secret=True, gm_copy=True)]
