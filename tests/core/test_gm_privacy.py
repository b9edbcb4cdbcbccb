"""What the GM's sheets hold stays the GM's (issue 19, item 1; issue 29, item 1).

Every command of every game (from the registry, so a new command is walked too) is sent by a player and
by the GM after the GM set up an NPC with numbers that appear nowhere else; no public message, no roll
object of a public message, no table page and no acta line may carry any of them, nor a number that
gives one back with the dice shown beside it (an NPC's total is its modifier plus its dice).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from bot.core.acta_document import NoSuchActa, export
from bot.core.events import Event, Send
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.web.table_page import TablePages
from bot.web.view import TableView

ROOM = "!privacy:local"
GM, ANA = "@gm:local", "@ana:local"

NPC_SHEETS = {
    "generic": "iniciativa 317",
    "savage": "parada 137 dureza 173 bennies 113 pelear d8 espiritu d6 agilidad d6 vigor d6 arma_dano fue+d6",
    "stormbringer": "pv 137 ataque 97 parada 93 esquiva 91 espada 89 des 173 dano 1d8 armadura 1d6",
    "reino": "defensa 137 rd 113 umbral 173 pr 317 pr_max 317 pa 131 ataque 119 fortaleza 129 iniciativa 127 "
             "percepcion 139",
    "sombra": "res 137 vit 173 agi 113 vel 131 arma II+2 blindaje 119",
}
SECRETS = {key: {w for w in sheet.split() if w.isdigit()} for key, sheet in NPC_SHEETS.items()}
DICE = re.compile(r"\[([^\[\]]{1,400})\]")
"""Dice shown in a message: ``[3, 3]``, ``[12!+9]`` (one die that exploded), ``"dice": [7]``."""
NUMBER = re.compile(r"(?<![\w.#])-?\d+(?!\w)")
PLAYER_SHEETS = {
    "generic": "iniciativa 2",
    "savage": "parada 5 dureza 5 pelear d8 espiritu d6 vigor d6 arma_dano fue+d4 bennies 3",
    "stormbringer": "pv 12 ataque 60 parada 50 esquiva 40 des 12 dano 1d6",
    "reino": "defensa 14 pr 20 pr_max 20 umbral 8 ataque 4 pa 3 fortaleza 2",
    "sombra": "res 6 vit 6 agi 5 vel 5 pelea 15 disparo 15 esquivar 12 arma I",
}
ARGUMENTS = (
    "", "Orco", "Orco 5", "Orco 2d6", "Orco +1", "Orco gastar", "contra Orco", "pelear contra Orco",
    "Pelear contra Orco oculta", "d20 contra Orco", "d100 contra Orco", "3d10 contra Orco", "Kira Orco",
    "Orco Kira", "Orco / Kira", "Kira", "Kira Orco 2d6", "espiritu", "Orco espiritu", "Orco fortaleza",
    "Orco ataque", "Orco pelear", "Orco espada", "Orco Pelear contra Kira", "Orco ataque contra Kira",
)
"""Argument shapes tried with every command: the NPC named as target, actor, or opponent."""
AFTERWARDS = ("!repetir", "!revelar", "!revelar Orco", "!estado", "!historial", "!historial Orco")
"""Commands that show again what an earlier one did (tried after each command)."""


def setup_script(game: str) -> list[tuple[str, str]]:
    return [
        (GM, "!acta activar"), (GM, "!pnj Orco"), (GM, f"!ficha Orco {NPC_SHEETS[game]}"),
        (ANA, "!pj Kira"), (GM, f"!ficha Kira {PLAYER_SHEETS[game]}"), (GM, "!combate"),
        (GM, "!turnos Kira Orco"), (GM, "!mesa"),
    ]


@dataclass
class Room:
    game: str
    configured: bool
    """The GM is named by the config; otherwise the transport says it is an admin (power level)."""
    table: Table = field(init=False)
    sends: list[Send] = field(default_factory=list)
    count: int = 0

    def __post_init__(self) -> None:
        settings = TableSettings(RoomSettings(system=self.game, gms=(GM,) if self.configured else (),
                                              public_url="https://rol.example.org"))
        self.table = Table(Store(), settings, random.Random(7), games=GAMES)
        for sender, text in setup_script(self.game):
            self.say(sender, text)

    def say(self, sender: str, text: str) -> list[Send]:
        self.count += 1
        event = Event(ROOM, sender, text, f"$p{self.count}", ts=1_700_000_000_000 + self.count,
                      sender_is_admin=sender == GM and not self.configured)
        sends = [a for a in self.table.handle(event) if isinstance(a, Send)]
        self.sends += sends
        return sends

    def public(self) -> Iterator[tuple[str, str]]:
        """Everything players can read: (where, text)."""
        for send in self.sends:
            if send.private_to is None or send.private_to == ANA:
                assert ANA not in send.private_also or send.private_to == ANA
                yield f"{send.template} (to {send.private_to or 'room'})", send.message.body
                yield f"{send.template} html", send.message.html
                if send.roll is not None:
                    yield f"{send.template} roll", json.dumps(send.roll)
        yield "table page", TablePages(TableView(self.table), Metrics()).board(ROOM)
        for fmt in ("md", "html"):
            with contextlib.suppress(NoSuchActa):
                yield f"acta {fmt}", export(self.table.store, self.table.renderer, ROOM, fmt, every=True)

    def gm_copies(self) -> list[Send]:
        return [s for s in self.sends if s.private_to == GM]

    def end_turn(self) -> None:
        """The GM ends the turn: in combat the GMs' copies of it come then (issue 30)."""
        self.say(GM, "!siguiente")


def dice_sums(text: str) -> set[int]:
    """Every sum of some of the dice ``text`` shows (0: none of them)."""
    sums = {0}
    for group in DICE.findall(text):
        for die in group.split(","):
            faces = [int(f) for f in re.findall(r"\d+", die)[:10]]
            if faces and len(sums) < 5000:
                sums |= {s + sum(faces) for s in sums}
    return sums


def derivable(game: str, text: str) -> list[str]:
    """The GM numbers ``text`` gives back: a number shown equal to one, or to one plus dice it shows."""
    secrets = {int(n) for n in SECRETS[game]}
    sums = dice_sums(text)
    shown = {abs(int(n)) for n in NUMBER.findall(text)}
    return sorted(f"{n} = {s} + {n - s}" if n != s else str(n) for n in shown for s in secrets if n - s in sums)


def leaks(room: Room) -> list[str]:
    found = []
    for where, text in room.public():
        for line in text.splitlines():  # the dice beside a number: those of its line
            found += [f"{where}: {number} in {line[:300]!r}" for number in derivable(room.game, line)]
    return found


def command_names(game: str) -> list[str]:
    return [c.name for c in (*ROOM_COMMANDS, *GAMES[game].commands)]


def walk(room: Room, sender: str, name: str) -> None:
    for args in ARGUMENTS:
        room.say(sender, f"!{name} {args}".strip())
        for after in AFTERWARDS:
            room.say(sender, after)


SKIPPED_FOR_GM = ("sistema", "acta", "sesion", "master")
"""Commands of the GM that change what the room is (its game, its record, its GMs), not shown numbers."""


@pytest.mark.parametrize("game", GAMES.keys())
@pytest.mark.parametrize("configured", [True, False], ids=["named-gm", "gm-by-power"])
def test_no_command_of_a_player_shows_the_numbers_of_an_npc_sheet(game: str, configured: bool) -> None:
    problems = []
    for name in command_names(game):
        room = Room(game, configured)
        walk(room, ANA, name)
        problems += [f"!{name}: {leak}" for leak in leaks(room)]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("game", GAMES.keys())
@pytest.mark.parametrize("configured", [True, False], ids=["named-gm", "gm-by-power"])
def test_no_command_of_the_gm_posts_the_numbers_of_an_npc_sheet(game: str, configured: bool) -> None:
    problems = []
    for name in command_names(game):
        if name in SKIPPED_FOR_GM:
            continue
        room = Room(game, configured)
        walk(room, GM, name)
        problems += [f"!{name}: {leak}" for leak in leaks(room)]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("configured", [True, False], ids=["named-gm", "gm-by-power"])
def test_the_gm_gets_the_numbers_privately(configured: bool) -> None:
    room = Room("savage", configured)
    room.say(GM, "!ficha Orco")
    assert "137" in room.gm_copies()[-1].message.body
    room.say(ANA, "!tiro Pelear contra Orco")
    public = [s for s in room.sends if s.private_to is None][-1]
    room.end_turn()
    copy = next(s for s in reversed(room.gm_copies()) if s.roll is not None)
    assert copy.roll is not None and copy.roll["tn"] == 137 and "137" in copy.message.body
    assert public.roll is not None and "tn" not in public.roll and "137" not in public.message.body


def test_an_npc_handed_to_a_player_goes_back_to_the_gm_when_released() -> None:
    room = Room("savage", configured=False)
    room.say(GM, "!pj Orco @bea:local")
    room.say("@bea:local", "!pj Bruno")
    refused = room.say(ANA, "!ficha Orco")
    assert "137" not in refused[0].message.body and "es del máster" in refused[0].message.body
    claimed = room.say("@carl:local", "!pj Orco")
    assert "máster" in claimed[0].message.body
    assert room.table.room(ROOM).characters["orco"].owner is None


def test_a_secret_recovery_from_shaken_is_refused_as_secret() -> None:
    room = Room("savage", configured=True)
    room.say(GM, "!daño Kira 6")
    assert "aturdido" in room.say(GM, "!estado")[0].message.body
    refused = room.say(ANA, "!tiro espiritu oculta")
    assert [s.template for s in refused] == ["secret_changes_state"]
    assert "aturdido" in room.say(GM, "!estado")[0].message.body


def test_a_players_character_the_gm_takes_over_keeps_its_sheet_public() -> None:
    room = Room("savage", configured=False)
    room.say(GM, "!pj Kira @gm:local")
    (shown,) = room.say(GM, "!ficha Kira")
    assert shown.private_to is None and "Parada 5" in shown.message.body
    room.say(GM, "!pj Capitán")
    room.say(GM, "!ficha Capitán parada 131")
    assert all("131" not in body for _, body in room.public())


NPC_ROLLS = {
    "generic": "!tiro Orco 1d20+5", "savage": "!tiro Orco Pelear", "stormbringer": "!tiro Orco Espada",
    "reino": "!tiro Orco Percepción", "sombra": "!tiro Orco 3d10",
}
GM_ROLL_KEYS = ("total", "expr", "natural", "modifier", "modifiers")


@pytest.mark.parametrize("game", GAMES.keys())
def test_the_room_gets_the_dice_and_outcome_of_an_npc_roll_and_the_gm_the_rest(game: str) -> None:
    room = Room(game, configured=True)
    sends = room.say(GM, NPC_ROLLS[game])
    public = [s for s in sends if s.private_to is None and s.roll is not None]
    assert public and all(key not in public[0].roll for key in GM_ROLL_KEYS), public[0].roll
    assert public[0].roll["dice"] and f"[{public[0].roll['dice'][0]}" in public[0].message.body
    room.end_turn()
    copy = next(s for s in reversed(room.gm_copies()) if s.roll is not None)
    assert copy.roll is not None and "total" in copy.roll


def test_an_npc_initiative_shows_its_die_not_its_bonus() -> None:
    room = Room("reino", configured=True)
    room.say(GM, "!combate fin")
    room.say(GM, "!combate")
    (order, *_) = room.say(GM, "!iniciativa")
    assert re.search(r"Orco \(\[\d+\]\)", order.message.body), order.message.body
    assert re.search(r"Kira \d+ \(\[\d+\]\+4\)|Kira \d+ \(\[\d+\]\)", order.message.body), order.message.body


def test_a_wound_of_an_npc_shows_its_grade_not_the_points_felt() -> None:
    """The points a Sombra wound keeps are the damage less the victim's Resistir dolor (VOL/2): shown beside
    the damage they give it back, so the room reads the grade and the GMs the points."""
    room = Room("sombra", configured=True)
    room.say(GM, "!ficha Orco vol 34")
    sends = room.say(GM, "!daño Orco 200 pecho")
    public = [s for s in sends if s.private_to is None]
    assert public and "herida leve" in public[0].message.body, public[0].message.body
    assert "183" not in public[0].message.body and "183" not in public[0].message.html
    room.end_turn()
    assert any("183" in copy.message.body for copy in room.gm_copies())
    (wounds,) = [s for s in room.say(ANA, "!heridas Orco") if s.private_to is None]
    assert "herida leve" in wounds.message.body and "183" not in wounds.message.body, wounds.message.body
    (kira,) = room.say(GM, "!daño Kira 10 pecho")
    assert "pecho: herida leve (10)" in kira.message.body, kira.message.body


def test_the_damage_of_an_npcs_pending_blow_is_the_npcs_roll() -> None:
    room = Room("stormbringer", configured=True)
    for line in ((ANA, "!ataque Orco"), (GM, "!daño Orco 1"), (GM, "!siguiente"), (GM, "!ataque Kira")):
        room.say(*line)
    sends = room.say(GM, "!daño Kira")
    public = [s for s in sends if s.private_to is None and s.roll is not None]
    assert public and all(key not in public[0].roll for key in GM_ROLL_KEYS), public[0].roll
    assert public[0].roll["dice"] and "PV 12 →" in public[0].message.body
    copy = room.gm_copies()[-1]
    assert copy.roll is not None and "total" in copy.roll


def test_an_npcs_damage_to_a_player_shows_the_players_toughness() -> None:
    room = Room("savage", configured=True)
    room.say(GM, "!siguiente")
    sends = room.say(GM, "!daño Kira 2d6")
    public = [s for s in sends if s.private_to is None and s.roll is not None]
    assert public and " vs 5)" in public[0].message.body, public[0].message.body
    assert "total" not in public[0].roll and "expr" not in public[0].roll, public[0].roll
