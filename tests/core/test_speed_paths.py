"""Issue 23 item 5: the table core's shortcuts keep what it stores and answers exactly as it was."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.events import (
    Edit,
    Event,
    Message,
    PowerLevels,
    React,
    Redact,
    Send,
    Tracker,
    action_from_dict,
    action_to_dict,
    with_id,
)
from bot.core.game import Game
from bot.core.render import Renderer
from bot.core.state import PLAY, UNDOABLE, RoomState, _field_json, changes, play_of, state_json
from bot.core.store import SCHEMA_VERSION, Store
from bot.core.table import Table
from bot.core.text import clean_json
from bot.games import GAMES
from systems.base import roll_dice
from tests.transcript import make_table, play


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_the_rooms_json_is_its_dict_encoded_compactly() -> None:
    """``to_json`` and ``play_json`` (one shared encoder) write what ``to_dict`` holds, byte for byte."""
    table = make_table(system="savage", seed=3)
    play("@gm:local: !pj Ana @ana:local\n@gm:local: !pnj Orco «ñ»\n@gm:local: !combate\n"
         "@gm:local: !turnos Ana, Orco", table)
    room = next(iter(table._rooms.values()))
    assert room.characters and room.combat is not None
    data = room.to_dict()
    assert room.to_json() == _compact(data)
    assert room.play_json() == _compact([data[name] for name in PLAY])
    assert RoomState.from_json(room.to_json()) == room


def test_a_state_encoded_field_by_field_once_gives_the_same_texts_and_changes() -> None:
    """Issue 28: a command encodes the room once before it (``RoomState.encoded``) and only the play and the
    rerolls after it; the snapshot, the play and the parts an undo step takes back are those of ``to_json``,
    ``play_json`` and ``changed_since``."""
    table = make_table(system="savage", seed=3)
    play("@gm:local: !pj Ana @ana:local\n@gm:local: !pnj Orco «ñ»\n@gm:local: !combate\n"
         "@gm:local: !turnos Ana, Orco\n@ana:local: !tiro 1d6", table)
    room = next(iter(table._rooms.values()))
    before = room.encoded()
    assert state_json(before) == room.to_json() and play_of(before) == room.play_json()
    snapshot = room.to_json()
    assert changes(before, room.encoded(UNDOABLE)) == room.changed_since(snapshot, room.play_json()) == []
    room.characters["ana"].sheet["bennies"] = 7
    room.rerolls.pop(next(iter(room.rerolls)))
    room.characters = {"orco": room.characters["orco"], "ana": room.characters["ana"]}  # another order only
    assert room.combat is not None
    room.combat.round += 1
    now = room.encoded(UNDOABLE)
    assert play_of(now) == room.play_json()
    assert changes(before, now) == room.changed_since(snapshot, room.play_json())
    assert ("characters", "ana") in changes(before, now) and ("characters", "orco") not in changes(before, now)


def test_an_empty_field_is_written_as_the_encoder_writes_it() -> None:
    """Issue 28 item 7: the empty fields ``RoomState.encoded`` writes without the encoder (by exact type) read as
    the encoder writes them; a value that is not empty, or a subclass, goes to the encoder."""
    for value in (None, {}, [], "", 0, False, True, 3, "x", [0], 0.0):
        assert _field_json(value) == _compact(value)


def test_an_action_goes_to_the_outbox_and_back_unchanged() -> None:
    actions = [
        Send("!r", Message("hola", "<b>hola</b>"), "$e", ("@a:x",), None, template="roll_by", applied=(("x", 1),),
             private_also=("@gm:x",), action_id="$e/0"),
        Redact("!r", "$e", "motivo", action_id="$e/1"),
        React("!r", "$e", "🔒", action_id="$e/2"),
        PowerLevels("!r", True, ("@a:x",), action_id="$e/3"),
    ]
    for action in actions:
        assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


@pytest.mark.parametrize("ext", ["txt", "html"])
def test_a_dice_list_writes_each_die_as_the_die_macro_does(ext: str) -> None:
    """``dice_list`` writes ``die`` out for each die (one macro call per die was most of a roll's time):
    the same dice, kept or dropped, exploded, at their maximum, more than shown, in both formats."""
    macros = Renderer().env.get_template(f"macros.{ext}").module
    rng = random.Random(7)
    for text in ("3d10", "4d6kh3", "6d6!kl2", "10d2!", "25d6", "1d1"):
        for _ in range(10):
            for term in roll_dice(text, rng).result.terms:
                dice = term.dice
                shown = [str(macros.die(d)) for d in dice[:20]]  # type: ignore[attr-defined]
                more = f", … +{len(dice) - 20}" if len(dice) > 20 else ""
                assert str(macros.dice_list(dice)) == "[" + ", ".join(shown) + more + "]"  # type: ignore[attr-defined]


@pytest.mark.parametrize("ext", ["txt", "html"])
def test_the_core_roll_writes_its_macros_out_saying_the_same(ext: str) -> None:
    """Issue 28 item 7: ``roll`` writes ``label``, ``terms`` and ``dice_list`` out (their macro calls were most
    of a roll message's time): the same text as the macros give, with a comment, constants, minus signs,
    exploded, dropped and more dice than shown; a GM-owned sheet's roll still shows only its dice."""
    env = Renderer().env
    macros, roll = env.get_template(f"macros.{ext}").module, env.get_template(f"roll.{ext}")
    total = "{}" if ext == "txt" else "<b>{}</b>"
    rng = random.Random(11)
    for text in ("3d10 (chequeo)", "1d20+5 ataque <b>&", "4d6kh3-2", "-1d4+3", "25d6!", "2d6-1d4 " + "x" * 130):
        for _ in range(5):
            r = roll_dice(text, rng)
            result = r.result
            expected = (f"🎲 {macros.label(result)}: {macros.terms(result)} = "  # type: ignore[attr-defined]
                        + total.format(result.total))
            assert roll.render(r=r, gm_roll=False) == expected
            assert roll.render(r=r, gm_roll=True) == f"🎲 {macros.dice_only(result)}"  # type: ignore[attr-defined]


def test_an_action_with_its_id_is_the_action_replaced() -> None:
    """Issue 28 item 7: ``with_id`` gives what ``dataclasses.replace(action, action_id=...)`` gives, for each kind."""
    actions = [
        Send("!r", Message("hola", "<b>hola</b>"), "$e", ("@a:x",), None, template="roll_by", applied=(("x", 1),),
             private_also=("@gm:x",), roll={"total": 3}, secret=True, ref="t"),
        Redact("!r", "$e", "motivo"), React("!r", "$e", "🔒"), PowerLevels("!r", True, ("@a:x",)),
        Edit("!r", "t", Message("a", "b"), ("@a:x",)), Tracker("!r", "show", Message("a", "b")),
    ]
    for action in actions:
        assert with_id(action, "$e/4") == replace(action, action_id="$e/4")
        assert type(with_id(action, "$e/4")) is type(action)


def test_cleaning_a_json_value_takes_its_numbers_as_they_are_and_cleans_every_string() -> None:
    """Issue 28 item 7: ``clean_json``'s shortcut for plain dicts and lists gives what it gave: numbers,
    booleans and None as they are, every string (keys too) cleaned, in tuples and nested lists as well."""

    class Label(str):
        pass

    value = {"a\u202e": [1, 2.5, True, None, "x\x00y", (3, "z\u200b")], 4: {"k": Label("l\x1b")}, "n": False}
    assert clean_json(value) == {"a": [1, 2.5, True, None, "xy", (3, "z")], 4: {"k": "l"}, "n": False}
    assert type(clean_json(value)["a"][5]) is tuple and clean_json(7) == 7 and clean_json("\u2066q") == "q"


def _plan(store: Store, sql: str, params: list[str]) -> str:
    return " ".join(str(row[-1]) for row in store.db.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def _wal_frames(store: Store) -> int:
    """Pages the WAL file holds (its header is 32 bytes, each frame 24 more than a page)."""
    page = store.db.execute("PRAGMA page_size").fetchone()[0]
    return (Path(store.path + "-wal").stat().st_size - 32) // (page + 24)


def test_the_outbox_holds_only_what_is_pending_and_writes_one_page_each_way(tmp_path: Path) -> None:
    """An action carried out leaves the outbox (it was kept, marked done, with an index of what was pending):
    queueing one writes one page, marking it done one more; what is pending comes back in order."""
    store = Store(str(tmp_path / "rolbot.db"))
    store.db.execute("PRAGMA wal_autocheckpoint = 0")
    sent = Send("!r", Message("a", "a"), None, (), None, action_id="$e/0")
    waiting = Send("!r", Message("b", "b"), None, (), None, action_id="$e/1")
    assert [row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'outbox'")] == ["outbox"]
    with store.transaction():
        store.outbox.queue("$e", [sent, waiting], "matrix")
    queued = _wal_frames(store)
    store.outbox.done(["$e/0"])
    assert _wal_frames(store) - queued == 1
    with store.transaction():
        store.outbox.queue("$f", [Send("!r", Message("c", "c"), None, (), None, action_id="$f/0")], "irc")
    assert _wal_frames(store) - queued == 2
    assert store.db.execute("SELECT count(*) FROM outbox").fetchone() == (2,)
    assert store.outbox.pending() == [waiting, Send("!r", Message("c", "c"), None, (), None, action_id="$f/0")]
    assert store.outbox.pending_owned("matrix") == [("matrix", waiting)]


def test_a_database_of_version_13_keeps_only_its_pending_actions_in_order(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.db")
    store = Store(path)
    store.db.execute("DROP TABLE outbox")
    store.db.execute('CREATE TABLE outbox ("action_id" TEXT PRIMARY KEY, "event_id" TEXT, "seq" INTEGER, "data" TEXT,'
                     ' "done" INTEGER, transport TEXT NOT NULL DEFAULT \'\')')
    store.db.execute("CREATE INDEX outbox_pending ON outbox (seq) WHERE done = 0")
    for seq, done in ((1, 1), (2, 0), (3, 1), (4, 0)):
        action = Send("!r", Message(str(seq), str(seq)), None, (), None, action_id=f"$e/{seq}")
        store.db.execute("INSERT INTO outbox VALUES (?, '$e', ?, ?, ?, 'irc')",
                         [f"$e/{seq}", seq, json.dumps(action_to_dict(action)), done])
    store.db.execute("PRAGMA user_version = 13")
    store.close()
    reopened = Store(path)
    assert [a.action_id for a in reopened.outbox.pending()] == ["$e/2", "$e/4"]
    assert [a.action_id for _, a in reopened.outbox.pending_owned("irc")] == ["$e/2", "$e/4"]
    reopened.outbox.done(["$e/2"])
    with reopened.transaction():
        reopened.outbox.queue("$g", [Send("!r", Message("g", "g"), None, (), None, action_id="$g/0")], "irc")
    assert [a.action_id for a in reopened.outbox.pending()] == ["$e/4", "$g/0"]


def _statements(store: Store) -> list[str]:
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    return seen


def test_a_rooms_page_token_is_found_and_a_save_that_keeps_it_writes_only_the_state(tmp_path: Path) -> None:
    """The page token has a column and an index of its own (the index over the state's JSON was
    rewritten on every save): a save that keeps the token sets the state alone; one that changes it
    moves the lookup with it, across a restart too."""
    path = str(tmp_path / "rolbot.db")
    store = Store(path)
    room = RoomState(page_token="t" * 32)
    with store.transaction():
        store.rooms.save("!a", room.to_json(), room.page_token)
    room.system = "savage"
    seen = _statements(store)
    with store.transaction():
        store.rooms.save("!a", room.to_json(), room.page_token)
    assert [s.split(" WHERE")[0] for s in seen if "rooms" in s] == [
        f"UPDATE rooms SET data = '{room.to_json()}'"], seen
    assert store.rooms.for_token("t" * 32) == "!a"
    room.page_token = "u" * 32
    with store.transaction():
        store.rooms.save("!a", room.to_json(), room.page_token)
    assert store.rooms.for_token("t" * 32) is None and store.rooms.for_token("u" * 32) == "!a"
    store.close()
    reopened = Store(path)
    assert reopened.rooms.for_token("u" * 32) == "!a"
    assert (reopened.rooms.load("!a") or {})["system"] == "savage"
    assert "rooms_by_page_token" in _plan(reopened, "SELECT room_id FROM rooms WHERE page_token = ?", ["x"])


def test_a_save_without_the_token_reads_it_from_the_state(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "rolbot.db"))
    with store.transaction():
        store.rooms.save("!a", RoomState(page_token="v" * 32).to_json())
    assert store.rooms.for_token("v" * 32) == "!a"


def test_a_database_of_version_11_keeps_its_rooms_tokens(tmp_path: Path) -> None:
    path = str(tmp_path / "rolbot.db")
    store = Store(path)
    with store.transaction():
        store.db.execute("DROP INDEX rooms_by_page_token")
        store.db.execute("ALTER TABLE rooms DROP COLUMN page_token")
        store.db.execute("INSERT INTO rooms (room_id, data) VALUES (?, ?)", ["!a", RoomState(page_token="w" * 32).to_json()])
        store.db.execute("PRAGMA user_version = 11")
    store.close()
    assert SCHEMA_VERSION >= 12 and Store(path).rooms.for_token("w" * 32) == "!a"


def test_an_events_game_is_looked_up_once_and_follows_a_change_of_the_rooms_game() -> None:
    """``Context.game`` is asked for many times per event: the lookup is kept while the room's game is
    the same, and a command that changes it (``!sistema``), or a rollback that puts it back, is seen
    at once."""
    table = Table(Store(), games=GAMES)
    ctx = table.context_for(Event("!r:local", "@gm:local", "!estado", "$1"), table.room("!r:local"))
    asked: list[str] = []
    registry = ctx.games
    original = registry.game_for

    def game_for(key: str) -> Game:
        asked.append(key)
        return original(key)

    registry.game_for = game_for  # type: ignore[method-assign]
    try:
        assert [ctx.game.key for _ in range(5)] == ["generic"] * 5 and asked == []  # found making the context
        mark = ctx.work.mark()
        ctx.room.system = "savage"
        assert ctx.game.key == "savage" and ctx.system is GAMES["savage"].system
        ctx.work.rollback(mark)
        assert ctx.game.key == "generic" and asked == ["savage", "generic"]
    finally:
        del registry.game_for


def test_a_template_compiled_once_is_not_compiled_again_by_another_process_or_renderer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled templates are kept between runs (Jinja's private per-user cache, checked against the
    source): a new renderer reads what an earlier one compiled instead of compiling it again."""
    from jinja2 import Environment

    first = Renderer().text("redact_reason")

    def never(*_: object, **__: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(Environment, "compile", never)
    assert Renderer().text("redact_reason") == first
