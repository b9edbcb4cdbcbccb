"""IRC keeps the protocol (issue 19): every lock sequence leaves the channel's modes as the table says,
lines said before the channel is synced are answered, CTCP replies wait in the token bucket, a line the
server cut inside a UTF-8 character keeps its text, and a clean stop logs no error."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from tests.irc.conftest import CHANNEL, Player, RunningIrcBot, connect_player, irc_config, wait_until
from tests.irc.test_irc_basic import op_bot, wait_state

LOCK_LINES = {"plain": "-----", "named Lyra": "----- (Lyra)", "named Kor": "---------- (kor)"}
"""A bare dash line is a plain (opening) line while the floor is open and the closing line while it is
locked; two characters, so a named lock that replaces another named lock is covered too."""
OBSERVERS = 4
"""ngircd holds a client's next command a second after a MODE or NAMES query: each table's queries
rotate over this many clients that are not in the channel."""


def protocol_after(floor: str | None, line: str) -> str | None:
    """docs/protocol.md#1.3 and #1.4: None (open), ``narration`` or the character holding the floor."""
    if line == "plain":
        return None if floor else "narration"
    return line.removeprefix("named ")


@dataclass
class LockTable:
    """One channel with its own bot and GM: the tables run side by side (ngircd paces each client)."""

    channel: str
    bot_nick: str
    gm: Player
    observers: list[Player]
    running: RunningIrcBot
    queries: int = 0

    def expected(self) -> tuple[bool, dict[str, str]]:
        """What the table's floor says the channel must be: +m with voices for the GM and the named
        player under a lock; the modes from before the first lock (bob's own voice) when open."""
        lock = self.running.table.room(self.channel).lock
        if lock is None:
            return False, {self.gm.nick: "@", self.bot_nick: "@", "bob": "+", "ana": ""}
        owner = self.running.bot.people.nick_of(lock.owner) if lock.owner else None
        voiced = {self.gm.nick, owner}
        return True, {nick: ("@" if nick in (self.gm.nick, self.bot_nick) else "") + ("+" if nick in voiced else "")
                      for nick in (self.gm.nick, self.bot_nick, "bob", "ana")}

    async def server_state(self) -> tuple[bool, dict[str, str]]:
        """The server's word: MODE and NAMES asked by two observers."""
        mode_by, names_by = (self.observers[(2 * self.queries + i) % OBSERVERS] for i in (0, 1))
        self.queries += 1
        marks = len(mode_by.lines), len(names_by.lines)
        mode_by.send_raw(f"MODE {self.channel}")
        names_by.send_raw(f"NAMES {self.channel}")
        modes = await mode_by.wait_for(lambda m: m.command == "324" and m.params[1] == self.channel, "modes",
                                       marks[0])
        names = await names_by.wait_for(lambda m: m.command == "353" and m.params[2] == self.channel, "names",
                                        marks[1])
        members = {}
        for entry in names.text.split():
            prefix = "".join(c for c in entry[:2] if c in "@+")
            members[entry[len(prefix):]] = prefix
        return "m" in modes.params[2], members

    async def say(self, text: str) -> None:
        """The GM's dash line, then the bot's confirmation to the GM: the bot sends its MODE lines before
        that notice, so once it is here the server has applied them."""
        mark = self.gm.say(self.channel, text)
        await self.gm.notice_from(self.bot_nick, mark, "", target=self.gm.nick)

    async def run(self, sequences: list[tuple[str, ...]], checked: set[tuple[str, ...]]) -> None:
        """Each sequence from an open floor, the table and the channel compared after every line."""
        for sequence in sequences:
            floor: str | None = None
            for i, line in enumerate(sequence):
                await self.say(LOCK_LINES[line])
                floor = protocol_after(floor, line)
                lock = self.running.table.room(self.channel).lock
                said = None if lock is None else (lock.character or "narration")
                assert said == floor, f"{sequence[:i + 1]}: the table says {said}, the protocol {floor}"
                seen = await self.server_state()
                assert seen == self.expected(), f"{sequence[:i + 1]}: the server has {seen} with the floor {floor}"
                checked.add(sequence[:i + 1])
            if floor is not None:  # back to an open floor for the next sequence: the channel as before
                await self.say(LOCK_LINES["plain"])
                seen = await self.server_state()
                assert self.running.table.room(self.channel).lock is None and seen == self.expected(), sequence


async def lock_table(port: int, storage: Path, n: int, players: list[Player]) -> LockTable:
    channel, bot_nick = f"#mesa{n}", f"rolbot{n}"
    gm = await connect_player(port, f"dj{n}")
    await gm.join(channel)  # first in: operator
    for player in players:
        await player.join(channel)
    gm.send_raw(f"MODE {channel} +v bob")
    observers = await asyncio.gather(*(connect_player(port, f"o{n}x{i}") for i in range(OBSERVERS)))
    config = irc_config(port, storage, nick=bot_nick, channels=[channel], flood_burst=6, flood_interval_s=0.2)
    running = RunningIrcBot(config)
    await running.__aenter__()
    mark = len(gm.lines)
    gm.send_raw(f"MODE {channel} +o {bot_nick}")
    await gm.wait_for(lambda m: m.command == "MODE" and m.params[1:] == ["+o", bot_nick], "the bot's +o", mark)
    await wait_until(lambda: running.bot.channels.bot_is_op(running.bot.channels.get(channel)), "the bot to see its +o")
    for player, name in zip(players, ("Lyra", "Kor"), strict=True):
        mark = player.say(channel, f"!pj {name}")
        await player.notice_from(bot_nick, mark, "✅", target=player.nick)
    table = LockTable(channel, bot_nick, gm, list(observers), running)
    assert await table.server_state() == table.expected()
    return table


async def test_every_lock_sequence_up_to_three_lines_keeps_the_modes_as_the_table_says(ngircd, tmp_path):
    """All 27 sequences of three lines, each checked after every line (so all 39 of one to three lines),
    on three tables side by side: one per first line."""
    players = [await connect_player(ngircd.port, nick) for nick in ("ana", "bob")]
    tables: list[LockTable] = []
    try:
        tables = list(await asyncio.gather(*(lock_table(ngircd.port, tmp_path / f"st{n}", n, players)
                                             for n in range(len(LOCK_LINES)))))
        checked: set[tuple[str, ...]] = set()
        sequences = list(itertools.product(LOCK_LINES, repeat=3))
        await asyncio.gather(*(table.run([s for s in sequences if s[0] == first], checked)
                               for table, first in zip(tables, LOCK_LINES, strict=True)))
        assert len(checked) == 3 + 9 + 27
    finally:
        for table in tables:
            await table.running.stop()
            for client in (table.gm, *table.observers):
                await client.close()
        for player in players:
            await player.close()


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
        assert not running.bot.channels.get("#mesa").synced  # said before the bot's WHO was answered
        answer = await ana.notice_from("rolbot", marks[0], "antes de tiempo")
        assert answer.text.startswith("ana: 🎲 1d6")  # a roll, not a lock warning: the order kept
        await dj.notice_from("rolbot", marks[1], "🔒", target="dj")
        assert running.table.room("#mesa").lock is not None
    finally:
        await running.stop()


async def test_ctcp_replies_wait_in_the_bucket_and_come_once_a_minute_per_sender(ngircd, tmp_path):
    """Six clients each ask seven CTCP queries (three kinds answered, two not) and one in the channel,
    then a roll: the roll is answered first, and each client gets one CTCP reply, to its first query."""
    clients = list(await asyncio.gather(*(connect_player(ngircd.port, f"c{i}") for i in range(6))))
    for client in clients:
        await client.join(CHANNEL)
    try:
        async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
            roller = clients[0]
            marks = [len(c.lines) for c in clients]
            queries = ["VERSION", "PING 12345", "TIME", "VERSION", "CLIENTINFO", "FINGER", "VERSION"]
            for i, client in enumerate(clients):  # each client starts with another query
                for query in queries[i % 3:] + queries[:i % 3]:
                    client.send_raw(f"PRIVMSG rolbot :\x01{query}\x01")
                client.send_raw(f"PRIVMSG {CHANNEL} :\x01VERSION\x01")
            await asyncio.gather(*(c.writer.drain() for c in clients))
            sent = time.monotonic()
            mark = roller.say(CHANNEL, "!tiro 1d6 entre ctcp")
            await roller.wait_for(lambda m: m.command == "NOTICE" and m.nick == "rolbot" and "entre ctcp" in m.text,
                               "the roll's answer", mark, timeout=60)
            waited = time.monotonic() - sent
            assert waited < 5, f"the roll waited {waited:.1f} s behind CTCP replies"
            await wait_until(lambda: not running.bot.lines.waiting, "the bot's queue empty", timeout=60)
            mark = roller.say(CHANNEL, "!tiro 1d4 después")
            await roller.notice_from("rolbot", mark, "después")
            expected = ["\x01VERSION rolbot", "\x01PING 12345\x01", "\x01TIME "]
            for i, (client, start) in enumerate(zip(clients, marks, strict=True)):
                def ctcp_replies(client: Player = client, start: int = start) -> list[str]:
                    return [m.text for m in client.lines[start:]
                            if m.command == "NOTICE" and m.nick == "rolbot" and m.formatted.startswith("\x01")]
                # Each client reads its own connection: its reply may be read after the roller's line.
                await wait_until(lambda: bool(ctcp_replies()), f"{client.nick}'s CTCP reply", timeout=20)
                replies = ctcp_replies()
                assert len(replies) == 1 and replies[0].startswith(expected[i % 3]), f"{client.nick}: {replies}"
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
            await ana.notice_from("rolbot", start, f"({'a' * extra}🎲🎲")
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


async def test_a_mode_change_the_server_refuses_makes_the_bot_read_the_channel_again(ngircd, table_cast, tmp_path,
                                                                                    caplog):
    """The bot counts its MODE changes as made when it sends them; one the server refuses (482: the GM
    took the bot's +o while the line waited in the bucket) must not stay counted: the lock is applied
    once +o is back."""
    dj, ana = table_cast["dj"], table_cast["ana"]
    caplog.set_level(logging.INFO, "rolbot.irc")
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st", flood_burst=1, flood_interval_s=1.0)) as running:
        await op_bot(dj, running)
        mark = ana.say(CHANNEL, "!tiro 1d4")  # its answer takes the bucket's one line: the MODE waits a second
        await ana.notice_from("rolbot", mark, "1d4")
        mark = dj.say(CHANNEL, "-----")
        dj.send_raw(f"MODE {CHANNEL} -o rolbot")
        await dj.notice_from("rolbot", mark, "+o", target="dj")  # asked for +o back
        await op_bot(dj, running)
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": ""})
        assert any("refused" in r.getMessage() for r in caplog.records)  # the case happened: the server said 482
