"""Issue 30 items 1 and 3, the core's part: one room message per event, the GMs' private copies folded
(at most four a round per GM), explanations read once per fight, ``!detalle``."""

from __future__ import annotations

from pathlib import Path

from bot.console import ROOM_ID
from bot.core.events import Event, Send
from tests.games.savage.test_sheets import CAST, FIRST
from tests.transcript import GM, Transcript, make_table, play

ROUND_SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "ronda-savage.txt"
DJ = "@dj:local"


def _room_sends(t: Transcript, number: int) -> list[dict]:
    return [a for a in t.for_line(number) if a["action"] == "send" and a["private_to"] is None]


def test_a_savage_attack_that_rolls_its_damage_is_one_room_message_with_both_rolls() -> None:
    script = CAST + "@bob:local: !ataque Orco"
    for seed in range(1, 200):
        t = play(script, make_table(system="savage", seed=seed))
        sends = _room_sends(t, FIRST)
        if any(r.get("kind") == "damage" for a in sends for r in a.get("rolls", [])):
            break
    else:
        raise AssertionError("no seed hits")
    (message,) = sends
    assert message["roll"]["kind"] == "trait"  # the attack, the message's main roll
    assert [r["kind"] for r in message["rolls"]][:2] == ["trait", "damage"]
    assert "\n" in message["text"] and "<br/>" in message["html"]


def test_siguiente_into_a_new_round_is_one_message_naming_the_round_once() -> None:
    t = play("@gm:local: !combate\n@ana:local: !pj Kira\n@gm:local: !pnj Orco\n@gm:local: !turnos Orco Kira\n"
             "@gm:local: !siguiente\n@gm:local: !siguiente")
    (message,) = _room_sends(t, 6)
    assert message["text"].count("Ronda 2") == 1 and "turno de orco" in message["text"].lower()


def test_a_savage_siguiente_that_deals_a_new_round_is_one_message() -> None:
    t = play("@gm:local: !pj Kira @bob:local\n@gm:local: !pnj Orco\n@gm:local: !combate\n@gm:local: !iniciativa\n"
             "@gm:local: !siguiente\n@gm:local: !siguiente", system="savage")
    assert len(_room_sends(t, 4)) == 1
    (message,) = _room_sends(t, 6)
    assert "Ronda 2" in message["text"]


def _round_script() -> list[tuple[str, str]]:
    return [(sender, text) for raw in ROUND_SCRIPT.read_text(encoding="utf-8").splitlines()
            if raw.strip() and not raw.startswith("#") for sender, _, text in [raw.partition(": ")]]


def _copies_per_round(table_opened: set[str] | None = None) -> list[int]:
    """The private copies each GM gets per combat round of ``docs/ronda-savage.txt`` (the GM's screen
    open for ``table_opened``)."""
    table = make_table(system="savage", seed=1, gms=(DJ,))
    for gm in table_opened or ():
        table.screens.seen(ROOM_ID, gm)
    rounds: list[int] = []
    for number, (sender, text) in enumerate(_round_script(), start=1):
        actions = table.handle(Event(ROOM_ID, sender, text, f"$q{number}", ts=number))
        sends = [a for a in actions if isinstance(a, Send)]
        if any(a.private_to is None and "🔔 Ronda" in a.message.body for a in sends) or text == "!iniciativa":
            rounds.append(0)
        if rounds:
            rounds[-1] += sum(1 for a in sends if a.gm_copy and DJ in (a.private_to, *a.private_also))
    return rounds


def test_the_gms_get_at_most_four_private_copies_a_round() -> None:
    rounds = _copies_per_round()
    assert len(rounds) >= 2 and sum(rounds) > 0, rounds
    assert max(rounds) <= 4, rounds


def test_no_copies_while_the_gms_screen_is_open() -> None:
    assert sum(_copies_per_round({DJ})) == 0


def test_the_explanation_of_a_group_turn_is_read_once_a_fight() -> None:
    t = play("@gm:local: !combate\n@gm:local: !pnj Orco x2 grupo orcos\n@ana:local: !pj Kira\n"
             "@gm:local: !iniciativa\n@gm:local: !siguiente\n@gm:local: !siguiente\n@gm:local: !siguiente",
             system="savage")
    texts = "\n".join(a["text"] for a in t.actions if a["action"] == "send" and a["private_to"] is None)
    assert texts.count("(un solo turno para el grupo)") == 1, texts


DETAIL = CAST + "@gm:local: !ataque Orco contra Kira\n@bob:local: !detalle\n@gm:local: !detail"


def test_detalle_shows_the_last_roll_privately_without_the_gms_numbers_to_a_player() -> None:
    t = play(DETAIL, system="savage", seed=3)
    (player,) = [a for a in t.for_line(FIRST + 1) if a["action"] == "send"]
    assert player["private_to"] == "@bob:local" and "⚔️ Orco → Kira: [2] → fallo" in player["text"]  # savage30 line
    assert "Dificultad" not in player["text"] and "Total" not in player["text"] and "d8" not in player["text"]
    (gm,) = [a for a in t.for_line(FIRST + 2) if a["action"] == "send"]
    assert gm["private_to"] == GM and "Dificultad: 5" in gm["text"] and "Expresión: 1d8" in gm["text"]


def test_detalle_with_no_roll_yet_is_answered_privately() -> None:
    t = play("@ana:local: !detalle")
    (answer,) = [a for a in t.for_line(1) if a["action"] == "send"]
    assert answer["private_to"] == "@ana:local" and "ninguna tirada" in answer["text"]
