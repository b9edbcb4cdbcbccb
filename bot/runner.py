"""``rolbot run``: the one composition root. It builds the store, the table (with the games registry), the
web server and every transport of the registry (``bot/transports``) the config names (Matrix, IRC or
both; those with a set-up alone for ``--setup-crypto``), held in one ``TransportHub``; ``/healthz`` waits
for all of them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
from importlib.metadata import version

from aiohttp import web

from bot.config import Config
from bot.core.store import Store
from bot.core.store.lock import database_lock
from bot.core.table import Table
from bot.games import GAMES
from bot.metrics import Metrics
from bot.screen import Screen
from bot.transport import RunMode, SetsUp, TransportFailed, TransportHub, TransportRegistry
from bot.transports import TRANSPORTS
from bot.web import start_web
from bot.web.screen_page import ScreenPages

log = logging.getLogger("rolbot")

LIBRARY_LOGGERS = {"aiohttp": logging.INFO}
"""The libraries' loggers and their least level unless ``[logging] libraries = "debug"``, besides each
transport's own (``TransportDescription.loggers``)."""
READY_POLL_S = 0.25
"""How often the run looks whether every transport is connected, to say it once (``announce_ready``)."""
STORE_SQL_LOGGER = "peewee"
"""nio's crypto store runs on peewee, whose DEBUG lines are its SQL with the pickled keys as
parameters: never below INFO, whatever the config says."""


class SecretFilter(logging.Filter):
    """Masks the config's secrets in every record a handler writes: a library at DEBUG may print
    what it sends (pydle logs ``PRIVMSG NickServ :IDENTIFY <password>``)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "***")
            record.msg, record.args = message, None
        return True


def config_secrets(config: Config, transports: TransportRegistry = TRANSPORTS) -> list[str]:
    """The config's secrets as they may be written, each configured transport's as it says (IRC's
    password also inside a SASL ``AUTHENTICATE``)."""
    return [secret for t in transports if t.name in config.transports
            for secret in t.config.secrets(config.transports[t.name])]


def configure_logging(config: Config, transports: TransportRegistry = TRANSPORTS) -> None:
    level = getattr(logging, config.log_level, logging.INFO)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    secrets = SecretFilter(config_secrets(config, transports))
    for handler in logging.getLogger().handlers:
        for old in [f for f in handler.filters if isinstance(f, SecretFilter)]:
            handler.removeFilter(old)
        handler.addFilter(secrets)
    logging.getLogger().setLevel(level)
    for name, least in {**LIBRARY_LOGGERS, **transports.loggers()}.items():
        logging.getLogger(name).setLevel(logging.DEBUG if config.log_libraries == "debug" else max(least, level))
    logging.getLogger(STORE_SQL_LOGGER).setLevel(max(logging.INFO, level))


def run(config: Config, setup_only: bool = False, reset_cross_signing: bool = False) -> int:
    configure_logging(config)
    with database_lock(config.db_path):  # one bot per state directory: its device, its crypto store
        return asyncio.run(run_transports(config, setup_only=setup_only,
                                          reset_cross_signing=reset_cross_signing))


def build_table(config: Config, rng: random.Random | None = None, transports: TransportRegistry = TRANSPORTS
                ) -> Table:
    """The run's one store and table, over the shipped games, with each transport's wording of the core
    messages it words its own way."""
    os.makedirs(config.storage_path, mode=0o700, exist_ok=True)
    return Table(Store(config.db_path), config.table, rng=rng, games=GAMES, templates_dir=config.templates_dir,
                 transports=transports.templates(), editing=transports.editing())


def build_hub(config: Config, table: Table, metrics: Metrics, mode: RunMode | None = None,
              transports: TransportRegistry = TRANSPORTS) -> TransportHub:
    """Every transport the config names (for a set-up, those that have one: Matrix's crypto)."""
    mode = mode or RunMode()
    hub = TransportHub(table, metrics)
    for transport in transports:
        if transport.name in config.transports and (transport.sets_up or not mode.setup_only):
            hub.add(transport.build(config, table, metrics, mode))
    return hub


async def serve_web(config: Config, table: Table, metrics: Metrics, screen: Screen | None = None
                    ) -> web.AppRunner | None:
    """The ``[web]`` server (``/healthz``, ``/metrics``, the table page and, with ``screen``, the GM's
    screen), if the config binds one."""
    hp = config.web_host_port()
    if not hp:
        return None
    return await start_web(metrics, *hp, table=table, trusted_proxy=config.web_trusted_proxy,
                           groups=[ScreenPages(screen)] if screen is not None else ())


def web_address(config: Config) -> str:
    """Where the web server listens, and the public address its links use: for the log."""
    hp = config.web_host_port()
    if hp is None:
        return "off"
    host, port = hp
    public = config.table.defaults.public_url
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}" + (f" (public {public})" if public else "")


async def announce_ready(config: Config, hub: TransportHub, metrics: Metrics) -> None:
    """One INFO line once every transport is connected: the version, the transports, the web address (before,
    a startup error is the run's one line)."""
    while not metrics.healthy:
        await asyncio.sleep(READY_POLL_S)
    names = [transport.name for transport in hub.transports if transport.name in config.transports]
    log.info("rolbot %s ready: %s; web %s", version("rolbot"), ", ".join(names), web_address(config))


async def run_transports(config: Config, stop: asyncio.Event | None = None, setup_only: bool = False,
                         reset_cross_signing: bool = False, transports: TransportRegistry = TRANSPORTS) -> int:
    """Run until SIGTERM/SIGINT (or ``stop`` is set); 1 if a transport failed for good, or (``setup_only``)
    if a set-up did not work (the bot's device could not be cross-signed)."""
    table = build_table(config, transports=transports)
    metrics = transports.metrics()
    hub = build_hub(config, table, metrics, RunMode(setup_only, reset_cross_signing), transports)
    screen = None if setup_only else Screen(hub)
    if screen is not None:
        hub.add(screen)
    server = None
    loop = asyncio.get_running_loop()
    watcher = asyncio.ensure_future(stop.wait()) if stop is not None else None
    failed = False
    tasks: list[asyncio.Future[None]] = []
    announcing: asyncio.Future[None] | None = None
    try:
        server = await serve_web(config, table, metrics, screen)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, hub.stop)
        if watcher is not None:
            watcher.add_done_callback(lambda _: hub.stop())
        tasks = [asyncio.ensure_future(transport.run()) for transport in hub.transports]
        if not setup_only:
            announcing = asyncio.ensure_future(announce_ready(config, hub, metrics))
        for done in asyncio.as_completed(tasks):
            try:
                await done
            except TransportFailed as err:
                log.error("%s", err)
                failed = True
            hub.stop()  # one transport ended: the others stop too
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        for waiting in (watcher, announcing):
            if waiting is not None:
                waiting.cancel()
        hub.stop()  # a transport's startup error ends the run too: the others (the screen) stop with it
        with contextlib.suppress(Exception):
            await asyncio.gather(*tasks, return_exceptions=True)
        if server is not None:
            await server.cleanup()
        table.store.close()
    if setup_only:
        return 0 if not failed and all(t.setup_ok for t in hub.transports if isinstance(t, SetsUp)) else 1
    return 1 if failed else 0
