"""``rolbot run``: every transport the config names (Matrix, IRC or both) over one table core and one
store; one web server whose ``/healthz`` waits for all of them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from typing import Any

from bot.config import Config
from bot.core.store import Store
from bot.core.table import Table
from bot.web import Metrics, start_web

log = logging.getLogger("rolbot")


def run(config: Config, setup_only: bool = False) -> int:
    from bot.matrix import run_bot

    if config.irc is None or setup_only:  # Matrix alone (the crypto set-up is Matrix's)
        return run_bot(config, setup_only)
    logging.basicConfig(level=getattr(logging, config.log_level, logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("nio").setLevel(logging.ERROR)
    logging.getLogger("rolbot.irc.pydle").setLevel(logging.ERROR)  # pydle's "unknown command" chatter
    return asyncio.run(run_transports(config))


async def run_transports(config: Config, stop: asyncio.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT (or ``stop`` is set); 1 if a transport failed for good."""
    from bot.irc.bot import IrcBot
    from bot.matrix import MatrixBot, PermanentError

    os.makedirs(config.storage_path, mode=0o700, exist_ok=True)
    store = Store(config.db_path)
    table = Table(store, config.table, templates_dir=config.templates_dir)
    metrics = Metrics()
    bots: list[Any] = []
    if config.matrix_config is not None:
        bots.append(MatrixBot(config, table, store, metrics=metrics, serve_web=False))
    if config.irc is not None:
        bots.append(IrcBot(config, table, store, metrics))
    web = None
    hp = config.web_host_port()
    if hp:
        web = await start_web(metrics, *hp, table=table, trusted_proxy=config.web_trusted_proxy)

    def stop_all() -> None:
        for bot in bots:
            bot.stop()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop_all)
    watcher = asyncio.ensure_future(stop.wait()) if stop is not None else None
    if watcher is not None:
        watcher.add_done_callback(lambda _: stop_all())
    failed = False
    tasks = [asyncio.ensure_future(bot.run()) for bot in bots]
    try:
        for done in asyncio.as_completed(tasks):
            try:
                await done
            except PermanentError as err:
                log.error("%s", err)
                failed = True
            stop_all()  # one transport ended: the others stop too
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        if watcher is not None:
            watcher.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*tasks, return_exceptions=True)
        if web is not None:
            await web.cleanup()
        store.db.conn.close()
    return 1 if failed else 0
