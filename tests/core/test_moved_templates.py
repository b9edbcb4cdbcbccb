"""A group's override of a shipped template that moved keeps working under its old name (``render.MOVED``),
with one log line per template saying where it went."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.core import render
from bot.core.render import Renderer

MOVED_KIND = "matrix/undecryptable"
OLD_KIND = "undecryptable"


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(render.MOVED, MOVED_KIND, OLD_KIND)


@pytest.mark.usefixtures("moved")
def test_an_override_under_the_old_name_is_used_and_logged_once(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / f"{OLD_KIND}.txt").write_text("🔐 {{ who }}: la casa no lee claves.", encoding="utf-8")
    (tmp_path / f"{OLD_KIND}.html").write_text("<b>{{ who }}</b>: la casa no lee claves.", encoding="utf-8")
    renderer = Renderer((), str(tmp_path))
    with caplog.at_level(logging.WARNING, logger=render.__name__):
        first = renderer.render(MOVED_KIND, who="Ana")
        again = Renderer((), str(tmp_path)).render(MOVED_KIND, who="Bea")
    assert (first.body, first.html) == ("🔐 Ana: la casa no lee claves.", "<b>Ana</b>: la casa no lee claves.")
    assert again.body == "🔐 Bea: la casa no lee claves."
    moved_lines = [r.getMessage() for r in caplog.records if MOVED_KIND in r.getMessage()]
    assert len(moved_lines) == 2  # once per renderer, not once per file (.txt and .html)
    assert f"{OLD_KIND} has moved to {MOVED_KIND}" in moved_lines[0] and str(tmp_path) in moved_lines[0]


@pytest.mark.usefixtures("moved")
def test_an_override_under_the_new_name_wins_and_logs_nothing(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / f"{OLD_KIND}.txt").write_text("vieja", encoding="utf-8")
    (tmp_path / "matrix").mkdir()
    (tmp_path / f"{MOVED_KIND}.txt").write_text("nueva", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger=render.__name__):
        assert Renderer((), str(tmp_path)).render(MOVED_KIND, who="Ana").body == "nueva"
    assert caplog.records == []


def test_without_the_table_entry_the_old_name_is_another_template(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(render.MOVED, MOVED_KIND, raising=False)
    (tmp_path / f"{OLD_KIND}.txt").write_text("vieja", encoding="utf-8")
    shipped = Renderer().render(MOVED_KIND, who="Ana").body
    assert Renderer((), str(tmp_path)).render(MOVED_KIND, who="Ana").body == shipped != "vieja"


@pytest.mark.usefixtures("moved")
def test_no_override_at_all_reads_the_shipped_template(tmp_path: Path) -> None:
    assert Renderer((), str(tmp_path)).render(MOVED_KIND, who="Ana").body == Renderer().render(MOVED_KIND,
                                                                                                who="Ana").body


def test_every_moved_template_is_shipped_under_its_new_name() -> None:
    """The table names templates that exist: a typo in ``MOVED`` would keep no override."""
    shipped = Path(render.__file__).resolve().parent.parent.parent / "templates"
    missing = [kind for kind in render.MOVED
               if not any((shipped / f"{kind}.{ext}").is_file() for ext in ("txt", "html"))]
    assert missing == []
