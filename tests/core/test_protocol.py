"""The table protocol of docs/protocol.md#1, through the console transcript format."""

from __future__ import annotations

import logging

import pytest

from bot.core.events import Event, PowerLevels, Redact, Send
from tests.transcript import GM, make_table, play

CAST = """
@gm:local: !pj McAvoy @ana:local
@gm:local: !pj Sör Brönn @bob:local
"""


@pytest.mark.parametrize("command", ["/tiro", "!tiro", "//tiro", "!roll", "/roll", "!TIRO"])
def test_roll_aliases_answer_the_same(command: str) -> None:
    reference = play("@ana:local: !tiro 3d10 (chequeo)", seed=5).text(1)
    transcript = play(f"@ana:local: {command} 3d10 (chequeo)", seed=5)
    assert transcript.text(1) == reference
    assert reference.startswith("@ana:local · 🎲 3d10 (chequeo): [")
    action = transcript.for_line(1)[0]
    assert action["event"] == "$1" and action["mentions"] == []


def test_roll_names_the_character_and_escapes_html() -> None:
    t = play(CAST + "@ana:local: !tiro 1d6 <img src=x onerror=alert(1)>")
    html = t.for_line(3)[0]["html"]
    assert t.text(3).startswith("McAvoy · 🎲 1d6 (<img src=x onerror=alert(1)>)")
    assert "<img" not in html and "&lt;img" in html


def test_me_actions_pass_outside_locks_and_combat() -> None:
    t = play(CAST + "@bob:local: /me desenvaina la espada")
    assert t.for_line(3) == []


@pytest.mark.parametrize("dash", ["-----", "–––––", "—————", "─────", "  -------------------  ", "--–—─"])
def test_narration_lock_with_every_dash(dash: str) -> None:
    t = play(CAST + f"""
@gm:local: {dash}
@bob:local: ¿puedo?
@bob:local: ¿y ahora?
@ana:local: /me espera
@gm:local: El viento aúlla en el paso.
@gm:local: {dash}
@bob:local: ya puedo
""")
    assert t.for_line(3) == [{"action": "react", "event": "$3", "text": None, "html": None, "id": "$3/0", "key": "🔒"}]
    assert t.redacted(4) and len(t.texts(4)) == 1 and "narrando" in t.text(4)
    assert t.redacted(5) and t.texts(5) == []  # one notice per lock and player, never a flood
    assert t.redacted(6) and len(t.texts(6)) == 1
    assert t.for_line(7) == [] and t.for_line(9) == []
    assert [(a["action"], a["key"]) for a in t.for_line(8)] == [("react", "🔓")]


def test_four_dashes_are_not_a_lock() -> None:
    t = play(CAST + "@gm:local: ----\n@bob:local: hola")
    assert t.for_line(4) == []


def test_named_lock_accent_and_case_insensitive() -> None:
    t = play(CAST + """
@gm:local: ---------- (sor bronn)
@bob:local: /me avanza
@ana:local: /me también
@gm:local: ----------
@ana:local: /me ahora sí
""")
    assert "Sör Brönn" in t.text(3)
    assert t.for_line(4) == []
    assert t.redacted(5) and "Sör Brönn" in t.text(5)
    assert t.for_line(7) == []


def test_named_lock_unknown_name_notices_gm_and_locks_nothing() -> None:
    t = play(CAST + """
@gm:local: ---------- (Gandalf)
@bob:local: hola
""")
    assert "Gandalf" in t.text(3) and "McAvoy" in t.text(3)
    assert t.for_line(3)[0]["event"] == "$3"
    assert t.for_line(4) == []


def test_player_dash_line_locks_nothing() -> None:
    t = play(CAST + "@bob:local: -------------\n@ana:local: sigo")
    assert t.for_line(3) == [] and t.for_line(4) == []


def test_gm_is_decided_by_user_id_not_text() -> None:
    t = play(CAST + """
@bob:local: !combate
@gm:local.evil: !combate
@gm:local: !combate
""")
    assert "máster" in t.text(3)
    assert "máster" in t.text(4)
    assert "Combate" in t.text(5)


def test_out_of_character_rules() -> None:
    script = CAST + """
@bob:local: ((¿alguien tiene dados?))
@gm:local: -----
@bob:local: ((perdón, ¿pausa?))
@bob:local: off: vuelvo en 5
"""
    t = play(script)
    assert t.for_line(3) == []
    assert t.redacted(5) and t.redacted(6)
    allowed = play(script, ooc_in_locks=True)
    assert allowed.for_line(5) == [] and allowed.for_line(6) == []


def test_turn_gating_and_grants() -> None:
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos McAvoy, Sör Brönn, Orco
@bob:local: /me ataca
@bob:local: !tiro 1d20
@ana:local: /me dispara
@ana:local: !tiro 1d20
@gm:local: !permite Sor Bronn
@bob:local: !tiro 1d20 (esquivar)
@bob:local: !tiro 1d20 (otra)
@gm:local: !tiro 1d20 (orco)
@ana:local: !siguiente
@bob:local: /me ataca
""")
    assert t.texts(4)[0].startswith("🎭 PNJ nuevos del máster: Orco.")
    assert "McAvoy" in t.texts(4)[1] and t.messages(4)[0]["mentions"] == ["@ana:local"]  # one merged message
    assert t.redacted(5) and "McAvoy" in t.text(5)
    assert t.redacted(6) and t.texts(6) == []
    assert t.for_line(7) == [] and "1d20" in t.text(8)
    assert t.acked(9)
    assert not t.redacted(10) and "esquivar" in t.text(10)
    assert t.redacted(11)  # the grant covered one roll
    assert "orco" in t.text(12)
    assert t.for_line(13)[0]["mentions"] == ["@bob:local"] and "Sör Brönn" in t.text(13)
    assert t.for_line(14) == []


def test_warn_mode_never_redacts() -> None:
    t = play(CAST + "@gm:local: -----\n@bob:local: uno\n@bob:local: dos", enforce="warn")
    assert t.kinds(4) == ["send"] and t.kinds(5) == []


def test_mute_mode_sets_and_restores_power_levels() -> None:
    t = play(CAST + """
@gm:local: ---------- (McAvoy)
@bob:local: se me coló
@gm:local: ----------
""", enforce="mute")
    lock = [a for a in t.for_line(3) if a["action"] == "power_levels"]
    assert lock and lock[0]["lock"] is True and set(lock[0]["speakers"]) == {GM, "@ana:local"}
    assert t.redacted(4)
    unlock = [a for a in t.for_line(5) if a["action"] == "power_levels"]
    assert unlock and unlock[0]["lock"] is False


def test_without_power_the_bot_says_so_once_and_warns() -> None:
    table = make_table()
    table.handle(Event("!r", GM, "-----", "$1"))
    first = table.handle(Event("!r", "@bob:local", "hola", "$2", bot_can_redact=False))
    second = table.handle(Event("!r", "@eve:local", "hola", "$3", bot_can_redact=False))
    assert not any(isinstance(a, Redact) for a in first + second)
    notices = [a.message.body for a in first + second if isinstance(a, Send)]
    assert sum("permisos" in n for n in notices) == 1
    assert sum("narrando" in n for n in notices) == 2


def test_without_power_the_log_warns_once_per_room_and_per_change(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29, item 10: one WARNING when the bot lacks the power its room's mode needs, again only when
    what it lacks changes (power given back then taken, a mode that needs more) or in another room."""
    table = make_table()
    caplog.set_level(logging.WARNING)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]

    for room in ("!r", "!s"):
        table.handle(Event(room, GM, "-----", f"$open{room}"))
    table.handle(Event("!r", "@bob:local", "hola", "$2", bot_can_redact=False))
    table.handle(Event("!r", "@eve:local", "hola", "$3", bot_can_redact=False))
    assert len(warnings()) == 1 and "!r" in warnings()[0] and "take messages back" in warnings()[0], warnings()
    table.handle(Event("!s", "@eve:local", "hola", "$4", bot_can_redact=False))
    assert len(warnings()) == 2 and "!s" in warnings()[1]
    assert any(isinstance(a, Redact) for a in table.handle(Event("!r", "@bob:local", "otra", "$5")))
    table.handle(Event("!r", "@bob:local", "y otra", "$6", bot_can_redact=False))
    assert len(warnings()) == 3
    table.handle(Event("!r", GM, "!modo mute", "$7"))
    table.handle(Event("!r", "@bob:local", "más", "$8", bot_can_redact=False, bot_can_mute=False))
    assert len(warnings()) == 4 and "mute" in warnings()[3], warnings()
    table.handle(Event("!r", "@bob:local", "y más", "$9", bot_can_redact=False, bot_can_mute=False))
    assert len(warnings()) == 4


def test_mute_without_power_falls_back() -> None:
    table = make_table(enforce="mute")
    actions = table.handle(Event("!r", GM, "-----", "$1", bot_can_mute=False))
    assert not any(isinstance(a, PowerLevels) for a in actions)
    assert any(isinstance(a, Send) and "permisos" in a.message.body for a in actions)


def test_room_admin_flag_makes_a_gm() -> None:
    table = make_table(gms=())
    assert "máster" in table.handle(Event("!r", "@pl:local", "!combate", "$1"))[0].message.body
    assert "Combate" in table.handle(Event("!r", "@own:local", "!combate", "$2", sender_is_admin=True))[0].message.body


def test_seen_event_is_ignored() -> None:
    table = make_table()
    assert table.handle(Event("!r", "@a:local", "!tiro 1d6", "$1"))
    assert table.handle(Event("!r", "@a:local", "!tiro 1d6", "$1")) == []


def test_turn_start_mentions_the_actors_player() -> None:
    """The core's wording names no network (Matrix's pill: ``tests/matrix/test_matrix_wording.py``)."""
    t = play(CAST + "@gm:local: !combate\n@gm:local: !turnos McAvoy, Sör Brönn")
    action = t.for_line(4)[0]
    assert action["mentions"] == ["@ana:local"]
    assert "(@ana:local)" in action["html"] and "matrix.to" not in action["html"]


def test_players_cannot_take_over_gm_characters() -> None:
    t = play("""
@ana:local: !pj Ana
@gm:local: !combate
@gm:local: !turnos Orco, Ana
@ana:local: !pj Orco
@ana:local: /me el orco huye
@gm:local: !pj Orco @bob:local
""")
    assert "personaje del máster" in t.text(4)
    assert t.redacted(5)
    assert t.acked(6)


def test_claiming_a_new_character_frees_the_old_one() -> None:
    t = play("@ana:local: !pj Ana\n@ana:local: !pj Kira\n@bob:local: !pj Ana")
    assert t.acked(3)


def test_grants_expire_when_the_turn_changes_or_combat_ends() -> None:
    t = play(CAST + """
@gm:local: !combate
@gm:local: !turnos McAvoy, Sör Brönn
@gm:local: !permite Sör Brönn
@gm:local: !siguiente
@gm:local: !siguiente
@bob:local: !tiro 1d20
@gm:local: !permite McAvoy
@gm:local: !combate fin
@gm:local: -----
@ana:local: !tiro 1d6
""")
    assert t.redacted(8)
    assert t.redacted(12)


def test_a_running_combat_is_not_wiped_by_a_second_start() -> None:
    t = play(CAST + "@gm:local: !combate\n@gm:local: !turnos McAvoy, Sör Brönn\n@gm:local: !combate\n"
                    "@gm:local: !estado")
    assert "Ya hay un combate" in t.text(5)
    assert "▶ McAvoy" in t.text(6)


def test_mute_mode_without_mute_power_only_warns() -> None:
    table = make_table(enforce="mute")
    table.handle(Event("!r", GM, "-----", "$1", bot_can_mute=False))
    actions = table.handle(Event("!r", "@bob:local", "hola", "$2", bot_can_mute=False))
    assert not any(isinstance(a, Redact) for a in actions)
    assert next(a.message.body for a in actions if isinstance(a, Send)).endswith("cierre.")


def test_console_senders_may_carry_a_port() -> None:
    t = play("@ana:host.example:8448: !tiro 1d6")
    assert t.text(1).startswith("@ana:host.example:8448 · 🎲 1d6")


def _writing(kind: str, sender: str, event_id: str) -> Event:
    if kind == "edit":
        return Event("!r", sender, "", event_id, edit=True)
    return Event("!r", sender, "", event_id, kind="media")


@pytest.mark.parametrize("kind", ["edit", "media"])
def test_edits_and_media_count_as_writing_during_locks(kind: str) -> None:
    table = make_table()
    assert table.handle(_writing(kind, "@bob:local", "$1")) == []
    table.handle(Event("!r", GM, "-----", "$2"))
    actions = table.handle(_writing(kind, "@bob:local", "$3"))
    assert any(isinstance(a, Redact) and a.event_id == "$3" for a in actions)
    table.handle(Event("!r", GM, "-----", "$4"))
    gm_edit = table.handle(_writing(kind, GM, "$5"))
    assert gm_edit == []


def test_a_gm_added_during_a_muted_lock_may_speak() -> None:
    t = play(CAST + "@gm:local: -----\n@gm:local: !master @eve:local\n@eve:local: sigo narrando", enforce="mute")
    relock = [a for a in t.for_line(4) if a["action"] == "power_levels"]
    assert relock and relock[0]["lock"] is True and "@eve:local" in relock[0]["speakers"]
    assert t.for_line(5) == []


def test_an_edited_command_gets_a_private_hint_and_runs_nothing() -> None:
    """Issue 29 item 7: an edit of a command that breaks no rule is not run: its sender is told, privately, that
    edits run no commands; an edit of plain text gets nothing; one that breaks a lock is enforced as before."""
    table = make_table()
    table.handle(Event("!r", "@bob:local", "!tiro 1d6", "$1"))
    actions = table.handle(Event("!r", "@bob:local", "!tiro 1d20", "$2", edit=True, target="$1"))
    assert [a.private_to for a in actions if isinstance(a, Send)] == ["@bob:local"], actions
    assert "!tiro" in actions[0].message.body and "🎲" not in actions[0].message.body
    assert table.handle(Event("!r", "@bob:local", "hola a todos", "$3", edit=True, target="$1")) == []
    assert table.handle(Event("!r", "@bob:local", "!tirro", "$4", edit=True, target="$1")) == []
    table.handle(Event("!r", GM, "-----", "$5"))
    locked = table.handle(Event("!r", "@bob:local", "!tiro 1d20", "$6", edit=True, target="$1"))
    assert any(isinstance(a, Redact) and a.event_id == "$6" for a in locked)
    assert not any(isinstance(a, Send) and a.private_to for a in locked)


def test_an_answer_keeps_the_thread_of_its_command() -> None:
    """Issue 29 item 7: the Send made in answer to a message posted in a thread carries its root; the room's
    rules are the same (a lock refuses it as any post)."""
    table = make_table()
    actions = table.handle(Event("!r", "@bob:local", "!tiro 1d6", "$1", thread="$root"))
    assert [(a.reply_to, a.thread) for a in actions if isinstance(a, Send)] == [("$1", "$root")]
    assert all(a.thread == "" for a in table.handle(Event("!r", "@bob:local", "!tiro 1d6", "$2"))
               if isinstance(a, Send))
    table.handle(Event("!r", GM, "-----", "$3"))
    refused = table.handle(Event("!r", "@bob:local", "!tiro 1d6", "$4", thread="$root"))
    assert any(isinstance(a, Redact) and a.event_id == "$4" for a in refused)
