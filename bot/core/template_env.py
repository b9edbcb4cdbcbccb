"""The Jinja environment a ``Renderer`` reads its templates with, made on the first template read
(``bot/core/render.py``): a run that renders nothing yet has not imported jinja2."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from jinja2 import (
    BaseLoader,
    BytecodeCache,
    ChoiceLoader,
    DictLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    select_autoescape,
)
from jinja2.bccache import Bucket

log = logging.getLogger(__name__)
Folder = Traversable | Callable[[], Traversable | None]
"""A folder of messages, or how to find it when one of its templates is first read (a game's: the game is
imported then)."""


def environment(folders: Iterable[tuple[str, Folder]], override_dir: str | None, moved: Mapping[str, str],
                filters: Mapping[str, Callable[[object], object]]) -> Environment:
    """The group's folder first (where a template that ``moved`` is also found under its old name), then each
    game's and transport's (``<key>/<kind>``), then the shipped core; with ``filters``."""
    shipped = files("templates")
    loaders: list[BaseLoader] = [] if override_dir is None else [_GroupLoader(override_dir, moved)]
    loaders.append(PrefixLoader({key: _loader(folder) for key, folder in folders}))
    loaders.append(FileSystemLoader([str(shipped / "core"), str(shipped)]))
    env = _Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
        keep_trailing_newline=False,
        auto_reload=False,
        bytecode_cache=_compiled_templates(),
    )
    env.filters.update(filters)
    # Outside a room's message (``rolbot roll``, documents) no sheet is the GMs' (bot/core/privacy.py).
    env.globals.update(gm_view=False, gm_numbers=False, gm_roll=False, gm_sheet=_no_gm_sheet)
    return env


def _no_gm_sheet(name: object) -> bool:
    return False


class _CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's compiled templates kept between runs in its private per-user folder (``_jinja2-cache-<uid>``
    in the temporary directory, mode 0700, refused if another user owns it): a process compiles only a
    template it meets for the first time or whose source changed (each entry is checked against its
    source's checksum), where each start compiled all it used (issue 28: a tenth of ``bench/table.py``).
    Every environment is made here with the same options, which the compiled code depends on."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):  # a full or read-only disk: compiled again next time
            super().dump_bytecode(bucket)


def _compiled_templates() -> BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no safe folder: every run compiles
        return None


def _loader(folder: Folder) -> BaseLoader:
    return _FolderOnFirstUse(folder) if callable(folder) else FileSystemLoader(str(folder))


class _FolderOnFirstUse(BaseLoader):
    """The templates of a folder found on the first template read from it (a game's: the game is imported then)."""

    def __init__(self, find: Callable[[], Traversable | None]) -> None:
        self._find = find
        self._loader: BaseLoader | None = None

    def _found(self) -> BaseLoader:
        if self._loader is None:
            folder = self._find()
            self._loader = FileSystemLoader(str(folder)) if folder is not None else DictLoader({})
        return self._loader

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        return self._found().get_source(environment, template)

    def list_templates(self) -> list[str]:
        return self._found().list_templates()


class _GroupLoader(FileSystemLoader):
    """A group's folder (``[templates] dir``): a moved template it has only under its old name is read
    from there, and the log says once per template where it moved."""

    def __init__(self, folder: str, moved: Mapping[str, str]) -> None:
        super().__init__(folder)
        self._moved = moved
        self._told: set[str] = set()

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        try:
            return super().get_source(environment, template)
        except TemplateNotFound:
            kind, dot, ext = template.rpartition(".")
            if kind not in self._moved:
                raise
            found = super().get_source(environment, f"{self._moved[kind]}{dot}{ext}")
            if kind not in self._told:
                self._told.add(kind)
                log.warning("template %s has moved to %s: %s still overrides it under its old name; rename it there",
                            self._moved[kind], kind, self.searchpath[0])
            return found


class _Environment(Environment):
    """Each template's globals as a plain dict: Jinja's ``ChainMap`` is copied key by key into every
    render's and include's context (a twentieth of a roll event's time, by cProfile). The environment's
    globals are all set when the renderer is made, before any template is loaded."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}
