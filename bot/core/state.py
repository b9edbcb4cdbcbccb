"""A room's state: plain dataclasses stored as one JSON document per room."""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from bot.core.text import json_encoder

ENFORCEMENT_MODES: tuple[str, ...] = ("warn", "redact", "mute")
MAX_NAME = 40
MAX_NAME_WORDS = 8
"""Character names are matched on at most this many words (keeps matching linear in the input)."""
MAX_REMEMBERED_NAME = 120
"""Names up to this long have their ``name_key`` remembered (so the memory it takes is bounded)."""
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
"""Hangul fillers: Unicode letters that show nothing."""


PLAY = ("characters", "combat", "exploration", "game_data")
"""The fields of ``RoomState`` that are the room's play (what ``!deshacer`` takes back)."""
_BY_KEY = ("characters", "rerolls")
"""Fields taken back entry by entry (a character, a character's last roll), the others whole."""
Part = tuple[str, str | None]
"""A part of the state: a field, and the key of one of its entries (None: the whole field)."""
_EMPTY: dict[str, Any] = {"game_data": {}}
"""What a stored state older than a field of the play reads as (a snapshot taken before it existed)."""
UNDOABLE = (*PLAY, "rerolls")
"""The fields a command's undo step compares before and after it (``changes``)."""
Encoded = Mapping[str, str]
"""Some fields of a ``RoomState``, each as its JSON (``RoomState.encoded``)."""


_encode = json_encoder(vars, compact=True)
"""The state's JSON: the C encoder made once, with no check for cycles, which a tree of dataclasses has none of."""
_EMPTY_JSON: dict[type, str] = {dict: "{}", list: "[]", str: '""', int: "0", bool: "false"}
"""The JSON of an empty value by its exact type: a room's empty fields (the tracker, its age, a flag off)."""


def _field_json(value: Any) -> str:
    """``_encode(value)``; a field with nothing in it (most of a room's, most of the time) without the encoder."""
    if value is None:
        return "null"
    if not value and type(value) in _EMPTY_JSON:
        return _EMPTY_JSON[type(value)]
    return _encode(value)


def state_json(encoded: Encoded) -> str:
    """``RoomState.to_json`` from every field's JSON (``RoomState.encoded()``), the same text."""
    return "{" + ",".join(f'"{name}":{text}' for name, text in encoded.items()) + "}"


def play_of(encoded: Encoded) -> str:
    """``RoomState.play_json`` from the play's fields' JSON, the same text."""
    return "[" + ",".join(encoded[name] for name in PLAY) + "]"


def changes(before: Encoded, now: Encoded) -> list[Part]:
    """``RoomState.changed_since`` from the ``UNDOABLE`` fields' JSON before and after a command: a field whose
    text is the same is unchanged, the others are decoded and compared as ``changed_since`` does."""
    def differ(name: str) -> tuple[Any, Any] | None:
        old, new = before[name], now[name]
        return None if old == new else (json.loads(old), json.loads(new))
    return _changed(differ)


def _changed(differ: Callable[[str], tuple[Any, Any] | None]) -> list[Part]:
    """The parts that differ, given each field before and now (None: the same)."""
    parts: list[Part] = []
    for name in ("combat", "exploration", "game_data"):
        pair = differ(name)
        if pair is not None and pair[0] != pair[1]:
            parts.append((name, None))
    for name in _BY_KEY:
        pair = differ(name)
        if pair is not None:
            old, new = pair[0] or {}, pair[1]
            parts += [(name, key) for key in dict.fromkeys([*old, *new]) if old.get(key) != new.get(key)]
    return parts


def _taken_back(current: dict[str, Any], saved: dict[str, Any], key: str) -> dict[str, Any]:
    """``current`` with entry ``key`` as in ``saved`` (gone if ``saved`` has none), in ``saved``'s order."""
    out = {k: saved[k] if k == key else current[k] for k in saved if k == key or k in current}
    out.update((k, v) for k, v in current.items() if k not in out and k != key)
    return out


def name_key(name: str) -> str:
    """Case- and accent-insensitive key of a character name, after NFKC (``𝐁𝐫𝐮𝐧𝐨``, ``ℬruno``: ``bruno``);
    format characters (zero-width, direction marks) are ignored. Short names (all a room's names) are
    remembered: an event asks for the same few keys dozens of times."""
    return _short_name_key(name) if len(name) <= MAX_REMEMBERED_NAME else _name_key(name)


@functools.lru_cache(maxsize=4096)
def _short_name_key(name: str) -> str:
    return _name_key(name)


def _name_key(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    kept = (c for c in decomposed if not unicodedata.combining(c) and unicodedata.category(c) != "Cf")
    return " ".join("".join(kept).split())


def clean_name(name: str) -> str:
    """A character name as stored and shown: NFKC-normalised, without format characters (zero-width,
    direction marks, BOM), single spaces."""
    normalised = unicodedata.normalize("NFKC", name)
    return " ".join("".join(c for c in normalised if unicodedata.category(c) != "Cf").split())


def has_visible_letter(name: str) -> bool:
    """At least one letter that shows (not a filler, a blank Braille cell or a lone combining mark)."""
    return any(unicodedata.category(c).startswith("L") and c not in INVISIBLE_LETTERS for c in name)


def _known_fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _build(cls: type, data: dict[str, Any]) -> Any:
    return cls(**_known_fields(cls, data))


def _admins(value: object) -> dict[str, str]:
    """``RoomState.admins`` as stored: a dict of user -> why, or (older versions) a list of users."""
    if isinstance(value, dict):
        return {u: w for u, w in value.items() if isinstance(u, str) and isinstance(w, str)}
    if isinstance(value, list):
        return {u: "admin" for u in value if isinstance(u, str)}
    return {}


@dataclass
class Character:
    name: str
    owner: str | None = None
    sheet: dict[str, Any] = field(default_factory=dict)
    npc: bool = False
    """Created by the GM (``!pnj``, ``!turnos``, ``!iniciativa``): only a GM may hand it to a player;
    its sheet is the GM's."""
    creator: str | None = None
    """Who added it to the room (a player's characters are capped)."""
    game: str | None = None
    """The game whose sheet ``sheet`` is (None: not placed in one yet, as in a room stored before
    sheets were kept per game; ``bot/core/sheets.play_in`` places it)."""
    other_sheets: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Its sheets in the room's other games, by game key: kept apart until the room plays that game."""
    lent: bool = False
    """An NPC a GM handed to a player (``!pj NOMBRE @usuario``): it goes back to the GMs when released."""


@dataclass
class FloorLock:
    """A narration lock (``character`` None) or a named lock giving the floor to one character."""

    opened_by: str
    event_id: str
    character: str | None = None
    owner: str | None = None
    warned: list[str] = field(default_factory=list)
    """Who wrote off the floor during the lock, in order: the room's one notice names them."""
    muted: bool = False
    notice: str = ""
    """The ``Send.ref`` of the lock's one notice in the room (empty: none posted yet)."""


@dataclass
class Combat:
    round: int = 0
    order: list[str] = field(default_factory=list)
    turn: int = 0
    warned: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    """System-specific state (deck, cards, conditions, counters), owned by the system's rules module."""
    game: str | None = None
    """The game whose state ``data`` is (None: not placed in one yet)."""
    other_data: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What the room's other games keep in this combat, by game key, kept apart (a ``!sistema`` mid-fight)."""
    explained: list[str] = field(default_factory=list)
    """The explanations the table has read in this fight (``combat.first_time``): not repeated."""
    surprise: bool = False
    """The first round is a surprise round before the normal ones (a game's initiative hook sets it): it is
    round 0, shown as such, and the first normal round is round 1."""

    @property
    def started(self) -> bool:
        return (self.round > 0 or self.surprise) and bool(self.order)

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.started and self.turn < len(self.order) else None


@dataclass
class Exploration:
    acted: list[str] = field(default_factory=list)
    warned: list[str] = field(default_factory=list)


@dataclass
class Acta:
    """The room's record (``!acta activar``): whether it is on, and the session entries go to."""

    on: bool = False
    session: int = 0
    """The last session number given (0: none yet); numbers are never reused."""
    open: bool = False
    """Entries go to ``session``; when False the next entry opens a new one."""
    last_ts: int = 0
    """Timestamp of the last entry: a gap of more than ``SESSION_GAP`` opens a new session."""


@dataclass
class RoomState:
    system: str | None = None
    enforcement: str | None = None
    gms: list[str] = field(default_factory=list)
    admins: dict[str, str] = field(default_factory=dict)
    """Users the transport says are the room's admins, each with why (``creator``, ``power``: power level
    50+, ``operator``: an IRC operator; ``admin`` when only their own event said so): as its last
    ``admins`` event listed them, or their own last event said (docs/protocol.md#1.7)."""
    characters: dict[str, Character] = field(default_factory=dict)
    lock: FloorLock | None = None
    combat: Combat | None = None
    exploration: Exploration | None = None
    granted: list[str] = field(default_factory=list)
    """Users allowed one out-of-turn in-character roll by the GM (``!permite``)."""
    grant_only: dict[str, str] = field(default_factory=dict)
    """Grants narrowed to one command (user -> command name): a follow-up riding on a spent grant."""
    warned_no_power: bool = False
    power_missing: list[str] = field(default_factory=list)
    """The powers the room's mode needs that the bot lacked, as last seen (``redact``, ``mute``): logged once
    per change (``moderation.note_power``)."""
    acta: Acta = field(default_factory=Acta)
    page_token: str | None = None
    """The secret in the address of the room's table page and acta links (``!mesa``); None: no page."""
    last_rolls: list[dict[str, str]] = field(default_factory=list)
    """The last public rolls, newest last (``{"who", "text"}``), for the table page."""
    rerolls: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each character's last roll a game can reroll (name key -> what ``!repetir`` needs)."""
    game_data: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What a game keeps for the room beyond a character or a fight, by game key (Savage: the GM's pool
    of bennies): part of the play, so ``!deshacer`` takes it back."""
    tracker: str = ""
    """The combat's tracker as last shown in the room (``bot/core/tracker.py``; empty: none shown)."""
    tracker_age: int = 0
    """Messages in the room since the tracker last changed (``!estado`` points to it while they are few)."""
    gm_copies: dict[str, Any] = field(default_factory=dict)
    """The GMs' copies kept in combat for their next digest (``bot/core/quiet.py``): ``lines`` (plain
    and HTML), ``at`` (the round and turn they were kept in) and ``sent`` (digests sent this round)."""
    held: list[dict[str, Any]] = field(default_factory=list)
    """Room messages held during a turn the GM runs (an NPC's miss: ``Send.joinable``), in order, each with
    the event that said it: they join the room's next message, at the turn's end at the latest
    (``bot/core/quiet.py``)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        """Same content as ``to_dict``, without its deep copies (this runs on every event)."""
        return _encode(self)

    def encoded(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """Each field's JSON (``names``: only those), encoded once for what a command compares and keeps:
        ``state_json``, ``play_of`` and ``changes`` read them."""
        fields = vars(self) if names is None else {name: getattr(self, name) for name in names}
        return {name: _field_json(value) for name, value in fields.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomState:
        """Tolerant of stored keys that are no longer fields (older or newer versions)."""
        data = _known_fields(cls, data)
        data["characters"] = {k: _build(Character, v) for k, v in data.get("characters", {}).items()}
        data["lock"] = _build(FloorLock, data["lock"]) if data.get("lock") else None
        data["combat"] = _build(Combat, data["combat"]) if data.get("combat") else None
        data["exploration"] = _build(Exploration, data["exploration"]) if data.get("exploration") else None
        data["acta"] = _build(Acta, data["acta"]) if isinstance(data.get("acta"), dict) else Acta()
        data["admins"] = _admins(data.get("admins"))
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> RoomState:
        return cls.from_dict(json.loads(text))

    def restore(self, snapshot: str) -> None:
        """Put back the state saved by ``to_json`` (a command that turned out invalid changes nothing)."""
        saved = RoomState.from_dict(json.loads(snapshot))
        for f in fields(self):
            setattr(self, f.name, getattr(saved, f.name))

    def play_json(self) -> str:
        """The play of the room (characters and their sheets, the combat, the exploration turn) as JSON:
        a command that changes it is one ``!deshacer`` takes back."""
        return _encode([getattr(self, name) for name in PLAY])

    def changed_since(self, snapshot: str, play: str) -> list[Part]:
        """The parts of the play (and the rerolls it allows) that differ from ``snapshot`` (``to_json``).
        ``play``: this state's ``play_json``, which the caller has: only the rerolls are encoded again,
        not the whole state."""
        before = json.loads(snapshot)
        now = dict(zip(PLAY, json.loads(play)))
        now["rerolls"] = json.loads(_encode(self.rerolls))
        return _changed(lambda name: (before.get(name, _EMPTY.get(name)), now[name]))

    def undo_to(self, snapshot: str, parts: list[Part]) -> None:
        """Put ``parts`` back as they were in ``snapshot`` (taken before an undone command). The rest stays
        as it is now: what changed since without a command to undo (an exploration action, a roll one may
        reroll), settings, the floor, the grants, the acta, the last rolls shown."""
        saved = RoomState.from_dict(json.loads(snapshot))
        for name, key in parts:
            if key is None:
                setattr(self, name, getattr(saved, name))
            else:
                setattr(self, name, _taken_back(getattr(self, name), getattr(saved, name), key))

    def clear_grants(self) -> None:
        self.granted.clear()
        self.grant_only.clear()

    def character_names(self) -> list[str]:
        return [c.name for c in self.characters.values()]

    def find_character(self, name: str) -> Character | None:
        return self.characters.get(name_key(name))

    def leading_character(self, words: list[str]) -> tuple[Character | None, int]:
        """The character named by the longest run of ``words`` at their start, and that run's length
        (``None, 0`` when no known name starts them): ``!ficha Sir Ulric dureza 7`` names Sir Ulric."""
        for cut in range(min(len(words), MAX_NAME_WORDS), 0, -1):
            character = self.find_character(" ".join(words[:cut]))
            if character is not None:
                return character, cut
        return None, 0

    def character_of(self, user_id: str) -> Character | None:
        return next((c for c in self.characters.values() if c.owner == user_id), None)
