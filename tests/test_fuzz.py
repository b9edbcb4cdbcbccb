"""Fuzzing the roll grammar and the table core (hypothesis), for every system.

- ``SYSTEM.roll(text, rng)`` returns or raises ``systems.dice.DiceError``, nothing else.
- ``Table.handle`` over random sessions (commands of every system with random arguments, dash
  lines, named locks, emotes, out-of-character text, junk) from the GM, players and strangers:
  no handler crashes (the core would answer "internal_error"; that text never appears), the
  state a room stores reloads to the same state, and every reply is short.

A modest example count here (CI); ``python bench/fuzz.py`` runs the same checks with many more
examples and reports the slowest input. A watchdog fails an input that hangs (10 s): it is a
hang detector, not a speed check.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.events import Event, Send
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.settings import RoomSettings, TableSettings
from bot.core.state import RoomState
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from systems.dice import DiceError
from tests.watchdog import watchdog

ROOT = Path(__file__).resolve().parents[1]
GM, ANA, BRUNO, EVE = "@gm:fuzz", "@ana:fuzz", "@bruno:fuzz", "@eve:fuzz"
SENDERS = (GM, GM, ANA, ANA, BRUNO, EVE)
NAMES = ("Ana", "Bruno", "Orco", "McAvoy", "Kurtz", "ána", "ORCO", "nadie", "Lerma")
INTERNAL_ERROR = Table(Store(), TableSettings(), games=GAMES).renderer.text("internal_error").strip()


def _doc_words(key: str) -> list[str]:
    """Phrases and words of the game's own syntax help (``templates/<game>/syntax.txt``)."""
    path = ROOT / "templates" / key / "syntax.txt"
    spans = re.split(r"[,;.()«»]", path.read_text(encoding="utf-8")) if path.exists() else []
    out = []
    for raw in spans:
        span = re.sub(r"^\s*(\w+:\s*)?[/!]{0,2}(tiro|roll)\s*", "", raw).strip()
        out.append(span)
        out += span.split()
    return sorted({w for w in out if w})


DICE_TOKENS = ["d", "D", "d%", "d6", "d20", "3d10", "2d6", "4d6kh3", "kh", "kl", "k", "h", "l", "!", "+", "-",
               "*", "x", "×", "vs", "VS", "%", "(", ")", ",", "/", ":", "0", "1", "4", "6", "10", "12", "100",
               "99999999", "-1", "+5", "1d1!", "d0", "0d6", "1000d1000", "oculta", "hidden", "ñ", "á", "💥",
               "\u202e", "<b>", "&amp;"]

WORDS = {game.key: _doc_words(game.key) for game in GAMES}


def roll_texts(key: str) -> st.SearchStrategy[str]:
    vocab = DICE_TOKENS + WORDS.get(key, []) + WORDS["generic"]
    tokens = st.lists(st.one_of(st.sampled_from(vocab), st.integers(-1000, 10**6).map(str)), max_size=12)
    glued = st.tuples(tokens, st.sampled_from(["", " ", "  ", "+", ","])).map(lambda t: t[1].join(t[0]))
    return st.one_of(glued, glued, st.text(max_size=60))


def command_names(key: str) -> list[str]:
    return sorted(ROOM_COMMANDS.names() | GAMES[key].commands.names())


def lines(key: str) -> st.SearchStrategy[str]:
    name = st.sampled_from(NAMES)
    arg = st.one_of(roll_texts(key), name, st.sampled_from(["fin", "gastar", "+1", "-2", "3", "@ana:fuzz"]),
                    st.sampled_from(WORDS.get(key, ["x"]) or ["x"]))
    args = st.lists(arg, max_size=5).map(" ".join)
    prefix = st.sampled_from(["!", "!", "/", "//"])
    cmd = st.tuples(prefix, st.sampled_from(command_names(key)), args).map(lambda t: f"{t[0]}{t[1]} {t[2]}".strip())
    setup = st.sampled_from([f"!pj {n} {u}" for n, u in (("Ana", ANA), ("Bruno", BRUNO), ("Orco", ""))]
                            + ["!combate", "!iniciativa", "!turnos Ana Bruno Orco", "!siguiente", "!estado",
                               "!permite Bruno", "!exploracion", "!combate fin", "!ficha Ana", "!ayuda"])
    dash = st.one_of(st.sampled_from(["-----", "— — — — —", "──────", "-----"]),
                     name.map(lambda n: f"---------- ({n})"))
    misc = st.one_of(st.text(max_size=40), roll_texts(key).map(lambda t: f"/me {t}"),
                     roll_texts(key).map(lambda t: f"(( {t} ))"), roll_texts(key).map(lambda t: f"off: {t}"))
    return st.one_of(cmd, cmd, cmd, setup, setup, dash, misc)


def check_roll(key: str, text: str, seed: int) -> None:
    system = GAMES[key].system
    with watchdog(text):
        try:
            outcome = system.roll(text, random.Random(seed))
        except DiceError:
            return
    outcome.as_json()  # a result is plain data


def new_table(key: str, enforce: str) -> Table:
    return Table(Store(), TableSettings(RoomSettings(system=key, gms=(GM,), enforcement=enforce)), random.Random(7), games=GAMES)


def check_session(key: str, enforce: str, session: list[tuple[int, str, bool]]) -> None:
    table = new_table(key, enforce)
    room = "!fuzz:local"
    for i, (who, text, emote) in enumerate(session):
        sender = SENDERS[who % len(SENDERS)]
        event = Event(room, sender, text, f"$f{i}", kind="emote" if emote else "text", ts=i,
                      sender_is_admin=sender == GM)
        with watchdog(text):
            actions = table.handle(event)
        for action in actions:
            if isinstance(action, Send):
                assert INTERNAL_ERROR not in action.message.body, (key, text, [t for _, t, _ in session[:i + 1]])
                assert len(action.message.body) <= 4000 and len(action.message.html) <= 8000
        state = table.room(room)
        stored = table.store.rooms.load(room)
        assert RoomState.from_dict(stored).to_dict() == json.loads(state.to_json()), text


CAST = [(0, f"!pj {n} {u}".strip(), False) for n, u in (("Ana", ANA), ("Bruno", BRUNO), ("Orco", ""))]
PREAMBLES = (
    [],
    CAST,
    [*CAST, (0, "!combate", False), (0, "!iniciativa", False)],
    [*CAST, (0, "!combate", False), (0, "!turnos Ana Bruno Orco", False), (2, "!tiro 1d20", False), (2, "!siguiente", False)],
    [*CAST, (0, "!exploracion", False)],
    [*CAST, (0, "---------- (Ana)", False)],
)


def sessions(key: str) -> st.SearchStrategy[list[tuple[int, str, bool]]]:
    """A preamble that reaches characters, a combat, an exploration or a lock; then random lines."""
    step = st.tuples(st.integers(0, 5), lines(key), st.sampled_from([False, False, False, True]))
    return st.tuples(st.sampled_from(PREAMBLES), st.lists(step, min_size=1, max_size=20)).map(lambda t: t[0] + t[1])


FAST = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SESSION = settings(max_examples=40, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.filter_too_much])


@pytest.mark.parametrize("key", GAMES.keys())
def test_roll_returns_or_raises_dice_error(key: str) -> None:
    @FAST
    @given(text=roll_texts(key), seed=st.integers(0, 2**32))
    def run(text: str, seed: int) -> None:
        check_roll(key, text, seed)

    run()


@pytest.mark.parametrize("key", GAMES.keys())
def test_table_sessions_never_crash(key: str) -> None:
    @SESSION
    @given(session=sessions(key), enforce=st.sampled_from(["warn", "redact", "mute"]))
    def run(session, enforce) -> None:
        check_session(key, enforce, session)

    run()
