"""Issue 29 item 9: messages that fit their reader (the core's part: lock and turn warnings, links)."""

from __future__ import annotations

import random
import re

from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import GM, play

ANCHOR = re.compile(r"<a href=\"[^\"]*\">[^<]*</a>")
URL = re.compile(r"https://\S+[^\s.,)]")


def test_a_warning_for_a_message_taken_back_names_and_mentions_its_player_and_replies_to_nothing() -> None:
    t = play("@gm:local: -----\n@ana:local: hola\n@gm:local: -----\n@gm:local: !combate\n@ana:local: !pj Kira\n"
             "@gm:local: !pnj Orco\n@gm:local: !turnos Orco Kira\n@ana:local: /me ataca", enforce="redact")
    assert t.redacted(2)
    (warning,) = [a for a in t.for_line(2) if a["action"] == "send"]
    assert warning["event"] is None, warning  # its message is gone: nothing to reply to
    assert warning["mentions"] == ["@ana:local"] and warning["private_to"] is None
    assert warning["text"].startswith("@ana:local · ") and "El máster está narrando" in warning["text"]
    # Writing out of turn is told to its writer alone (issue 30 item 2).
    assert t.redacted(8)
    (warning,) = [a for a in t.for_line(8) if a["action"] == "send"]
    assert warning["private_to"] == "@ana:local"
    assert warning["text"].startswith("Kira · ") and "Es el turno de Orco" in warning["text"]


def test_a_warning_for_a_message_that_stays_replies_to_it_and_mentions_its_player() -> None:
    t = play("@gm:local: -----\n@ana:local: hola", enforce="warn")
    (warning,) = [a for a in t.for_line(2) if a["action"] == "send"]
    assert warning["event"] == "$2" and warning["mentions"] == ["@ana:local"]
    assert warning["text"].startswith("@ana:local · 🤫 El máster está narrando")


def test_every_link_in_a_messages_html_is_an_anchor() -> None:
    """``!pantalla``, ``!mesa`` and ``!acta``: the address a message writes is a link in its HTML."""
    settings = TableSettings(RoomSettings(gms=(GM,), public_url="https://rol.example.org"))
    table = Table(Store(), settings, random.Random(1), games=GAMES)
    t = play("@gm:local: !acta activar\n@gm:local: !mesa\n@gm:local: !acta\n@gm:local: !pantalla\n"
             "@gm:local: !pantalla nueva\n@gm:local: !mesa nueva", table=table)
    linked = [a for a in t.actions if a["action"] == "send" and "https://" in a["text"]]
    assert len(linked) >= 4 and any("pantalla" in a["text"] for a in linked), t.actions
    for action in linked:
        outside = ANCHOR.sub("", action["html"])
        assert "https://" not in outside, action["html"]
        assert all(f'href="{url}"' in action["html"] for url in URL.findall(action["text"])), action
