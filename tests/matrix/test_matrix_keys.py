"""The bot's keys stay out of its log and off nio's default pickle key (issue 19, item 3), on a real
Synapse: ``rolbot run`` with ``[logging] level = "DEBUG"`` in an encrypted room."""

from __future__ import annotations

import json
import sqlite3

from nio.crypto import OlmAccount

from bot.matrix.crosssign import KEY_NAMES
from bot.matrix.session import NIO_DEFAULT_KEY, PICKLE_KEY_FILE
from tests.matrix.test_matrix_e2e import encrypted_reply, open_e2e_table
from tests.matrix.test_matrix_restart import BotProcess

STORE_TABLES = ("accounts", "olmsessions", "megolminboundsessions", "devicekeys", "encryptedrooms")


async def test_a_debug_log_has_no_key_no_pickle_and_no_store_sql(e2e_cast, tmp_path):
    ana = e2e_cast.players[0]
    bot_id = e2e_cast.bot_user.user_id
    bot = BotProcess(e2e_cast, tmp_path)
    with open(bot.config_path, "a", encoding="utf-8") as fh:
        fh.write('[logging]\nlevel = "DEBUG"\n')
    await bot.start()
    try:
        room = await open_e2e_table(e2e_cast, players=1)
        roll = await ana.say(room, "!tiro d6")
        await ana.wait_for(room, encrypted_reply(ana, room, roll, bot_id), what="an encrypted reply")
        assert bot.terminate() == 0
    finally:
        if bot.proc is not None and bot.proc.poll() is None:
            bot.proc.kill()
            bot.proc.wait()
    log = bot.log.read_text(encoding="utf-8")
    assert " DEBUG " in log  # the level took effect
    storage = e2e_cast.storage
    session = json.loads((storage / "matrix_session.json").read_text())
    db = sqlite3.connect(storage / f"{bot_id}_{session['device_id']}.db")
    (account, shared), = db.execute("SELECT account, shared FROM accounts")
    secrets = [account, *(row[0] for row in db.execute("SELECT session FROM olmsessions")),
               *(row[0] for row in db.execute("SELECT session FROM megolminboundsessions"))]
    db.close()
    assert len(secrets) >= 3  # the account, an Olm session with ana's device, her room's Megolm session
    cross = json.loads((storage / "cross_signing.json").read_text())
    secrets += [cross[name] for name in KEY_NAMES]
    secrets += [(storage / PICKLE_KEY_FILE).read_text().strip(), session["access_token"]]
    for secret in secrets:
        text = secret.decode() if isinstance(secret, bytes) else secret
        probe = text if len(text) <= 64 else text[32:96]  # a pickle's first bytes are a fixed header
        assert probe not in log, "a key or pickle reached the log"
    lowered = log.lower()
    for table in STORE_TABLES:
        assert f'"{table}"' not in lowered, f"an SQL statement of the crypto store ({table}) reached the log"
    try:
        OlmAccount.from_pickle(account if isinstance(account, bytes) else account.encode(), NIO_DEFAULT_KEY,
                               bool(shared))
    except ValueError:
        pass
    else:
        raise AssertionError("the crypto store opens with matrix-nio's default key")
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in storage.iterdir() if p.is_file()}
    assert set(modes.values()) == {"0o600"}, modes
