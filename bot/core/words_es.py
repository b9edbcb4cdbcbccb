"""The keywords the table reads in commands, for a Spanish table: each Spanish first, then its English
alias (as the commands' names are), folded as ``name_key`` folds what is typed. One definition each,
read by the core and by every game."""

from __future__ import annotations

AGAINST = ("contra", "vs")
"""What comes before whom (or what number) a roll is made against: ``!tiro Disparar contra Orco``."""
HIDDEN = ("oculta", "oculto", "hidden", "secreto", "secreta", "privada", "en secreto")
"""What makes a roll secret: a word after the roll (``en secreto`` is one), or the whole of a parenthesis."""
NO_STATE = (("sin", "estado"), ("no", "state"))
"""A roll without the modifiers the table's state adds by itself."""
END = ("fin", "end")
NEW = ("nueva", "new")
RESTART = ("reiniciar", "restart")
DELETE = ("borrar", "delete")
ON = ("activar", "on")
OFF = ("desactivar", "off")
ALL = ("todo", "todas", "all")
GROUP = ("grupo", "group")
BEFORE = ("antes de", "antes que", "antes", "before")
MACRO = ("macro",)
"""A sheet's line that is a macro (``macro ataque = d8+1``)."""
YES = ("si", "s", "yes", "y")
NO = ("no", "n")
REMOVE = ("quitar", "remove")
"""Take back what a command gave: ``!master quitar @ana:servidor``."""
