"""The ``[web]`` app: health and metrics (``app``), the live table page and the acta links
(``table_page``), the GM's screen page (``screen_page``), and the one read-only view of the table the
pages read (``view``). Pages import ``view``, never a core module; no module here imports ``app``
but the package itself."""

from bot.web.app import make_app, start_web

__all__ = ["make_app", "start_web"]
