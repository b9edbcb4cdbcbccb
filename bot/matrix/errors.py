"""The Matrix transport's own errors."""

from __future__ import annotations

from bot.core.errors import StartupError
from bot.transport import TransportFailed


class MatrixStartupError(StartupError):
    """What stops the Matrix transport before it can work: ``code`` names a line of
    ``templates/matrix/startup_error.txt``."""

    template = "matrix/startup_error"


class PermanentError(TransportFailed):
    """A request the homeserver refused for good (403, 404, bad JSON...), or one the bot cannot make."""


class RateLimited(Exception):
    """The homeserver answered 429 and the caller asked not to wait (``session.YIELD_ON_LIMIT``)."""

    def __init__(self, what: str, wait: float) -> None:
        super().__init__(f"{what}: rate limited for {wait:.1f} s")
        self.wait = wait
