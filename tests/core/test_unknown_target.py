"""Issue 30, item 5: a target that names no character is never read as a comment: the command is
refused with the closest names («¿querías decir Guerrero 1?») and nothing is spent, in every game."""

from __future__ import annotations

import pytest

from bot.core import api
from tests.transcript import assert_refused

SETUPS = {
    "savage": """
@gm:local: !pj Kira @bob:local
@gm:local: !ficha Kira dureza 5 parada 6 pelear d8
@gm:local: !pnj Guerrero 1
@gm:local: !ficha Guerrero 1 dureza 7 parada 6 pelear d10
@gm:local: !combate
@gm:local: !turnos Kira, Guerrero 1
""",
    "stormbringer": """
@gm:local: !pj Elric @ana:local
@gm:local: !ficha Elric des 17 pv 14 ataque 85 parada 70 esquiva 40
@gm:local: !pnj Guerrero 1
@gm:local: !ficha Guerrero 1 des 18 pv 13 ataque 60 parada 55 esquiva 30
@gm:local: !combate
@gm:local: !turnos Guerrero 1, Elric
""",
    "reino": """
@gm:local: !pj Ana @ana:local
@gm:local: !ficha Ana defensa 15 pr 20 pr_max 20 umbral 8 fortaleza 1 pa 2 iniciativa 2
@gm:local: !pnj Guerrero 1
@gm:local: !ficha Guerrero 1 defensa 12 pr 10 umbral 6 ataque 4
@gm:local: !combate
@gm:local: !turnos Ana, Guerrero 1
""",
    "sombra": """
@gm:local: !pj McAvoy @ana:local
@gm:local: !ficha McAvoy vel 7 agi 6 res 5 disparo 16
@gm:local: !pnj Guerrero 1
@gm:local: !ficha Guerrero 1 vel 6 agi 8 res 4 tipo persona
@gm:local: !combate
@gm:local: !turnos McAvoy, Guerrero 1
""",
}
LINES = {
    "savage": ["@gm:local: !daño Guerero 1 9", "@bob:local: !ataque Guerero 1"],
    "stormbringer": ["@gm:local: !ataque Guerero 1", "@gm:local: !ataque Guerero 1 +10", "@gm:local: !daño Guerero 1 1d6"],
    "reino": ["@ana:local: !ataque Guerero 1", "@gm:local: !daño Guerero 1 4"],
    "sombra": ["@ana:local: !ataque Guerero 1", "@gm:local: !daño Guerero 1 9 pecho"],
}


@pytest.mark.parametrize(("system", "line"), [(s, line) for s in sorted(LINES) for line in LINES[s]])
def test_a_misspelt_target_is_refused_with_the_closest_name_and_spends_nothing(system: str, line: str) -> None:
    assert_refused(SETUPS[system], line, "¿querías decir Guerrero 1?", system=system)


def test_a_name_far_from_every_character_is_refused_too() -> None:
    assert_refused(SETUPS["stormbringer"], "@gm:local: !ataque Pepe", "Pepe", system="stormbringer")


def test_the_core_exports_the_target_helper() -> None:
    assert callable(api.target_named) and "target_named" in api.__all__


@pytest.mark.parametrize("line", ["@gm:local: !parada Elrik", "@gm:local: !esquiva Elrik +10"])
def test_a_misspelt_defender_is_refused_with_the_closest_name(line: str) -> None:
    assert_refused(SETUPS["stormbringer"], line, "¿querías decir Elric?", system="stormbringer")
