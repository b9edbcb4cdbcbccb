"""The IRC transport's pure parts: text to lines, byte splitting, mode plans, the token bucket, the config."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.config import ConfigError, parse_config
from bot.core.render import Message
from bot.irc.flood import PerSender, TokenBucket
from bot.irc.modes import Member, MuteRecord, mode_lines, opens, plan
from bot.irc.text import BOLD, decode_line, irc_lines, split_line, without_formatting


def test_html_becomes_irc_bold_and_user_text_stays_text():
    message = Message("x", "<b>Ana</b> dice &lt;b&gt;hola&lt;/b&gt; \x03rojo\r\nQUIT<br><i>fin</i>")
    assert irc_lines(message) == [f"{BOLD}Ana{BOLD} dice <b>hola</b> rojo QUIT", "\x1dfin\x1d"]


def test_matrix_pills_are_not_spelled_out_but_web_links_are():
    html = ('turno de <b>Kor</b> (<a href="https://matrix.to/#/@bob:irc">bob</a>); acta: '
            '<a href="https://mesa.example/acta/x">enlace</a>')
    (line,) = irc_lines(Message("", html))
    assert "matrix.to" not in line and "(bob)" in line and "enlace <https://mesa.example/acta/x>" in line


@given(st.text(alphabet=st.sampled_from(["a", "ñ", "🎲", " ", "=", "1", BOLD]), max_size=900),
       st.integers(min_value=20, max_value=450))
def test_split_pieces_fit_in_encoded_bytes_and_keep_every_character(line, budget):
    pieces = split_line(line, budget)
    assert all(len(p.encode()) <= budget for p in pieces)
    rebuilt = "".join(p.removeprefix(BOLD).removesuffix(BOLD) for p in pieces)
    assert set(rebuilt) <= set(line) | {"…", " "}


def test_a_long_roll_keeps_its_total_and_outcome_on_the_first_line():
    dice = ", ".join(str(d % 6 + 1) for d in range(300))
    line = f"ana · 🎲 300d6: [{dice}] = {BOLD}1050{BOLD} → éxito"
    pieces = split_line(line, 200)
    assert pieces[0].endswith(f"… = {BOLD}1050{BOLD} → éxito") and pieces[0].startswith("ana · 🎲 300d6: [1, 2")
    assert all(p.startswith("… ") for p in pieces[1:]) and all(len(p.encode()) <= 200 for p in pieces)
    shown = [int(d) for p in pieces for d in p.replace("[", " ").replace("]", " ").replace(",", " ").split()
             if d.isdigit() and d != "300" and "1050" not in d]
    assert len(shown) == 300  # no die lost or cut in two


def test_words_are_not_broken_when_a_space_is_near():
    pieces = split_line("uno dos tres cuatro cinco seis siete", 12)
    assert pieces == ["uno dos tres", "… cuatro", "… cinco", "… seis", "… siete"]


def test_mute_plan_locks_and_restores_exactly():
    members = [Member("dj", "@dj:irc", False), Member("ana", "@ana:x", False), Member("bob", "@bob:x", True)]
    record = MuteRecord(True, ["@dj:irc", "@ana:x"], moderated=False, voiced=["@bob:x"])
    assert plan(record, False, members) == [("+m", None), ("+v", "dj"), ("+v", "ana"), ("-v", "bob")]
    locked = [Member("dj", "@dj:irc", True), Member("ana", "@ana:x", True), Member("bob", "@bob:x", False)]
    record.locked = False
    assert plan(record, True, locked) == [("-m", None), ("-v", "dj"), ("-v", "ana"), ("+v", "bob")]
    already = MuteRecord(False, [], moderated=True, voiced=[])
    assert plan(already, True, [Member("dj", "@dj:irc", True)]) == [("-v", "dj")]  # +m stays, it was there


def test_mode_lines_respect_the_servers_modes_per_line():
    changes = [("+m", None), ("+v", "a"), ("+v", "b"), ("-v", "c"), ("+v", "d")]
    assert mode_lines(changes, 2) == [["+mvv", "a", "b"], ["-v+v", "c", "d"]]
    assert mode_lines([], 3) == []


def test_mode_lines_that_open_the_floor():
    assert opens("-mv") and opens("-v+v") and opens("-m") and opens("+v")
    assert not opens("+mv") and not opens("-v") and not opens("+m-vv")  # a lock's +mv gives the GM a voice


def test_token_bucket():
    now = [0.0]
    bucket = TokenBucket(3, 2.0, clock=lambda: now[0])
    for _ in range(3):
        assert bucket.wait() == 0
        bucket.take()
    assert bucket.wait() == pytest.approx(2.0)
    now[0] = 1.0
    assert bucket.wait() == pytest.approx(1.0)
    now[0] = 100.0
    assert bucket.wait() == 0 and bucket.tokens == 3  # never more than the burst
    for _ in range(3):
        bucket.take()
    assert bucket.wait(debt=1) == 0  # a line that opens the floor goes ahead of an empty bucket
    bucket.take()
    assert bucket.wait(debt=1) == pytest.approx(2.0) and bucket.wait() == pytest.approx(4.0)  # one line at most


def test_per_sender_says_yes_once_an_interval_to_each_and_remembers_few():
    now = [0.0]
    limit = PerSender(60.0, size=4, clock=lambda: now[0])
    assert limit.allow("a") and limit.allow("b") and not limit.allow("a")
    now[0] = 59.0
    assert not limit.allow("a") and limit.allow("c")
    now[0] = 60.0
    assert limit.allow("a") and limit.allow("b") and not limit.allow("c")
    assert limit.allow("d") and limit.allow("e") and len(limit._last) == 4  # c, the oldest, forgotten
    assert limit.allow("c")


PREFIX = b":ana!~ana@127.0.0.1 PRIVMSG #mesa :"


def test_a_line_cut_inside_a_utf8_character_keeps_its_valid_prefix():
    text = "!tiro 1d6 " + "🎲" * 150
    data = (PREFIX + text.encode())[:505]
    assert len(data) == 505 and data[-1] & 0xC0 == 0x80  # cut inside a character
    assert decode_line(data + b"[CUT]") == data.decode(errors="ignore") + "[CUT]"  # ngircd marks its cuts
    kept = decode_line(data)
    assert kept.startswith(PREFIX.decode() + "!tiro 1d6 🎲🎲") and kept.endswith("🎲") and "ð" not in kept
    tagged = b"@msgid=abc;time=2026-01-01T00:00:00Z " + data
    assert decode_line(tagged).endswith("🎲")


@pytest.mark.parametrize("data", [
    "!tiro 1d6 señal".encode("latin-1"),
    "un café".encode("latin-1"),  # short, so nobody cut it: the é stays
    PREFIX + "año ".encode("latin-1") * 120,  # long, but not UTF-8 well before its end
    PREFIX + "ñ".encode() * 240 + b"\xc3" + b"0123456789",  # more after the broken character than a cut mark
    PREFIX + "ñ".encode() * 240 + b"\xc3\xb1\xb1",  # a stray continuation byte: not a cut
])
def test_lines_that_are_not_utf8_are_latin1(data):
    assert decode_line(data) == data.decode("latin-1")
    assert decode_line("señal ñandú 🎲".encode()) == "señal ñandú 🎲"


IRC = {"irc": {"server": "irc.example.org", "channels": ["#Mesa"]}, "storage": {"path": "/tmp/x"}}


def test_a_config_with_only_irc_is_valid_and_channels_default_to_mute():
    config = parse_config(IRC, env={"ROLBOT_IRC_PASSWORD": "secreta"})
    assert config.matrix_config is None and config.irc is not None
    assert config.irc.port == 6667 and config.irc.password.value == "secreta" and "secreta" not in repr(config)
    assert config.table.for_room("#mesa").enforcement == "mute"


def test_irc_room_settings_and_gms_by_account():
    config = parse_config({**IRC, "bot": {"enforcement": "warn"},
                           "rooms": {"#mesa": {"gms": ["Ana"], "system": "savage"}}}, env={})
    room = config.table.for_room("#mesa")
    assert room.gms == ("@ana:irc",) and room.enforcement == "warn" and room.system == "savage"


@pytest.mark.parametrize("change, words", [
    ({"irc": {"server": "x", "channels": []}}, "channels"),
    ({"irc": {"server": "x", "channels": ["mesa"]}}, "channels"),
    ({"irc": {"server": "x", "channels": ["#m"], "nick": "1bad nick"}}, "nick"),
    ({"irc": {"server": "x", "channels": ["#m"], "port": 70000}}, "port"),
    ({"rooms": {"#mesa": {"enforcement": "redact"}}}, "enforcement"),
])
def test_bad_irc_config_is_explained(change, words):
    with pytest.raises(ConfigError, match=words):
        parse_config({**IRC, **change}, env={})


def test_a_config_needs_a_network():
    with pytest.raises(ConfigError, match=r"\[matrix\] o la sección \[irc\]"):
        parse_config({"storage": {"path": "/tmp/x"}}, env={})


def test_incoming_formatting_codes_are_dropped():
    assert without_formatting("\x0304,12rojo\x03 \x02negrita\x0f \x1fsub\x1f \x04ff0000hex 1,5") == "rojo negrita sub hex 1,5"
