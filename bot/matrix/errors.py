"""The Matrix transport's own error."""

from __future__ import annotations


class PermanentError(Exception):
    """A request the homeserver refused for good (403, 404, bad JSON...), or one the bot cannot make."""
