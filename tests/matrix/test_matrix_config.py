"""``rolbot run`` configuration and the health/metrics endpoint (no homeserver needed)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.config import ConfigError, load_config, parse_config
from bot.transports import TRANSPORTS
from bot.web import make_app
from tests.matrix.conftest import ROOT

GOOD = {
    "matrix": {"homeserver": "http://127.0.0.1:8008", "user_id": "@rolbot:localhost", "password": "s3creto",
               "allowed_inviters": ["@dj:localhost"]},
    "storage": {"path": "/tmp/rolbot-test"},
    "bot": {"gms": ["@dj:localhost"], "enforcement": "mute"},
    "rooms": {"!abc:localhost": {"system": "savage", "gms": ["@otra:localhost"], "ooc_in_locks": True}},
}


def test_config_overrides_and_hidden_secrets():
    config = parse_config(GOOD, env={"ROLBOT_PASSWORD": "de-entorno"})
    assert config.matrix.password.value == "de-entorno"
    assert "de-entorno" not in repr(config) and "s3creto" not in repr(config)
    room = config.table.for_room("!abc:localhost")
    assert room.system == "savage" and room.enforcement == "mute" and room.ooc_in_locks
    assert room.gms == ("@dj:localhost", "@otra:localhost")
    assert config.table.for_room("!otra:localhost").system is None  # the registry's first game
    assert config.matrix.allowed_inviters == ("@dj:localhost",)


@pytest.mark.parametrize("change, words", [
    ({"matrix": {"homeserver": "matrix.org", "user_id": "@a:b", "password": "x"}}, "http"),
    ({"matrix": {"homeserver": "http://x", "user_id": "rolbot", "password": "x"}}, "user_id"),
    ({"matrix": {"homeserver": "http://x", "user_id": "@a:b"}}, "password"),
    ({"bot": {"enforcement": "ban"}}, "enforcement"),
    ({"bot": {"system": "dnd"}}, "sistema"),
    ({"rooms": {"!a:b": {"color": "rojo"}}}, "color"),
    ({"bot": {"enforcment": "warn"}}, "enforcment"),
])
def test_bad_config_is_explained_in_spanish(change, words):
    with pytest.raises(ConfigError, match=words):
        parse_config({**GOOD, **change}, env={})


def test_rolbot_run_with_a_bad_config_exits_2(tmp_path):
    bad = tmp_path / "rolbot.toml"
    bad.write_text('[matrix]\nhomeserver = "http://x"\nuser_id = "@a:b"\npassword = "x"\n'
                   '[storage]\npath = "/tmp/x"\n[bot]\nenforcement = "nada"\n')
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(bad)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "configuración no válida" in proc.stderr and "enforcement" in proc.stderr
    missing = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(tmp_path / "no.toml")],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no existe" in missing.stderr
    with pytest.raises(ConfigError, match="TOML"):
        (tmp_path / "roto.toml").write_text("[matrix\n")
        load_config(str(tmp_path / "roto.toml"))


async def test_healthz_and_metrics(aiohttp_client):
    metrics = TRANSPORTS.metrics()  # as the runner makes it: every transport's rows
    client = await aiohttp_client(make_app(metrics))
    assert (await client.get("/healthz")).status == 503
    metrics.transports["matrix"] = True
    metrics.replies = 3
    assert (await client.get("/healthz")).status == 200
    resp = await client.get("/metrics")
    text = await resp.text()
    assert resp.status == 200 and resp.content_type == "text/plain"
    assert "# TYPE rolbot_replies_total counter" in text and "rolbot_replies_total 3" in text
    for name in ("rolbot_events_handled_total", "rolbot_redactions_total", "rolbot_errors_total",
                 "rolbot_sync_lag_seconds"):
        assert name in text



def test_templates_dir_must_be_an_existing_folder(tmp_path):
    assert parse_config({**GOOD, "templates": {"dir": str(tmp_path)}}).templates_dir == str(tmp_path)
    assert parse_config(GOOD).templates_dir is None
    with pytest.raises(ConfigError) as err:
        parse_config({**GOOD, "templates": {"dir": str(tmp_path / "no-existe")}})
    assert err.value.code == "bad_templates_dir"
    assert "[templates]" in str(err.value)
