"""Public names a package imports on first use (PEP 562), for the start-up budget.

A ``session-memory hook`` call whose state is current is a new process per agent event, with
a budget of 60 ms CPU and 4 times ``python -c pass`` (``benchmarks/bench_startup.py``). Its
modules lie in the ``session_memory`` package, whose ``__init__`` runs first; importing there
what the package exports (the event and memory structs with msgspec, the readers with
orjson) made that call 5.2 times ``python -c pass`` instead of 3.0 (117 against 67 ms of CPU,
``python -c pass`` 22 ms, 15 interleaved rounds at a load of 10). Likewise every command
builds its parser from the format names of ``session_memory.formats``: importing the adapters
with them made ``--help`` cost 168 ms instead of 106. So these two packages export their
names through :func:`lazy_names`; every other package imports what it exports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, MutableMapping, Sequence

__all__ = ["lazy_names"]


def lazy_names(
    namespace: MutableMapping[str, object], modules: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose globals are ``namespace``.

    A name of the package's ``__all__`` is imported when first asked for, from the first of
    ``modules`` that has it (relative to the package when it starts with ``.``), and kept
    in ``namespace``; any other name is an :class:`AttributeError`.
    """
    package = str(namespace["__name__"])

    def __getattr__(name: str) -> object:
        if name in namespace["__all__"]:  # type: ignore[operator]
            for module in modules:
                value = getattr(importlib.import_module(module, package), name, namespace)
                if value is not namespace:
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace["__all__"]})  # type: ignore[misc]

    return __getattr__, __dir__
