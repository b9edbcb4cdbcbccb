"""Issue 29 item 9: messages that fit their reader (the core's part: lock and turn warnings, links)."""

from __future__ import annotations

from tests.transcript import play


def test_a_warning_for_a_message_taken_back_names_and_mentions_its_player_and_replies_to_nothing() -> None:
    t = play("@gm:local: -----\n@ana:local: hola\n@gm:local: -----\n@gm:local: !combate\n@ana:local: !pj Kira\n"
             "@gm:local: !pnj Orco\n@gm:local: !turnos Orco Kira\n@ana:local: /me ataca", enforce="redact")
    for line, who, said in ((2, "@ana:local", "El máster está narrando"), (8, "Kira", "Es el turno de Orco")):
        assert t.redacted(line)
        (warning,) = [a for a in t.for_line(line) if a["action"] == "send"]
        assert warning["event"] is None, warning  # its message is gone: nothing to reply to
        assert warning["mentions"] == ["@ana:local"]
        assert warning["text"].startswith(f"{who} · ") and said in warning["text"]


def test_a_warning_for_a_message_that_stays_replies_to_it_and_mentions_its_player() -> None:
    t = play("@gm:local: -----\n@ana:local: hola", enforce="warn")
    (warning,) = [a for a in t.for_line(2) if a["action"] == "send"]
    assert warning["event"] == "$2" and warning["mentions"] == ["@ana:local"]
    assert warning["text"].startswith("@ana:local · 🤫 El máster está narrando")
