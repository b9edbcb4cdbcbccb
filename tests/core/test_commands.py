"""Every room command, its English alias, its usage and its refusal for players."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.core.room_commands import COMMANDS as ROOM_COMMANDS
from bot.games import GAMES
from tests.transcript import assert_gm_only, play

CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Sör Brönn @bob:local
"""

GM_ONLY = [
    ("!sistema savage", "!system savage"),
    ("!combate", "!combat"),
    ("!turnos McAvoy", "!turns McAvoy"),
    ("!iniciativa", "!init"),
    ("!permite McAvoy", "!allow McAvoy"),
    ("!exploracion", "!explore"),
    ("!modo warn", "!mode warn"),
    ("!master @bob:local", "!gm @bob:local"),
    ("!pnj Orco", "!npc Orco"),
]


@pytest.mark.parametrize("spanish, english", GM_ONLY)
def test_gm_only_commands_refuse_players(spanish: str, english: str) -> None:
    assert_gm_only(CAST, "@bob:local", spanish, english)


def test_every_registered_command_has_a_usage_or_takes_no_arguments() -> None:
    for group in (ROOM_COMMANDS, *(game.commands for game in GAMES)):
        for cmd in group:
            assert not cmd.needs_args or cmd.usage, cmd.names
            assert len(cmd.names) >= 2, f"{cmd.names} needs a Spanish name and an English alias"


@pytest.mark.parametrize("command", ["!tiro", "!pj", "!regla", "!turnos", "!permite", "!ficha", "!sistema", "!modo"])
def test_missing_arguments_answer_the_usage(command: str) -> None:
    t = play(f"@gm:local: {command}")
    assert t.text(1).startswith("ℹ️ Uso: " + command)


def test_help_lists_commands_and_system_syntax() -> None:
    t = play("@ana:local: !ayuda\n@ana:local: /help\n@ana:local: !ayuda combate")
    body = t.text(1)
    for name in ("!tiro", "!pj", "!regla", "!siguiente", "!estado", "!ficha"):
        assert name in body
    assert "!combate" in t.text(3) and "!exploracion" in t.text(3)
    assert t.text(2) == body
    assert len(body) <= 600


def test_system_command_changes_the_resolver() -> None:
    t = play("@gm:local: !sistema reino\n@ana:local: !tiro d20+2 vs 15\n@gm:local: !sistema banana")
    assert t.acked(1) and "CD 15" in t.text(2)
    assert "banana" in t.text(3) and "savage" in t.text(3)


def test_character_claims() -> None:
    t = play("""
@ana:local: !pj McAvoy
@bob:local: !pj mcavoy
@bob:local: !pj Ulric @bob:local
@gm:local: !pj Ulric @bob:local
@gm:local: !pj Kira @not-an-id
@ana:local: !pj @@@
""")
    assert t.acked(1)
    assert "ya es el personaje de @ana:local" in t.text(2)
    assert "Solo el máster" in t.text(3)
    assert t.acked(4)
    assert "no es un identificador" in t.text(5)
    assert "nombre" in t.text(6)


def test_sheet_show_set_and_permissions() -> None:
    t = play(CAST + """
@ana:local: !ficha McAvoy iniciativa 3
@bob:local: !ficha McAvoy iniciativa 9
@ana:local: !ficha McAvoy carisma 2
@ana:local: !ficha McAvoy iniciativa mucho
@bob:local: !sheet McAvoy
@ana:local: !ficha Nadie
""")
    assert t.acked(3)
    assert "Solo el máster o el jugador" in t.text(4)
    assert "carisma" in t.text(5) and "iniciativa" in t.text(5)
    assert "mucho" in t.text(6)
    assert "iniciativa 3" in t.text(7)
    assert "Nadie" in t.text(8)


def test_rule_lookup_is_accent_and_case_insensitive() -> None:
    t = play("""
@gm:local: !sistema savage
@ana:local: !regla ATURDIDO
@ana:local: !regla aturdído
@ana:local: !rule xyzzyqq
""")
    assert t.text(2) == t.text(3)
    assert "📘" in t.text(2)
    assert "No encuentro" in t.text(4)


def test_combat_lifecycle_and_status() -> None:
    t = play(CAST + """
@gm:local: !estado
@gm:local: !combate
@ana:local: !status
@gm:local: !turnos McAvoy Sör Brönn Orco
@gm:local: !estado
@gm:local: !siguiente
@gm:local: !next
@gm:local: !next
@gm:local: !combate fin
@gm:local: !combat end
""")
    assert "Sin combate" in t.text(3)
    assert "Combate" in t.text(4)
    assert "falta el orden" in t.text(5)
    assert "▶ McAvoy" in t.text(7) and "· Orco" in t.text(7)
    assert "Sör Brönn" in t.text(8)
    assert "Orco" in t.text(9)
    assert any("Ronda 2" in x for x in t.texts(10))
    assert "2 rondas" in t.text(11)
    assert "No hay ningún combate" in t.text(12)


def test_next_by_a_player_only_on_their_turn() -> None:
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos McAvoy, Sör Brönn
@bob:local: !siguiente
@ana:local: !siguiente
""")
    assert "Solo el máster o el jugador de McAvoy" in t.text(5)
    assert "Sör Brönn" in t.text(6)


def test_generic_initiative_orders_by_roll() -> None:
    t = play(CAST + "@gm:local: !combate\n@gm:local: !iniciativa McAvoy, Sör Brönn, Orco")
    texts = t.texts(4)
    assert texts[0].startswith("🎲 Iniciativa") and texts[1].startswith("🎭 PNJ nuevos del máster: Orco.")
    assert texts[2].startswith("▶️ Ronda 1")
    gm_copy = next(m["text"] for m in t.for_line(4) if m["private_to"] == "@gm:local")
    order = [part.rsplit(" ", 1) for part in gm_copy.split(": ", 1)[1].rstrip(".").split(", ")]
    totals = [int(total) for _, total in order]
    assert totals == sorted(totals, reverse=True)
    # Issue 29: the room sees the NPC's die, not its total (the GMs' copy has it).
    npc_total = dict(order)["Orco"]
    assert f"Orco ([{npc_total}])" in texts[0] and f"Orco {npc_total}" not in texts[0]


def test_hidden_roll_goes_to_the_gm_only() -> None:
    t = play("@gm:local: !tiro 1d20 (emboscada) oculta")
    private, public = t.for_line(1)
    assert private["private_to"] == "@gm:local" and "emboscada" in private["text"]
    assert public["private_to"] is None and "oculta" in public["text"] and "1d20" not in public["text"]


def test_exploration_turn() -> None:
    t = play(CAST + """
@gm:local: !exploracion
@ana:local: /me registra el cuartel
@ana:local: /me y también el sótano
@bob:local: /me vigila la puerta
@gm:local: !exploracion fin
""")
    assert "McAvoy" in t.text(3) and "Sör Brönn" in t.text(3)
    assert t.for_line(4) == []
    assert t.redacted(5) and "Ya has actuado" in t.text(5)
    assert "Todos los jugadores" in t.text(6) and t.for_line(6)[0]["mentions"] == ["@gm:local"]
    assert "Fin" in t.text(7)


def test_mode_and_extra_gm() -> None:
    t = play(CAST + """
@gm:local: !modo warn
@gm:local: !master @bob:local
@bob:local: !combate
@gm:local: !modo banana
""")
    assert t.acked(3) and t.acked(4)
    assert "Combate" in t.text(5)
    assert "banana" in t.text(6)


def test_console_cli_contract(tmp_path) -> None:
    script = "@ana:local: !tiro 2d6\n\n# comentario\n@gm:local: -----\n@ana:local: hola\n"
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--seed", "2", "--jsonl"],
        input=script, capture_output=True, text=True, check=True,
    ).stdout
    actions = [json.loads(line) for line in out.splitlines()]
    assert [a["action"] for a in actions] == ["send", "react", "redact", "send"]
    # The lock warning replies to nothing: the bot took its message back (issue 29 item 9).
    assert [a["event"] for a in actions] == ["$1", "$4", "$5", None]
    assert actions[3]["mentions"] == ["@ana:local"] and actions[3]["id"].startswith("$5/")
    assert all({"action", "event", "text", "html"} <= a.keys() for a in actions)
    assert actions[1]["key"] == "🔒" and actions[1]["text"] is None
    assert actions[2]["text"] is None and actions[2]["html"] is None
    chat = subprocess.run(
        [sys.executable, "-m", "bot.cli", "console", "--gm", "@gm:local", "--seed", "2"],
        input=script, capture_output=True, text=True, check=True,
    ).stdout
    assert "@ana:local: !tiro 2d6" in chat and "🎲 2d6" in chat and "✂️" in chat and "🔒" in chat


@pytest.mark.parametrize(("system", "example"), [
    ("savage", "d8 vs 6 +1 = d8+1 vs 6"), ("stormbringer", "+10 tras el porcentaje se le suma"),
    ("reino", "d20 vs 15 +3"), ("sombra", "+3 (se suma a la tirada, como 3d10+3)"),
])
def test_help_documents_a_modifier_after_the_target(system: str, example: str) -> None:
    assert example in play("@ana:local: !ayuda sintaxis", system=system).text(1)


@pytest.mark.parametrize("line, closest", [("!tirro 1d6", "!tiro"), ("/tirro 1d6", "!tiro"), ("!ayduda", "!ayuda"),
                                           ("!estdo", "!estado")])
def test_an_unknown_command_close_to_a_known_one_gets_a_suggestion(line: str, closest: str) -> None:
    text = play(f"@ana:local: {line}").text(1)
    assert "No conozco el comando" in text and f"¿querías decir {closest}?" in text


def test_a_game_command_is_suggested_only_in_its_game() -> None:
    assert "¿querías decir !beni?" in play("@ana:local: !benni", system="savage").text(1)
    assert "querías decir" not in play("@ana:local: !benni", system="generic").text(1)


@pytest.mark.parametrize("line", ["!zzzz", "!" + "tiro" * 200, "!xyzzyplugh"])
def test_an_unknown_command_far_from_every_name_gets_no_suggestion(line: str) -> None:
    text = play(f"@ana:local: {line}").text(1)
    assert "No conozco el comando" in text and "querías decir" not in text
