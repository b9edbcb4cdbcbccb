"""The pydle client (the one module that imports pydle), and what the bot knows of its connection.

pydle handles each line in a task of its own; the bot's view of the channels and the events it hands
the table are taken from each line as it is parsed (``LineReader.read``, no awaiting), so they keep the
order the server sent them in."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pydle
from pydle.features.ircv3.tags import TaggedMessage
from pydle.features.whox import WHOXSupport

from bot.irc.channels import ModeChanges
from bot.irc.identity import fold
from bot.irc.text import decode_line

log = logging.getLogger("rolbot.irc")
_PYDLE_LOG = logging.getLogger("rolbot.irc.pydle")
ConnectError = (OSError, TimeoutError, pydle.Error)
"""What a failed connection attempt raises."""


class IrcClient(pydle.Client):
    """pydle, with its own reconnection off (``IrcBot.run`` reconnects with backoff), its own WHOIS and
    VERSION answers off (outside the bucket), and each line read by the bot as it is parsed."""

    RECONNECT_ON_ERROR = False
    _receive_buffer: bytes

    def __init__(self, read: Callable[[IrcClient, Any], None], registered: Callable[[], Awaitable[None]],
                 *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read = read
        self.registered_callback = registered
        self.lost = asyncio.Event()
        self.sasl_done = False
        self.quitting = False
        """The bot sent QUIT: the server's ERROR and the end of the connection are its goodbye."""
        self._handlers: set[asyncio.Future[None]] = set()

    @property
    def logger(self) -> logging.Logger:
        """pydle's log, under one name whatever the server (pydle names it after the server)."""
        return _PYDLE_LOG

    @logger.setter
    def logger(self, value: logging.Logger) -> None:
        pass

    def _parse_message(self) -> Any:
        """pydle's parsing, with the line decoded by ``decode_line`` (a line the server cut inside a
        UTF-8 character keeps its text)."""
        line, _, self._receive_buffer = self._receive_buffer.partition(b"\n")
        return TaggedMessage.parse(decode_line(line.rstrip(b"\r")).encode() + b"\r\n", encoding="utf-8")

    async def on_data(self, data: bytes) -> None:
        self._receive_buffer += data
        while self._has_message():
            message = self._parse_message()
            self.read(self, message)
            task = asyncio.ensure_future(self.on_raw(message))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    async def on_capability_batch_available(self, value: str | None) -> bool:
        return True

    async def on_capability_server_time_available(self, value: str | None) -> bool:
        return True

    async def on_capability_chathistory_available(self, value: str | None) -> bool:
        return True

    async def on_capability_draft_chathistory_available(self, value: str | None) -> bool:
        return True

    def history_cap(self) -> bool:
        return bool(self._capabilities.get("chathistory") or self._capabilities.get("draft/chathistory"))

    async def _create_user(self, nickname: str) -> None:
        """pydle would WHOIS every new nick (one line each, outside the bucket): the bot's own WHO
        of the channel says what it needs."""
        super(WHOXSupport, self)._create_user(nickname)

    async def on_connect(self) -> None:
        self._autojoin_channels: list[str] = []
        await super().on_connect()
        await self.registered_callback()

    async def on_data_error(self, exception: BaseException) -> None:
        """The server's ERROR line or a failed socket: the connection is over (``IrcBot.run`` says so
        and reconnects). After the bot's QUIT it is the server's goodbye."""
        if self.quitting:
            log.info("IRC server closed the connection after QUIT (%s)", exception)
        else:
            log.warning("IRC connection closed (%s)", exception)
        await self.disconnect(expected=self.quitting)

    async def on_disconnect(self, expected: bool) -> None:
        """pydle's own only logs (its reconnection is off): ``IrcBot.run`` handles the loss."""
        self.lost.set()

    async def on_ctcp_version(self, by: str, target: str, contents: str | None) -> None:
        """pydle would answer every VERSION at once, outside the bucket: ``CtcpAnswers`` answers."""

    def whox(self) -> bool:
        return "WHOX" in self._isupport

    def source(self, message: Any) -> tuple[str, dict[str, Any]]:
        """A line's sender: their nick (empty for none), and their ``username`` and ``hostname`` when the line says."""
        nick, meta = self._parse_user(message.source)
        return nick or "", meta

    def symbols(self) -> dict[str, str]:
        """Prefix symbol (``@``, ``+``...) -> its mode (``o``, ``v``...), as the server says."""
        modes, symbols = _prefix_map(self._isupport.get("PREFIX"))
        return dict(zip(symbols, modes))

    def mode_changes(self, params: list[str]) -> ModeChanges:
        return _parse_modes(params, self._isupport)


class Connection:
    """The bot's side of the current connection: its client (none between connections), the nick the
    server knows it by, its mask as the server relays its lines, and the MODE changes a line may carry."""

    def __init__(self, wanted_nick: str) -> None:
        self.wanted_nick = wanted_nick
        self.client: IrcClient | None = None
        self.own_mask = ""
        self.modes_per_line = 3

    @property
    def nick(self) -> str:
        return self.client.nickname if self.client is not None else self.wanted_nick

    def is_me(self, nick: str) -> bool:
        return fold(nick) == fold(self.nick)

    def should_reclaim(self, freed: str) -> bool:
        """``freed`` is the configured nick, which the bot does not have: ask for it back."""
        return fold(freed) == fold(self.wanted_nick) and not self.is_me(self.wanted_nick)

    def whox(self) -> bool:
        return self.client is not None and self.client.whox()

    def history(self) -> bool:
        return self.client is not None and self.client.history_cap()


def _prefix_map(value: Any) -> tuple[str, str]:
    """ISUPPORT PREFIX ``(ov)@+`` as (modes, symbols); RFC 1459's when missing."""
    if isinstance(value, dict):  # pydle parses it as {mode: symbol}
        return "".join(value), "".join(value.values())
    if isinstance(value, str) and value.startswith("(") and ")" in value:
        modes, symbols = value[1:].split(")", 1)
        return modes, symbols
    return "ov", "@+"


def _parse_modes(params: list[str], isupport: dict[str, Any]) -> ModeChanges:
    """A channel MODE's changes, each with its parameter when the mode takes one."""
    modes, _ = _prefix_map(isupport.get("PREFIX"))
    always, on_set = set(modes) | set("beIk"), set("l")
    chanmodes = isupport.get("CHANMODES")
    if isinstance(chanmodes, str):
        chanmodes = chanmodes.split(",")
    if isinstance(chanmodes, list | tuple) and len(chanmodes) >= 3:
        always |= set(chanmodes[0]) | set(chanmodes[1])
        on_set |= set(chanmodes[2])
    out: ModeChanges = []
    if not params:
        return out
    args = list(params[1:])
    sign = "+"
    for char in params[0]:
        if char in "+-":
            sign = char
            continue
        takes = char in always or (sign == "+" and char in on_set)
        out.append((sign + char, args.pop(0) if takes and args else None))
    return out
