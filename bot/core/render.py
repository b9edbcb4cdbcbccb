"""Every message a user reads is rendered here from ``templates/``.

Each message kind ``K`` has ``K.txt`` (the plain ``body``) and, where it has
formatting, ``K.html`` (the ``formatted_body``, autoescaped so user text never
becomes markup); without ``K.html`` the HTML is the escaped plain text.

Kinds of the core are bare names (``status`` is ``templates/core/status.txt``); a game's are
``<game>/<kind>`` (``savage/soak`` is ``templates/savage/soak.txt``, or the file in the folder its
``Game`` names). A group's own folder (``[templates] dir``) is searched first, with the same names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    select_autoescape,
)
from markupsafe import escape

MAX_BODY = 4000


@dataclass(frozen=True, slots=True)
class Message:
    body: str
    html: str


def _truncate(text: str, limit: int = MAX_BODY) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Renderer:
    def __init__(self, game_templates: Iterable[tuple[str, Traversable]] = (), override_dir: str | None = None) -> None:
        """``game_templates``: (game key, folder of its messages), from the games' registry."""
        shipped = files("templates")
        loaders: list[BaseLoader] = [] if override_dir is None else [FileSystemLoader(override_dir)]
        loaders.append(PrefixLoader({key: FileSystemLoader(str(folder)) for key, folder in game_templates}))
        loaders.append(FileSystemLoader([str(shipped / "core"), str(shipped)]))
        self.env = Environment(
            loader=ChoiceLoader(loaders),
            autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
            trim_blocks=True,
            lstrip_blocks=True,
            undefined=StrictUndefined,
            keep_trailing_newline=False,
            auto_reload=False,
        )

    def render(self, kind: str, **context: Any) -> Message:
        body = self.env.get_template(f"{kind}.txt").render(context).strip()
        try:
            html = self.env.get_template(f"{kind}.html").render(context).strip()
        except TemplateNotFound:
            html = _plain_to_html(body)
        return Message(_truncate(body), _truncate_html(html, body))

    def text(self, kind: str, **context: Any) -> str:
        """Only the plain body (CLI errors, logs meant for people)."""
        return self.env.get_template(f"{kind}.txt").render(context).strip()


def _plain_to_html(body: str) -> str:
    """Kinds with only a ``.txt`` template: their HTML is the escaped text."""
    return str(escape(body)).replace("\n", "<br>")


def _truncate_html(html: str, body: str) -> str:
    """Cutting HTML could break tags: an over-long HTML falls back to the escaped plain body."""
    if len(html) <= MAX_BODY:
        return html
    return _plain_to_html(_truncate(body))
