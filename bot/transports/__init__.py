"""The transports a run may configure: one line each (see docs/architecture.md, "Adding a transport").

Each line is a description (``bot.transport.TransportDescription``), light to import: a transport's
network library is imported only when the config names it.
"""

from bot.irc import description as irc
from bot.matrix import description as matrix
from bot.transport import TransportRegistry

__all__ = ["TRANSPORTS"]

TRANSPORTS = TransportRegistry(
    matrix.TRANSPORT,
    irc.TRANSPORT,
)
