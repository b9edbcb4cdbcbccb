"""The table on a real ngircd: rolls, /me, locks by +m with the right voices, turns, secret rolls,
long replies, encodings."""

from __future__ import annotations

import re

from tests.irc.conftest import CHANNEL, Player, RunningIrcBot, irc_config, wait_until


async def op_bot(dj: Player, running: RunningIrcBot) -> None:
    mark = len(dj.lines)
    dj.send_raw(f"MODE {CHANNEL} +o rolbot")
    await dj.wait_for(lambda m: m.command == "MODE" and m.params[1:] == ["+o", "rolbot"], "rolbot's +o", mark)
    await wait_until(lambda: running.bot.channels.bot_is_op(running.bot.channels.get("#mesa")), "the bot to see its +o")


async def channel_state(player: Player) -> tuple[str, dict[str, str]]:
    """The server's word: the channel's modes and each member's prefix (``@``, ``+`` or none)."""
    mark = len(player.lines)
    player.send_raw(f"MODE {CHANNEL}")
    modes = await player.wait_for(lambda m: m.command == "324", "the channel modes", mark)
    player.send_raw(f"NAMES {CHANNEL}")
    names = await player.wait_for(lambda m: m.command == "353", "the names", mark)
    members = {}
    for entry in names.text.split():
        prefix = "".join(c for c in entry[:2] if c in "@+")
        members[entry[len(prefix):]] = prefix
    return modes.params[2], members


async def wait_state(player: Player, moderated: bool, members: dict[str, str]) -> None:
    """Ask the server after each mode change the bot makes, until the channel is as expected."""
    for _ in range(10):
        mark = len(player.lines)
        modes, seen = await channel_state(player)
        if ("m" in modes) == moderated and seen == members:
            return
        await player.wait_for(lambda m: m.command == "MODE" and m.nick == "rolbot", "a mode change", mark)
    raise AssertionError(f"channel never reached m={moderated} {members}; last {modes} {seen}")


async def test_roll_action_and_character(ngircd, table_cast, tmp_path):
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        mark = ana.say(CHANNEL, "!tiro 2d6+1 ataque")
        reply = await ana.notice_from("rolbot", mark, "2d6+1")
        # The highlight is the nick, not the id, and the label that repeats it is gone (issue 29 item 9).
        assert reply.params[0] == CHANNEL and reply.text.startswith("ana: 🎲 2d6+1 (ataque)"), reply.text
        assert reply.formatted.endswith("= \x02" + reply.text.rsplit("= ", 1)[1] + "\x02")  # bold as in HTML
        ana.act(CHANNEL, "saca la espada")
        mark, seen = ana.say(CHANNEL, "!pj Lyra"), len(dj.lines)
        await ana.notice_from("rolbot", mark, "✅", target="ana")  # bookkeeping: a ✅ to its sender only
        assert not any(m.nick == "rolbot" and "Lyra" in m.text for m in dj.lines[seen:])
        mark = ana.say(CHANNEL, "!tiro 1d20")
        assert "Lyra · 🎲 1d20" in (await ana.notice_from("rolbot", mark, "1d20")).text
        assert running.metrics.events_handled == 4


async def test_narration_lock_by_moderation_with_the_right_voices(ngircd, table_cast, tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    dj.send_raw(f"MODE {CHANNEL} +v bob")
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        await op_bot(dj, running)
        mark = ana.say(CHANNEL, "!pj Lyra")
        await ana.notice_from("rolbot", mark, "✅", target="ana")
        before = {"dj": "@", "rolbot": "@", "bob": "+", "ana": ""}
        await wait_state(dj, False, before)

        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "🔒", target="dj")  # the GM's confirmation, in private
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": ""})
        mark = ana.say(CHANNEL, "pero yo quiero hablar")
        refused = await ana.wait_for(lambda m: m.command == "404", "the server's refusal", mark)
        assert refused.params[1] == CHANNEL

        mark = dj.say(CHANNEL, "——-")  # a phone's dashes close it
        await dj.notice_from("rolbot", mark, "🔓", target="dj")
        await wait_state(dj, False, before)  # restored exactly: bob's voice back, dj's added voice gone

        mark = len(ana.lines)
        dj.say(CHANNEL, "----- (lyra)")
        await ana.notice_from("rolbot", mark, "Tiene la palabra Lyra")
        await wait_state(dj, True, {"dj": "@+", "rolbot": "@", "bob": "", "ana": "+"})
        mark = len(bob.lines)
        ana.act(CHANNEL, "habla por fin")
        await bob.wait_for(lambda m: m.command == "PRIVMSG" and "habla por fin" in m.text, "ana's action", mark)
        dj.say(CHANNEL, "-----")
        await wait_state(dj, False, before)


async def test_warn_mode_and_no_op(ngircd, table_cast, tmp_path):
    """Without +o the bot says so once and only warns; the lock is still the table's."""
    dj, ana = table_cast["dj"], table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = dj.say(CHANNEL, "-----")
        said = await dj.notice_from("rolbot", mark, "+o", target=CHANNEL)
        assert "No soy operador" in said.text
        mark = ana.say(CHANNEL, "hola")
        warning = await ana.notice_from("rolbot", mark, "espera a la raya", target=CHANNEL)
        assert warning.text.startswith("ana: 🤫 El máster está narrando") and "retirado" not in warning.text
        assert (await channel_state(dj))[0] == "+"


async def test_combat_turns_and_secret_roll(ngircd, table_cast, tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        for who, line in ((ana, "!pj Lyra"), (bob, "!pj Kor"), (dj, "!combate")):
            mark = who.say(CHANNEL, line)
            await who.notice_from("rolbot", mark)
        mark = len(ana.lines)
        dj.say(CHANNEL, "!turnos Lyra Kor")
        turn = await ana.notice_from("rolbot", mark, "▶️ Lyra")
        assert turn.text.startswith("ana: ")  # the player whose turn starts is named by nick
        mark = bob.say(CHANNEL, "!tiro 1d20")
        assert "turno de Lyra" in (await bob.notice_from("rolbot", mark, "espera")).text
        mark = len(bob.lines)
        ana.say(CHANNEL, "!siguiente")
        await bob.notice_from("rolbot", mark, "▶️ Kor")
        mark = bob.say(CHANNEL, "!tiro 1d20")
        await bob.notice_from("rolbot", mark, "Kor · 🎲 1d20")

        marks = len(ana.lines), len(bob.lines)
        mark = dj.say(CHANNEL, "!tiro 1d100 oculta")
        secret = await dj.notice_from("rolbot", mark, "1d100", target="dj")
        assert "(oculta)" in secret.text
        public = await ana.notice_from("rolbot", marks[0], "tirada oculta", target=CHANNEL)
        assert "1d100" not in public.text
        await bob.notice_from("rolbot", marks[1], "tirada oculta", target=CHANNEL)
        assert not any("1d100" in m.text for m in ana.lines[marks[0]:] + bob.lines[marks[1]:] if m.nick == "rolbot")

        # A player's secret roll (Kor's turn): the result goes to the player and the GM only, until !revelar.
        marks = len(dj.lines), len(ana.lines)
        mark = bob.say(CHANNEL, "!tiro 1d12 oculta")
        mine = await bob.notice_from("rolbot", mark, "1d12", target="bob")
        gm_copy = await dj.notice_from("rolbot", marks[0], "1d12", target="dj")
        assert mine.text.rsplit(" = ", 1)[-1] == gm_copy.text.rsplit(" = ", 1)[-1]
        await ana.notice_from("rolbot", marks[1], "tirada oculta", target=CHANNEL)
        assert not any("1d12" in m.text for m in ana.lines[marks[1]:] if m.nick == "rolbot")
        mark = len(ana.lines)
        dj.say(CHANNEL, "!revelar")
        revealed = await ana.notice_from("rolbot", mark, "1d12", target=CHANNEL)
        assert mine.text.rsplit(" = ", 1)[-1].split()[0] in revealed.text


async def test_long_replies_are_split_under_512_bytes(ngircd, table_cast, tmp_path):
    ana = table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = ana.say(CHANNEL, "!ayuda")
        await ana.notice_from("rolbot", mark, "tiro")
        terms = "+".join(["20d6"] * 12)
        mark = ana.say(CHANNEL, f"!tiro {terms} ñandú")
        first = await ana.notice_from("rolbot", mark, "20d6")
        await ana.wait_for(lambda m: m.nick == "rolbot" and m.text.startswith("… ") and m.text.endswith("]"),
                           "the last line of the roll", mark)
        # From the roll's first line: the rest of the help (sent first, flood-limited) may still come after ``mark``.
        start = ana.lines.index(first, mark)
        lines = [m for m in ana.lines[start:] if m.command == "NOTICE" and m.nick == "rolbot"]
        assert len(lines) >= 2 and all(len(m.raw) + 2 <= 512 for m in lines)
        total = int(first.text.rsplit(" = ", 1)[1])  # the total on the first line
        assert 240 <= total <= 1440
        dice = [int(d) for m in lines for d in re.findall(r"\b\d\b", m.text.split(": ", 2)[-1].rsplit(" = ", 1)[0])]
        assert len(dice) == 240 and sum(dice) == total  # every die shown once, none cut in two


async def test_latin1_client_and_control_codes(ngircd, table_cast, tmp_path):
    ana = table_cast["ana"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")):
        mark = ana.say(CHANNEL, "!tiro 1d6 señal".encode("latin-1"))
        reply = await ana.notice_from("rolbot", mark, "1d6")
        assert "(señal)" in reply.text
        mark = ana.say(CHANNEL, "!tiro 1d8 \x0304rojo\x03 \x02negrita\x0f <b>x</b>")
        reply = await ana.notice_from("rolbot", mark, "1d8")
        assert "(rojo negrita <b>x</b>)" in reply.text and not any(c in reply.formatted for c in "\x03\x0f")


async def test_a_whisper_to_a_player_goes_to_them_and_to_the_gms_only(ngircd, table_cast, tmp_path):
    """How a player's secret roll (issue 13) is delivered: the core whispers to the roller, asking for the
    room's GMs too (``to_room_gms``); IRC sends a private NOTICE to them and to the channel's GMs (operators
    and listed GMs present). A whisper that does not ask (a refusal, issue 30) goes to the player alone."""
    from bot.core.events import Send
    from bot.core.render import Message

    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        mark = ana.say(CHANNEL, "hola")  # the bot knows ana from her first line
        await wait_until(lambda: running.bot.people.nick_of(running.bot.people.get("ana").user_id) == "ana", "ana known")
        marks = len(dj.lines), len(ana.lines), len(bob.lines)
        ana_id = running.bot.people.get("ana").user_id
        running.bot.deliver([Send("#mesa", Message("solo tuyo 5", "solo tuyo 5"), private_to=ana_id)])
        running.bot.deliver([Send("#mesa", Message("secreto 17", "secreto <b>17</b>"), private_to=ana_id,
                                  to_room_gms=True, secret=True)])
        assert (await ana.notice_from("rolbot", marks[1], "secreto 17", target="ana")).formatted == "secreto \x0217\x02"
        await ana.notice_from("rolbot", marks[1], "solo tuyo 5", target="ana")
        await dj.notice_from("rolbot", marks[0], "secreto 17", target="dj")
        assert not any("solo tuyo" in m.text for m in dj.lines[marks[0]:])  # sent before the secret: out before it
        mark = bob.say(CHANNEL, "!tiro 1d2")
        await bob.notice_from("rolbot", mark, "1d2")  # sent after the whisper: bob has had time to get it
        assert not any("secreto" in m.text or "solo tuyo" in m.text for m in bob.lines[marks[2]:])


async def test_hostile_lines_and_notices_during_a_lock(ngircd, table_cast, tmp_path):
    dj, ana, bob = table_cast["dj"], table_cast["ana"], table_cast["bob"]
    async with RunningIrcBot(irc_config(ngircd.port, tmp_path / "st")) as running:
        for raw in ("\x01ACTION\x01", "\x01VERSION\x01", "\x01", "!" + "ñ" * 200, "!tiro " + "9" * 300,
                    "!pj " + "\u202e" * 50, "-" * 400):
            ana.say(CHANNEL, raw)
        mark = ana.say(CHANNEL, "!tiro 1d4")
        await ana.notice_from("rolbot", mark, "1d4")  # still answering, in order
        assert running.metrics.errors == 0

        mark = dj.say(CHANNEL, "-----")
        await dj.notice_from("rolbot", mark, "No soy operador")
        mark = len(bob.lines)
        bob.send_raw(f"NOTICE {CHANNEL} :un notice también es escribir")
        warning = await bob.notice_from("rolbot", mark, "espera a la raya")
        assert warning.text.startswith("bob: ")
