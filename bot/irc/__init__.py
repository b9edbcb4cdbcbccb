"""The IRC transport (pydle), split by concern:

- ``bot``: ``IrcBot``, connection and reconnection, events to the table one by one, its parts put together;
- ``client``: the pydle client (parsing, capabilities) and what the bot knows of its connection (nick, mask);
- ``reader``: what each server line changes (who is who, the channels' members and modes), as it is parsed;
- ``identity``: who is who: a services account, else ``nick`` and ``user@host`` as first seen, as a stable user id;
- ``channels``: the channels' members, modes and sync, and who is GM there (operators and listed ids);
- ``translate``: a channel's lines to the table's ``Event``s (held until the channel is synced, history missed);
- ``ctcp``: the CTCP queries answered (VERSION, PING, TIME), once a minute per sender;
- ``outbox``: the table's actions carried out on IRC (``ACTIONS``);
- ``mute``: each channel's mute record and its modes brought to it (``+o`` asked for when missing);
- ``sending``: every line the bot writes, by priority through the token bucket, waiting replies joined;
- ``text``: a rendered message as IRC lines (bold, no control characters), split under 512 bytes, and
  an incoming line decoded (UTF-8, a cut character dropped, else Latin-1) (pure);
- ``modes``: the mute lock as ``+m``/``+v`` changes and their undoing (pure);
- ``flood``: the token bucket every sent line goes through, and the once-a-minute limit per sender;
- ``store``: its tables on the table's database (who each nick is, the mute records, the last message
  seen per channel), with their own migrations;
- ``errors``: its own failures (``IrcStartupError``: what stops it before it can work);
- ``config``: its ``[irc]`` section (keys, parser, its channels as rooms, its secrets);
- ``metrics``: its counters, its rows of ``/metrics``;
- ``description``: what the registry (``bot/transports``) knows of it; these three import no pydle.

Only this package imports pydle, and only its ``client`` does (importing the package does not).
``docs/irc.md`` says what it does and needs.
"""
