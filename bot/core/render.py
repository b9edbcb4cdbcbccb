"""Every message a user reads is rendered here from ``templates/``.

Each message kind ``K`` has ``K.txt`` (the plain ``body``) and, where it has
formatting, ``K.html`` (the ``formatted_body``, autoescaped so user text never
becomes markup); without ``K.html`` the HTML is the escaped plain text.

Kinds of the core are bare names (``status`` is ``templates/core/status.txt``); a game's are
``<game>/<kind>`` (``savage/soak`` is ``templates/savage/soak.txt``, or the file in the folder its
``Game`` names); a transport's are ``<transport>/<kind>`` (``matrix/undecryptable`` is
``templates/matrix/undecryptable.txt``). A group's own folder (``[templates] dir``) is searched first,
with the same names; a template that moved (``MOVED``) is also found there under its old name.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from bot.core.text import clean

if TYPE_CHECKING:
    from jinja2 import Environment, Template

    from bot.core.template_env import Folder

log = logging.getLogger(__name__)
MOVED: dict[str, str] = {
    "generic/initiative": "initiative_generic",
    "irc/need_op": "irc_need_op",
    "irc/no_power": "irc_no_power",
    "matrix/coalesced": "coalesced",
    "matrix/dm_room_name": "dm_room_name",
    "matrix/no_power": "no_power",
    "matrix/rate_limit_notice": "rate_limit_notice",
    "matrix/turn_start": "turn_start",
    "matrix/undecryptable": "undecryptable",
}
"""Shipped templates that moved, new kind -> old kind (``matrix/no_power`` -> ``no_power``): a group's folder
that overrides one under its old name and not under its new one keeps its override."""
MAX_BODY = 4000
MAX_REMEMBERED_TEXTS = 1024
MAX_TEXT_KEY_ITEMS = 4
MAX_TEXT_KEY_CHARS = 80
"""``Renderer.text`` remembers texts made from at most this many scalars, strings this short."""
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>|~&@])")
_MARKDOWN_LINE_START = re.compile(r"^([#>+=-]|\d{1,9}(?=[.)]))", re.MULTILINE)
_AUTOLINK = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*:(?=\S)"
                       r"|(?i::)(?=//)|(?i:(?<=mailto)|(?<=xmpp)):|(?i:(?<=www))\.")
"""What starts an autolink or a link target: any ``scheme:`` followed by more (``mailto:``,
``javascript:``, ``http:``, with a ``www.`` inside it; not ``dijo: hola``), ``…://``, ``mailto:`` and
``xmpp:`` anywhere, and ``www.``: the colon or dot is escaped. A run of scheme characters is tried
once, from its start: linear."""
_WWW_DOT = re.compile(r"(?i)(?<=www)\.")
_EMAIL_AT = re.compile(r"(?<=[A-Za-z0-9.+\-_])\\@")
"""An escaped ``@`` right after what can end the local part of an e-mail address."""
WORD_JOINER = "\u2060"
"""Invisible, and no address character: cmark-gfm's e-mail autolink (which a backslash before the
``@`` does not stop, GitHub joins the text first) finds no local part before the ``@``."""


def markdown_text(value: object) -> str:
    """User text as literal Markdown: what ``clean`` takes out dropped, the characters that make markup,
    links or autolinks escaped (an e-mail address gets a word joiner before its ``@``), and each
    non-blank line kept, stripped, as a hard break (a blank line would end the paragraph or the
    italics the text sits in, an indented one start code)."""
    lines = str(value).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    text = clean("\n".join(stripped for line in lines if (stripped := line.strip())))
    text = _MARKDOWN_INLINE.sub(_backslashed, text)
    text = _AUTOLINK.sub(_escape_autolink, text)
    text = _EMAIL_AT.sub(WORD_JOINER + r"\\@", text)
    text = _MARKDOWN_LINE_START.sub(_escape_line_start, text)
    return text.replace("\n", "  \n")


def _backslashed(match: re.Match[str]) -> str:
    """A function, not the template ``r"\\\1"``: re expands a template anew for every match (3.6×
    slower on text full of markup, measured with timeit), and a large acta has millions."""
    return "\\" + match[1]


def _escape_autolink(match: re.Match[str]) -> str:
    """A backslash before the lone colon or dot, or before a scheme's colon and each ``www.`` dot in it."""
    found = match[0]
    if len(found) == 1:
        return "\\" + found
    return _WWW_DOT.sub(r"\\.", found[:-1]) + "\\:"


def _escape_line_start(match: re.Match[str]) -> str:
    """``# x``, ``> x``, ``- x`` start a block: escape the marker; ``1. x`` too: escape its dot."""
    marker = match[1]
    return marker + "\\" if marker.isdigit() else "\\" + marker


def html_lines(value: object) -> Markup:
    """User text escaped for HTML, line breaks kept, what ``clean`` takes out dropped."""
    lines = clean(str(value).replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    return Markup("<br>").join(escape(line) for line in lines)


@dataclass(frozen=True, slots=True)
class Message:
    body: str
    html: str


def _truncate(text: str, limit: int = MAX_BODY) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Renderer:
    def __init__(self, game_templates: Iterable[tuple[str, Folder]] = (), override_dir: str | None = None) -> None:
        """``game_templates``: (game key, folder of its messages or how to find it), from the games' registry."""
        self._jinja = _Jinja(tuple(game_templates), override_dir)
        self._games = frozenset(key for key, _ in self._jinja.folders)
        self._games_templates: dict[tuple[object, str], str] = {}
        """``games_template``'s answers: a lookup that fails searches every folder each time."""
        self._kinds: dict[str, list[str]] = {}
        self._own: dict[str, str] = {}
        """Kinds rendered from another kind (``overriding``)."""
        self._texts: dict[tuple[object, ...], str] = {}
        """Texts already rendered from scalars (``text``), at most ``MAX_REMEMBERED_TEXTS``."""
        self._templates: dict[str, tuple[Template, Template | None]] = {}
        """Each kind's ``K.txt`` and ``K.html`` (None: it has none), looked up once: templates are read
        once, as ``auto_reload`` is off, and a lookup that fails searches every folder each time."""

    @property
    def env(self) -> Environment:
        """The Jinja environment (shared with the views ``overriding`` makes), made on the first template read."""
        return self._jinja.env

    def __reduce__(self) -> tuple[Any, ...]:
        """A renderer goes to a worker process (the web acta is rendered there) as the folders it reads;
        the worker makes it once and keeps it."""
        found = ((key, folder() if callable(folder) else folder) for key, folder in self._jinja.folders)
        return _renderer_from, (tuple((key, str(folder)) for key, folder in found if folder is not None),
                                self._jinja.override_dir)

    def overriding(self, kinds: Mapping[str, str]) -> Renderer:
        """This renderer with each kind of ``kinds`` rendered from its value (a transport's own wording of a
        core message: ``no_power`` from ``irc/no_power``), sharing its templates and caches."""
        view = object.__new__(Renderer)  # not ``copy``: ``__reduce__`` gives the worker's cached renderer
        vars(view).update(vars(self), _own=dict(kinds))
        return view

    def render(self, kind: str, **context: Any) -> Message:
        kind = self._own.get(kind, kind)
        plain, template = self._templates.get(kind) or self._look_up(kind)
        body = clean(plain.render(context).strip())
        try:
            html = _plain_to_html(body) if template is None else clean(template.render(context).strip())
        except _not_found():  # an HTML template that includes one with no HTML of its own
            html = _plain_to_html(body)
        return Message(_truncate(body), _truncate_html(html, body))

    def _look_up(self, kind: str) -> tuple[Template, Template | None]:
        plain = self.env.get_template(f"{kind}.txt")
        try:
            rich: Template | None = self.env.get_template(f"{kind}.html")
        except _not_found():
            rich = None
        self._templates[kind] = plain, rich
        return plain, rich

    def document(self, kind: str, ext: str, **context: Any) -> str:
        """A whole file (``acta_document`` as ``txt`` or ``html``, ``table_page``...), not a chat message:
        no length cap. HTML files are autoescaped."""
        return clean(self.env.get_template(f"{kind}.{ext}").render(context))

    def games_template(self, game: object, name: str) -> str:
        """The file name of the template ``name`` of ``game`` (a game key: ``savage/acta_labels.txt``), or
        the core's (``acta_labels.txt``) when that game has none of its own or is no game it knows."""
        key = (game, name)
        if key not in self._games_templates:
            found = f"{game}/{name}.txt"
            try:
                if game not in self._games:
                    raise LookupError(found)
                self.env.get_template(found)
            except (LookupError, _not_found()):
                found = f"{name}.txt"
            self._games_templates[key] = found
        return self._games_templates[key]

    def kinds(self, prefix: str) -> list[str]:
        """The message kinds named ``prefix`` + a name, from every folder (``topic_``, ``savage/topic_``)."""
        if prefix not in self._kinds:
            names = self.env.list_templates(extensions=["txt"])
            self._kinds[prefix] = sorted({n.removesuffix(".txt") for n in names
                                          if n.startswith(prefix) and "/" not in n[len(prefix):]})
        return self._kinds[prefix]

    def text(self, kind: str, **context: Any) -> str:
        """Only the plain body (CLI errors, logs meant for people). A text whose context is a few short
        scalars (a reaction's emoji, the redaction reason, a state label: asked for on many events) is
        rendered once and remembered."""
        kind = self._own.get(kind, kind)
        key = _text_key(kind, context)
        if key is not None and (known := self._texts.get(key)) is not None:
            return known
        text = clean(self.env.get_template(f"{kind}.txt").render(context).strip())
        if key is not None:
            if len(self._texts) >= MAX_REMEMBERED_TEXTS:
                self._texts.clear()
            self._texts[key] = text
        return text


def _text_key(kind: str, context: dict[str, Any]) -> tuple[object, ...] | None:
    """What a text's rendering depends on when its context is scalars (the type kept: ``True`` and ``1``
    render differently), short ones; None otherwise."""
    if len(context) > MAX_TEXT_KEY_ITEMS:
        return None
    items: list[object] = [kind]
    for name, value in context.items():
        if value is not None and type(value) not in (str, int, bool):
            return None
        if isinstance(value, str) and len(value) > MAX_TEXT_KEY_CHARS:
            return None
        items += (name, type(value), value)
    return tuple(items)


class _Jinja:
    """A renderer's Jinja environment, made (jinja2 imported) when a template is first read."""

    def __init__(self, folders: tuple[tuple[str, Folder], ...], override_dir: str | None) -> None:
        self.folders = folders
        self.override_dir = override_dir

    @functools.cached_property
    def env(self) -> Environment:
        from bot.core.template_env import environment

        return environment(self.folders, self.override_dir, MOVED, {"md": markdown_text, "lines": html_lines})


def _not_found() -> type[Exception]:
    """Jinja's ``TemplateNotFound``, asked for only once a lookup failed (jinja2 is loaded by then)."""
    from jinja2 import TemplateNotFound

    return TemplateNotFound


@functools.lru_cache(maxsize=4)
def _renderer_from(folders: tuple[tuple[str, str], ...], override_dir: str | None) -> Renderer:
    return Renderer(((key, Path(folder)) for key, folder in folders), override_dir)


def _plain_to_html(body: str) -> str:
    """Kinds with only a ``.txt`` template: their HTML is the escaped text."""
    return str(escape(body)).replace("\n", "<br>")


def _truncate_html(html: str, body: str) -> str:
    """Cutting HTML could break tags: an over-long HTML falls back to the escaped plain body."""
    if len(html) <= MAX_BODY:
        return html
    return _plain_to_html(_truncate(body))
