"""The IRC transport (pydle): channel messages in, the table's actions out.

``IrcBot`` connects (and reconnects with backoff), hands the table the events the ``Translator`` queues,
one by one, and the table's actions to the ``Outbox``; the other concerns are its parts:

- who is who (accounts, nicks): ``bot.irc.identity``;
- the channels' members and modes, and who is GM there (channel operators and the ids the config
  lists): ``bot.irc.channels``, kept up to date by ``bot.irc.reader`` from each line as it is parsed;
- lines to events: ``bot.irc.translate``; CTCP queries: ``bot.irc.ctcp``;
- actions to lines (``ACTIONS``): ``bot.irc.outbox``; the mute as ``+m``/``+v``: ``bot.irc.mute``;
- every line through one token bucket, replies waiting there joined: ``bot.irc.sending``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
import time

from bot.config import Config
from bot.core.errors import StartupError
from bot.core.events import Action
from bot.core.table import Table
from bot.irc.channels import Channels, GameMasters
from bot.irc.client import ConnectError, Connection, IrcClient
from bot.irc.config import IrcConfig
from bot.irc.ctcp import CtcpAnswers
from bot.irc.errors import IrcStartupError
from bot.irc.flood import TokenBucket
from bot.irc.identity import People
from bot.irc.metrics import IrcMetrics
from bot.irc.mute import Mute
from bot.irc.outbox import Outbox
from bot.irc.reader import LineReader
from bot.irc.sending import LineQueue
from bot.irc.store import IrcStore
from bot.irc.translate import Translator
from bot.metrics import Metrics
from bot.transport import Backoff, Capabilities, handle_until_committed, pause, pending_of

log = logging.getLogger("rolbot.irc")

MAX_RECONNECT_S = 60.0
STABLE_S = 30.0
"""A connection that lasted this long was good: the next reconnection waits the least again."""
UNRESOLVED_TRIES = 3
UNRESOLVED_WINDOW_S = 30.0
"""Until the server was reached once, a name that does not resolve is tried this many times over this
window, then the run stops (``server_unresolved``); once reached, a lost network is retried forever."""
QUIT_WAIT_S = 5.0
RECLAIM_NICK_S = 30.0
"""Under another nick (ours was taken), ask for ours back this often (and whenever its holder leaves)."""


class IrcBot:
    """The IRC transport (``bot.transport.Transport``): it owns the channels of its config."""

    name = "irc"

    def __init__(self, config: Config, table: Table, metrics: Metrics) -> None:
        assert config.irc is not None
        self.config = config
        self.icfg: IrcConfig = config.irc
        self.capabilities = Capabilities(network_redacts=False, bot_can_mute=True,
                                         messages_per_second=1 / self.icfg.flood_interval_s)
        """IRC takes no line back; ``+m`` mutes; the bucket lets a line out every ``flood_interval_s``."""
        self.table = table
        self.irc_store = IrcStore(table.store)
        self.metrics = metrics
        self._stopping = False
        self._stop_event = asyncio.Event()
        self._reached = False
        """The server was reached once: from then on a name that does not resolve is a lost network."""
        self._unresolved_tries = 0
        self.connection = Connection(self.icfg.nick)
        self.lines = LineQueue(TokenBucket(self.icfg.flood_burst, self.icfg.flood_interval_s), self.connection,
                               metrics, table.actions_done)
        self.people = People(self.irc_store)
        self.channels = Channels(self.icfg.channels, self.connection)
        gms = GameMasters(self.people, self.connection, table.gms_of)
        self.mute = Mute(self.irc_store, self.channels, self.people, gms, self.connection, self.lines, table.renderer,
                         metrics)
        self.translator = Translator(self.connection, self.people, self.channels, CtcpAnswers(self.connection, self.lines),
                                     self.lines, self.irc_store, metrics, self.capabilities)
        self.outbox = Outbox(self.channels, self.people, gms, self.translator, self.mute, self.lines, table.renderer,
                             table.action_done)
        self.reader = LineReader(self.connection, self.people, self.channels, self.translator, self.mute, self.lines,
                                 metrics, self.set_ready)
        self.metrics.transports["irc"] = False

    def owns(self, room_id: str) -> bool:
        return self.channels.room(room_id) is not None

    def deliver(self, actions: list[Action]) -> None:
        self.outbox.deliver(actions)

    def stop(self) -> None:
        self._stopping = True
        self._stop_event.set()
        self.lines.ready.set()

    def set_ready(self, ready: bool) -> None:
        """``/healthz``: IRC counts as connected while the bot is in all its channels."""
        self.metrics.transports["irc"] = ready

    async def run(self) -> None:
        worker = asyncio.ensure_future(self._worker())
        sender = asyncio.ensure_future(self.lines.run())
        self._resume_pending()
        backoff = Backoff(0.5, MAX_RECONNECT_S)
        try:
            while not self._stopping:
                started = time.monotonic()
                try:
                    await self._session()
                except StartupError:
                    raise
                except Exception:  # whatever broke this connection, the next one starts clean
                    self.metrics.errors += 1
                    log.exception("IRC connection failed")
                if self._stopping:
                    break
                if self._unresolved_tries and not self._reached:
                    continue  # the name is being tried: ``_unresolved`` waited
                if time.monotonic() - started > STABLE_S:
                    backoff.reset()
                wait = backoff.next()
                log.warning("IRC connection lost; reconnecting in %.1f s", wait)
                self.metrics.part(IrcMetrics).reconnects += 1
                await pause(self._stop_event, wait)
        finally:
            self._stopping = True
            self.translator.events.put_nowait(None)
            self.lines.ready.set()
            await asyncio.gather(worker, return_exceptions=True)
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            await self._quit()

    async def _session(self) -> None:
        """One connection, from connect to its loss (or the bot's stop)."""
        icfg = self.icfg
        fallback = [f"{icfg.nick}_", f"{icfg.nick}__", *(f"{icfg.nick}{n}" for n in range(1, 10))]
        sasl = {}
        if icfg.password:
            sasl = {"sasl_username": icfg.account or icfg.nick, "sasl_password": icfg.password.value,
                    "sasl_mechanism": "PLAIN"}
        client = IrcClient(self.reader.read, self._on_registered, icfg.nick, fallback_nicknames=fallback,
                           username=icfg.nick.lower(), realname="rolbot", **sasl)
        self.connection.client = client
        self.channels.reset()
        self.lines.keep_replies()
        try:
            await client.connect(icfg.server, icfg.port, tls=icfg.tls, tls_verify=icfg.tls_verify)
        except ConnectError as err:
            self.metrics.errors += 1
            if isinstance(err, socket.gaierror) and not self._reached:
                log.debug("cannot resolve %s (try %d of %d)", icfg.server, self._unresolved_tries + 1, UNRESOLVED_TRIES)
                await self._unresolved()
                return
            log.warning("cannot connect to %s:%s (%s)", icfg.server, icfg.port, err)
            return
        self._reached = True
        stop = asyncio.ensure_future(self._stop_event.wait())
        lost = asyncio.ensure_future(client.lost.wait())
        while not (stop.done() or lost.done()):
            await asyncio.wait({stop, lost}, timeout=RECLAIM_NICK_S, return_when=asyncio.FIRST_COMPLETED)
            if client.registered and not self.connection.is_me(icfg.nick):
                self.lines.push_raw("NICK", icfg.nick)
        stop.cancel()
        lost.cancel()
        self.lines.connected.clear()
        self.set_ready(False)

    async def _unresolved(self) -> None:
        """The server's name did not resolve before it was ever reached: wait, or stop after the last try."""
        self._unresolved_tries += 1
        if self._unresolved_tries >= UNRESOLVED_TRIES:
            raise IrcStartupError("server_unresolved", host=self.icfg.server, tries=self._unresolved_tries,
                                  seconds=f"{UNRESOLVED_WINDOW_S:g}")
        await pause(self._stop_event, UNRESOLVED_WINDOW_S / UNRESOLVED_TRIES)

    async def _on_registered(self) -> None:
        """Registered on the server: identify (no SASL) and join the channels."""
        client = self.connection.client
        assert client is not None
        self.lines.connected.set()
        if self.icfg.password and not client.sasl_done:
            self.lines.push_raw("PRIVMSG", "NickServ", f"IDENTIFY {self.icfg.account or self.icfg.nick} "
                                f"{self.icfg.password.value}")
        for channel in self.icfg.channels:
            self.lines.push_raw("JOIN", channel)

    async def _quit(self) -> None:
        client = self.connection.client
        if client is None or not client.connected:
            return
        client.quitting = True
        with contextlib.suppress(Exception):
            # The server closes the connection once it has the QUIT: the nick is free when we return.
            await client.raw("QUIT :rolbot\r\n")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(client.lost.wait(), QUIT_WAIT_S)
            await client.disconnect(expected=True)

    async def _worker(self) -> None:
        """Events are handled one by one, in the order they came."""
        while True:
            event = await self.translator.events.get()
            if event is None:
                break
            try:
                actions = await handle_until_committed(functools.partial(self.table.handle, owner=self.name), event,
                                                       self.metrics, lambda: self._stopping)
            except Exception:  # logged; the bot is stopping, and the event is handled at the next start
                break
            if event.kind != "admins":  # the bot's own word on the channel's operators: no chat event
                self.metrics.events_handled += 1
            self.deliver(actions)

    def _resume_pending(self) -> None:
        """Actions committed before a stop and not sent: sent now (IRC's own only)."""
        pending = pending_of(self, self.table.store)
        if pending:
            log.info("%d IRC actions pending from before the stop", len(pending))
            self.deliver(pending)
