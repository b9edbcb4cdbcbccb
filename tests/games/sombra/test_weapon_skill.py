"""Issue 30 item 5: an attack that names no weapon uses the sheet's weapon skill.

004 names the weapon skills one by one: «Sintetizo algunas de las habilidades y sus opciones: • Pistola: ...
• Fusil/Subfusil: ... • Ametralladora: ...». A sheet that has one of them (``fusil 28``) shoots with it;
with several the attacker is asked which; with none the refusal says to name the weapon or paste that
skill, not to copy the skill under a second name (``disparo``)."""

from __future__ import annotations

from tests.transcript import assert_refused, make_table, play, script_lines

CAST = """
@gm:local: !pj Cole @ana:local
@gm:local: !pj Hans
@gm:local: !ficha Hans vel 6 agi 5 res 4 fusil 14 arma II
@gm:local: !combate
@gm:local: !turnos Cole Hans
"""


def test_the_one_weapon_skill_of_the_sheet_is_used() -> None:
    script = CAST.replace("!turnos", "!ficha Cole vel 7 agi 6 res 5 fusil 28 arma II+2\n@gm:local: !turnos") \
        + "@ana:local: !ataque Hans\n"
    shot = play(script, table=make_table(system="sombra")).texts(script_lines(script))
    assert shot and ", fusil 28" in shot[0], shot


def test_several_weapon_skills_are_listed_and_nothing_is_spent() -> None:
    setup = CAST.replace("!turnos", "!ficha Cole vel 7 agi 6 res 5 fusil 28 pistola 15 arma II+2\n@gm:local: !turnos")
    assert_refused(setup, "@ana:local: !ataque Hans", "fusil 28, pistola 15", system="sombra")
    assert_refused(setup, "@ana:local: !ataque Hans", "!ataque Hans fusil", system="sombra")


def test_a_missing_weapon_skill_says_to_name_the_weapon_or_paste_that_skill() -> None:
    setup = CAST.replace("!turnos", "!ficha Cole vel 7 agi 6 res 5 pelea 12 arma II+2\n@gm:local: !turnos")
    table = make_table(system="sombra")
    answer = " ".join(play(setup + "@ana:local: !ataque Hans\n", table=table).texts(script_lines(setup) + 1))
    assert "!ataque Hans fusil" in answer and "!ficha Cole fusil" in answer, answer
    assert "Falta en la ficha de Cole: disparo" not in answer, answer
