"""Encrypted rooms (issue 11) through a real Synapse, every test client with encryption on."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections import Counter

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nio import ToDeviceError, ToDeviceMessage

from bot.matrix.metrics import MatrixMetrics
from bot.matrix.undecryptable import MAX_KEPT_PER_SENDER
from tests.matrix.conftest import ROOT, Chat, membership, reacted_to, redaction_of, replaces, reply_counts, reply_to
from tests.matrix.test_matrix_restart import BotProcess


async def open_e2e_table(cast, power: int = 50, players: int = 2) -> str:
    """An encrypted room made the way Element makes a private room, the bot invited (and joined on
    its own), the players joined and their characters claimed with encrypted messages."""
    gm, bot_id = cast.gm, cast.bot_user.user_id
    chosen = cast.players[:players]
    room = await gm.create_room(invite=[bot_id, *(p.user_id for p in chosen)], power_users={bot_id: power},
                                encrypted=True)
    await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
    for player, name in zip(chosen, ("McAvoy", "Kurtz", "Lerma")):
        await player.join(room)
        claim = await player.say(room, f"!pj {name}")
        await player.wait_for(room, reacted_to(claim, bot_id), what=f"claim of {name}")
    return room


def encrypted_warning(chat: Chat, room: str, bot_id: str):
    """The bot's lock warning to ``chat``'s user, received encrypted and decrypted: it mentions them and replies to
    nothing (the message it is about was removed)."""
    def pred(ev: dict) -> bool:
        content = ev.get("content") or {}
        return (ev.get("sender") == bot_id and ev.get("event_id") in chat.decrypted
                and "espera a la raya" in content.get("body", "") and "m.relates_to" not in content
                and chat.user_id in (content.get("m.mentions") or {}).get("user_ids", []))
    return pred


def encrypted_reply(chat: Chat, room: str, event_id: str, bot_id: str):
    """The bot's reply to ``event_id``, which ``chat`` received encrypted and decrypted."""
    def pred(ev: dict) -> bool:
        return reply_to(event_id, bot_id)(ev) and ev["event_id"] in chat.decrypted
    return pred


async def test_encrypted_roll_lock_and_emote(e2e_cast, run_bot):
    gm, ana, bruno = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(enforcement="redact")) as running:
        room = await open_e2e_table(e2e_cast)
        roll = await ana.say(room, "!tiro 2d6+1 ataque")
        answer = await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="encrypted roll reply")
        assert roll in ana.decrypted  # the roll itself went out encrypted
        assert answer["content"]["msgtype"] == "m.notice"
        assert running.bot.metrics.part(MatrixMetrics).encrypted_rooms >= 1
        # The GM's encrypted dash line closes the floor; a player's encrypted emote is redacted.
        await gm.say(room, "-----")
        emote = await bruno.say(room, "desenvaina la espada", msgtype="m.emote")
        await bruno.wait_for(room, redaction_of(emote), what="redaction of an encrypted emote")
        warning = await bruno.wait_for(room, encrypted_warning(bruno, room, bot_id), what="encrypted lock warning")
        # A second offender is added to that one notice by an edit, encrypted like any message (issue 30).
        also = await ana.say(room, "y yo")
        await ana.wait_for(room, redaction_of(also), what="redaction of the second offender")
        edit = await bruno.wait_for(room, lambda ev: ev["event_id"] in bruno.decrypted and replaces(
            warning["event_id"], bot_id)(ev), what="the notice's encrypted edit")
        assert edit["content"]["m.new_content"]["body"].startswith("Kurtz y McAvoy · 🤫"), edit["content"]
        await gm.say(room, "-----")
        # The named lock: only McAvoy's player writes.
        await gm.say(room, "---------- (McAvoy)")
        ok = await ana.say(room, "McAvoy habla", msgtype="m.emote")
        talk = await bruno.say(room, "yo también")
        await bruno.wait_for(room, redaction_of(talk), what="redaction during a named lock")
        await gm.say(room, "-----")
        after = await bruno.say(room, "!tiro d20")
        await bruno.wait_for(room, encrypted_reply(bruno, room, after, bot_id), what="roll after the lock")
        assert not any(redaction_of(ok)(ev) for ev in bruno.room_events(room))
    counts = reply_counts(ana.room_events(room), bot_id)
    assert counts[roll] == 1


def mentions(chat: Chat, bot_id: str, user_id: str):
    def pred(ev: dict) -> bool:
        return (ev.get("sender") == bot_id and ev["event_id"] in chat.decrypted
                and user_id in ((ev.get("content") or {}).get("m.mentions") or {}).get("user_ids", []))
    return pred


async def test_encrypted_combat_turns(e2e_cast, run_bot):
    gm, ana, bruno = e2e_cast.gm, *e2e_cast.players[:2]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await open_e2e_table(e2e_cast)
        await gm.say(room, "!combate")
        await gm.say(room, "!turnos McAvoy Kurtz")
        await ana.wait_for(room, mentions(ana, bot_id, ana.user_id), what="encrypted turn ping for ana")
        early = await bruno.say(room, "!tiro d20")
        await bruno.wait_for(room, redaction_of(early), what="out-of-turn encrypted roll redacted")
        talk = await bruno.say(room, "charla fuera de turno")
        mine = await ana.say(room, "!tiro d20")
        await ana.wait_for(room, encrypted_reply(ana, room, mine, bot_id), what="in-turn roll")
        await ana.say(room, "!siguiente")
        await bruno.wait_for(room, mentions(bruno, bot_id, bruno.user_id), what="bruno's turn")
        now = await bruno.say(room, "!tiro d20")
        await bruno.wait_for(room, encrypted_reply(bruno, room, now, bot_id), what="bruno's roll")
        assert not any(redaction_of(talk)(ev) for ev in bruno.room_events(room))


async def test_undecryptable_message_lock_and_one_notice(e2e_cast, run_bot):
    """A message whose key the bot never gets: during a lock it is redacted like any message;
    out of a lock it waits for its key and, when none comes, its sender is told once per room."""
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(enforcement="redact")) as running:
        running.bot.undecryptable.wait = 1.0
        room = await open_e2e_table(e2e_cast, players=1)
        await gm.say(room, "-----")
        locked = await ana.say_undecryptable(room)
        await ana.wait_for(room, redaction_of(locked), what="redaction of an undecryptable message during a lock")
        await gm.say(room, "-----")
        first = await ana.say_undecryptable(room)
        notice = await ana.wait_for(room, encrypted_reply(ana, room, first, bot_id), what="the one notice")
        assert "no he podido leer" in notice["content"]["body"]
        assert ana.user_id in notice["content"]["m.mentions"]["user_ids"]
        second = await ana.say_undecryptable(room)
        await ana.wait_until(lambda: any(row[0] == second and row[4] for row in running.bot.matrix_store.undecrypted()),
                             what="the second message past its wait")
        roll = await ana.say(room, "!tiro d6")
        await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="a readable roll still answered")
        assert not any(reply_to(second, bot_id)(ev) for ev in ana.room_events(room))
        assert not any(redaction_of(first)(ev) or redaction_of(second)(ev) for ev in ana.room_events(room))
        assert running.bot.metrics.part(MatrixMetrics).undecryptable == 3
        metrics = running.bot.metrics.render()
        assert "rolbot_undecryptable_total 3" in metrics and "rolbot_encrypted_rooms 1" in metrics
    counts = reply_counts(ana.room_events(room), bot_id)
    # The notice replies to its message; the lock warning names Ana and replies to no removed message (issue 29).
    assert counts[first] == 1 and counts[locked] == 0
    assert any(encrypted_warning(ana, room, bot_id)(ev) for ev in ana.room_events(room))


async def test_the_bot_device_is_cross_signed(e2e_cast, run_bot, synapse):
    gm = e2e_cast.gm
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()) as running:
        device = running.bot.client.device_id
    keys = synapse._http("POST", "/_matrix/client/v3/keys/query", {"device_keys": {bot_id: []}},
                         token=gm.user.access_token)
    master = keys["master_keys"][bot_id]
    ssk = keys["self_signing_keys"][bot_id]
    (master_id, master_pub), = master["keys"].items()
    (ssk_id, ssk_pub), = ssk["keys"].items()
    assert master["usage"] == ["master"] and ssk["usage"] == ["self_signing"]
    verify(master_pub, ssk["signatures"][bot_id][master_id], ssk)
    device_keys = keys["device_keys"][bot_id][device]
    verify(ssk_pub, device_keys["signatures"][bot_id][ssk_id], device_keys)
    state = e2e_cast.storage / "cross_signing.json"
    assert state.stat().st_mode & 0o777 == 0o600
    crypto_store = e2e_cast.storage / f"{bot_id}_{device}.db"
    assert crypto_store.stat().st_mode & 0o777 == 0o600
    assert device in json.loads(state.read_text())["signed_devices"]
    # A second start signs nothing again and keeps the same master key.
    async with run_bot(e2e_cast.config()):
        pass
    again = synapse._http("POST", "/_matrix/client/v3/keys/query", {"device_keys": {bot_id: []}},
                          token=gm.user.access_token)
    assert again["master_keys"][bot_id]["keys"] == master["keys"]


def verify(public: str, signature: str, obj: dict) -> None:
    """Raises unless ``signature`` is ``public``'s ed25519 signature of ``obj`` (canonical JSON)."""
    def unb64(text: str) -> bytes:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    body = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    Ed25519PublicKey.from_public_bytes(unb64(public)).verify(unb64(signature), data)


async def test_secret_roll_in_an_encrypted_dm(e2e_cast, run_bot):
    gm = e2e_cast.gm
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await open_e2e_table(e2e_cast, players=0)
        secret = await gm.say(room, "!tiro d20 oculta")
        await gm.wait_for(room, encrypted_reply(gm, room, secret, bot_id), what="public notice of a hidden roll")
        await gm.wait_until(lambda: bool(gm.invites), what="invite to the direct room")
        dm = next(iter(gm.invites))
        await gm.join(dm)
        result = await gm.wait_for(dm, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.message",
                                   what="the hidden result, decrypted")
        assert result["event_id"] in gm.decrypted
        assert any(ev.get("type") == "m.room.encryption" for ev in gm.room_events(dm)) or gm.client.rooms[dm].encrypted


async def test_room_turning_encryption_on_mid_game(e2e_cast, run_bot):
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await gm.create_room(invite=[bot_id, ana.user_id], power_users={bot_id: 50})
        await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
        await ana.join(room)
        clear = await ana.say(room, "!tiro d6")
        answer = await ana.wait_for(room, reply_to(clear, bot_id), what="reply in the clear")
        assert answer["event_id"] not in ana.decrypted
        await gm.client.room_put_state(room, "m.room.encryption", {"algorithm": "m.megolm.v1.aes-sha2"})
        await ana.wait_until(lambda: room in ana.client.rooms and ana.client.rooms[room].encrypted,
                             what="ana sees the room encrypted")
        secret = await ana.say(room, "!tiro d8")
        await ana.wait_for(room, encrypted_reply(ana, room, secret, bot_id), what="encrypted reply after the switch")


async def test_sigterm_and_kill_9_in_an_encrypted_room(e2e_cast, tmp_path):
    """The bot process keeps its device and crypto store across SIGTERM and kill -9: it still
    decrypts new messages, players still decrypt its replies, no roll is answered twice."""
    ana = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    bot = BotProcess(e2e_cast, tmp_path)
    await bot.start()
    try:
        room = await open_e2e_table(e2e_cast, players=1)
        rolls = [await ana.say(room, f"!tiro 3d6 ráfaga {i}") for i in range(12)]

        def answered() -> Counter:
            return reply_counts(ana.room_events(room), bot_id)

        await ana.wait_until(lambda: sum(answered()[r] for r in rolls) >= 3, what="first replies")
        bot.kill9()
        down = [await ana.say(room, f"!tiro d8 caído {i}") for i in range(3)]
        await bot.start()
        await ana.wait_until(lambda: all(answered()[r] >= 1 for r in rolls + down), timeout=30,
                             what="every roll answered after the crash")
        assert bot.terminate() == 0
        stopped = await ana.say(room, "!tiro d10 parado")
        await bot.start()
        marker = await ana.say(room, "!tiro d4 marca")
        await ana.wait_for(room, encrypted_reply(ana, room, marker, bot_id), what="marker reply")
        await ana.wait_for(room, encrypted_reply(ana, room, stopped, bot_id), what="reply to a roll sent while stopped")
        counts = answered()
        everything = rolls + down + [stopped, marker]
        assert all(counts[r] == 1 for r in everything), counts
        replies = [ev for ev in ana.room_events(room) if ev.get("sender") == bot_id
                   and reply_to(ev.get("content", {}).get("m.relates_to", {}).get("m.in_reply_to", {})
                                .get("event_id", ""), bot_id)(ev)]
        assert replies and all(ev["event_id"] in ana.decrypted for ev in replies)
        assert all(r in ana.decrypted for r in everything)
        assert not ana.undecrypted - set(everything)
        assert bot.terminate() == 0
    finally:
        if bot.proc and bot.proc.poll() is None:
            bot.proc.kill()


async def send_with_withheld_key(chat: Chat, room: str, text: str) -> tuple[str, dict]:
    """An encrypted message whose room key is shared with nobody; the key (at the message's index)."""
    olm = chat.client.olm
    await chat.sync_once(0)
    olm.create_outbound_group_session(room)
    session = olm.outbound_group_sessions[room]
    key = {"algorithm": "m.megolm.v1.aes-sha2", "room_id": room, "session_id": session.id,
           "session_key": session.session_key}
    session.shared = True
    _, content = chat.client.encrypt(room, "m.room.message", {"msgtype": "m.text", "body": text})
    chat.client.invalidate_outbound_session(room)  # the chat's own later messages use a session shared as usual
    data = chat.synapse._http("PUT", f"/_matrix/client/v3/rooms/{room}/send/m.room.encrypted/w{time.monotonic_ns()}",
                              content, token=chat.user.access_token)
    return data["event_id"], key


async def share_withheld_key(chat: Chat, user_id: str, key: dict) -> None:
    """Send ``key`` to every device of ``user_id`` as an Olm-encrypted ``m.room_key``."""
    olm = chat.client.olm
    await chat.keys_upkeep()
    missing = olm.get_missing_sessions([user_id])
    if missing:
        await chat.client.keys_claim(missing)
    for device in olm.device_store.active_user_devices(user_id):
        session = olm.session_store.get(device.curve25519)
        content = olm._olm_encrypt(session, device, "m.room_key", key)
        resp = await chat.client.to_device(ToDeviceMessage("m.room.encrypted", user_id, device.id, content))
        assert not isinstance(resp, ToDeviceError), resp


async def test_a_key_that_comes_after_a_restart(e2e_cast, run_bot):
    """A roll the bot cannot decrypt waits (no notice, no answer); its key arrives while the bot is
    down; after the restart the roll is answered, once, also after one more restart."""
    ana = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    config = e2e_cast.config()
    async with run_bot(config) as running:
        room = await open_e2e_table(e2e_cast, players=1)
        late, key = await send_with_withheld_key(ana, room, "!tiro d12 tardía")
        await ana.wait_until(lambda: any(row[0] == late for row in running.bot.matrix_store.undecrypted()),
                             what="the bot keeps the message it cannot read")
        assert running.bot.metrics.part(MatrixMetrics).undecryptable == 1
    assert not any(reply_to(late, bot_id)(ev) for ev in ana.room_events(room))
    await share_withheld_key(ana, bot_id, key)
    async with run_bot(config) as running:
        await ana.wait_for(room, encrypted_reply(ana, room, late, bot_id), what="the late roll answered")
        await ana.wait_until(lambda: not running.bot.matrix_store.undecrypted(), what="the kept message forgotten")
    async with run_bot(config):
        marker = await ana.say(room, "!tiro d4 marca")
        await ana.wait_for(room, encrypted_reply(ana, room, marker, bot_id), what="marker reply")
    counts = reply_counts(ana.room_events(room), bot_id)
    assert counts[late] == 1 and counts[marker] == 1, counts


async def test_access_token_only_then_setup_crypto(e2e_cast, run_bot, synapse, tmp_path, caplog):
    """With only an access token the bot cannot cross-sign (user-interactive auth needs the
    password): it says how in one log line; ``--setup-crypto`` with the password in the
    environment then signs the same device and exits 0."""
    bot_id = e2e_cast.bot_user.user_id
    token_only = {"password": None, "access_token": e2e_cast.bot_user.access_token}
    with caplog.at_level("INFO", logger="rolbot.matrix"):
        async with run_bot(e2e_cast.config(matrix=token_only)) as running:
            device = running.bot.client.device_id
    hints = [r.getMessage() for r in caplog.records if "--setup-crypto" in r.getMessage()]
    assert len(hints) == 1 and "ROLBOT_PASSWORD" in hints[0]
    assert e2e_cast.bot_user.password not in caplog.text and e2e_cast.bot_user.access_token not in caplog.text
    keys = synapse._http("POST", "/_matrix/client/v3/keys/query", {"device_keys": {bot_id: []}},
                         token=e2e_cast.gm.user.access_token)
    assert bot_id not in keys.get("master_keys", {})
    config = e2e_cast.write_config(tmp_path / "rolbot.toml", matrix=token_only)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ROLBOT_PASSWORD": e2e_cast.bot_user.password}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config), "--setup-crypto"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    assert e2e_cast.bot_user.password not in done.stderr + done.stdout
    keys = synapse._http("POST", "/_matrix/client/v3/keys/query", {"device_keys": {bot_id: []}},
                         token=e2e_cast.gm.user.access_token)
    (ssk_id, ssk_pub), = keys["self_signing_keys"][bot_id]["keys"].items()
    device_keys = keys["device_keys"][bot_id][device]
    verify(ssk_pub, device_keys["signatures"][bot_id][ssk_id], device_keys)


async def test_encrypted_edits_and_media_count_as_writing(e2e_cast, run_bot):
    """Decrypted edits and media are judged like clear ones: during a lock both are redacted; an
    encrypted edit out of a lock is never run as a command."""
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config(enforcement="redact")) as running:
        room = await open_e2e_table(e2e_cast, players=1)
        original = await ana.say(room, "hola")
        edit = await ana.send(room, "m.room.message", {
            "msgtype": "m.text", "body": "* !tiro d6", "m.new_content": {"msgtype": "m.text", "body": "!tiro d6"},
            "m.relates_to": {"rel_type": "m.replace", "event_id": original}})
        await gm.say(room, "-----")
        image = await ana.send(room, "m.room.message", {
            "msgtype": "m.image", "body": "mapa.png",
            "file": {"url": "mxc://localhost/x", "key": {"kty": "oct", "alg": "A256CTR", "ext": True,
                                                         "k": "a" * 43, "key_ops": ["encrypt", "decrypt"]},
                     "iv": "AAAAAAAAAAAAAAAAAAAAAA", "hashes": {"sha256": "a" * 43}, "v": "v2"}})
        late_edit = await ana.send(room, "m.room.message", {
            "msgtype": "m.text", "body": "* adiós", "m.new_content": {"msgtype": "m.text", "body": "adiós"},
            "m.relates_to": {"rel_type": "m.replace", "event_id": original}})
        await ana.wait_for(room, redaction_of(image), what="redaction of an encrypted image during a lock")
        await ana.wait_for(room, redaction_of(late_edit), what="redaction of an encrypted edit during a lock")
        assert image in ana.decrypted and late_edit in ana.decrypted
        assert running.bot.store.handled.seen(edit)
        assert not any(reply_to(edit, bot_id)(ev) for ev in ana.room_events(room))
        assert running.bot.metrics.part(MatrixMetrics).undecryptable == 0


async def test_a_flood_of_unreadable_messages_is_capped(e2e_cast, run_bot):
    """A member cannot make the bot keep unreadable messages without end: past the cap per sender
    and room they are judged at once, as mere writing (outside a lock: nothing to do)."""
    ana = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()) as running:
        room = await open_e2e_table(e2e_cast, players=1)
        flood = [await ana.say_undecryptable(room) for _ in range(MAX_KEPT_PER_SENDER + 5)]
        roll = await ana.say(room, "!tiro d6 tras la riada")
        await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="a readable roll after the flood")
        assert running.bot.matrix_store.kept_undecrypted(room, ana.user_id) == MAX_KEPT_PER_SENDER
        assert all(running.bot.store.handled.seen(event_id) for event_id in flood[MAX_KEPT_PER_SENDER:])
        assert not any(running.bot.store.handled.seen(event_id) for event_id in flood[:MAX_KEPT_PER_SENDER])


async def test_a_key_that_comes_after_the_floor_changed_is_not_judged(e2e_cast, run_bot):
    """A roll sent before the GM's dash line whose key comes after it is neither rolled nor redacted:
    it is judged only against the floor it was sent to."""
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()) as running:
        room = await open_e2e_table(e2e_cast, players=1)
        late, key = await send_with_withheld_key(ana, room, "!tiro d20 antes de la raya")
        await ana.wait_until(lambda: any(row[0] == late for row in running.bot.matrix_store.undecrypted()),
                             what="the bot keeps the message it cannot read")
        dash = await gm.say(room, "-----")
        await gm.wait_for(room, lambda ev: ev.get("type") == "m.reaction" and ev.get("sender") == bot_id
                          and (ev.get("content") or {}).get("m.relates_to", {}).get("event_id") == dash,
                          what="the lock confirmed")
        await share_withheld_key(ana, bot_id, key)
        await ana.wait_until(lambda: running.bot.store.handled.seen(late), what="the late roll settled")
        marker = await gm.say(room, "!tiro d4 marca")
        await gm.wait_for(room, encrypted_reply(gm, room, marker, bot_id), what="marker reply")
    assert not any(reply_to(late, bot_id)(ev) or redaction_of(late)(ev) for ev in ana.room_events(room))


async def test_a_players_secret_roll_reaches_only_the_player_and_the_gm_until_revealed(e2e_cast, run_bot):
    """A player's ``!tiro ... oculta`` in an encrypted room: the result goes in encrypted direct rooms
    to the player and to the GM (the room's creator, known to the bot by its power alone); the room
    sees only that a roll was made, until the GM's ``!revelar``."""
    gm, ana = e2e_cast.gm, e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    async with run_bot(e2e_cast.config()):
        room = await open_e2e_table(e2e_cast, players=1)
        secret = await ana.say(room, "!tiro 1d20+3 oculta")
        notice = await ana.wait_for(room, encrypted_reply(ana, room, secret, bot_id), what="public notice")
        assert "tirada oculta" in notice["content"]["body"]
        results = {}
        for chat in (ana, gm):
            await chat.wait_until(lambda c=chat: bool(c.invites), what="invite to the direct room")
            dm = next(iter(chat.invites))
            await chat.join(dm)
            result = await chat.wait_for(dm, lambda ev: ev.get("sender") == bot_id and ev.get("type") == "m.room.message",
                                         what="the secret result, decrypted")
            assert result["event_id"] in chat.decrypted and chat.client.rooms[dm].encrypted
            results[chat.user_id] = result["content"]["body"]
        assert results[ana.user_id] == results[gm.user_id] and "(oculta) McAvoy" in results[ana.user_id]
        shown = results[ana.user_id].split("· ", 1)[1]
        assert all(shown not in ev.get("content", {}).get("body", "") for ev in ana.room_events(room))
        reveal = await gm.say(room, "!revelar")
        revealed = await ana.wait_for(room, encrypted_reply(ana, room, reveal, bot_id), what="the reveal")
        assert "revelada" in revealed["content"]["body"] and shown in revealed["content"]["body"]
