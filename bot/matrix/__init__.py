"""The Matrix transport (matrix-nio), split by concern:

- ``session``: login, the saved device and token, relogin, requests with retries;
- ``bot``: the sync loop and what a sync brings (``MatrixBot``, which composes the others);
- ``workers``: per-room workers, the table's answer to an event, batches and the sync token;
- ``rooms``: the rooms the bot is in and their auth state, stored and read once from the homeserver;
- ``translate``: sync event JSON to the core's ``Event`` (pure);
- ``power``: creators and power levels, the mute's power levels (pure);
- ``outbox``: sending (encrypted in encrypted rooms), redacting, reacting, power levels, private rooms;
- ``tracker``: the messages it edits in place (``m.replace``): a lock's one notice, the combat's pinned tracker;
- ``coalesce``: a room's actions delivered under the homeserver's rate limit (one message for the
  replies a 429 held back);
- ``invites``: who may invite the bot into a room (pure), and the bot's answer to its membership changes;
- ``undecryptable``: messages the bot could not decrypt, kept until their key comes;
- ``discovery``: which homeserver ``[matrix] homeserver`` means (its ``.well-known``), before logging in;
- ``crosssign``: the cross-signing keys of the bot's account and the signature of its device;
- ``errors``: its own failures (``PermanentError``, ``MatrixStartupError``);
- ``store``: its tables on the table's database (saved power levels, private rooms, room state,
  messages waiting for their key, the sync token), with their own migrations;
- ``config``: its ``[matrix]`` section (keys, parser, its rooms' ``!`` ids, its secrets);
- ``metrics``: its counters, its rows of ``/metrics``;
- ``description``: what the registry (``bot/transports``) knows of it; these three import no nio.

End-to-end encryption: ``docs/encryption.md``.

Only this package imports nio (``bot``, ``session``, ``outbox``); importing the package or its
description does not.
"""
