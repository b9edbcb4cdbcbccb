"""The account's cross-signing identity is the account's, not the bot's to replace (issue 19, item 4).

A lost state folder, or an account first used in Element, made the bot upload a new master key over
the one the server had, without a word: every user who had verified the account saw its identity
change. Now the bot keeps running without cross-signing, says so in one log line and in
``/metrics``, and ``rolbot run --reset-cross-signing`` replaces the identity on purpose. Real Synapse."""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import subprocess
import sys
import urllib.error

from bot.matrix.crosssign import KEY_NAMES, SigningKey, key_objects
from bot.matrix.metrics import MatrixMetrics
from tests.matrix.conftest import PASSWORD, ROOT
from tests.matrix.test_matrix_e2e import verify

UPLOAD = "/_matrix/client/v3/keys/device_signing/upload"


def server_keys(synapse, bot_id: str, token: str) -> dict:
    return synapse._http("POST", "/_matrix/client/v3/keys/query", {"device_keys": {bot_id: []}}, token=token)


def master_of(synapse, bot_id: str, token: str) -> str | None:
    master = server_keys(synapse, bot_id, token).get("master_keys", {}).get(bot_id)
    return next(iter(master["keys"].values())) if master else None


def set_up_in_element(synapse, user) -> str:
    """Cross-signing keys uploaded for the account by another client, as Element does on first login."""
    keys = {name: SigningKey(os.urandom(32)) for name in KEY_NAMES}
    body = key_objects(user.user_id, keys)
    try:
        synapse._http("POST", UPLOAD, body, token=user.access_token)
    except urllib.error.HTTPError as err:
        assert err.code == 401
        body["auth"] = {"type": "m.login.password", "identifier": {"type": "m.id.user", "user": user.user_id},
                        "password": PASSWORD, "session": json.loads(err.read())["session"]}
        synapse._http("POST", UPLOAD, body, token=user.access_token)
    return keys["master"].public


def conflict_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.WARNING and "--reset-cross-signing" in r.getMessage()]


async def test_an_identity_made_in_element_is_kept(e2e_cast, run_bot, synapse, caplog):
    bot = e2e_cast.bot_user
    token = e2e_cast.gm.user.access_token
    element_master = set_up_in_element(synapse, bot)
    with caplog.at_level(logging.INFO, logger="rolbot.matrix"):
        async with run_bot(e2e_cast.config()) as running:
            assert master_of(synapse, bot.user_id, token) == element_master
            assert running.bot.metrics.part(MatrixMetrics).cross_signing_conflict
            assert "rolbot_cross_signing_conflict 1" in running.bot.metrics.render()
    line, = conflict_lines(caplog)
    assert element_master in line
    assert master_of(synapse, bot.user_id, token) == element_master


async def test_a_lost_state_folder_does_not_replace_the_identity(e2e_cast, run_bot, synapse, caplog):
    bot = e2e_cast.bot_user
    token = e2e_cast.gm.user.access_token
    async with run_bot(e2e_cast.config()) as running:
        assert not running.bot.metrics.part(MatrixMetrics).cross_signing_conflict
        assert "rolbot_cross_signing_conflict 0" in running.bot.metrics.render()
    first = master_of(synapse, bot.user_id, token)
    assert first is not None
    shutil.rmtree(e2e_cast.storage)
    with caplog.at_level(logging.INFO, logger="rolbot.matrix"):
        async with run_bot(e2e_cast.config()) as running:
            assert running.bot.metrics.part(MatrixMetrics).cross_signing_conflict
    assert len(conflict_lines(caplog)) == 1
    assert master_of(synapse, bot.user_id, token) == first


async def test_reset_cross_signing_replaces_it_on_purpose(e2e_cast, synapse, tmp_path):
    bot = e2e_cast.bot_user
    token = e2e_cast.gm.user.access_token
    element_master = set_up_in_element(synapse, bot)
    config = e2e_cast.write_config(tmp_path / "rolbot.toml")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config), "--setup-crypto",
                           "--reset-cross-signing"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads((e2e_cast.storage / "cross_signing.json").read_text())
    new_master = master_of(synapse, bot.user_id, token)
    assert new_master not in (None, element_master)
    assert new_master == SigningKey(base64_seed(state["master"])).public
    device = json.loads((e2e_cast.storage / "matrix_session.json").read_text())["device_id"]
    keys = server_keys(synapse, bot.user_id, token)
    (ssk_id, ssk_pub), = keys["self_signing_keys"][bot.user_id]["keys"].items()
    device_keys = keys["device_keys"][bot.user_id][device]
    verify(ssk_pub, device_keys["signatures"][bot.user_id][ssk_id], device_keys)
    replaced = [line for line in done.stderr.splitlines() if "replaced" in line]
    assert len(replaced) == 1 and new_master in replaced[0] and element_master in replaced[0], done.stderr[-2000:]


def base64_seed(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))
