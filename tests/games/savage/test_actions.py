"""Issue 21 (Savage Worlds by the book): actions in a turn, support, dramatic tasks, exploration, rerolls.

Each test quotes the sentence of the house rules (``../shared/rules/000_*``, ``001_*``) it implements.
"""

from __future__ import annotations

from bot.console import ROOM_ID
from tests.games.savage.test_sheets import CAST, FIRST, applied, roll
from tests.systems.savage.test_resolver import enumerate_outcomes, p_below
from tests.transcript import assert_refused, make_table, play

TURNS = CAST + """
@gm:local: !pj Bruno @cid:local
@gm:local: !ficha Bruno Pelear d8, Persuadir d8, Parada 6, Dureza 6
@gm:local: !combate
@gm:local: !turnos Orco, Kira, Bruno
@gm:local: !siguiente
"""
AFTER = FIRST + 5
"""The first line after TURNS (Kira's turn, round 1)."""


def test_declared_actions_penalise_every_action_and_a_further_one_is_refused() -> None:
    """001: «Es necesario declarar todas las acciones que pretende realizar el personaje al comienzo de su
    turno, antes de que empiecen a rodar los dados.» 000: «tres acciones aumenta esa penalización a -4»."""
    t = play(TURNS + """
@bob:local: !tiro Disparar
@bob:local: !tiro Disparar
@bob:local: !tiro Notar acciones 2
@gm:local: !siguiente
@cid:local: !tiro Pelear acciones 3
@cid:local: !tiro Persuadir
@cid:local: !tiro Pelear
@cid:local: !tiro Pelear
""", system="savage", seed=5)
    assert roll(t, AFTER)["applied"] == []
    assert "acciones 2" in t.text(AFTER + 1) and "primera" in t.text(AFTER + 1)
    assert "antes" in t.text(AFTER + 2), "declared after the dice started rolling"
    assert [applied(roll(t, AFTER + n)) for n in (4, 5, 6)] == [{"multi": -4}] * 3
    assert "acciones" in t.text(AFTER + 7)
    assert table_free_of_refusal_side_effects(t)


def table_free_of_refusal_side_effects(t) -> bool:  # type: ignore[no-untyped-def]
    """No refused action produced a roll."""
    return all("roll" not in a for n in (AFTER + 1, AFTER + 2, AFTER + 7) for a in t.for_line(n))


def test_free_actions_do_not_count_and_each_character_counts_its_own() -> None:
    """001: «La penalización por múltiples acciones no se añade a las tiradas de las acciones gratuitas»;
    a soak (000: «Tiradas de absorción») and the Spirit roll of a Shaken character are free."""
    t = play(TURNS + """
@gm:local: !ficha Kira aturdido 1
@bob:local: !tiro Espíritu
@gm:local: !ficha Kira aturdido 0
@bob:local: !tiro Disparar
@gm:local: !tiro Orco Pelear contra Kira
""", system="savage", seed=5)
    assert roll(t, AFTER + 1)["roll"]["kind"] == "recovery"
    assert roll(t, AFTER + 3)["applied"] == [], "the recovery roll did not spend Kira's one action"
    assert roll(t, AFTER + 4)["roll"]["kind"] == "trait", "the Orco's opposed roll out of its turn is free"


def test_the_count_and_the_last_roll_survive_another_combatant_leaving() -> None:
    """001: «Las penalizaciones siguen existiendo incluso si una de las acciones posteriores no tiene lugar»:
    the GM taking the Orco out of the order does not reset Kira's turn."""
    table = make_table(system="savage", seed=5)
    t = play(TURNS + """
@bob:local: !tiro Disparar acciones 2
@gm:local: !sale Orco
@bob:local: !tiro Disparar
@bob:local: !repetir
@gm:local: !ficha Kira bennies 2
@bob:local: !tiro Disparar
""", table)
    assert applied(roll(t, AFTER + 2)) == {"multi": -2}
    assert roll(t, AFTER + 3)["roll"]["kind"] == "trait", t.texts(AFTER + 3)
    assert "acciones" in t.text(AFTER + 5)
    assert table.room(ROOM_ID).combat.current == "Kira"


def _support_seed(script: str, line: int, bonus: int):  # type: ignore[no-untyped-def]
    for seed in range(1, 300):
        table = make_table(system="savage", seed=seed)
        t = play(script, table)
        if roll(t, line)["roll"].get("bonus") == bonus:
            return table, t
    raise AssertionError(f"no support of {bonus:+d}")


def test_support_names_the_ally_and_the_trait_and_goes_to_its_next_roll_of_it() -> None:
    """001: «También debe especificar qué rasgo del aliado desea apoyar. El éxito otorga una bonificación de
    +1 a un total de ese rasgo durante una tirada del personaje apoyado (+2 con un aumento).» It is «como
    acción durante el turno»."""
    script = TURNS + """
@bob:local: !tiro apoyar Notar a Bruno Pelear
@gm:local: !siguiente
@cid:local: !tiro Persuadir acciones 3
@cid:local: !tiro Pelear
@cid:local: !tiro Pelear
"""
    for bonus in (1, 2, -2):
        _, t = _support_seed(script, AFTER, bonus)
        support = roll(t, AFTER)["roll"]
        assert support["kind"] == "support" and support["expr"] == "1d6", "Kira's own Notar d6"
        assert "Bruno" in roll(t, AFTER)["text"] and "Pelear" in roll(t, AFTER)["text"]
        assert applied(roll(t, AFTER + 2)) == {"multi": -4}, "only the supported trait"
        assert applied(roll(t, AFTER + 3)) == {"apoyo": bonus, "multi": -4}
        assert "apoyo" not in applied(roll(t, AFTER + 4)), "one roll of that trait"


def test_support_is_capped_at_four_except_strength_and_ends_with_the_allys_turn() -> None:
    """001: «La bonificación máxima que un personaje puede recibir mediante apoyos es de +4. Las tiradas de
    Fuerza son una excepción» and «Todos los modificadores por apoyo desaparecen al final del turno del
    personaje ayudado, los haya usado o no»."""
    table = make_table(system="savage", seed=1)
    room = table.room(ROOM_ID)
    play(TURNS + "@gm:local: !siguiente", table)
    bruno = room.find_character("Bruno")
    line = AFTER

    def then(text: str) -> dict:
        nonlocal line
        t = play("# earlier\n" * line + text, table)
        line += 1
        return roll(t, line) if "tiro" in text else {}

    bruno.sheet["_apoyos"] = [{"trait": "pelear", "bonus": 2, "started": True}] * 3
    assert applied(then("@cid:local: !tiro Pelear acciones 2")) == {"apoyo": 4, "multi": -2}
    bruno.sheet["_apoyos"] = [{"trait": "fuerza", "bonus": 2, "started": True}] * 3
    assert applied(then("@cid:local: !tiro Fuerza")) == {"apoyo": 6, "multi": -2}
    bruno.sheet["_apoyos"] = [{"trait": "pelear", "bonus": 1, "started": True}]
    then("@gm:local: !siguiente")
    assert room.find_character("Bruno").sheet.get("_apoyos", []) == [], "gone at the end of Bruno's turn"


def test_a_support_is_an_action_of_the_helpers_turn() -> None:
    """001: «el personaje que apoya debe realizar una tirada ... (como acción durante el turno si se está a
    escala de combate)»."""
    t = play(TURNS + "@bob:local: !tiro apoyar Notar a Bruno Pelear\n@bob:local: !tiro Disparar", system="savage")
    assert "acciones 2" in t.text(AFTER + 1)


def test_carried_support_and_multi_action_change_the_odds_exactly_as_their_modifiers() -> None:
    """001: «El éxito otorga una bonificación de +1 ... (+2 con un aumento)», capped at +4, and «realizar
    dos acciones normales impone una penalización de -2 a ambas»: by exact enumeration, a d8 Wild Card
    with three +2 supports and two actions hits Parry 6 exactly as ``d8+2 vs 6`` does."""
    carried = enumerate_outcomes("d8 apoyo +2 apoyo +2 apoyo +2 multi 2 vs 6", 8, wild=True)
    plain = enumerate_outcomes("d8+2 vs 6", 8, wild=True)
    assert carried == plain
    hit = carried.get("success", 0) + carried.get("raise", 0)
    assert hit == 1 - p_below(8, 4) * p_below(6, 4)
    strength = enumerate_outcomes("d8 apoyo +2 apoyo +2 apoyo +2 fuerza vs 6", 8, wild=True)
    assert strength == enumerate_outcomes("d8+6 vs 6", 8, wild=True), "no cap on Strength"


def test_dramatic_task_rolls_are_the_players_own_one_per_turn_and_counted_from_round_one() -> None:
    """001: «Los héroes deben ir haciendo tiradas de habilidad y acumular "contadores de tarea" en una
    cantidad limitada de tiempo» («Arduo: Acumula cuatro contadores de tarea en tres rondas»); each roll is
    an action of the turn, so a second one is a multi-action («acciones 2» declares and penalises it)."""
    t = play(TURNS + """
@gm:local: !tarea arduo Desactivar la bomba
@bob:local: !tarea Disparar
@bob:local: !tarea Disparar
@cid:local: !tarea Pelear
@gm:local: !siguiente
@cid:local: !tarea Pelear acciones 2
@cid:local: !tarea Pelear
""", system="savage", seed=5)
    assert "0/4 contadores, ronda 1 de 3" in t.text(AFTER)
    first = roll(t, AFTER + 1)
    assert first["roll"]["expr"] == "1d8" and first["text"].startswith("Kira")
    assert "acciones 2" in t.text(AFTER + 2), "one task roll per turn"
    assert not any("roll" in a for a in t.for_line(AFTER + 3)), "not Bruno's turn"
    assert [applied(roll(t, AFTER + n)) for n in (5, 6)] == [{"multi": -2}] * 2
    assert "ronda 1 de 3" in roll(t, AFTER + 6)["text"]


def test_a_dramatic_task_fails_when_its_rounds_run_out() -> None:
    """001: «Si los personajes acumulan suficientes contadores de tarea antes de finalizar el margen de
    tiempo, han tenido éxito. Si no, deberán hacer frente a las consecuencias»."""
    t = play(TURNS + "@gm:local: !tarea arduo\n" + "@gm:local: !siguiente\n" * 2 + "@gm:local: !tarea\n"
             + "@gm:local: !siguiente\n" * 6, system="savage", seed=5)
    assert "ronda 2 de 3" in t.text(AFTER + 3)
    assert any("Se acabó el tiempo" in x for x in t.texts(AFTER + 9))


def test_in_exploration_a_roll_spends_the_characters_one_action_too() -> None:
    """000 (XCOM): «Durante los "Turnos" en que no haya combate, podréis actuar todos una vez. Da igual el
    orden.» A roll is an action; rerolling it with a benny is the same action; a refused roll spends
    nothing."""
    table = make_table(system="savage", seed=5)
    t = play(CAST + """
@gm:local: !pj Bruno @cid:local
@gm:local: !exploracion
@bob:local: !tiro Banana
@bob:local: !tiro Sigilo
@bob:local: !repetir
@bob:local: /me avanza hacia la puerta
@bob:local: !tiro Notar
@cid:local: !tiro Notar
""", table)
    assert "roll" in roll(t, FIRST + 3) and roll(t, FIRST + 4)["roll"]["kind"] == "trait"
    assert t.redacted(FIRST + 5) and "Ya has actuado" in t.text(FIRST + 5)
    assert t.redacted(FIRST + 6) and not any("roll" in a for a in t.for_line(FIRST + 6))
    assert any("Todos los jugadores" in x for x in t.texts(FIRST + 7))
    assert table.room(ROOM_ID).exploration.acted == ["@bob:local", "@cid:local"]


def test_each_extra_of_a_group_counts_its_own_actions_on_the_groups_card() -> None:
    """000: «Cada grupo distinto de Extras ... comparte una carta de acción»; 001: «Los personajes pueden
    realizar hasta un máximo de tres acciones durante su turno»: each Extra of the group has its own."""
    t = play(CAST + """
@gm:local: !pnj Lobo 1
@gm:local: !pnj Lobo 2
@gm:local: !ficha Lobo 1 Pelear d6, Comodín no, Grupo lobos
@gm:local: !ficha Lobo 2 Pelear d6, Comodín no, Grupo lobos
@gm:local: !combate
@gm:local: !turnos Lobo 1, Lobo 2, Kira
@gm:local: !tiro Lobo 1 Pelear contra Kira
@gm:local: !tiro Lobo 2 Pelear contra Kira
@gm:local: !tiro Lobo 1 Pelear contra Kira
@gm:local: !siguiente
""", system="savage", seed=5)  # the turn's end brings the GMs' copies of its rolls (with their numbers)
    assert roll(t, FIRST + 6)["roll"]["tn"] == 5 and roll(t, FIRST + 7)["roll"]["tn"] == 5
    assert "Lobo 1 ya hizo 1 acción" in t.text(FIRST + 8)


def test_a_rerolled_support_carries_the_better_result() -> None:
    """001: «El éxito otorga una bonificación de +1 ... (+2 con un aumento)»; a benny rerolls the support
    roll as any trait roll, and the ally gets what the better roll gives."""
    script = TURNS + "@bob:local: !tiro apoyar Notar a Bruno Pelear\n@bob:local: !repetir\n"
    for seed in range(1, 300):
        table = make_table(system="savage", seed=seed)
        t = play(script, table)
        first, second = roll(t, AFTER)["roll"], roll(t, AFTER + 1)["roll"]
        if second["total"] > first["total"] and second["bonus"] != first["bonus"]:
            carried = table.room(ROOM_ID).find_character("Bruno").sheet.get("_apoyos", [])
            assert [s["bonus"] for s in carried] == ([second["bonus"]] if second["bonus"] else [])
            return
    raise AssertionError("no better support reroll found")


def test_with_turns_set_by_hand_each_round_starts_every_turn_again() -> None:
    """000: «Al comenzar su turno, un personaje aturdido debe intentar recuperarse de este estado realizando
    una tirada de Espíritu»: every turn, also in round 2 of a combat whose turns the GM set by hand."""
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos Kira, Orco
@gm:local: !siguiente
@gm:local: !ficha Kira aturdido 1
@gm:local: !siguiente
""", system="savage", seed=3)
    assert any("Espíritu" in x for x in t.texts(FIRST + 4)), t.texts(FIRST + 4)


def test_reloading_is_an_action_a_shaken_character_cannot_take() -> None:
    """000: «Recargar un arma con un cargador o similar es una acción»; Shaken: «solo podrá hacer acciones
    gratuitas»."""
    setup = CAST + "@gm:local: !ficha Kira Munición 0, Cargador 30, aturdido 1"
    assert_refused(setup, "@bob:local: !recargar", "aturdido", system="savage")
