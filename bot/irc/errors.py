"""The IRC transport's own errors."""

from __future__ import annotations

from bot.core.errors import StartupError


class IrcStartupError(StartupError):
    """What stops the IRC transport before it can work: ``code`` names a line of
    ``templates/irc/startup_error.txt``."""

    template = "irc/startup_error"
