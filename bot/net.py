"""Network failures described for a log line: the host and the reason, never an object's repr."""

from __future__ import annotations

import asyncio
import os
import socket
from urllib.parse import urlsplit

import aiohttp


def _reason(err: OSError) -> str:
    if isinstance(err, socket.gaierror):
        return err.strerror or "name not resolved"
    if err.errno is not None and err.errno > 0:
        return os.strerror(err.errno)
    return err.strerror or str(err) or type(err).__name__


def describe_network_error(err: BaseException, url: str) -> str:
    """``HOST: REASON`` for ``err``, a failed request to ``url``."""
    if isinstance(err, aiohttp.ClientConnectorError):
        return f"{err.host}:{err.port}: {_reason(err.os_error)}"
    host = urlsplit(url).netloc or url
    if isinstance(err, (TimeoutError, asyncio.TimeoutError)):
        return f"{host}: timed out"
    if isinstance(err, aiohttp.ServerDisconnectedError):
        return f"{host}: the server closed the connection"
    if isinstance(err, OSError):
        return f"{host}: {_reason(err)}"
    return f"{host}: {err or type(err).__name__}"
