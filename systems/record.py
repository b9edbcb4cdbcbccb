"""``Record``: flat dataclasses to and from JSON-able dicts (how games keep their state in sheets)."""

from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any, Self

__all__ = ["Record"]


class Record:
    """Mixin for flat dataclasses of JSON-able fields. ``to_dict`` copies (tuples become lists);
    ``from_dict`` ignores keys the dataclass no longer has and turns lists back into tuples where
    the field is a tuple."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = copy.deepcopy(list(value) if isinstance(value, tuple) else value)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        values: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name in data:
                value = data[f.name]
                is_tuple = isinstance(value, list) and str(f.type).startswith("tuple")
                values[f.name] = tuple(value) if is_tuple else value
        return cls(**values)
