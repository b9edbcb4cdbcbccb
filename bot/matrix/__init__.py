"""The Matrix transport (matrix-nio), split by concern:

- ``session``: login, the saved device and token, relogin, requests with retries;
- ``bot``: the sync loop, batches, the sync token, per-room workers;
- ``translate``: sync event JSON to the core's ``Event`` (pure);
- ``power``: creators and power levels, the mute's power levels (pure);
- ``outbox``: sending (encrypted in encrypted rooms), redacting, reacting, power levels, private rooms;
- ``crosssign``: the cross-signing keys of the bot's account and the signature of its device;
- ``store``: its tables on the table's database (saved power levels, private rooms, room state,
  messages waiting for their key), with their own migrations.

End-to-end encryption: ``docs/encryption.md``.

Only this package imports nio.
"""

from bot.matrix.bot import MatrixBot
from bot.matrix.errors import PermanentError
from bot.matrix.power import RoomAuth, locked_power_levels
from bot.matrix.translate import Malformed, translate

__all__ = ["Malformed", "MatrixBot", "PermanentError", "RoomAuth", "locked_power_levels", "translate"]
