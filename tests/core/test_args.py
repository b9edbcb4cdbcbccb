"""Commands read their arguments through a spec (``bot/core/args.py``) that also writes their usage."""

from __future__ import annotations

import random

from bot.core import words_es as vocab
from bot.core.args import Arg, Either, Key, Opt, User, gm_leads, gm_word, parse, required, usage
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
        "sistema": ("CLAVE", True), "modo": ("warn|redact|mute", True), "master": ("[@usuario] | quitar @usuario", False),
        "regla": ("TEMA", True), "deshacer": ("[?]", False), "turnos": ("NOMBRE NOMBRE...", True),
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
    assert transcript.acked(1)
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


def test_the_protocol_of_a_command_found_by_name_does_not_clash_with_a_spec() -> None:
    from bot.core import args, context

    assert hasattr(context, "FoundCommand") and not hasattr(context, "CommandSpec") and hasattr(args, "Spec")


def test_every_room_command_reads_its_arguments_through_a_spec() -> None:
    hand_parsed = [c.name for c in ROOM_COMMANDS if not c.run.__qualname__.startswith("CommandGroup.takes")]
    assert hand_parsed == []


def test_every_game_command_reads_its_arguments_through_a_spec() -> None:
    """A game's command declares what it takes too (``takes(spec=...)``, a ``Rest`` for its own grammar):
    its usage is its spec's, never a hand-written text that can drift from what the handler reads."""
    hand_parsed = [f"{game.key}: !{c.name}" for game in GAMES for c in game.commands
                   if not c.run.__qualname__.startswith("CommandGroup.takes")]
    assert hand_parsed == [], "commands parsing their text by hand:\n" + "\n".join(hand_parsed)


def test_a_word_of_a_form_and_a_keyword_s_word_are_given_folded() -> None:
    from bot.core.args import Rest, Word

    count, die = Word("+N|-N", r"[+-]\d{1,2}"), Word("dN", r"d\d+")
    spec = (Opt(Arg("NOMBRE")), Opt(die), Opt(count))
    assert usage(spec) == "[NOMBRE] [dN] [+N|-N]" and not required(spec)
    got = parse(spec, "Orco  Grande D8 +2")
    assert got is not None and (got.text("NOMBRE"), got.text("dN"), got.text("+N|-N")) == ("Orco  Grande", "d8", "+2")
    got = parse(spec, "Orco +200")
    assert got is not None and (got.text("NOMBRE"), got.text("+N|-N")) == ("Orco +200", "")
    preset = Key(("arduo", "dificil", "compleja"), gm=True, label="arduo|dificil|compleja")
    tasks = Either((preset, Opt(Arg("título"))), (Rest("HABILIDAD"),), ())
    assert usage(tasks) == "arduo|dificil|compleja [título] | HABILIDAD" and not required(tasks)
    got = parse(tasks, "DIFÍCIL Abrir la puerta")
    assert got is not None and got.has(preset) and got.text(preset.shown) == "dificil"
    assert got.text("título") == "Abrir la puerta"
    got = parse(tasks, "Pelear +1")
    assert got is not None and not got.has(preset) and got.text("HABILIDAD") == "Pelear +1"
    got = parse(tasks, "")
    assert got is not None and not got.texts


def test_rest_takes_what_is_left_as_typed_and_is_shown_only_when_named() -> None:
    from bot.core.args import Rest

    assert usage((Key(vocab.ON), Opt(Rest()))) == "activar"
    assert usage((Arg("NOMBRE"), Opt(Rest("campo valor...")))) == "NOMBRE [campo valor...]"
    got = parse((Rest("EXPR"),), "  Disparar  contra Orco\n(oculta) ")
    assert got is not None and got.text("EXPR") == "  Disparar  contra Orco\n(oculta) "
    got = parse((Key(vocab.ON), Opt(Rest())), "activar ya mismo")
    assert got is not None and got.has(Key(vocab.ON))
    assert parse((Key(vocab.ON), Rest("X")), "activar") is None and required((Rest("X"),))
    bare = (Opt(Rest("[OBJETIVO] [habilidad|%]"), brackets=False),)
    assert usage(bare) == "[OBJETIVO] [habilidad|%]" and not required(bare)
    got = parse(bare, "")
    assert got is not None and got.text("[OBJETIVO] [habilidad|%]") == ""
    hostile = "<b>" + "\u202e\x00\x1b[31m" * 700 + "</b>"
    got = parse((Rest("EXPR"),), hostile)
    assert got is not None and got.text("EXPR") == hostile


def test_a_lenient_command_reads_text_that_does_not_fit_as_nothing() -> None:
    for text in ("ya", "fin del mundo", "<b>fin</b>", "\x00\x1b" * 900, "x" * 1999):
        transcript = play(f"{GM}: !combate\n{GM}: !combate {text}\n{GM}: !estado {text}\n{GM}: !siguiente {text}")
        assert transcript.text(1) != transcript.text(2), text
        assert transcript.text(2) == play(f"{GM}: !combate\n{GM}: !combate").text(2), text
        assert "!combate" not in transcript.text(3) and "!siguiente" not in transcript.text(4), text
    ended = play(f"{GM}: !combate\n{GM}: !combate FIN")
    assert ended.text(2) != ended.text(1) and "!combate [fin]" not in ended.text(2)


def test_a_check_before_the_arguments_wins_over_the_usage() -> None:
    for text in ("", "fin", "otra cosa", "<i>x</i>" * 200, "\x07" * 500):
        assert play(f"{GM}: !sesion {text}".rstrip()).text(1) == play(f"{GM}: !sesion").text(1), text
    on = play(f"{GM}: !acta activar\n{GM}: !sesion otra cosa\n{GM}: !sesion fin\n{GM}: !sesion")
    assert "!sesion [fin|nueva]" in on.text(2) and "!sesion [fin|nueva]" not in on.text(3) + on.text(4)


def test_a_gm_s_keyword_is_refused_to_a_player_before_the_usage_and_changes_nothing() -> None:
    player = "@ana:local"
    for text in ("activar", "ON ya", "borrar", "borrar <b>x</b>", "desactivar " + "\x1b" * 900):
        transcript = play(f"{player}: !acta {text}\n{GM}: !acta")
        word = text.split()[0].lower()
        assert f"!acta {word}" in transcript.text(1) and "máster" in transcript.text(1).lower(), text
        assert transcript.text(2) == play(f"{GM}: !acta").text(1), text
    assert "!acta [N]" in play(f"{player}: !acta 1 2").text(1)
    kept_on = play(f"{GM}: !acta activar ya\n{GM}: !acta")
    assert kept_on.text(1) == play(f"{GM}: !acta activar").text(1)


def test_games_read_simple_arguments_through_the_core_s_specs() -> None:
    from bot.games import GAMES

    converted = {"savage": ("esperar", "mazo", "guardia"), "sombra": ("desencasquillar", "forcejeo"),
                 "reino": ("repetir",), "stormbringer": ("siguiente", "acciones", "primero")}
    found = {(key, name): GAMES[key].commands.find(name) for key, names in converted.items() for name in names}
    assert all(c is not None and c.run.__qualname__.startswith("CommandGroup.takes") for c in found.values())
    assert {k: c.usage for k, c in found.items() if c is not None and c.usage} == {
        ("savage", "guardia"): "[fuego]", ("stormbringer", "primero"): "jugadores|máster"}
    watch = "@gm:local: !pj Kira @ana:local\n@gm:local: !combate\n@gm:local: !turnos Kira Orco\n"
    for said in ("ya", "fuego ya", "<b>fuego</b>", "\x1b" * 900):
        assert play(f"{watch}@ana:local: !guardia {said}", system="savage").texts(4) == play(
            f"{watch}@ana:local: !guardia", system="savage").texts(4), said


def test_commands_that_read_a_rest_refuse_hostile_text_in_spanish_and_change_nothing() -> None:
    hostile = "<b>" + "\u202e\x00\x1b[31m" * 100 + "</b>"
    lines = [f"{GM}: !pnj {hostile}", f"{GM}: !ficha {hostile}", f"@ana:local: !macro {hostile}",
             f"@ana:local: !tiro {hostile}", f"{GM}: !acta borrar {hostile}", f"{GM}: !sesion {hostile}"]
    transcript = play("\n".join([*lines, f"{GM}: !historial", f"{GM}: !turnos Kira Orco"]))
    fresh = play(f"{GM}: !historial\n{GM}: !turnos Kira Orco")
    said = ["nombre del personaje", "No hay ningún personaje", "No tienes personaje", "demasiado larga",
            "Uso: !acta", "no está activada"]
    assert [s for n, s in enumerate(said, 1) if s not in transcript.text(n)] == []
    assert [transcript.texts(len(lines) + n) for n in (1, 2)] == [fresh.texts(n) for n in (1, 2)]


def test_the_commands_read_through_a_spec_now_keep_the_usage_users_have_always_read() -> None:
    shown = {name: ROOM_COMMANDS.find(name) for name in
             ("tiro", "ficha", "macro", "pnj", "acta", "sesion", "combate", "exploracion", "siguiente", "estado",
              "dados")}
    assert {name: (c.usage, c.needs_args, c.gm_only) for name, c in shown.items() if c is not None} == {
        "tiro": ("HABILIDAD|EXPRESIÓN [vs N] [contra NOMBRE] [sin estado] [oculta]", True, False),
        "ficha": ("NOMBRE [campo valor]... | NOMBRE Campo valor, Campo valor...", True, False),
        "macro": ("[NOMBRE] ALIAS = EXPRESIÓN | [NOMBRE] ALIAS borrar", True, False),
        "pnj": ("NOMBRE [xN] [grupo G] [Campo valor, ...]", True, True),
        "acta": ("[N] | activar | desactivar | borrar N|todo", False, False),
        "sesion": ("[fin|nueva]", False, True), "combate": ("[fin]", False, True), "exploracion": ("[fin]", False, True),
        "siguiente": ("", False, False), "estado": ("", False, False), "dados": ("", False, False),
    }


def test_a_gm_keyword_is_found_from_the_leads_read_once() -> None:
    """Issue 28 item 7: the GM's keywords of a spec are read once, when it is declared (``gm_leads``); a
    text that starts with one (any case or accents) names it, any other text or a spec with none names none."""
    preset = Key(("arduo", "dificil"), gm=True)
    tasks = Either((preset, Opt(Arg("título"))), (Opt(Key(("borrar",), gm=True)),), (Key(("ver",)),), ())
    leads = gm_leads(tasks)
    assert leads == {"arduo", "dificil", "borrar"}
    assert gm_word(leads, "DIFÍCIL Abrir") == "dificil" and gm_word(leads, "borrar 3") == "borrar"
    assert gm_word(leads, "ver") is None and gm_word(leads, "") is None and gm_word(leads, "Pelear +1") is None
    assert gm_leads((Arg("NOMBRE"),)) == frozenset() and gm_word(frozenset(), "arduo") is None
