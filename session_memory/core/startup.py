"""The one start-up measure the budgets of ``session-memory hook`` need, and why.

A ``session-memory hook`` call is a new process per agent event. Its budgets
(``benchmarks/bench_startup.py``, ``benchmarks/bench_hook.py``): a call whose state is current
at most 60 ms of CPU and 4 times ``python -c pass`` of the same run; a cold call, which folds
a 3 MB Claude Code transcript, at most 1 s. The plain code meets them with one exception,
measured on this project's shared 2-core host at a load of 8 to 10 (interleaved runs, CPU
medians):

- :func:`lazy_names`: a package exports its names on first use (PEP 562). Every module of
  the hook lies in the ``session_memory`` package, whose ``__init__`` runs first; importing
  there what the package exports (the event and memory structs with msgspec, the readers
  with orjson) made a current-state call 5.2 times ``python -c pass`` instead of 3.0 (117
  against 67 ms, ``python -c pass`` 22 ms, 15 rounds). Likewise every command builds its
  parser from the format names of ``session_memory.formats``: importing the adapters with
  them made ``--help`` cost 168 ms instead of 106. So these two packages export through
  :func:`lazy_names`; every other package imports what it exports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, MutableMapping, Sequence

__all__ = ["lazy_names"]


def lazy_names(
    namespace: MutableMapping[str, object], names: Sequence[str], modules: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose globals are ``namespace`` and whose
    ``__all__`` is ``names``.

    A name of ``names`` is imported when first asked for, from the first of ``modules`` that
    has it (relative to the package when it starts with ``.``), and kept in ``namespace``;
    any other name is an :class:`AttributeError`.
    """
    package = str(namespace["__name__"])

    def __getattr__(name: str) -> object:
        if name in names:
            for module in modules:
                value = getattr(importlib.import_module(module, package), name, namespace)
                if value is not namespace:
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
