"""``Jsonable``: an outcome's JSON object (the ``roll`` of docs/contracts.md#3) generated from its fields
by a declared ``JsonShape``, instead of written by hand in each class."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, ClassVar

__all__ = ["JsonShape", "Jsonable"]

Reader = Callable[[Any], Any]


class JsonShape:
    """The keys of an outcome's JSON object, in the contract's order. Each item of ``keys`` is

    - ``name``: the field (or property, or class attribute) of that name;
    - ``name=path``: a field renamed, or read through fields (``natural=result.first_natural``);
    - a key of ``const`` (a fixed value: the system) or of ``derived`` (computed from the outcome,
      for what no field holds as is);
    - another shape, whose keys go here (``TRAIT.through("roll")``: read from the ``roll`` field).

    A key met a second time keeps its first place and takes the later value (as ``{**a, "kind": k}``);
    so does a key of another shape named in ``const`` or ``derived``."""

    __slots__ = ("_readers",)
    _readers: dict[str, Reader]

    def __init__(self, *keys: str | JsonShape, const: Mapping[str, Any] | None = None,
                 derived: Mapping[str, Reader] | None = None) -> None:
        const, derived = const or {}, derived or {}
        readers: dict[str, Reader] = {}
        for key in keys:
            if isinstance(key, JsonShape):
                readers.update(key._readers)
            else:
                name, reader = _reader(key, const, derived)
                readers[name] = reader
        unplaced = (set(const) | set(derived)) - set(readers)
        if unplaced:
            raise ValueError(f"keys without a place in the shape: {sorted(unplaced)}")
        for name in (*const, *derived):
            readers[name] = _reader(name, const, derived)[1]
        self._readers = readers

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._readers)

    def through(self, path: str) -> JsonShape:
        """This shape read from the outcome's ``path`` (a field holding the outcome it describes)."""
        inner = attrgetter(path)
        shape = JsonShape()
        shape._readers = {name: _composed(read, inner) for name, read in self._readers.items()}
        return shape

    def of(self, outcome: object) -> dict[str, Any]:
        return {name: read(outcome) for name, read in self._readers.items()}


def _reader(key: str, const: Mapping[str, Any], derived: Mapping[str, Reader]) -> tuple[str, Reader]:
    name, _, path = key.partition("=")
    if name in const:
        value = const[name]
        return name, lambda _: value
    if name in derived:
        return name, derived[name]
    return name, attrgetter(path or name)


def _composed(read: Reader, inner: Reader) -> Reader:
    return lambda outcome: read(inner(outcome))


class Jsonable:
    """Mixin of the outcome classes: ``as_json`` is their ``json_shape`` read from them."""

    __slots__ = ()
    json_shape: ClassVar[JsonShape]

    def as_json(self) -> dict[str, Any]:
        return self.json_shape.of(self)
