"""Issue 30 item 1: the common result of an attack, a defence or a damage fits three phone lines (its
plain text wrapped at 38 columns), and an explanation the table already read this fight is not repeated.

Each game's seeded regression fight is played again; from its second round on every room message that
answers an attack, a defence or a damage is measured: since the core merges an event's room messages into
one, each further roll it shows (a shot of a burst, the defender's roll in melee) adds three lines."""

from __future__ import annotations

import re
import textwrap

import pytest

from tests.games.reino.test_fight import FIGHT as REINO
from tests.games.sombra.test_regression_fight import FIGHT as SOMBRA
from tests.games.stormbringer.test_fight import FIGHT as STORMBRINGER
from tests.transcript import Transcript, make_table, play

PHONE = 38
ACTIONS = ("!ataque", "!parada", "!esquiva", "!daño")


def phone_lines(text: str) -> int:
    """Lines on a 38-column phone: every line break starts a line."""
    plain = re.sub(r"<[^>]+>", "", text)
    return sum(max(1, len(textwrap.wrap(line, PHONE))) for line in plain.split("\n"))


def room_texts(t: Transcript, number: int) -> list[str]:
    return [a["text"] for a in room_sends(t, number)]


def room_sends(t: Transcript, number: int) -> list[dict]:
    """The room's one message answering line ``number`` (issue 30: an event's room messages merged)."""
    return [a for a in t.for_line(number) if a["action"] == "send" and not a.get("private_to")]


def limit(send: dict, hit_lines: int) -> int:
    """The phone lines a room message may take: a result's three (``hit_lines`` for a hit with its wound),
    and three more for each further roll it shows (a burst's next shot, the defender's roll in melee)."""
    rolls = len(send.get("rolls") or ([send["roll"]] if send.get("roll") else []))
    return (hit_lines if "🩸" in send["text"] else 3) + 3 * max(0, rolls - 1)


def fight(script: str, system: str, seed: int) -> tuple[list[str], Transcript]:
    lines = [line.strip() for line in script.splitlines() if line.strip()]
    return lines, play(script, table=make_table(system=system, seed=seed))


def second_round_on(lines: list[str], t: Transcript) -> list[int]:
    """The numbers of the action lines after the first new round the room was told of."""
    start = next(n for n in range(1, len(lines) + 1) if any("Ronda 2" in x for x in room_texts(t, n)))
    return [n for n in range(start + 1, len(lines) + 1) if lines[n - 1].split(": ", 1)[1].startswith(ACTIONS)]


@pytest.mark.parametrize(("script", "system", "seed", "hit_lines", "explanations"), [
    (STORMBRINGER, "stormbringer", 22, 3,
     ("si no, el máster aplica !daño", "Ya no esquiva ni para", "(/me …) y pasa con !siguiente",
      "recibe el golpe de", "1º Intenciones, de menor a mayor DES")),
    (REINO, "reino", 10, 3,
     ("Daño pendiente:", "El DJ consulta la Tabla", "El máster aplica el estado", "una sola acción, estándar o de movimiento")),
    # A Sombra hit also shows the wound against RES and what it causes (house rule 004's arithmetic).
    (SOMBRA, "sombra", 52, 7,
     ("(mayor", "no recibe ningún daño", "ninguno gana la pelea con un éxito", "con el dado menor del rival")),
])
def test_common_results_fit_three_phone_lines_and_explanations_come_once(
        script: str, system: str, seed: int, hit_lines: int, explanations: tuple[str, ...]) -> None:
    lines, t = fight(script, system, seed)
    numbers = second_round_on(lines, t)
    long = {f"{n} {lines[n - 1]}": send["text"] for n in numbers for send in room_sends(t, n)
            if phone_lines(send["text"]) > limit(send, hit_lines)}
    # A critical hit's damage, a fall and a death are not the common result.
    long = {line: text for line, text in long.items()
            if not any(word in text for word in ("crítico", "muere y sale del orden", "Moribundo"))}
    assert not long, long
    room = [text for n in range(1, len(lines) + 1) for text in room_texts(t, n)]
    repeated = {e: n for e in explanations if (n := sum(text.count(e) for text in room)) > 1}
    assert not repeated, repeated
