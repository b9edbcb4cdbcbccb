"""What no text the bot posts carries: one function (``clean``) for every output.

The rendered messages (``bot/core/render.py``), the roll objects sent with them and kept for the
record (``bot/core/replies.py``), the acta's entries (``bot/core/acta.py``) and document, IRC's lines
(``bot/irc/text.py``) and the console's JSON lines all pass what they write through it: a typed
``!tiro 1d6 \\x00\\x1b[31m`` or a name with a right-to-left override reaches no room, file or terminal.
New lines and tabs stay where a message has them."""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable
from typing import Any

SHOWN_AS_NOTHING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
"""C0 but tab and new line (ESC and CR included), DEL and C1; the zero-width space, the direction marks,
embeddings, overrides and isolates and the BOM, with which a typed name or expression echoed in a reply
(``«Ma‮lo»``) would turn the rest of the room's line around. The zero-width joiner stays (emoji)."""


def clean(text: str) -> str:
    """``text`` without the characters of ``SHOWN_AS_NOTHING`` (one pass in C)."""
    return SHOWN_AS_NOTHING.sub("", text)


_LEAVES = frozenset({int, float, bool, type(None)})
"""The JSON values ``clean_json`` gives back as they are, by their exact type: most of a roll object's."""


def clean_json(value: Any) -> Any:
    """A JSON value (a roll object, an acta entry's data) with every string in it, keys too, ``clean``. A plain
    dict's or list's numbers are taken without a call each (a roll object is mostly numbers)."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is dict:
        return {clean(k) if isinstance(k, str) else k: v if type(v) in _LEAVES else clean_json(v)
                for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _LEAVES else clean_json(v) for v in value]
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clean_json(v) for v in value)
    return value


def json_encoder(default: Callable[[Any], Any] | None = None, compact: bool = False) -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False, default=default)`` (``compact``: with ``separators=(",", ":")``)
    for values with no cycles, without what ``dumps`` sets up on each call (an encoder, the C encoder it
    makes): the C encoder made once, which keeps nothing between calls without a check for cycles. The same
    text, byte for byte; about half the time of ``dumps`` for a small object (timeit)."""
    key_separator, item_separator = (":", ",") if compact else (": ", ", ")
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(default=default, ensure_ascii=False, check_circular=False,
                                separators=(item_separator, key_separator)).encode
    chunks = make(None, default, json.encoder.encode_basestring, None, key_separator, item_separator, False, False,
                  True)
    return lambda value: "".join(chunks(value, 0))
