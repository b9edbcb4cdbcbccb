"""Issue 21, the attack half, as one seeded combat: every number the bot shows is checked by hand.

Kira and Bruno (players) against an armoured Orco (an Extra) and two wolves sharing a card; it goes
through a declared multi-action turn, a called shot, a carried support, unarmed damage, a rerolled
attack, the GM's NPC attack, an area attack, ammunition and a reload, and a dramatic task.
"""

from __future__ import annotations

import re

from bot.console import ROOM_ID
from systems.savage.rules import resolve
from tests.transcript import make_table, play

SCRIPT = """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira Espíritu d6, Fuerza d6, Vigor d8, Notar d8, Disparar d8, Parada 5, Dureza 6, Bennies 3
@gm:local: !ficha Kira Arma Rifle, Tipo de arma distancia, Daño 2d8, Munición 12, Cargador 30
@gm:local: !pj Bruno @cid:local
@gm:local: !ficha Bruno Espíritu d6, Fuerza d8, Vigor d6, Pelear d8, Parada 6, Dureza 6, Bennies 2
@gm:local: !pnj Orco
@gm:local: !ficha Orco Pelear d8, Fuerza d8, Parada 6, Dureza 8, Armadura 2, Comodín no
@gm:local: !ficha Orco Arma Hacha, Tipo de arma cuerpo, Daño fue+d6
@gm:local: !pnj Lobo 1
@gm:local: !pnj Lobo 2
@gm:local: !ficha Lobo 1 Pelear d6, Parada 5, Dureza 4, Comodín no, Grupo lobos
@gm:local: !ficha Lobo 2 Pelear d6, Parada 5, Dureza 4, Comodín no, Grupo lobos
@gm:local: !combate
@gm:local: !turnos Kira, Bruno, Orco, Lobo 1, Lobo 2
@gm:local: !tarea arduo Abrir la compuerta
@bob:local: !ataque Orco apuntado cabeza acciones 3
@bob:local: !tiro apoyar Notar a Bruno Pelear
@bob:local: !tiro cdf 2 Disparar objetivos Lobo 1, Lobo 2
@bob:local: !tiro Disparar
@gm:local: !siguiente
@cid:local: !ataque Orco
@cid:local: !repetir
@gm:local: !tiro d20 (una tirada suelta: gasta el dado que el daño repetido ya no tira)
@gm:local: !siguiente
@gm:local: !ataque Orco contra Bruno
@cid:local: !absorber no
@gm:local: !siguiente
@gm:local: !area 2d6 contra Kira, Bruno
@bob:local: !absorber no
@cid:local: !absorber no
@gm:local: !siguiente
@bob:local: !recargar
@bob:local: !beni recuperar
@bob:local: !recargar
@gm:local: !siguiente
@cid:local: !tarea Pelear
@gm:local: !estado
"""


def _constant(expr: str) -> int:
    """The constant of a roll's expression (``1d8+1`` -> 1, ``1d6!+1d4!-2`` -> -2)."""
    return sum(int(n) for n in re.findall(r"[+-]\d+(?![d\d])", expr))


def _modifiers(roll: dict) -> int:
    return sum(m["value"] for m in roll["modifiers"])


def check(roll: dict) -> None:
    """Recompute a roll's total and outcome from its dice, its modifiers and what it is judged against."""
    kind = roll["kind"]
    if kind == "damage":
        assert roll["total"] == sum(roll["dice"]) + _constant(roll["expr"]) + _modifiers(roll), roll
        if roll.get("toughness") is not None and not any(m["reason"] == "apuntado" for m in roll["modifiers"]):
            margin = roll["total"] - roll["toughness"]
            assert (margin < 0) == (not roll["shaken"]), roll
            if margin >= 4:
                assert roll["wounds"] == margin // 4, roll
    elif kind == "rof":
        bonus = _constant(roll["expr"]) + _modifiers(roll)
        for shot in roll["shots"]:
            if not shot["by_wild"]:
                assert shot["total"] == shot["value"] + bonus and shot["hit"] == (shot["total"] >= roll["tn"]), roll
        assert roll["hits"] == sum(s["hit"] for s in roll["shots"])
    elif "trait" in roll:
        best = max(roll["trait"], roll["wild"] if roll["wild"] is not None else 0)
        assert roll["total"] == best + _constant(roll["expr"]) + _modifiers(roll), roll
        snake = roll["wild"] is not None and roll["trait"] == 1 and roll["wild"] == 1 and roll["dice"][0] == 1
        assert (roll["outcome"], roll["raises"]) == resolve(roll["total"], roll["tn"], snake), roll


def test_a_whole_seeded_combat_of_the_attack_half_checks_out_number_by_number() -> None:
    """000/001 as a whole: every roll's total is its dice plus its modifiers, every outcome the one its
    target number gives, and the flow around them as the house rules say (seed 3)."""
    table = make_table(system="savage", seed=3)
    t = play(SCRIPT, table)
    lines = [s for s in SCRIPT.splitlines() if s.strip()]

    def number(text: str) -> int:
        return lines.index(text) + 1

    def rolls_of(text: str | int, kind: str | None = None) -> list[dict]:
        """The rolls answering ``text`` (or line N), the GMs' copy (with the numbers) when there is one."""
        line = text if isinstance(text, int) else number(text)
        return [r for r in t.full_rolls(line) if kind is None or r["kind"] == kind]

    every = [r for line in range(1, len(lines) + 1) for r in rolls_of(line)]
    assert [r["kind"] for r in every].count("damage") == 5 and len(every) == 15, [r["kind"] for r in every]
    for roll in every:
        check(roll)
    (called,) = rolls_of("@bob:local: !ataque Orco apuntado cabeza acciones 3")
    assert called["tn"] == 4 and called["total"] == -4 and called["outcome"] == "failure"
    assert {"reason": "multi", "value": -4} in called["modifiers"] and {"reason": "apuntado", "value": -4} in called["modifiers"]
    (support,) = rolls_of("@bob:local: !tiro apoyar Notar a Bruno Pelear")
    assert support["kind"] == "support" and support["bonus"] == 0
    (burst,) = rolls_of("@bob:local: !tiro cdf 2 Disparar objetivos Lobo 1, Lobo 2")
    assert burst["targets"] == ["Lobo 1", "Lobo 2"] and burst["ammo"] == 5 and burst["outcome"] == "critical_failure"
    assert "ya hizo 3 acciones" in t.text(number("@bob:local: !tiro Disparar"))
    attack, damage = rolls_of("@cid:local: !ataque Orco")
    assert (attack["tn"], attack["total"], attack["outcome"]) == (6, 7, "success")
    assert (damage["expr"], damage["total"], damage["toughness"], damage["shaken"]) == ("1d8!", 2, 8, False)
    again, raised = rolls_of("@cid:local: !repetir")
    assert (again["total"], again["outcome"]) == (12, "raise")
    assert (raised["expr"], raised["dice"], raised["total"], raised["shaken"]) == ("1d8!+1d6!", [2, 4], 6, False), \
        "unarmed: the d8 of 2 already rolled stays (issue 31 item 3: a benny buys no new damage), + the raise d6 of 4"
    orc, hit = rolls_of("@gm:local: !ataque Orco contra Bruno")
    assert orc["wild"] is None and (orc["tn"], orc["total"]) == (6, 6)
    assert (hit["expr"], hit["total"], hit["toughness"], hit["wounds"]) == ("1d8!+1d6!", 11, 6, 1)
    kira_hit, bruno_hit = rolls_of("@gm:local: !area 2d6 contra Kira, Bruno")
    assert (kira_hit["total"], kira_hit["wounds"]) == (10, 1) and (bruno_hit["total"], bruno_hit["wounds"]) == (6, 1)
    first_reload, second_reload = len(lines) - 5, len(lines) - 3
    assert "aturdido" in t.text(first_reload) and "30 balas" in t.text(second_reload)
    (task,) = rolls_of("@cid:local: !tarea Pelear")
    assert {"reason": "heridas", "value": -2} in task["modifiers"] and task["outcome"] == "raise"
    assert "2/4 contadores, ronda 2 de 3" in t.text(number("@cid:local: !tarea Pelear"))
    status = t.text(number("@gm:local: !estado"))
    assert "Kira [1 herida, Paso 5, 2 benis]" in status and "Bruno [2 heridas, Paso 4, 1 beni]" in status
    kira, bruno = (table.room(ROOM_ID).find_character(n).sheet for n in ("Kira", "Bruno"))
    assert (kira["municion"], kira["bennies"], bruno["heridas"]) == (30, 2, 2)
