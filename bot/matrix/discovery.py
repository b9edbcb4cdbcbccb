"""Which homeserver ``[matrix] homeserver`` means, before logging in: its ``.well-known`` when the
URL names only the server (``https://example.org`` for a homeserver at ``matrix.example.org``), and
a ``MatrixStartupError`` when the address answers but is no Matrix server, or when ``https``
points at a port that speaks plain HTTP. A server that does not answer (yet) raises a network error,
which the caller retries."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from bot.matrix.errors import MatrixStartupError

log = logging.getLogger("rolbot.matrix")

VERSIONS = "/_matrix/client/versions"
WELL_KNOWN = "/.well-known/matrix/client"
TIMEOUT = aiohttp.ClientTimeout(total=30, sock_connect=15)
PLAIN_PROBE_TIMEOUT = aiohttp.ClientTimeout(total=5)


class Unavailable(aiohttp.ClientError):
    """The homeserver answered 5xx: it may be starting; asked again."""


async def _get(http: aiohttp.ClientSession, url: str) -> tuple[int, Any]:
    """The status of ``GET url`` and its JSON body (``None`` when it is not JSON)."""
    async with http.get(url, allow_redirects=True) as resp:
        try:
            data = await resp.json(content_type=None)
        except ValueError:
            data = None
        return resp.status, data


async def _speaks_plain_http(netloc: str) -> bool:
    try:
        async with aiohttp.ClientSession(timeout=PLAIN_PROBE_TIMEOUT) as http, http.get(f"http://{netloc}/"):
            return True
    except (aiohttp.ClientError, TimeoutError, OSError):
        return False


async def _well_known(http: aiohttp.ClientSession, url: str) -> str | None:
    """The base URL ``url``'s ``.well-known/matrix/client`` names, if it names a valid one."""
    status, data = await _get(http, url + WELL_KNOWN)
    server = data.get("m.homeserver") if status == 200 and isinstance(data, dict) else None
    base = server.get("base_url") if isinstance(server, dict) else None
    if isinstance(base, str) and base.startswith(("http://", "https://")) and not any(c.isspace() for c in base):
        return base.rstrip("/")
    return None


async def _discover(http: aiohttp.ClientSession, url: str) -> str:
    base = url
    if urlsplit(url).path in ("", "/"):
        base = await _well_known(http, url) or url
    status, data = await _get(http, base + VERSIONS)
    if status >= 500:
        raise Unavailable(f"HTTP {status}")
    if status != 200 or not isinstance(data, dict) or not isinstance(data.get("versions"), list):
        raise MatrixStartupError("homeserver_not_matrix", url=base,
                           detail=f"HTTP {status}" + ("" if data is not None else " sin JSON"))
    if base != url:
        log.info("homeserver %s: %s names %s", url, WELL_KNOWN, base)
    return base


async def discover(url: str) -> str:
    """The client-API base URL of the homeserver ``url`` names."""
    parts = urlsplit(url)
    try:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            return await _discover(http, url)
    except (aiohttp.ClientSSLError, TimeoutError) as err:
        certificate = isinstance(err, aiohttp.ClientConnectorCertificateError)  # TLS worked: a bad certificate
        if parts.scheme == "https" and not certificate and await _speaks_plain_http(parts.netloc):
            raise MatrixStartupError("homeserver_plain_http", url=url, plain=f"http://{parts.netloc}") from None
        raise
