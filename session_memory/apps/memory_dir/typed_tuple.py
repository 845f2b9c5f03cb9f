"""``NamedTuple`` for the modules a fresh hook process runs, without :mod:`typing` or
:mod:`collections`.

A hook call whose state is current is a new process per event, and :mod:`typing` (with the
:mod:`contextlib` it imports) costs it more start-up time than its own work; so do
:mod:`collections` and the source that ``collections.namedtuple`` compiles for every class.
Type checkers see :class:`typing.NamedTuple` itself. At run time a class statement over
:data:`NamedTuple` builds the class that typing builds (a tuple subclass with the fields of
its annotations, the defaults assigned to them, ``_fields``, ``_field_defaults``,
``_make``, ``_replace``, ``_asdict``, the same ``repr``, pickling and ``__match_args__``,
plus the body's methods, properties and docstring) from prepared functions instead of
compiled source. Two differences, both outside what typed code relies on: annotations stay
the strings that ``from __future__ import annotations`` makes them, and ``__new__`` takes
``*args, **kwargs`` (binding them as the generated signature would, with the same kinds of
``TypeError``). ``tests/session_memory/test_typed_tuple.py`` compares the two. Use it only
where the import is measured to matter; elsewhere :class:`typing.NamedTuple` is the plain
choice.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    try:
        from _collections import _tuplegetter
    except ImportError:  # pragma: no cover - an interpreter without the C accessor

        def _tuplegetter(index, doc):
            return property(lambda self: self[index], doc=doc)

    # What a class body may not set (typing refuses the same names), and what it sets that
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
    _MISSING = object()
    _tuple_new = tuple.__new__

    def _bound(typename, fields, defaults, args, kwargs):
        """The field values of a call ``typename(*args, **kwargs)``, bound as a signature
        ``(field, ..., field=default)`` binds them, with its kinds of TypeError."""
        where = f"{typename}.__new__()"
        if len(args) > len(fields):
            raise TypeError(
                f"{where} takes {len(fields) + 1} positional arguments "
                f"but {len(args) + 1} were given"
            )
        values = [*args, *[_MISSING] * (len(fields) - len(args))]
        for name, value in kwargs.items():
            if name not in fields:
                raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
            index = fields.index(name)
            if index < len(args):
                raise TypeError(f"{where} got multiple values for argument {name!r}")
            values[index] = value
        missing = []
        for index, name in enumerate(fields):
            if values[index] is _MISSING:
                if name in defaults:
                    values[index] = defaults[name]
                else:
                    missing.append(repr(name))
        if missing:
            plural = "s" if len(missing) > 1 else ""
            raise TypeError(
                f"{where} missing {len(missing)} required positional argument{plural}: "
                + ", ".join(missing)
            )
        return values

    def _new_of(typename, fields, defaults):
        count = len(fields)

        def __new__(cls, *args, **kwargs):
            if kwargs or len(args) != count:
                args = _bound(typename, fields, defaults, args, kwargs)
            return _tuple_new(cls, args)

        return __new__

    def _make(cls, iterable):
        result = _tuple_new(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self, /, **kwds):
        result = self._make(map(kwds.pop, self._fields, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self):
        fields = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)
        )
        return f"{self.__class__.__name__}({fields})"

    def _asdict(self):
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self):
        return tuple(self)

    def _named_tuple_class(typename, fields, defaults, module):
        """The class ``collections.namedtuple(typename, fields, defaults=...)`` makes."""
        namespace = {
            "__doc__": f"{typename}({', '.join(fields)})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": defaults,
            "__new__": _new_of(typename, fields, defaults),
            "_make": classmethod(_make),
            "_replace": _replace,
            "__repr__": __repr__,
            "_asdict": _asdict,
            "__getnewargs__": __getnewargs__,
            "__match_args__": fields,
        }
        for index, name in enumerate(fields):
            namespace[name] = _tuplegetter(index, f"Alias for field number {index}")
        made = type(typename, (tuple,), namespace)
        made.__module__ = module
        return made

    class _NamedTupleMeta(type):
        def __new__(cls, typename, bases, ns):
            if bases != (_NamedTupleBase,):
                raise TypeError("can only inherit from NamedTuple")
            annotations = dict(ns.get("__annotations__", {}))
            fields = tuple(annotations)
            with_default = [name for name in fields if name in ns]
            if with_default != list(fields[len(fields) - len(with_default) :]):
                raise TypeError(f"a field without a default follows {with_default[0]}")
            defaults = {name: ns[name] for name in with_default}
            made = _named_tuple_class(typename, fields, defaults, ns["__module__"])
            made.__annotations__ = annotations
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
