"""A cache of tiktoken's decoded BPE ranks, so that a cold process skips parsing them.

Loading a bundled encoding reads its ``.tiktoken`` file, checks its SHA-256 and base64-decodes
100,000 lines into a ``dict[bytes, int]`` (~190 ms, more than half of what loading the
encoding costs); building the :class:`tiktoken.Encoding` from that dict is the rest. This
module keeps the constructor's result (name, pattern, ranks, special tokens) as one
:mod:`marshal` file in a directory the caller owns, and loads it back in ~40 ms.

The cache is never trusted: a file is used only when its header names the same format, the
same tiktoken version and the same bundled files (path, size and modification time of the
plug-in module and of every file in its ``data`` directory), and its payload has the BLAKE2b
digest the header records and the shape the constructor returns. Anything else (missing,
stale, damaged, foreign) is ignored and the cache is written again from the bundled file.
The encoding built from it is the same encoding: ``tests/test_encoding_cache.py`` checks that
it tokenizes every text exactly as ``tiktoken.get_encoding`` does.
"""

from __future__ import annotations

import contextlib
import marshal
import sys
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from session_memory.files import read_regular
from session_memory.hashes import blake2b
from session_memory.store import atomic_write, ensure_private_dir

if TYPE_CHECKING:
    import tiktoken

__all__ = ["CACHE_FORMAT", "MAX_CACHE_BYTES", "cache_path", "load_encoding"]

CACHE_FORMAT: Final = 1
"""Bumped when the layout of a cache file changes; a file of another format is rewritten."""

MAX_CACHE_BYTES: Final = 64 * 1024 * 1024
"""A cache file larger than this is not read (cl100k's is 1.7 MB)."""

_FIELDS: Final = ("name", "pat_str", "mergeable_ranks", "special_tokens")


def cache_path(cache_dir: Path, encoding: str) -> Path:
    """Where the ranks of ``encoding`` (a registered tiktoken name) are cached."""
    return cache_dir / f"{encoding}.ranks"


def load_encoding(encoding: str, cache_dir: Path) -> tiktoken.Encoding:
    """The registered tiktoken ``encoding``, its constructor's result read from the cache in
    ``cache_dir`` when it is there and valid, else built and cached there for the next
    process. A cache that cannot be written is only a missed saving."""
    import tiktoken
    import tiktoken.registry

    tiktoken.registry.list_encoding_names()  # fills ENCODING_CONSTRUCTORS
    constructors = tiktoken.registry.ENCODING_CONSTRUCTORS or {}
    constructor = constructors[encoding]  # KeyError for an unknown name, as get_encoding
    key = _source_key(encoding, constructor)
    path = cache_path(cache_dir, encoding)
    args = _read(path, key)
    if args is None:
        args = constructor()
        with contextlib.suppress(OSError, ValueError):
            ensure_private_dir(cache_dir)
            _write(path, key, args)
    return tiktoken.Encoding(**args)


def _source_key(encoding: str, constructor: object) -> list[object]:
    """What the cached ranks were derived from: tiktoken's version, the plug-in module that
    registers the encoding, and every bundled data file next to it."""
    import tiktoken

    module = sys.modules.get(getattr(constructor, "__module__", ""))
    source = getattr(module, "__file__", None)
    files: list[object] = []
    if source:
        data = Path(source).parent / "data"
        for path in [Path(source), *sorted(data.iterdir() if data.is_dir() else ())]:
            st = path.stat()
            files.append([str(path), st.st_size, st.st_mtime_ns])
    return [CACHE_FORMAT, tiktoken.__version__, encoding, files]


def _read(path: Path, key: list[object]) -> dict[str, Any] | None:
    """The cached constructor result, or None unless every check passes."""
    data = read_regular(path, MAX_CACHE_BYTES)
    if data is None:
        return None
    head, sep, blob = data.partition(b"\n")
    try:
        header = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    if (
        not sep
        or not isinstance(header, dict)
        or header.get("key") != key
        or header.get("blake2b") != blake2b(blob, digest_size=16).hexdigest()
    ):
        return None
    try:
        args = marshal.loads(blob)
    except (EOFError, ValueError, TypeError):
        return None
    return args if _well_formed(args) else None


def _well_formed(args: object, *, every_rank: bool = False) -> bool:
    """The shape a tiktoken constructor returns. Every rank is checked before writing; on
    reading, the digest vouches for those bytes, so a sample of ranks is (all of them would
    take a fifth of what the cache saves)."""
    if not isinstance(args, dict) or sorted(args) != sorted(_FIELDS):
        return False
    ranks, special = args["mergeable_ranks"], args["special_tokens"]
    if not (
        isinstance(args["name"], str)
        and isinstance(args["pat_str"], str)
        and isinstance(ranks, dict)
        and isinstance(special, dict)
    ):
        return False
    items = islice(ranks.items(), 0, None, 1 if every_rank else max(1, len(ranks) // 64))
    return all(isinstance(k, bytes) and type(v) is int for k, v in items) and all(
        isinstance(k, str) and type(v) is int for k, v in special.items()
    )


def _write(path: Path, key: list[object], args: dict[str, Any]) -> None:
    if not _well_formed(args, every_rank=True):
        raise ValueError("the encoding's constructor returned an unexpected shape")
    blob = marshal.dumps({field: args[field] for field in _FIELDS})
    header = {"key": key, "blake2b": blake2b(blob, digest_size=16).hexdigest()}
    atomic_write(path, orjson.dumps(header) + b"\n" + blob)
