"""A problem that stops a command before it can do its work (a bad database, a busy port...)."""

from __future__ import annotations


class StartupError(Exception):
    """``code`` names the line of the ``template`` (``templates/core/startup_error.txt``; a transport's
    own errors name its own); ``params`` fill it.

    The command line prints that one Spanish line and exits with status 2."""

    template = "startup_error"

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params
