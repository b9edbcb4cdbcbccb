"""A wrong password against a real Synapse: one Spanish line and exit 2 (issue 10, item 18)."""

from __future__ import annotations

import subprocess
import sys

from tests.matrix.conftest import ROOT, free_port, membership, reply_to


async def test_a_wrong_password_is_one_line_and_exit_2(cast, tmp_path):
    config = cast.write_config(tmp_path / "rolbot.toml", matrix={"password": "no-es-esta"})
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "rechazado el inicio de sesión" in lines[0], proc.stderr
    assert cast.bot_user.user_id in lines[0]


async def test_a_homeserver_named_by_its_server_is_found_through_well_known(cast, run_bot):
    """``homeserver`` names only the server (here a plain web server, 404 for the Matrix API) whose
    ``/.well-known/matrix/client`` points at the real Synapse (issue 19, item 7)."""
    from aiohttp import web

    async def answer(request: web.Request) -> web.Response:
        if request.path == "/.well-known/matrix/client":
            return web.json_response({"m.homeserver": {"base_url": cast.synapse.url + "/"}})
        return web.Response(status=404, text="<html>no</html>", content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    gm, bot_id = cast.gm, cast.bot_user.user_id
    try:
        async with run_bot(cast.config(matrix={"homeserver": f"http://127.0.0.1:{port}"})) as running:
            assert running.bot.session.homeserver == cast.synapse.url
            room = await gm.create_room(invite=[bot_id])
            await gm.wait_for(room, membership(bot_id, "join"), what="bot join")
            roll = await gm.say(room, "!tiro d6")
            await gm.wait_for(room, reply_to(roll, bot_id), what="a roll answered")
    finally:
        await runner.cleanup()


async def test_https_to_synapses_plain_port_is_its_own_error(cast, tmp_path):
    """The self-hoster's slip on a real Synapse: ``https://`` in front of its plain-HTTP listener."""
    plain = cast.synapse.url
    config = cast.write_config(tmp_path / "rolbot.toml", matrix={"homeserver": plain.replace("http://", "https://")})
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "sin TLS" in lines[0] and f"«{plain}»" in lines[0], proc.stderr
