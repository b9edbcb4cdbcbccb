"""From a rendered message to IRC lines (pure): IRC bold where the HTML bolds, nothing ``clean`` takes out
(``bot/core/text.py``) from user text, and lines split under the 512-byte limit counted in encoded (UTF-8) bytes."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from bot.core.render import Message
from bot.core.text import clean

LINE_LIMIT = 512
"""RFC 1459: a whole line, prefix and CRLF included."""
BOLD, ITALIC, STRIKE = "\x02", "\x1d", "\x1e"
_FORMAT = {"b": BOLD, "strong": BOLD, "i": ITALIC, "em": ITALIC, "del": STRIKE, "s": STRIKE}
_IRC_FORMATTING = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|\x04(?:[0-9a-fA-F]{6}(?:,[0-9a-fA-F]{6})?)?"
                             r"|[\x02\x0f\x11\x16\x1d\x1e\x1f]")
"""mIRC colours (with their numbers), hex colours, bold, italics, underline, reverse, monospace, reset."""
MORE = "…"
MATRIX_LINK = "https://matrix.to/"
RESULT_MARK = " = "
"""A roll line ends with its result (``= total → outcome``): kept on the first line when split."""
CUT_AT = 500
"""An incoming line (tags aside) this long may have been cut by the server to its 512-byte limit."""
CUT_MARK = 8
"""At most this many ASCII bytes a server puts after a cut (ngircd: ``[CUT]``)."""


class _IrcFormatter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._href: list[str | None] = []
        self._items: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _FORMAT:
            self.out.append(_FORMAT[tag])
        elif tag == "br":
            self.out.append("\n")
        elif tag == "a":
            self._href.append(dict(attrs).get("href"))
        elif tag == "ol":
            self._items.append(0)
        elif tag == "li":
            if self._items:
                self._items[-1] += 1
            self.out.append(f"\n{self._items[-1]}. " if self._items else "\n• ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _FORMAT:
            self.out.append(_FORMAT[tag])
        elif tag in ("p", "div", "ol", "ul"):
            self.out.append("\n")
            if tag == "ol" and self._items:
                self._items.pop()
        elif tag == "a" and self._href:
            href = self._href.pop()
            # A matrix.to link is a Matrix pill or event link: its text already names who or what.
            if href and href.startswith(("http://", "https://")) and not href.startswith(MATRIX_LINK):
                self.out.append(f" <{_one_line(href)}>")

    def handle_data(self, data: str) -> None:
        self.out.append(_one_line(data))


def irc_lines(message: Message) -> list[str]:
    """The message as IRC text lines (not yet split to the byte limit); blank lines dropped."""
    parser = _IrcFormatter()
    parser.feed(message.html)
    parser.close()
    lines = [line.strip(" ") for line in "".join(parser.out).split("\n")]
    return [line for line in lines if line.strip(f" {BOLD}{ITALIC}{STRIKE}")]


def without_formatting(text: str) -> str:
    """A user's line without IRC formatting codes (colours are markup, not what they said)."""
    return _IRC_FORMATTING.sub("", text)


def plain_lines(text: str) -> list[str]:
    """Plain text (no markup) as IRC lines, control characters dropped."""
    return [line for line in (_one_line(raw).strip() for raw in text.split("\n")) if line]


def _one_line(text: str) -> str:
    """User text on one IRC line: what ``clean`` takes out (C0 with IRC's own formatting codes, DEL, C1,
    direction overrides) dropped, new lines and tabs as spaces."""
    return clean(text).replace("\n", " ").replace("\t", " ")


def split_line(line: str, budget: int) -> list[str]:
    """``line`` in pieces of at most ``budget`` UTF-8 bytes, cut between words where it can and never
    inside a character. A roll too long for one line keeps its result (the part from the last `` = ``)
    on the first piece, the middle following on the next ones."""
    if _size(line) <= budget:
        return [line]
    if BOLD in line:
        budget -= 2 * _size(BOLD)  # room to close and reopen bold across a cut
    cut = line.rfind(RESULT_MARK)
    tail = f" {MORE}{line[cut:]}" if cut > 0 else ""
    if tail and _size(tail) <= budget // 2:
        head, rest = _take(line[:cut], budget - _size(tail))
        pieces = [head + tail]
        pieces += _pieces(rest, budget, continued=True)
        return _carry_bold(pieces)
    return _carry_bold(_pieces(line, budget))


def _pieces(text: str, budget: int, continued: bool = False) -> list[str]:
    """``text`` cut to ``budget``; every piece after the first (all, if ``continued``) starts with ``…``."""
    out: list[str] = []
    while text:
        marked = continued or bool(out)
        piece, text = _take(text, budget - _size(MORE + " ") if marked else budget)
        out.append(f"{MORE} {piece}" if marked else piece)
    return out


def decode_line(data: bytes) -> str:
    """An incoming IRC line as text: UTF-8; a line the server cut inside a UTF-8 character keeps its
    valid prefix (and the server's ASCII mark after the cut, if any); any other line that is not UTF-8
    is read as Latin-1."""
    try:
        return data.decode()
    except UnicodeDecodeError as err:
        start = err.start
    body = data.split(b" ", 1)[1] if data.startswith(b"@") and b" " in data else data
    end = _truncated(data, start)
    if len(body) >= CUT_AT and end is not None and len(data) - end <= CUT_MARK and data[end:].isascii():
        return data[:start].decode() + data[end:].decode()
    return data.decode("latin-1")


def _truncated(data: bytes, start: int) -> int | None:
    """Where the UTF-8 sequence starting at ``start`` ends when it is a cut one (a lead byte with fewer
    continuation bytes than it needs): the index after it; None when it is not a cut sequence."""
    lead = data[start]
    needs = 1 if 0xC2 <= lead <= 0xDF else 2 if 0xE0 <= lead <= 0xEF else 3 if 0xF0 <= lead <= 0xF4 else 0
    end = start + 1
    while end < len(data) and end - start <= needs and (data[end] & 0xC0) == 0x80:
        end += 1
    return end if needs and end - start <= needs else None


def _take(text: str, budget: int) -> tuple[str, str]:
    """The longest start of ``text`` that fits ``budget`` bytes, ending at a space if one is in its
    second half; and what is left."""
    data = text.encode()
    if len(data) <= budget:
        return text, ""
    end = budget
    while end > 0 and (data[end] & 0xC0) == 0x80:  # not inside a UTF-8 sequence
        end -= 1
    head = data[:end].decode()
    if not head:  # a budget smaller than one character: take it anyway rather than loop
        head = text[0]
    space = head.rfind(" ")
    if not text[len(head):].startswith(" ") and space > 0 and space >= len(head) // 3:
        head = head[:space]
    return head.rstrip(" "), text[len(head):].lstrip(" ")


def _carry_bold(pieces: list[str]) -> list[str]:
    """IRC clients end formatting at the end of a line: bold left open goes on in the next piece."""
    out, open_bold = [], False
    for piece in pieces:
        text = (BOLD if open_bold else "") + piece
        open_bold = text.count(BOLD) % 2 == 1
        out.append(text + BOLD if open_bold else text)
    return out


def _size(text: str) -> int:
    return len(text.encode())
