"""Public names a package imports on first use (PEP 562), for every package that does so.

It imports nothing itself, not even :mod:`typing` or :mod:`importlib` (the latter only
when a name is first asked for): the top package uses it, and a hook call whose state is
current imports that package and must stay that cheap (``tests/test_startup_imports.py``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, MutableMapping

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, object]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose globals are ``namespace``.

    A name in ``homes`` is imported from its module there (a name starting with ``.`` is
    relative to ``package``) when first asked for, and kept in ``namespace``; any other
    name is an :class:`AttributeError`.
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(home, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        names: list[str] = namespace["__all__"]  # type: ignore[assignment]
        return sorted([*namespace, *names])

    return __getattr__, __dir__
