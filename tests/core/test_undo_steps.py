"""Issue 30, item 5: every state-changing command is one undo step, also one that changed nothing;
``!rehacer`` / ``!redo`` redoes what ``!deshacer`` undid until a new command; ``!deshacer ?`` lists the
last five steps; ``!deshacer`` right after a refused command of the same GM asks before undoing."""

from __future__ import annotations

import copy
import sqlite3

import sqlite_utils

from bot.console import ROOM_ID
from bot.core.store import MIGRATIONS, Store
from bot.core.table import Table
from tests.transcript import assert_gm_only, make_table, play

SETUP = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 parada 6 bennies 3 vigor d8 espiritu d8
@gm:local: !pnj Voss
@gm:local: !combate
@gm:local: !turnos Voss, Kira
"""


def _stored(table: Table) -> dict:
    data = copy.deepcopy(table.store.rooms.load(ROOM_ID) or {})
    data.pop("last_rolls", None)
    data.pop("gm_copies", None)  # the GMs' private copies (issue 30): messages sent stay sent, not the play
    return data


def _handled(table: Table) -> int:
    return int(table.store.db.execute("SELECT count(*) FROM handled").fetchone()[0])


def _say(table: Table, line: str) -> str:
    t = play("# -\n" * _handled(table) + line, table=table)
    return "\n".join(a["text"] for a in t.actions if a["action"] == "send")


def _table(script: str = SETUP) -> Table:
    table = make_table(system="savage", seed=4)
    play(script, table=table)
    return table


def test_a_command_that_changed_nothing_is_the_step_undone_and_the_answer_says_so() -> None:
    table = _table()
    _say(table, "@gm:local: !entra Rurik")
    joined = _stored(table)
    _say(table, "@gm:local: !ficha Kira dureza 5")
    assert _stored(table) == joined
    answer = _say(table, "@gm:local: !deshacer")
    assert "!ficha Kira dureza 5" in answer and "no había cambiado nada" in answer, answer
    assert _stored(table) == joined and "Rurik" in table.room(ROOM_ID).combat.order
    assert "!entra Rurik" in _say(table, "@gm:local: !deshacer")
    assert "Rurik" not in table.room(ROOM_ID).combat.order


def test_showing_a_sheet_or_a_roll_is_no_step() -> None:
    table = _table()
    _say(table, "@gm:local: !beni Kira +1")
    for line in ("@gm:local: !ficha Kira", "@bob:local: !tiro d6", "@gm:local: !estado", "@gm:local: !beni Kira"):
        _say(table, line)
    assert "!beni Kira +1" in _say(table, "@gm:local: !deshacer")


def test_redo_puts_back_the_state_after_the_step_without_rolling_again() -> None:
    table = _table()
    before = _stored(table)
    _say(table, "@gm:local: !daño Kira 2d6+6")
    after = _stored(table)
    rolls = len(table.store.rolls.history(ROOM_ID, visible=False))
    _say(table, "@gm:local: !deshacer")
    assert _stored(table) == before
    answer = _say(table, "@gm:local: !rehacer")
    assert "!daño Kira 2d6+6" in answer, answer
    assert _stored(table) == after and len(table.store.rolls.history(ROOM_ID, visible=False)) == rolls
    assert "Rehecho" not in _say(table, "@gm:local: !redo") and _stored(table) == after
    assert "!daño Kira 2d6+6" in _say(table, "@gm:local: !deshacer")
    assert _stored(table) == before


def test_redo_goes_forward_in_order_and_a_new_command_ends_it() -> None:
    table = _table()
    states = [_stored(table)]
    for line in ("!beni Kira +1", "!beni Kira +2", "!entra Rurik"):
        _say(table, f"@gm:local: {line}")
        states.append(_stored(table))
    for _ in range(3):
        _say(table, "@gm:local: !deshacer")
    assert _stored(table) == states[0]
    assert "!beni Kira +1" in _say(table, "@gm:local: !rehacer") and _stored(table) == states[1]
    assert "!beni Kira +2" in _say(table, "@gm:local: !redo") and _stored(table) == states[2]
    _say(table, "@gm:local: !beni Kira -1")
    changed = _stored(table)
    refused = _say(table, "@gm:local: !rehacer")
    assert "!entra" not in refused and _stored(table) == changed


def test_redo_is_for_the_gm() -> None:
    assert_gm_only(SETUP + "@gm:local: !beni Kira +1\n@gm:local: !deshacer", "@bob:local", "!rehacer", "!redo",
                   system="savage")


def test_the_list_names_the_last_five_steps_and_who_typed_them_and_undoes_nothing() -> None:
    table = _table()
    for line in ("@gm:local: !beni Kira +1", "@gm:local: !beni Kira +2", "@bob:local: !beni Kira gastar",
                 "@gm:local: !entra Rurik", "@gm:local: !ficha Kira dureza 5"):
        _say(table, line)
    now = _stored(table)
    answer = _say(table, "@gm:local: !deshacer ?")
    assert _stored(table) == now
    for label in ("!ficha Kira dureza 5", "!entra Rurik", "!beni Kira gastar", "!beni Kira +2", "!beni Kira +1"):
        assert label in answer, answer
    assert "!turnos" not in answer and "@bob:local" in answer and "@gm:local" in answer
    assert answer.index("!ficha Kira dureza 5") < answer.index("!beni Kira +1")
    assert "!ficha Kira dureza 5" in _say(table, "@gm:local: !deshacer")


def test_undo_right_after_a_refused_command_of_the_same_gm_asks_first() -> None:
    table = _table()
    before = _stored(table)
    _say(table, "@gm:local: !daño Kira 12")
    damaged = _stored(table)
    refused = _say(table, "@gm:local: !daño Nadie 3")
    assert "Nadie" in refused and _stored(table) == damaged
    asked = _say(table, "@gm:local: !deshacer")
    assert "!daño Kira 12" in asked and "!deshacer" in asked and "Deshecho" not in asked, asked
    assert _stored(table) == damaged
    assert "Deshecho: !daño Kira 12" in _say(table, "@gm:local: !deshacer")
    assert _stored(table) == before


def test_a_refusal_of_someone_else_does_not_stop_the_undo() -> None:
    table = make_table(system="savage", seed=4, gms=("@gm:local", "@gm2:local"))
    play(SETUP, table=table)
    _say(table, "@gm:local: !beni Kira +1")
    _say(table, "@gm2:local: !daño Nadie 3")
    _say(table, "@bob:local: !beni Nadie gastar")
    assert "Deshecho: !beni Kira +1" in _say(table, "@gm:local: !deshacer")


def test_steps_stored_before_the_new_columns_are_still_undone(tmp_path) -> None:
    path = str(tmp_path / "old.db")
    conn = sqlite3.connect(path, isolation_level=None)
    db = sqlite_utils.Database(conn)
    for migrate in MIGRATIONS[:13]:
        migrate(db)
    db.execute("INSERT INTO undo (room_id, event_id, label, state, parts) VALUES (?, ?, ?, ?, ?)",
               [ROOM_ID, "$1", "!beni Kira +1", "{}", "[]"])
    db.execute("PRAGMA user_version = 13")
    conn.close()
    store = Store(path)
    assert "sender" in store.db.table("undo").columns_dict
    step = store.undo.last(ROOM_ID)
    assert step is not None and step.label == "!beni Kira +1" and step.sender == ""
