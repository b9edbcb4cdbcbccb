"""The generic game's sheet: one field, the initiative bonus."""

SHEET_FIELDS: dict[str, type] = {"iniciativa": int}
