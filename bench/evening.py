"""Loudness of a table, per combat round (issue 30 item 8): scripted evenings played through the console.

    python bench/evening.py [--json] [--por-orden] [--pantalla] [EVENING.txt ...]   (default: every bench/evenings/*.txt)

An evening is a ``rolbot console`` script (``SENDER: TEXT`` lines, docs/contracts.md#3.2). Its header names
the console's options as ``#   rolbot console --system KEY --seed N --gm @gm:local < bench/evenings/NAME.txt``;
comment lines (not events) drive the bench:

- ``# ronda N`` starts combat round N (counted until the next ``# ronda`` or a ``# fin``; the evenings put it
  after the ``!siguiente`` that deals the round, so that line and its answer count in the round it ends);
- ``# desliz ...`` marks the next line as a GM's slip: the room's state is kept right before it;
- ``# deshecho`` (after the ``!deshacer`` that undoes the last slip): the room's state must equal the kept one,
  roll history (``last_rolls``) and the acta's clock aside; printed OK or DIFF with the keys that differ.

Per round it prints: human lines, commands typed (lines starting with ``!`` or ``/tiro``), room messages
(``send`` actions with no ``private_to``; reactions, redactions and edits are not messages), phone lines
(each room message's plain text wrapped at 38 columns, each line break starting a line), private copies each
GM receives (``private_to``, ``private_also``, or ``to_room_gms``: a copy of what the room was told, a digest,
or anything caused by someone else's line; the answers to a GM's own line, a refusal of their slip or the
steps ``!deshacer ?`` lists, are counted apart as that GM's private answers), and the GM's lines split into narration
(plain text, ``/me`` and dash lines), NPC actions (an attack, roll, defence, soak or damage for an NPC: on an
NPC's turn, or naming an NPC first) and bookkeeping (every other command); then messages per command and
phone lines per command, flagged (``!``) over 0.8 and 2.5, and private copies flagged over 4 per GM
(docs/contracts.md#3.3).

``--pantalla`` adds a column: of the GM's bookkeeping lines, how many the GM would still type with the screen
(``!pantalla``) open, those whose command has no screen control (``bot/screen/controls.py``'s ``CONTROLS`` and
the room's game's ``screen_controls``, matched by the command and the control's fixed words: ``!absorber
Sable no`` is Savage's ``cerrar`` control, ``!absorber Sable`` none) and whose answer the screen does not show all the
time (``SHOWN``, the game's ``screen_shows``: ``!estado``, ``!detalle``, ``!beni master``); each is listed after the table.

``--por-orden`` adds, per evening, the command words by the room messages they caused in the combat rounds
(commands typed, room messages, phone lines), loudest first: where to look for answers that could be a
reaction.

The evening runs in-process on an in-memory store with the header's seed, as ``rolbot console --jsonl``
does (the same ``action_json`` objects).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shlex
import sys
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bot.console import ROOM_ID, action_json
from bot.core.events import Event
from bot.core.settings import RoomSettings, TableSettings
from bot.core.state import name_key
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.screen.controls import CONTROLS, SHOWN

EVENINGS = Path(__file__).resolve().parent / "evenings"
PHONE_COLUMNS = 38
MAX_MESSAGES_PER_COMMAND = 0.8
MAX_PHONE_LINES_PER_COMMAND = 2.5
MAX_PRIVATE_PER_GM = 4
HEADER = re.compile(r"^#\s+rolbot console (.+?) < \S+$")
ROUND = re.compile(r"^#\s*ronda\s+(\d+)\b", re.IGNORECASE)
END = re.compile(r"^#\s*fin\b", re.IGNORECASE)
SLIP = re.compile(r"^#\s*desliz\b", re.IGNORECASE)
UNDONE = re.compile(r"^#\s*deshecho\b", re.IGNORECASE)
LINE = re.compile(r"^(@[^\s:]+:\S+?):(?:\s(.*))?$")
ACTING = frozenset(name_key(verb) for verb in ("ataque", "attack", "tiro", "roll", "area", "blast", "daño", "damage",
                                               "accion", "action", "desarmar", "disarm"))
"""Verbs that act for whoever's turn it is, or for the NPC they name first (Stormbringer's ``!desarmar`` is
the attacker's choice of what its critical blow does: part of the attack), folded as ``gm_kind`` reads them
(``daño`` is ``dano``)."""
DEFENDING = frozenset(name_key(verb) for verb in ("parada", "parry", "esquiva", "dodge", "defensa", "defend",
                                                  "absorber", "soak", "repetir", "reroll"))
"""Verbs that answer an attack: for an NPC unless they name a player's character first."""
STATE_ASIDE = ("last_rolls", "gm_copies", "tracker", "tracker_age", "held")
"""Room state keys the slip check leaves out: the roll history (``!detalle``'s last rolls) and what is only
on its way to a reader (the GMs' copies waiting for their digest, the tracker as last shown, the NPCs'
misses held for the room's next message: a slip that let them out posted them, and its undo cannot take
them back; undoing a held miss itself drops it, ``tests/core/test_held_misses.py``)."""


@dataclass
class Round:
    number: int
    human_lines: int = 0
    commands: int = 0
    room_messages: int = 0
    phone_lines: int = 0
    private_per_gm: dict[str, int] = field(default_factory=dict)
    answers_per_gm: dict[str, int] = field(default_factory=dict)
    narration: int = 0
    npc_actions: int = 0
    bookkeeping: int = 0
    typed_with_screen: list[str] = field(default_factory=list)
    """The GM's bookkeeping lines with no screen control (``--pantalla``)."""

    @property
    def messages_per_command(self) -> float:
        return self.room_messages / self.commands if self.commands else float(self.room_messages)

    @property
    def phone_lines_per_command(self) -> float:
        return self.phone_lines / self.commands if self.commands else float(self.phone_lines)

    def flags(self) -> list[str]:
        flags = []
        if self.messages_per_command > MAX_MESSAGES_PER_COMMAND:
            flags.append("mensajes")
        if self.phone_lines_per_command > MAX_PHONE_LINES_PER_COMMAND:
            flags.append("líneas")
        flags.extend(f"copias {gm}" for gm, n in self.private_per_gm.items() if n > MAX_PRIVATE_PER_GM)
        return flags

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "messages_per_command": round(self.messages_per_command, 2),
                "phone_lines_per_command": round(self.phone_lines_per_command, 2), "flags": self.flags()}


@dataclass
class Slip:
    line: int
    text: str
    undo_line: int | None = None
    differences: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.undo_line is None:
            return "sin deshacer"
        return "DIFF" if self.differences else "OK"


@dataclass
class Loudness:
    """What one command word caused in an evening's combat rounds."""

    commands: int = 0
    room_messages: int = 0
    phone_lines: int = 0


@dataclass
class Evening:
    name: str
    rounds: list[Round] = field(default_factory=list)
    slips: list[Slip] = field(default_factory=list)
    by_command: dict[str, Loudness] = field(default_factory=dict)
    """Per command word (``!pj`` and ``!PJ`` alike; plain text is ``-``), in the combat rounds."""

    def loudest(self) -> list[tuple[str, Loudness]]:
        return sorted(self.by_command.items(), key=lambda kv: (-kv[1].room_messages, -kv[1].phone_lines, kv[0]))

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "rounds": [r.as_json() for r in self.rounds],
                "slips": [{**asdict(s), "verdict": s.verdict} for s in self.slips],
                "by_command": {word: asdict(loud) for word, loud in self.loudest()}}


def phone_lines(text: str) -> int:
    """Lines a 38-column phone shows for ``text``: every line break starts a line, each paragraph wrapped."""
    return sum(max(1, len(textwrap.wrap(part, PHONE_COLUMNS))) for part in text.split("\n"))


def options(path: Path) -> tuple[str, int, tuple[str, ...]]:
    """The system, seed and GMs of the evening's ``rolbot console`` header line."""
    for raw in path.read_text(encoding="utf-8").splitlines():
        match = HEADER.match(raw.strip())
        if match:
            parser = argparse.ArgumentParser(add_help=False)
            parser.add_argument("--system", required=True)
            parser.add_argument("--seed", type=int, default=1)
            parser.add_argument("--gm", action="append", default=[])
            args, _ = parser.parse_known_args(shlex.split(match[1]))
            return args.system, args.seed, tuple(args.gm)
    raise ValueError(f"{path.name}: no «#   rolbot console --system ... < ...» header line")


def is_command(text: str) -> bool:
    return text.startswith(("!", "/tiro"))


def _verb_and_rest(text: str) -> tuple[str, str]:
    verb, _, rest = text.lstrip("!/").partition(" ")
    return name_key(verb), rest.strip()


def _names_first(rest: str, names: list[str]) -> bool:
    key = name_key(rest)
    return any(key == n or key.startswith((n + " ", n + ",")) for n in names)


def gm_kind(text: str, state: dict[str, Any]) -> str:
    """``narration``, ``npc`` (an action for an NPC) or ``bookkeeping`` for one of a GM's lines."""
    if not is_command(text):
        return "narration"
    verb, rest = _verb_and_rest(text)
    characters = [c for c in (state.get("characters") or {}).values() if isinstance(c, dict)]
    npcs = [name_key(str(c.get("name", ""))) for c in characters if c.get("npc") or not c.get("owner")]
    players = [name_key(str(c.get("name", ""))) for c in characters if c.get("owner") and not c.get("npc")]
    if verb in DEFENDING:
        return "bookkeeping" if _names_first(rest, players) else "npc"
    if verb in ACTING:
        combat = state.get("combat") or {}
        order, turn = combat.get("order") or [], combat.get("turn")
        on_turn = order[turn] if isinstance(turn, int) and 0 <= turn < len(order) else None
        npc_turn = isinstance(on_turn, str) and name_key(on_turn) in npcs
        return "npc" if npc_turn or _names_first(rest, npcs) else "bookkeeping"
    return "bookkeeping"


def on_screen(table: Table, text: str) -> bool:
    """A command the GM's screen does for them: a control of the core's (``CONTROLS``) or of the room's game
    (``screen_controls``) for the same command with its fixed words in the line (and a name, when the control
    takes one), or an answer the screen shows
    all the time (``SHOWN``, the game's ``screen_shows``: the command and exactly those words)."""
    ctx = table.context_for(Event(ROOM_ID, "", "", ""), table.room(ROOM_ID))
    verb, rest = _verb_and_rest(text)
    found = ctx.find_command(verb)
    if found is None:
        return False
    said = name_key(rest).split()

    def same(command: str) -> bool:
        other = ctx.find_command(command)
        return other is not None and other.name == found.name

    for control in (*CONTROLS.values(), *ctx.game.screen_controls.values()):
        fixed = f"{control.words} {control.after}".split()
        named = len(said) > len(fixed) or control.name in ("", "optional")
        if same(control.command) and named and all(word in said for word in fixed):
            return True
    return any(same(command) and said == words
               for command, *words in (phrase.split() for phrase in SHOWN | ctx.game.screen_shows))


def comparable(state: dict[str, Any] | None) -> dict[str, Any]:
    """The room's state as the slip check compares it: roll history and the acta's clock aside."""
    data = json.loads(json.dumps(state or {}))
    for key in STATE_ASIDE:
        data.pop(key, None)
    if isinstance(data.get("acta"), dict):
        data["acta"].pop("last_ts", None)
    return data


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """The paths where two JSON values differ (``combat.data.started``), at most a few per branch."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[str] = []
        for key in sorted(set(before) | set(after)):
            found += differences(before.get(key), after.get(key), f"{path}.{key}" if path else str(key))
        return found
    return [] if before == after else [path or "(todo)"]


def play(path: Path) -> Evening:
    system, seed, gms = options(path)
    settings = TableSettings(RoomSettings(system=system, gms=gms, enforcement="redact"))
    table = Table(Store(None), settings, random.Random(seed), games=GAMES)
    evening = Evening(path.stem)
    current: Round | None = None
    kept: dict[str, Any] | None = None
    slip_next = False
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if match := ROUND.match(line):
                current = Round(int(match[1]), private_per_gm=dict.fromkeys(gms, 0))
                evening.rounds.append(current)
            elif END.match(line):
                current = None
            elif SLIP.match(line):
                slip_next = True
            elif UNDONE.match(line):
                if not evening.slips or evening.slips[-1].undo_line is not None:
                    raise ValueError(f"{path.name}:{number}: «# deshecho» with no slip before it")
                slip = evening.slips[-1]
                slip.undo_line = number
                slip.differences = differences(kept, comparable(table.store.rooms.load(ROOM_ID)))
            continue
        match = LINE.match(line)
        if match is None:
            raise ValueError(f"{path.name}:{number}: not a «SENDER: TEXT» line: {line[:60]}")
        sender, text = match[1], match[2] or ""
        state = table.store.rooms.load(ROOM_ID) or {}
        if slip_next:
            evening.slips.append(Slip(number, text))
            kept, slip_next = comparable(state), False
        screen_does = is_command(text) and on_screen(table, text)
        actions = [action_json(a) for a in table.handle(Event(ROOM_ID, sender, text, f"${number}", ts=number),
                                                       owner="console")]
        table.actions_done([a["id"] for a in actions])
        if current is not None:
            _count(current, sender, text, state, actions, gms)
            if sender in gms and gm_kind(text, state) == "bookkeeping" and not screen_does:
                current.typed_with_screen.append(text)
            _count_command(evening, text, actions)
    return evening


def _room_messages(actions: list[dict[str, Any]]) -> list[str]:
    return [a.get("text") or "" for a in actions if a["action"] == "send" and a.get("private_to") is None]


def _count_command(evening: Evening, text: str, actions: list[dict[str, Any]]) -> None:
    word = "!" + _verb_and_rest(text)[0] if is_command(text) else "-"
    loud = evening.by_command.setdefault(word, Loudness())
    loud.commands += is_command(text)
    for message in _room_messages(actions):
        loud.room_messages += 1
        loud.phone_lines += phone_lines(message)


def _count(current: Round, sender: str, text: str, state: dict[str, Any], actions: list[dict[str, Any]],
           gms: tuple[str, ...]) -> None:
    current.human_lines += 1
    current.commands += is_command(text)
    if sender in gms:
        kind = gm_kind(text, state)
        current.narration += kind == "narration"
        current.npc_actions += kind == "npc"
        current.bookkeeping += kind == "bookkeeping"
    for message in _room_messages(actions):
        current.room_messages += 1
        current.phone_lines += phone_lines(message)
    for action in actions:
        if action["action"] != "send" or action.get("private_to") is None:
            continue
        to = {action["private_to"], *action.get("private_also", [])}
        for gm in gms:
            if gm in to or action.get("to_room_gms"):
                kept = current.answers_per_gm if gm == sender and not action.get("gm_copy") else current.private_per_gm
                kept[gm] = kept.get(gm, 0) + 1


def _ratio(value: float, limit: float) -> str:
    return f"{value:.2f}{' !' if value > limit else ''}"


def by_command(evening: Evening) -> str:
    """The evening's command words by the room messages they caused (Markdown), loudest first."""
    rows = ["", "| orden | veces | mensajes en la sala | líneas de móvil |", "|---|---|---|---|"]
    rows += [f"| {word} | {loud.commands} | {loud.room_messages} | {loud.phone_lines} |"
             for word, loud in evening.loudest() if loud.room_messages]
    return "\n".join(rows)


def report(evening: Evening, screen: bool = False) -> str:
    """The evening's table (Markdown) and its slips; with ``screen``, the bookkeeping typed with the screen open."""
    rows = [f"### {evening.name}", "",
            "| ronda | líneas humanas | órdenes | mensajes en la sala | líneas de móvil | copias privadas por máster |"
            " respuestas privadas al máster | máster: narración / PNJ / contabilidad | mensajes/orden | líneas/orden |"
            + (" contabilidad con la pantalla abierta |" if screen else ""),
            "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if screen else "")]
    for r in evening.rounds:
        copies = ", ".join(f"{n}{' !' if n > MAX_PRIVATE_PER_GM else ''}" for n in r.private_per_gm.values())
        answers = ", ".join(str(r.answers_per_gm.get(gm, 0)) for gm in r.private_per_gm)
        rows.append(f"| {r.number} | {r.human_lines} | {r.commands} | {r.room_messages} | {r.phone_lines} | {copies} |"
                    f" {answers} |"
                    f" {r.narration} / {r.npc_actions} / {r.bookkeeping} |"
                    f" {_ratio(r.messages_per_command, MAX_MESSAGES_PER_COMMAND)} |"
                    f" {_ratio(r.phone_lines_per_command, MAX_PHONE_LINES_PER_COMMAND)} |"
                    + (f" {len(r.typed_with_screen)} |" if screen else ""))
    rows.append("")
    if screen:
        rows += [f"- ronda {r.number}, tecleada con la pantalla abierta: «{line}»"
                 for r in evening.rounds for line in r.typed_with_screen]
    for slip in evening.slips:
        detail = f" ({', '.join(slip.differences[:6])})" if slip.differences else ""
        rows.append(f"- desliz en la línea {slip.line} «{slip.text}»: {slip.verdict}{detail}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("evenings", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object with every evening")
    parser.add_argument("--por-orden", action="store_true", dest="by_command",
                        help="also the command words by the room messages they caused")
    parser.add_argument("--pantalla", action="store_true", dest="screen",
                        help="also the GM's bookkeeping lines the screen has no control for, per round")
    args = parser.parse_args(argv)
    paths = args.evenings or sorted(EVENINGS.glob("*.txt"))
    evenings = [play(p) for p in paths]
    if args.json:
        sys.stdout.write(json.dumps([e.as_json() for e in evenings], ensure_ascii=False, indent=1) + "\n")
    else:
        sys.stdout.write("\n\n".join(report(e, args.screen) + (by_command(e) if args.by_command else "")
                                       for e in evenings) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
