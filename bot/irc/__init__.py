"""The IRC transport (pydle), split by concern:

- ``bot``: connection and reconnection, who is who (accounts, nicks), the channels' modes and members,
  events to the table and its actions to IRC lines;
- ``text``: a rendered message as IRC lines (bold, no control characters), split under 512 bytes, and
  an incoming line decoded (UTF-8, a cut character dropped, else Latin-1) (pure);
- ``modes``: the mute lock as ``+m``/``+v`` changes and their undoing (pure);
- ``flood``: the token bucket every sent line goes through, and the once-a-minute limit per sender;
- ``store``: its tables on the table's database (who each nick is, the mute records, the last message
  seen per channel), with their own migrations;
- ``config``: its ``[irc]`` section (keys, parser, its channels as rooms, its secrets);
- ``metrics``: its counters, its rows of ``/metrics``;
- ``description``: what the registry (``bot/transports``) knows of it; these three import no pydle.

Only this package imports pydle, and only ``bot`` does (importing the package does not). ``docs/irc.md``
says what it does and needs.
"""
