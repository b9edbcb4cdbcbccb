"""``!regla`` answers the questions players type: a shipped question set, scored on the first card.

The questions are written the way players ask at the table (lowercase, no accents, whole sentences,
not the cards' titles); each names the card that answers it (two, where both do). The score is printed (``pytest -s``)
and must stay at 90% or more of the first cards right, overall and in each game.

The last eight questions of each game were written after the search and the cards' keywords had
been tuned on the others, as a check of how it does on questions it was not tuned for: they first
scored 25 of 32 (78%); the misses left among them are kept.

``RESULTS`` (issue 31, item 21) are questions about what a roll's result does ("que pasa si saco tres
unos", "si saco 30", "un 20 natural") and about Sombra's hit-location table: each quotes the house
rules' sentence its card says in our own words, and each must find that card first (not the card of
the basic roll, nor the card of the dice order). They are part of the shipped set.
"""

from __future__ import annotations

import pytest

from bot.core.rulebook import Rulebook, terms
from bot.games import GAMES
from tests.transcript import play

RULEBOOK = Rulebook.of(GAMES)
TARGET = 0.9

QUESTIONS: dict[str, list[tuple[str, str | tuple[str, ...]]]] = {
    "savage": [
        ("como funciona el aturdimiento", "savage-shaken"),
        ("que pasa si me quedo aturdido y no saco la tirada de espiritu", "savage-shaken"),
        ("cuantas heridas aguanta mi personaje antes de caer", "savage-wounds"),
        ("que hago si me estoy desangrando", "savage-bleeding"),
        ("como curo a un compañero que esta herido", "savage-healing"),
        ("para que sirven los benis", "savage-bennies"),
        ("puedo gastar un beni para no llevarme las heridas", "savage-soak"),
        ("como se reparte la iniciativa", "savage-initiative"),
        ("que pasa si me sale el comodin en la iniciativa", "savage-joker"),
        ("cuanto penaliza hacer dos cosas en mi turno", "savage-multi-action"),
        ("que penalizador tengo si el enemigo esta detras de un muro", "savage-cover-light"),
        ("cuantas balas gasto disparando en automatico", "savage-rate-of-fire"),
        ("cuanto daño hace una espada larga", "savage-weapons"),
        ("que numero necesito para darle a alguien cuerpo a cuerpo", "savage-attack"),
        ("que pasa si saco un uno en los dos dados", "savage-critical-failure"),
        ("puedo disparar a la cabeza para hacer mas daño", "savage-called-shots"),
        ("como ayudo a otro jugador con su tirada", "savage-support"),
        ("que pasa cuando me dejan incapacitado", "savage-incapacitated"),
        ("como funciona ponerse de guardia para disparar", "savage-xcom-overwatch"),
        ("cuantos contadores hacen falta para desactivar la bomba", "savage-dramatic-tasks"),
        ("puedo esperar y actuar despues de otro", "savage-hold"),
        ("que pasa si nos tienden una emboscada", "savage-surprise"),
        # written after the search was tuned on the questions above
        ("cuanto se tarda en recuperarse del aturdido", "savage-shaken"),
        ("que pasa si un extra recibe una herida", ("savage-wounds", "savage-wild-cards")),
        ("como funciona el dado salvaje", "savage-trait-roll"),
        ("que pasa si empatamos con la misma carta", "savage-ties"),
        ("que puedo hacer sin gastar accion", "savage-free-actions"),
        ("cuanto resta disparar a larga distancia", "savage-attack"),
        ("que pasa si no tengo la habilidad", "savage-unskilled"),
        ("cuanto daño hace una granada", ("savage-area", "savage-weapons")),
    ],
    "stormbringer": [
        ("cuando saco un critico", "stormbringer-critical"),
        ("que pasa si saco un 99", "stormbringer-fumble"),
        ("cuantas veces puedo parar en un asalto", "stormbringer-parry"),
        ("puedo esquivar una flecha", "stormbringer-dodge"),
        ("cuanto dura un asalto", "stormbringer-round"),
        ("quien dice primero lo que va a hacer", "stormbringer-phases"),
        ("como se calcula el daño de mi espada", "stormbringer-damage"),
        ("que pasa si me quitan mas vida que mi herida grave", "stormbringer-major-wound"),
        ("la armadura protege contra un golpe critico", "stormbringer-critical-damage"),
        ("se me puede romper el arma al parar", ("stormbringer-broken-weapons", "stormbringer-parry-critical")),
        ("como mejoro mis habilidades despues de la aventura", "stormbringer-experience"),
        ("como funciona atacar con dos armas a la vez", "stormbringer-two-weapons"),
        ("que ventaja tiene un maestro de armas", "stormbringer-master"),
        ("como preparo una emboscada", "stormbringer-ambush"),
        ("puedo matar de un golpe a un guardia dormido", "stormbringer-helpless"),
        ("que ventaja da estar mas alto que el enemigo", "stormbringer-advantages"),
        ("para que sirve tener mucha fuerza", "stormbringer-characteristics"),
        ("como me curo las heridas", "stormbringer-healing"),
        ("puedo cambiar de arma en mitad del combate", "stormbringer-movement"),
        ("que tengo que sacar para acertar un golpe", "stormbringer-attack"),
        ("hay una tabla de armas con su daño", "stormbringer-weapons"),
        ("quien ataca antes el arquero o el espadachin", "stormbringer-phases"),
        # written after the search was tuned on the questions above
        ("cuantos ataques puedo hacer por asalto", "stormbringer-attack"),
        ("puedo parar una flecha con la espada", "stormbringer-missiles"),
        ("que pasa si saco 00", "stormbringer-fumble"),
        ("como se tira una habilidad", "stormbringer-check"),
        ("cuanto me puedo mover si recojo un arma", "stormbringer-movement"),
        ("como funciona la respuesta despues de parar", "stormbringer-master"),
        ("puedo entrenar con un maestro para subir ataque", "stormbringer-training"),
        ("que pasa si me atacan por la espalda en mitad de la pelea", "stormbringer-advantages"),
    ],
    "reino": [
        ("como funciona el aturdimiento", "reino-aturdido"),
        ("que pasa si mis puntos de resistencia llegan a cero", "reino-resistencia"),
        ("como estabilizo a un compañero que se esta muriendo", "reino-estabilizar"),
        ("que tengo que tirar cuando estoy moribundo", "reino-moribundo"),
        ("para que sirven los puntos de accion", "reino-puntos-accion"),
        ("que pasa si saco un 20 en el dado", "reino-natural"),
        ("cuantas acciones puedo hacer en mi turno", "reino-acciones"),
        ("que pasa si me hacen muchisimo daño de un solo golpe", "reino-umbral"),
        ("cual es la dificultad normal de una prueba", "reino-cd"),
        ("como se decide quien actua primero", "reino-iniciativa"),
        ("que es la bonificacion de esquiva", "reino-defensa"),
        ("cuando hago un golpe critico", "reino-critico"),
        ("se suma la fuerza al daño si disparo con un arco", "reino-dano"),
        ("como despierto a alguien que esta inconsciente", "reino-inconsciencia"),
        ("que penalizador tengo si estoy malherido", "reino-malherido"),
        ("cuanto tardo en recuperar los puntos de resistencia", "reino-recuperacion"),
        ("los secuaces pueden hacer criticos", "reino-secuaces"),
        ("que pasa si no me doy cuenta de que me atacan", "reino-sorpresa"),
        ("que tiro para resistir un veneno", "reino-salvaciones"),
        ("que pasa si me vuelve a tocar un estado que ya tengo", "reino-estados"),
        ("cuanto daño hace una espada larga", "reino-armas"),
        ("que bonificador me da la cobertura", "reino-modificadores"),
        ("como gano un pulso contra otro personaje", "reino-enfrentada"),
        # written after the search was tuned on the questions above
        ("que pasa si saco un 1", "reino-natural"),
        ("cuanto tengo que sacar para darle a un enemigo", "reino-ataque"),
        ("que hago si estoy incapacitado", "reino-incapacitado"),
        ("cuantos puntos de accion tengo", "reino-puntos-accion"),
        ("puedo moverme y atacar en el mismo turno", "reino-acciones"),
        ("que pasa si tengo menos de cero puntos de resistencia", "reino-resistencia"),
        ("como funcionan los esbirros", "reino-secuaces"),
        ("cuando se tira la fortaleza por herida grave", "reino-umbral"),
    ],
    "sombra": [
        ("como funciona el aturdimiento", "sombra-aturdido"),
        ("que tengo que sacar para pasar una tirada", "sombra-tirada"),
        ("que pasa si saco tres dieces", "sombra-pifia"),
        ("para que sirve el dado del medio", "sombra-dados"),
        ("cuanto se suma a una accion dificil", "sombra-dificultad"),
        ("quien dispara primero en un tiroteo", "sombra-iniciativa"),
        ("puedo disparar dos veces con la pistola", "sombra-pistola"),
        ("como funciona disparar en rafaga", "sombra-fusil"),
        ("cuanto daño hace una granada", "sombra-granadas-ametralladoras"),
        ("que pasa si me dan un tiro en la pierna", "sombra-heridas"),
        ("cuando una herida cuenta como grave", "sombra-heridas"),
        ("como se hunde un barco", "sombra-barcos"),
        ("como tiro al suelo a un enemigo", "sombra-presas-derribos"),
        ("como funciona el daño de tipo ii", "sombra-tipos-dano"),
        ("que es un exito bajo", "sombra-niveles"),
        ("para que sirve el mando del oficial", "sombra-mando"),
        ("como me curo despues de un combate", "sombra-curacion"),
        ("hay una tabla de armas con el daño de cada una", "sombra-armas"),
        ("me puedo dar prisa para actuar antes", "sombra-prisa"),
        ("que pasa si le dan al tanque en la torreta", "sombra-localizacion-vehiculos"),
        ("como se calcula cuanto puedo esquivar", "sombra-capacidades"),
        ("que pasa si saco 1 1 1", "sombra-critico"),
        ("como funciona el fuego de cobertura", "sombra-cobertura-oportunidad"),
        # written after the search was tuned on the questions above
        ("que pasa si me disparan en la cabeza", "sombra-heridas"),
        ("cuanto resta una accion facil", "sombra-dificultad"),
        ("como se calcula la localizacion", ("sombra-localizacion-personas", "sombra-dados")),
        ("como funciona el blindaje de un tanque", "sombra-blindaje"),
        ("puedo apuntar con el fusil", "sombra-fusil"),
        ("que pasa si saco tres numeros iguales", ("sombra-critico", "sombra-pifia")),
        ("como funciona la pelea sin armas", "sombra-cuerpo-a-cuerpo"),
        ("cuanto daño hace el lanzallamas", "sombra-dano-area"),
    ],
}


RESULTS: dict[str, list[tuple[str, str | tuple[str, ...], str]]] = {
    # The house rules (000, 001) are silent on snake eyes, the target number and aces: these follow the
    # published game, as the cards do.
    "savage": [
        ("que pasa si saco dos unos", "savage-critical-failure", "published game: a 1 on the trait and wild die"),
        ("que pasa si saco un 8 en la tirada", "savage-trait-roll", "published game: each 4 over the target"),
        ("que pasa si saco menos de 4", "savage-trait-roll", "published game: the target number is 4"),
        ("que pasa si saco el maximo en el dado", ("savage-trait-roll", "savage-damage"), "published game: aces"),
        ("que pasa si saco un 6 en el dado salvaje", "savage-trait-roll", "published game: the wild die aces"),
    ],
    "stormbringer": [
        ("que pasa si saco 01 en la tirada", "stormbringer-critical",
         "Si se obtiene un número 1/10 inferior a la cifra que necesitaba para conseguir la tirada, "
         "se dice que ha conseguido una tirada crítica."),
        ("que pasa si saco un 4 con un 46", "stormbringer-critical",
         "Por ejemplo, si el porcentaje de ataque es 46%, 01, 02, 03 y 04 son tiradas críticas."),
        ("que pasa si saco 100", "stormbringer-fumble", "Un 00 siempre es pifia."),
        ("que pasa si saco mas que mi porcentaje", "stormbringer-check",
         "Para atacar hay que tirar 1D100 y obtener un resultado igual o menor que el % de ataque"),
    ],
    "reino": [
        ("un 20 natural", "reino-natural",
         "Un resultado de 1 en el dado significa siempre un Fallo y un resultado de 20 significa siempre un Éxito"),
        ("que pasa si saco un 1 natural en el ataque", "reino-natural",
         "Un resultado de 1 en el dado significa siempre un Fallo"),
        ("que pasa si saco un 20 al atacar", ("reino-critico", "reino-natural"),
         "Un golpe crítico es resultado de 20 en la tirada de 1D20 durante el ataque."),
    ],
    "sombra": [
        ("que pasa si saco tres unos", "sombra-critico", "El resultado de 1, 1, 1 es crítico en todo caso."),
        ("que pasa si saco un 3 en la tirada", "sombra-critico",
         "La suma de estos da un número entre 3 (crítico) y 30 (pifia)."),
        ("si saco 30", "sombra-pifia", "La suma de estos da un número entre 3 (crítico) y 30 (pifia)."),
        ("que pasa si saco un 30 en los dados", "sombra-pifia",
         "La suma de estos da un número entre 3 (crítico) y 30 (pifia)."),
        ("que pasa si saco tres dados iguales y paso la tirada", "sombra-critico",
         "Crítico: siendo un éxito, los tres dados lanzados son iguales."),
        ("que pasa si saco tres iguales y fallo", "sombra-pifia",
         "Pifia: los tres dados lanzados son iguales, habiendo sacado menos que la dificultad del chequeo."),
        ("que pasa si fallo la tirada por poco", "sombra-niveles",
         "Facaso bajo: se obtiene cuando, habiendo fallado, la suma de los dos dados de daño es inferior a 5."),
        ("tabla de localizacion", "sombra-localizacion-personas",
         "Depende de a que disparemos, daremos a una u otra cosa."),
        ("en que parte del cuerpo le he dado", "sombra-localizacion-personas", "Pecho (1, 2, 3)"),
    ],
}
"""Questions about a roll's result or the hit-location table: (question, card, the rule the card implements)."""

for _system, _results in RESULTS.items():
    QUESTIONS[_system] += [(question, card) for question, card, _rule in _results]


def first_card(system: str, question: str) -> str | None:
    found = RULEBOOK.search(system, question, limit=1)
    return found[0]["id"] if found else None


def answers(system: str, question: str, expected: str | tuple[str, ...]) -> bool:
    return first_card(system, question) in ((expected,) if isinstance(expected, str) else expected)


def test_the_question_set_is_large_and_written_as_players_type() -> None:
    assert sum(len(q) for q in QUESTIONS.values()) >= 80
    titles = {c["title"].casefold() for c in RULEBOOK.db.table("cards").rows}
    for system, questions in QUESTIONS.items():
        assert len(questions) >= 20, system
        ids = {c["id"] for c in RULEBOOK.db.table("cards").rows_where("system = ?", [system])}
        for question, expected in questions:
            assert {expected} <= ids if isinstance(expected, str) else set(expected) <= ids, expected
            assert question == question.lower() and not set(question) & set("áéíóúü¿?¡!"), question
            assert len(question.split()) >= 3 and question not in titles, question


def test_the_first_card_answers_nine_questions_in_ten() -> None:
    misses = {system: [(q, first_card(system, q), want) for q, want in questions if not answers(system, q, want)]
              for system, questions in QUESTIONS.items()}
    total = sum(len(q) for q in QUESTIONS.values())
    right = total - sum(len(m) for m in misses.values())
    for system, questions in QUESTIONS.items():
        print(f"!regla {system}: {len(questions) - len(misses[system])}/{len(questions)}")
    print(f"!regla: {right}/{total} first cards right ({right / total:.0%})")
    assert right / total >= TARGET, misses
    for system, questions in QUESTIONS.items():
        assert (len(questions) - len(misses[system])) / len(questions) >= TARGET, misses[system]


@pytest.mark.parametrize("system", sorted(QUESTIONS))
def test_the_question_of_the_issue_finds_the_stun_card(system: str) -> None:
    found = RULEBOOK.search(system, "como funciona el aturdimiento", limit=1)
    assert [c["title"] for c in found] == ["Aturdido"]


@pytest.mark.parametrize(("system", "question", "expected", "rule"),
                         [(system, *result) for system, results in RESULTS.items() for result in results])
def test_a_roll_result_finds_the_card_of_what_it_does(system: str, question: str, expected: str | tuple[str, ...],
                                                       rule: str) -> None:
    assert rule
    assert answers(system, question, expected), (rule, RULEBOOK.search(system, question))


@pytest.mark.parametrize("question", ["localización", "tabla de localizacion", "Localizacion"])
def test_sombra_location_finds_the_hit_location_table_not_the_dice_order(question: str) -> None:
    """004: «Dado de localización (central): Me dice en que parte del cuerpo o vehículo habéis impactado.»
    and the table under «Localización»: the table answers, the card of the three dice comes after."""
    body = play(f"@ana:local: !regla {question}", system="sombra").text(1)
    assert body.split("\n")[0].count("Localización en personas") == 1, body


def test_counted_ones_and_percentiles_are_searched_as_numbers() -> None:
    """«tres unos» are three dice showing 1 (004: «El resultado de 1, 1, 1 es crítico en todo caso.»), while
    «unos» alone stays an article; a percentile's 04 is a 4, and its 00 stays 00 (002: «Un 00 siempre es pifia.»)."""
    assert terms("que pasa si saco tres unos") == terms("tres 1") == terms("tres uno")
    assert terms("me atacan unos orcos") == terms("me atacan orcos")
    assert terms("saco 04") == ["4"] and terms("saco 00") == ["00"]
