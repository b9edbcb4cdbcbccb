"""Issue 23 item 5: the table core's shortcuts keep what it stores and answers exactly as it was."""

from __future__ import annotations

import json

from bot.core.events import Message, PowerLevels, React, Redact, Send, action_from_dict, action_to_dict
from bot.core.state import PLAY, RoomState
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
