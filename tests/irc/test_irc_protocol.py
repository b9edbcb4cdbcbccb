"""IRC keeps the protocol (issue 19): every lock sequence leaves the channel's modes as the table says,
lines said before the channel is synced are answered, CTCP replies wait in the token bucket, a line the
server cut inside a UTF-8 character keeps its text, and a clean stop logs no error."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time

from tests.irc.conftest import CHANNEL, Player, RunningIrcBot, connect_player, irc_config, wait_until
from tests.irc.test_irc_basic import channel_state, op_bot

LOCK_LINES = {"plain": "-----", "named Lyra": "----- (Lyra)", "named Kor": "---------- (kor)"}
"""A bare dash line is a plain (opening) line while the floor is open and the closing line while it is
locked; two characters, so a named lock that replaces another named lock is covered too."""
OWNERS = {"Lyra": "ana", "Kor": "bob"}
BEFORE = {"dj": "@", "rolbot": "@", "bob": "+", "ana": ""}
"""The channel before any lock: bob has a voice of his own, ana none."""


def protocol_after(floor: str | None, line: str) -> str | None:
    """DESIGN.md 1.3-1.4: None (open), ``narration`` or the character holding the floor."""
    if line == "plain":
        return None if floor else "narration"
    return line.removeprefix("named ")


def channel_for(running: RunningIrcBot) -> tuple[bool, dict[str, str]]:
    """What the table's floor says the channel must be: +m with voices for the GM and the named
    player under a lock; the modes from before the first lock when open."""
    lock = running.table.room("#mesa").lock
    if lock is None:
        return False, BEFORE
    voiced = {"dj"} | ({running.bot.nick_of(lock.owner) or "?"} if lock.owner else set())
    return True, {nick: ("@" if nick in ("dj", "rolbot") else "") + ("+" if nick in voiced else "")
                  for nick in BEFORE}


async def say_lock_line(dj: Player, text: str) -> None:
    """The GM's dash line, then the bot's confirmation to the GM: the bot sends its MODE lines before
    that notice, so once it is here the server has applied them."""
    mark = dj.say(CHANNEL, text)
    await dj.notice_from("rolbot", mark, "", target="dj")


async def test_every_lock_sequence_up_to_three_lines_keeps_the_modes_as_the_table_says(ngircd, table_cast,
                                                                                         tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    dj.send_raw(f"MODE {CHANNEL} +v bob")
    config = irc_config(ngircd.port, tmp_path / "st", flood_burst=6, flood_interval_s=0.2)
    async with RunningIrcBot(config) as running:
        await op_bot(dj, running)
        for who, line in ((ana, "!pj Lyra"), (bob, "!pj Kor")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark, line.split()[1])
        assert await channel_state(dj) == ("+", BEFORE)
        checked: set[tuple[str, ...]] = set()
        # Each sequence of three is checked after every line: its prefixes are all the shorter sequences.
        for sequence in itertools.product(LOCK_LINES, repeat=3):
            floor: str | None = None
            for i, line in enumerate(sequence):
                await say_lock_line(dj, LOCK_LINES[line])
                floor = protocol_after(floor, line)
                lock = running.table.room("#mesa").lock
                said = None if lock is None else (lock.character or "narration")
                assert said == floor, f"{sequence[:i + 1]}: the table says {said}, the protocol {floor}"
                moderated, voices = channel_for(running)
                modes, members = await channel_state(dj)
                assert (("m" in modes), members) == (moderated, voices), \
                    f"{sequence[:i + 1]}: the server has {modes} {members} with the floor {floor}"
                checked.add(sequence[:i + 1])
            if floor is not None:  # back to an open floor for the next sequence: the channel as before
                await say_lock_line(dj, LOCK_LINES["plain"])
                assert await channel_state(dj) == ("+", BEFORE), f"{sequence} then a closing line"
        assert len(checked) == 3 + 9 + 27


async def test_lines_said_before_the_channel_is_synced_are_held_and_answered(ngircd, table_cast, tmp_path):
    """With one line per second the bot's MODE and WHO after its JOIN take two seconds: a roll and the
    operator's dash line said in that time are handled once the channel is synced, in order, the
    operator known as a GM."""
    dj, ana = table_cast["dj"], table_cast["ana"]
    running = RunningIrcBot(irc_config(ngircd.port, tmp_path / "st", flood_burst=1, flood_interval_s=1.0))
    mark = len(ana.lines)
    running.task = asyncio.ensure_future(running.bot.run())
    try:
        await ana.wait_for(lambda m: m.command == "JOIN" and m.nick == "rolbot", "the bot's JOIN", mark)
        marks = ana.say(CHANNEL, "!tiro 1d6 antes de tiempo"), dj.say(CHANNEL, "-----")
        assert not running.bot.channels["#mesa"].synced  # said before the bot's WHO was answered
        answer = await ana.notice_from("rolbot", marks[0], "antes de tiempo")
        assert answer.text.startswith("ana: ana · 🎲 1d6")  # a roll, not a lock warning: the order kept
        await dj.notice_from("rolbot", marks[1], "🔒", target="dj")
        assert running.table.room("#mesa").lock is not None
    finally:
        await running.stop()


async def test_ctcp_replies_wait_in_the_bucket_and_come_once_a_minute_per_sender(ngircd, tmp_path):
    clients = [await connect_player(ngircd.port, f"c{i}") for i in range(6)]
    for client in clients:
        await client.join(CHANNEL)
    try:
        async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
            ana = clients[0]
            marks = [len(c.lines) for c in clients]
            for client in clients:
                for query in ("VERSION", "PING 12345", "TIME", "VERSION", "CLIENTINFO", "FINGER", "VERSION"):
                    client.send_raw(f"PRIVMSG rolbot :\x01{query}\x01")
                client.send_raw(f"PRIVMSG {CHANNEL} :\x01VERSION\x01")
            await asyncio.gather(*(c.writer.drain() for c in clients))
            sent = time.monotonic()
            mark = ana.say(CHANNEL, "!tiro 1d6 entre ctcp")
            await ana.wait_for(lambda m: m.command == "NOTICE" and m.nick == "rolbot" and "entre ctcp" in m.text,
                               "the roll's answer", mark, timeout=60)
            waited = time.monotonic() - sent
            assert waited < 5, f"the roll waited {waited:.1f} s behind CTCP replies"
            await wait_until(lambda: not running.bot._lines, "the bot's queue empty", timeout=60)
            mark = ana.say(CHANNEL, "!tiro 1d4 después")
            await ana.notice_from("rolbot", mark, "después")
            for client, start in zip(clients, marks, strict=True):
                replies = [m.text for m in client.lines[start:]
                           if m.command == "NOTICE" and m.nick == "rolbot" and m.formatted.startswith("\x01")]
                kinds = sorted(r.strip("\x01").split(" ", 1)[0] for r in replies)
                assert kinds == ["PING", "TIME", "VERSION"], f"{client.nick}: {replies}"
                assert "\x01PING 12345\x01" in replies and any(r.startswith("\x01VERSION rolbot") for r in replies)
    finally:
        for client in clients:
            await client.close()


async def test_a_line_cut_by_the_server_inside_a_character_keeps_its_text(ngircd, table_cast, tmp_path):
    """A 510-byte line is longer once the server puts ``:ana!~ana@127.0.0.1`` before it: ngircd cuts it
    (and marks it ``[CUT]``) inside a four-byte character for three of four offsets."""
    ana = table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        for extra in range(4):
            head = f"PRIVMSG {CHANNEL} :!tiro 1d6 {'a' * extra}".encode()
            line = head + "🎲".encode() * ((510 - len(head)) // 4)
            start = len(ana.lines)
            ana.send_raw(line)
            await ana.notice_from("rolbot", start, f" {'a' * extra}🎲🎲")
            mark = ana.say(CHANNEL, f"!tiro 1d2 fin{extra}")  # every piece of the answer came before this one
            await ana.notice_from("rolbot", mark, f"fin{extra}")
            answer = [m.text for m in ana.lines[start:mark] if m.command == "NOTICE" and m.nick == "rolbot"]
            assert answer and all("ð" not in t and "Ÿ" not in t and "\ufffd" not in t for t in answer), answer


async def test_a_clean_stop_logs_no_error(ngircd, table_cast, tmp_path, caplog):
    ana = table_cast["ana"]
    caplog.set_level(logging.DEBUG)
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = ana.say(CHANNEL, "!tiro 1d6")
        await ana.notice_from("rolbot", mark, "1d6")
    assert any("QUIT" in r.getMessage() for r in caplog.records)  # the stop itself was logged
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []
