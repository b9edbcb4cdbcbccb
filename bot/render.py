"""Every message a user reads is rendered here from ``templates/``.

Each message kind ``K`` has ``K.txt`` (the plain ``body``) and ``K.html`` (the
``formatted_body``, autoescaped so user text never becomes markup).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import escape

MAX_BODY = 4000


@dataclass(frozen=True, slots=True)
class Message:
    body: str
    html: str


def _truncate(text: str, limit: int = MAX_BODY) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Renderer:
    def __init__(self) -> None:
        self.env = Environment(
            loader=FileSystemLoader(str(files("templates"))),
            autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
            trim_blocks=True,
            lstrip_blocks=True,
            undefined=StrictUndefined,
            keep_trailing_newline=False,
        )

    def render(self, kind: str, **context: Any) -> Message:
        body = self.env.get_template(f"{kind}.txt").render(context).strip()
        html = self.env.get_template(f"{kind}.html").render(context).strip()
        return Message(_truncate(body), _truncate_html(html, body))

    def text(self, kind: str, **context: Any) -> str:
        """Only the plain body (CLI errors, logs meant for people)."""
        return self.env.get_template(f"{kind}.txt").render(context).strip()


def _truncate_html(html: str, body: str) -> str:
    """Cutting HTML could break tags: an over-long HTML falls back to the escaped plain body."""
    if len(html) <= MAX_BODY:
        return html
    return str(escape(_truncate(body)))
