"""Commands read their arguments through a spec (``bot/core/args.py``) that also writes their usage."""

from __future__ import annotations

import random

from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, User, parse, required, usage
from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.settings import RoomSettings, TableSettings
from bot.core.store import Store
from bot.core.table import Table
from bot.games import GAMES
from tests.transcript import play

GM = "@gm:local"
END = Key(vocab.END)


def test_a_spec_writes_the_usage_users_have_always_read() -> None:
    assert usage((Opt(Key(vocab.NEW)),)) == "[nueva]"
    assert usage((Opt(Arg("TEMA|COMANDO")),)) == "[TEMA|COMANDO]"
    assert usage((Arg("NOMBRE"),)) == "NOMBRE"
    assert usage(()) == ""
    assert required((Arg("CLAVE"),)) and not required((Opt(Arg("NOMBRE")),)) and not required(())


def test_a_spec_reads_keywords_however_they_are_typed_and_the_rest_as_typed() -> None:
    got = parse((Opt(END), Opt(Arg("NOMBRE"))), "  FIN  Orco   Grande ")
    assert got is not None and got.has(END) and got.text("NOMBRE") == "Orco   Grande"
    got = parse((Opt(END), Opt(Arg("NOMBRE"))), "end")
    assert got is not None and got.has(END) and got.text("NOMBRE") == ""
    got = parse((Opt(END), Opt(Arg("NOMBRE"))), "Orco")
    assert got is not None and not got.has(END) and got.text("NOMBRE") == "Orco"


def test_text_that_does_not_fit_the_spec_is_none() -> None:
    assert parse((Opt(Key(vocab.NEW)),), "nueva otra") is None
    assert parse((Opt(Key(vocab.NEW)),), "vieja") is None
    assert parse((), "algo") is None
    assert parse((Arg("NOMBRE"),), "   ") is None
    assert parse((END,), "") is None


def test_the_room_commands_usage_comes_from_their_specs() -> None:
    shown = {name: ROOM_COMMANDS.find(name) for name in
             ("ayuda", "revelar", "historial", "sistema", "modo", "master", "regla", "deshacer", "turnos",
              "entra", "sale", "permite", "mesa")}
    assert {name: (c.usage, c.needs_args) for name, c in shown.items() if c is not None} == {
        "ayuda": ("[TEMA|COMANDO]", False), "revelar": ("[NOMBRE]", False), "historial": ("[NOMBRE]", False),
        "sistema": ("CLAVE", True), "modo": ("warn|redact|mute", True), "master": ("@usuario", True),
        "regla": ("TEMA", True), "deshacer": ("", False), "turnos": ("NOMBRE NOMBRE...", True),
        "entra": ("NOMBRE [NOMBRE...]", True), "sale": ("NOMBRE", True), "permite": ("NOMBRE", True),
        "mesa": ("[nueva]", False),
    }
    assert all(c is not None and c.run.__qualname__.startswith("CommandGroup.takes") for c in shown.values())


def test_words_a_spec_does_not_take_are_answered_with_the_usage_and_change_nothing() -> None:
    settings = TableSettings(RoomSettings(gms=(GM,), public_url="https://m.example"))
    table = Table(Store(), settings, random.Random(1), games=GAMES)
    transcript = play(f"{GM}: !mesa nueva otra\n{GM}: !deshacer ya\n{GM}: !mesa NUEVA", table)
    assert "!mesa [nueva]" in transcript.text(1)
    assert "!deshacer" in transcript.text(2)
    assert "https://m.example/mesa/" in transcript.text(3)


def test_an_arg_takes_what_the_elements_after_it_leave() -> None:
    spec = (Arg("NOMBRE"), Opt(User("@usuario")))
    assert usage(spec) == "NOMBRE [@usuario]"
    got = parse(spec, "Orco  Grande @bob:local")
    assert got is not None and (got.text("NOMBRE"), got.text("@usuario")) == ("Orco  Grande", "@bob:local")
    got = parse(spec, "Orco Grande")
    assert got is not None and (got.text("NOMBRE"), got.text("@usuario")) == ("Orco Grande", "")
    got = parse(spec, "@bob:local")
    assert got is not None and (got.text("NOMBRE"), got.text("@usuario")) == ("@bob:local", "")
    assert parse((Arg("NOMBRE"), User("@usuario")), "Orco") is None
    assert parse((Opt(END), Arg("NOMBRE"), Opt(END)), "fin Orco fin") is not None


def test_pj_reads_its_arguments_through_its_spec() -> None:
    command = ROOM_COMMANDS.find("pj")
    assert command is not None and command.usage == "NOMBRE [@usuario]" and command.needs_args
    assert command.run.__qualname__.startswith("CommandGroup.takes")
    transcript = play(f"{GM}: !pj Kira  Vance @ana:local\n@bob:local: !pj Rurik @ana:local\n@bob:local: !pj @x")
    assert "Kira Vance" in transcript.text(1) and "@ana:local" in transcript.text(1)
    assert "!pj NOMBRE @usuario" in transcript.text(2) or "máster" in transcript.text(2).lower()
    assert "Rurik" not in transcript.text(3)


def test_a_required_arg_the_keywords_leave_nothing_for_is_missing() -> None:
    assert parse((Opt(END), Arg("NOMBRE")), "fin") is None
    got = parse((Opt(END), Opt(Arg("NOMBRE"))), "fin")
    assert got is not None and got.has(END) and got.text("NOMBRE") == ""


def test_either_shows_its_alternatives_and_a_keyword_wins_over_a_name() -> None:
    restart = Key(vocab.RESTART)
    spec = Either((Opt(Arg("NOMBRE...")),), (restart, Opt(Arg("NOMBRE..."))))
    assert usage(spec) == "[NOMBRE...] | reiniciar [NOMBRE...]" and not required(spec)
    got = parse(spec, "Reiniciar Orco Kira")
    assert got is not None and got.has(restart) and got.text("NOMBRE...") == "Orco Kira"
    got = parse(spec, "Orco reiniciar")
    assert got is not None and not got.has(restart) and got.text("NOMBRE...") == "Orco reiniciar"
    assert parse(Either((Key(vocab.ON),), (Key(vocab.OFF),)), "quizá") is None


def test_iniciativa_reads_its_arguments_through_its_spec() -> None:
    command = ROOM_COMMANDS.find("iniciativa")
    assert command is not None and command.usage == "[NOMBRE...] | reiniciar [NOMBRE...]"
    assert command.run.__qualname__.startswith("CommandGroup.takes")
