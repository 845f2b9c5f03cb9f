"""``NamedTuple`` for the modules a fresh hook process runs, without importing :mod:`typing`.

A hook call whose state is current is a new process per event, and :mod:`typing` (with the
:mod:`contextlib` it imports) costs it more start-up time than its own work. Type checkers
see :class:`typing.NamedTuple` itself; at run time a class statement over :data:`NamedTuple`
builds the same ``collections.namedtuple`` that typing builds (fields from the annotations,
defaults from the assigned values, the class body's methods, properties and docstring set on
it), without typing's check of the annotations, which stay the strings that ``from
__future__ import annotations`` makes them. Use it only where that import is measured to
matter; everywhere else :class:`typing.NamedTuple` is the plain choice.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    from collections import namedtuple as _namedtuple

    # What a class body may not set (typing rejects the same names), and what it sets that
    # the generated class keeps its own of.
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        def __new__(cls, typename, bases, ns):
            if bases != (_NamedTupleBase,):
                raise TypeError("can only inherit from NamedTuple")
            fields = list(ns.get("__annotations__", {}))
            defaults = [name for name in fields if name in ns]
            if defaults != fields[len(fields) - len(defaults) :]:
                raise TypeError(f"a field without a default follows {defaults[0]} in {typename}")
            made = _namedtuple(
                typename, fields, defaults=[ns[n] for n in defaults], module=ns["__module__"]
            )
            made.__annotations__ = dict(ns.get("__annotations__", {}))
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in fields:
                    setattr(made, key, value)
            return made

    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    class _NamedTupleEntry:
        """Stands in a class's bases for :class:`typing.NamedTuple` (PEP 560)."""

        def __mro_entries__(self, bases):
            return (_NamedTupleBase,)

    NamedTuple = _NamedTupleEntry()

__all__ = ["NamedTuple"]
