"""Public names a package imports on first use (PEP 562): the one start-up measure kept.

A ``session-memory hook`` call whose state is current is a new process per agent event, with
a budget of 60 ms CPU and 4 times ``python -c pass`` (``benchmarks/bench_startup.py``). Every
module it runs lies in the ``session_memory`` package, so that package's ``__init__`` runs
first; importing what it exports (msgspec and orjson for the event and memory structs, the
readers) would cost that call more than the rest of its work: ~60 ms of CPU on top of a
~45 ms call, on a host where ``python -c pass`` takes ~19 ms. So ``session_memory`` and
``session_memory.formats`` (whose format names the command line needs, not its adapters)
export their names through :func:`lazy_names`. Every other package imports what it exports.
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
