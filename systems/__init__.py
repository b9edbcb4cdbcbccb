"""Pure game rules: data in, data out, RNG injected, no I/O and no imports from ``bot``.

``systems/dice.py`` is the shared dice engine, ``systems/refusal.py`` the one error family, and
``systems/<game>/`` each game's rules, resolver (``SYSTEM``) and rule cards (``cards.toml``). The
games a table offers are listed once, in ``bot/games/__init__.py``.
"""
