"""The core messages Matrix words its own way (``templates/matrix/``, listed in ``bot/matrix/description.py``)
are rendered for the events of Matrix rooms: a turn pings the player with a pill, a missing power names
``m.room.power_levels``. No homeserver needed."""

from __future__ import annotations

import random

from bot.core.events import Event, Send
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.transports import TRANSPORTS
from tests.transcript import GM

CAST = [(GM, "!pj McAvoy @ana:local"), (GM, "!pj Sör Brönn @bob:local"), (GM, "!combate"),
        (GM, "!turnos McAvoy, Sör Brönn")]


def table(enforce: str = "redact") -> Table:
    settings = TableSettings(RoomSettings(gms=(GM,), enforcement=enforce))
    return Table(Store(), settings, random.Random(1), games=GAMES, transports=TRANSPORTS.templates())


def test_turn_start_pings_the_actor_with_a_pill() -> None:
    played = table()
    answers = [played.handle(Event("!r:local", sender, text, f"${n}"), owner="matrix")
               for n, (sender, text) in enumerate(CAST)]
    action = answers[3][0]
    assert isinstance(action, Send) and list(action.mentions) == ["@ana:local"]
    assert '<a href="https://matrix.to/#/@ana:local">@ana:local</a>' in action.message.html


def test_without_power_a_matrix_room_hears_which_power_and_another_owner_the_core_wording() -> None:
    said = {}
    for owner in ("matrix", "irc", "console"):
        actions = table("mute").handle(Event("!r:local", GM, "-----", "$1", bot_can_mute=False), owner=owner)
        said[owner] = next(a.message.body for a in actions if isinstance(a, Send) and a.template == "no_power")
    assert "m.room.power_levels" in said["matrix"] and "+o" in said["irc"]
    assert "permisos" in said["console"] and "power_levels" not in said["console"] and "+o" not in said["console"]
