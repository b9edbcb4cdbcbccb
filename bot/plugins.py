"""Each game system's table module: its combat hooks and its own commands (imported for registration)."""

from bot import reino_table, savage_table, sombra_table, stormbringer_table  # noqa: F401
