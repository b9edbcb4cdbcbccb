"""The stormbringer table: combat hooks and commands (see bot/combat.py, bot/commands.py)."""
