"""A value computed once per immutable object, for as long as the object is remembered.

A memory is rebuilt after every change, but most of its items are the very objects of the
memory before (the deriver keeps an item's frozen view until the item changes), so what is
derived from an item alone (its JSON fields, its Markdown line) need not be made again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Generic, TypeVar

__all__ = ["PerObject"]

T = TypeVar("T")
V = TypeVar("V")

_DEFAULT_SIZE: Final = 4096


class PerObject(Generic[T, V]):
    """``make(obj)`` for an immutable ``obj``, made once while ``obj`` is remembered.

    Objects are remembered by identity, up to ``size`` of them (then all are forgotten at
    once). The table holds each object it remembers, so no other object can take its id
    while it is there. Callers must not change the values handed out.
    """

    __slots__ = ("_make", "_size", "_table")

    def __init__(self, make: Callable[[T], V], size: int = _DEFAULT_SIZE) -> None:
        self._make = make
        self._size = size
        self._table: dict[int, tuple[T, V]] = {}

    def __call__(self, obj: T) -> V:
        table = self._table
        hit = table.get(id(obj))
        if hit is not None:
            return hit[1]
        if len(table) >= self._size:
            table.clear()
        value = self._make(obj)
        table[id(obj)] = (obj, value)
        return value
