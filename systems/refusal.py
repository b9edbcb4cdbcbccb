"""The one way a request is turned down: a message kind (a template name) and its parameters.

Anything under ``systems/`` or ``bot/`` that refuses raises a ``Refusal``; the table core catches it
in one place, drops every change the request made and answers with that one message.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Refusal"]


class Refusal(Exception):
    """``kind`` names the message template; ``params`` fill it."""

    def __init__(self, kind: str, /, **params: Any) -> None:
        super().__init__(kind)
        self.kind = kind
        self.params = params
        self.private = False

    def privately(self, private: bool = True) -> Refusal:
        """The same refusal, answered only to the sender when ``private`` (it is about a secret roll)."""
        self.private = private
        return self

    def context(self) -> dict[str, Any]:
        """The template's variables."""
        return dict(self.params)
