"""Issue 30 (a quiet table), the declarations of intent: the round's first message names their order
with each declarer's player once; each ``!siguiente`` while they go round is a ✅ on the command, and
the start of the attacks is still announced with the first attacker's mention.

002: «La primera declaración la efectuará el personaje con la DES más baja»: the order is the one the
round's message names, so a ✅ tells the table the next in it declares."""

from __future__ import annotations

import random

from bot.core.events import Event, Send
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.transports import TRANSPORTS
from tests.games.stormbringer.test_issue22 import CAST, FIRST, sb
from tests.transcript import GM


def test_each_declaration_passes_as_a_reaction_after_the_order_names_the_players() -> None:
    t = sb("""
@gm:local: !iniciativa
@gm:local: /me el trasgo se esconde
@gm:local: !siguiente
@gm:local: !siguiente
@bob:local: /me Moonglum tensa el arco
@bob:local: !siguiente
@ana:local: /me Elric desenvaina
@ana:local: !siguiente
""", seed=4)
    deal = "\n".join(t.texts(FIRST))
    assert "Intenciones, de menor a mayor DES: Trasgo, Orco, Moonglum (@bob:local), Elric (@ana:local)." in deal
    deal_message = next(m for m in t.messages(FIRST) if "Intenciones" in m["text"])
    assert {"@ana:local", "@bob:local"} <= set(deal_message.get("mentions", []))
    for line in (FIRST + 2, FIRST + 3, FIRST + 5):   # Trasgo -> Orco -> Moonglum -> Elric: ✅ each, nothing said
        assert t.acked(line) and not t.texts(line), line
    assert not t.redacted(FIRST + 4) and not t.redacted(FIRST + 6)   # each declares on their turn
    attacks = t.texts(FIRST + 7)   # the last declarer passes: the attacks are announced, with a mention
    assert attacks[0].startswith("⚔️ Asalto 1: acciones.") and attacks[-1] == "▶️ Moonglum (@bob:local)"


def test_a_later_round_names_the_declarers_players_in_its_order_line() -> None:
    t = sb("""
@gm:local: !iniciativa
@gm:local: !acciones
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
@gm:local: !siguiente
""", seed=4)
    new_round = t.texts(FIRST + 5)
    assert new_round[0].startswith("📋 Asalto 2 (intenciones primero).")
    assert new_round[1] == "🔔 Ronda 2. Orden: Trasgo → Orco → Moonglum (@bob:local) → Elric (@ana:local)."
    assert {"@ana:local", "@bob:local"} <= set(t.messages(FIRST + 5)[0].get("mentions", []))
    assert new_round[2].startswith("▶️ Trasgo")   # the first declarer, a GM-run one


def test_the_round_line_pings_the_declarers_with_pills_on_matrix() -> None:
    settings = TableSettings(RoomSettings(system="stormbringer", gms=(GM,)))
    table = Table(Store(), settings, random.Random(4), games=GAMES, transports=TRANSPORTS.templates())
    lines = [line.split(": ", 1) for line in CAST.strip().splitlines()]
    lines += [[GM, "!iniciativa"], [GM, "!acciones"]] + [[GM, "!siguiente"]] * 4
    answers = [table.handle(Event("!r:local", sender, text, f"${n}"), owner="matrix")
               for n, (sender, text) in enumerate(lines)]
    sent = [a for a in answers[-1] if isinstance(a, Send) and a.private_to is None]
    assert '<a href="https://matrix.to/#/@bob:local">@bob:local</a>' in sent[0].message.html
    assert "🔔 Ronda 2. Orden: Trasgo → Orco → Moonglum (@bob:local) → Elric (@ana:local)." in sent[0].message.body
    assert {"@ana:local", "@bob:local"} <= set(sent[0].mentions)
