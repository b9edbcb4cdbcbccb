"""``!ayuda`` fits a phone: a short start, one topic or one command at a time; asked off the floor
(a narration, another's turn), help and rules answer the asker alone."""

from __future__ import annotations

import re

import pytest

from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.core.room_commands import help_topics
from bot.games import GAMES
from tests.transcript import make_table, play

MAIN_LIMIT = 600
TOPIC_LIMIT = 700
KEYS = [game.key for game in GAMES]
CAST = "@gm:local: !pj McAvoy @ana:local\n@gm:local: !pj Kira @bob:local\n"


def asked(system: str, what: str) -> str:
    return play(f"@ana:local: !ayuda {what}".rstrip(), system=system).text(1)


def topics_of(system: str) -> list[str]:
    return list(help_topics(make_table(system=system).renderer, system))


def command_names(system: str) -> list[str]:
    return [name for group in (ROOM_COMMANDS, GAMES[system].commands) for c in group for name in c.names]


@pytest.mark.parametrize("system", KEYS)
def test_help_starts_short_with_the_common_commands_and_the_topics(system: str) -> None:
    body = asked(system, "")
    assert len(body) <= MAIN_LIMIT and "\n\n" not in body, (len(body), body)
    for name in ("!tiro", "!regla", "!siguiente", "!estado"):
        assert name in body
    for topic in topics_of(system):
        assert topic in body.split("Temas")[1]


def test_the_start_shows_the_game_s_own_commands_players_use() -> None:
    assert "!beni" in asked("savage", "") and "!absorber" in asked("savage", "")
    assert "!parada" in asked("stormbringer", "") and "!esquiva" in asked("stormbringer", "")
    assert "!pa" in asked("reino", "") and "!estabilizar" in asked("reino", "")
    assert "!heridas" in asked("sombra", "")


@pytest.mark.parametrize("system", KEYS)
def test_every_topic_and_every_command_name_fits(system: str) -> None:
    unknown = asked(system, "xyzzy")
    for what in [*topics_of(system), *command_names(system)]:
        body = asked(system, what)
        assert body != unknown and "xyzzy" not in body, what
        assert len(body) <= TOPIC_LIMIT, (what, len(body), body)


@pytest.mark.parametrize("system", KEYS)
def test_a_command_s_help_shows_its_usage_and_what_the_topics_say_of_it(system: str) -> None:
    for group in (ROOM_COMMANDS, GAMES[system].commands):
        for command in group:
            body = asked(system, command.names[-1])
            first = body.split("\n")[0]
            assert f"!{command.names[0]}" in first and command.usage in first, body
            assert len(body.split("\n")) >= 2 and re.search(r"!ayuda \w+", body), body


@pytest.mark.parametrize("system", KEYS)
def test_every_command_is_explained_in_some_topic(system: str) -> None:
    said = "\n".join(asked(system, topic) for topic in topics_of(system))
    missing = [c.names[0] for group in (ROOM_COMMANDS, GAMES[system].commands) for c in group
               if f"!{c.names[0]}" not in said]
    assert missing == []


def test_topics_and_commands_are_found_however_they_are_typed() -> None:
    assert asked("savage", "daño") == asked("savage", "DANO") == asked("savage", "!damage")
    assert asked("savage", "/tiro") == asked("savage", "tiro") == asked("savage", "roll")
    assert asked("savage", "Combate") == asked("savage", "combate")


def test_an_unknown_topic_lists_the_topics() -> None:
    body = asked("sombra", "xyzzy")
    assert "«xyzzy»" in body and len(body) <= MAIN_LIMIT
    assert all(topic in body for topic in topics_of("sombra"))


LOCK = "@gm:local: -----\n"


@pytest.mark.parametrize("question", ["!ayuda", "!ayuda combate", "!regla aturdido"])
def test_asked_during_a_narration_the_answer_is_private_and_the_line_is_removed(question: str) -> None:
    t = play(CAST + LOCK + f"@ana:local: {question}", system="savage")
    assert t.redacted(4)
    answers = [a for a in t.for_line(4) if a["action"] == "send"]
    private = [a for a in answers if a["private_to"] == "@ana:local"]
    assert len(private) == 1 and ("📖" in private[0]["text"] or "📘" in private[0]["text"])
    assert all("📖" not in a["text"] and "📘" not in a["text"] for a in answers if a["private_to"] is None)


def test_under_warn_the_line_stays_and_the_answer_is_still_private() -> None:
    t = play(CAST + LOCK + "@ana:local: !regla aturdido", system="savage", enforce="warn")
    assert not t.redacted(4)
    assert [a["private_to"] for a in t.for_line(4) if a["action"] == "send" and "📘" in a["text"]] == ["@ana:local"]


def test_asked_out_of_turn_the_answer_is_private_and_the_line_stays() -> None:
    t = play(CAST + "@gm:local: !combate\n@gm:local: !turnos McAvoy Kira\n@bob:local: !ayuda\n"
             "@bob:local: !regla benis\n@ana:local: !ayuda", system="savage")
    for line in (5, 6):
        assert not t.redacted(line)
        assert [a["private_to"] for a in t.for_line(line) if a["action"] == "send"] == ["@bob:local"]
    assert [a["private_to"] for a in t.for_line(7) if a["action"] == "send"] == [None]


def test_the_gm_and_the_player_a_named_lock_names_are_answered_in_the_room() -> None:
    t = play(CAST + "@gm:local: ----- (McAvoy)\n@ana:local: !ayuda\n@gm:local: !regla benis", system="savage")
    assert [a["private_to"] for a in t.for_line(4) if a["action"] == "send"] == [None]
    assert [a["private_to"] for a in t.for_line(5) if a["action"] == "send"] == [None]
    assert not t.redacted(4)
