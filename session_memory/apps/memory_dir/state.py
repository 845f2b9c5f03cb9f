"""What a memory directory holds, readable without its writer: state files, published pairs.

The state file of a transcript is the single source of truth for resuming it: it holds the deriver
snapshot *and* the byte offset that snapshot has consumed, so the two can never disagree; it is read
like any untrusted input (:func:`load_state`). The outputs (``.memory.json``, ``.memory.md``) are a
cache derived from it, published as one generation by
:class:`session_memory.apps.memory_dir.outputs.Outputs`; :func:`read_published` reads both files of
one generation. This module knows the names and the bytes of both, and reads them; writing them
(atomically, in the order ``docs/service-guarantees.md`` gives) is
:mod:`session_memory.apps.memory_dir.outputs`.

A hook call whose state is current reads through this module alone, a fresh process per agent
event: it uses the standard library's :mod:`json` rather than orjson, whose import alone
(with :mod:`dataclasses`, :mod:`uuid`, :mod:`datetime`) would cost that call ~40 ms of its
60 ms budget (``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from session_memory.apps.memory_dir.files import read_regular
from session_memory.apps.memory_dir.writes import StrPath
from session_memory.core.errors import StateError
from session_memory.core.startup import NamedTuple, blake2b, sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

    from session_memory.core.events import JsonObject

    _T = TypeVar("_T")

__all__ = [
    "FINGERPRINT_WINDOW",
    "GENERATIONS_DIRNAME",
    "JSON_FILE",
    "JSON_SUFFIX",
    "MAX_NAME",
    "MAX_OUTPUT_BYTES",
    "MAX_STATE_BYTES",
    "MD_FILE",
    "MD_SUFFIX",
    "POINTER_SUFFIX",
    "STATE_FORMAT",
    "OutputPair",
    "TranscriptState",
    "compact_json",
    "fingerprint",
    "load_state",
    "memory_hash",
    "read_published",
    "safe_name",
    "state_bytes",
    "state_file_name",
    "state_name",
]

STATE_FORMAT: Final = 3
"""Bumped when the layout of a state file changes; a state of another format is rebuilt."""

MAX_STATE_BYTES: Final = 256 * 1024 * 1024
"""A state file larger than this is not read (a snapshot is bounded far below it)."""

MAX_OUTPUT_BYTES: Final = 64 * 1024 * 1024
"""What :func:`read_published` reads at most of one output file (a memory is kilobytes)."""

JSON_SUFFIX: Final = ".memory.json"
MD_SUFFIX: Final = ".memory.md"
GENERATIONS_DIRNAME: Final = ".generations"
"""Inside the output directory: one directory per published generation of each pair."""

POINTER_SUFFIX: Final = ".current"
"""``.generations/<name>.current``: the link naming the published generation of ``name``."""

MD_FILE: Final = "memory.md"
JSON_FILE: Final = "memory.json"
"""The two files inside a generation directory."""

FINGERPRINT_WINDOW: Final = 4096
"""Bytes before the consumed offset that the prefix fingerprint covers."""

MAX_NAME: Final = 96
"""Longest file-name stem derived from a session id (well under NAME_MAX with suffixes)."""

_HASH_CHARS: Final = 12
_SAFE: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_WINDOWS_RESERVED: Final = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"{d}{i}" for d in ("COM", "LPT") for i in range(1, 10)]
)
_HEX_DIGITS: Final = "0123456789abcdef"
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)


def safe_name(raw: str) -> str:
    """A file-name stem for a session id: only ``[A-Za-z0-9._-]``, no leading dot, capped.

    A name that had to be altered (or shortened) gets a suffix of the hash of the original,
    so distinct ids stay distinct: ``"../../x"`` becomes ``"_.._x-<hash>"``; an empty id,
    one with NUL bytes, an absolute path or 10,000 characters all give a short safe stem.
    A stem Windows reserves for a device (``CON``, ``nul``, ``Aux.x``, ``com1``...) gets a
    leading ``_``, so an output directory can be shared with or copied to Windows.
    """
    cleaned = "".join(c if c in _SAFE else "_" for c in raw)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned[1:]
    if cleaned.split(".", 1)[0].upper() in _WINDOWS_RESERVED:
        cleaned = "_" + cleaned
    if cleaned == raw and 0 < len(cleaned) <= MAX_NAME:
        return cleaned
    digest = sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    stem = cleaned[: MAX_NAME - _HASH_CHARS - 1] or "session"
    return f"{stem}-{digest}"


def compact_json(value: object) -> bytes:
    """``value`` as compact UTF-8 JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def fingerprint(fd: int, offset: int) -> str:
    """Hash of the up-to-4 KiB before ``offset``, read with ``pread`` (no seek).

    With the offset itself (kept next to it) this verifies the consumed prefix in one small
    read: appends do not change it, truncation, rewriting or replacing the tail do. A rewrite
    that keeps the last 4 KiB and the length identical goes unnoticed; agents append only,
    and hashing the whole prefix would make restarts cost the transcript's length.
    """
    start = max(0, offset - FINGERPRINT_WINDOW)
    window = os.pread(fd, offset - start, start)
    return blake2b(window, digest_size=16).hexdigest() + f":{len(window)}"


class TranscriptState(NamedTuple):
    """What the service knows about one transcript, persisted as one file.

    ``fingerprint`` is the BLAKE2b hash of the up-to-4 KiB before ``offset`` (see
    :func:`fingerprint`); with ``offset`` and the file identity
    ``(dev, ino)`` it tells, cheaply, whether the consumed prefix is still the same bytes.
    ``memory_hash`` is the hash of the memory's JSON when the state was saved: a restored
    snapshot that gives another memory is not trusted. ``markdown_hash`` is the hash of the
    Markdown published with it (empty when none was): with ``memory_hash`` it lets a restart
    see that a transcript's published pair is exactly its state's without restoring it.
    """

    path: str
    dev: int
    ino: int
    offset: int
    fingerprint: str
    name: str | None
    budget_tokens: int
    encoding: str
    snapshot: bytes
    transcript_format: str = "auto"
    adapter: JsonObject | None = None
    memory_hash: str = ""
    markdown_hash: str = ""


def memory_hash(memory_json: bytes) -> str:
    """The hash a state keeps of the memory JSON it was saved with."""
    return blake2b(memory_json, digest_size=16).hexdigest()


def state_file_name(state_dir: StrPath, transcript: str) -> str:
    """The state file of a transcript: named by the hash of its real path."""
    return os.path.join(state_dir, state_name(transcript))


def state_name(transcript: str) -> str:
    """The name of a transcript's state file in the state directory (:func:`state_file_name`
    without the directory: a restart names 10,000 of them, and joining each to a ``Path`` was
    a third of the time it took to find them unchanged)."""
    digest = sha256(transcript.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return f"{digest}.state"


def state_bytes(state: TranscriptState) -> bytes:
    """The bytes of a state file: a JSON header line, then the raw snapshot bytes."""
    header = {
        "format": STATE_FORMAT,
        "path": state.path,
        "dev": state.dev,
        "ino": state.ino,
        "offset": state.offset,
        "fingerprint": state.fingerprint,
        "name": state.name,
        "budget_tokens": state.budget_tokens,
        "encoding": state.encoding,
        "transcript_format": state.transcript_format,
        "adapter": state.adapter,
        "memory_blake2b": state.memory_hash,
        "markdown_blake2b": state.markdown_hash,
        "snapshot_blake2b": blake2b(state.snapshot, digest_size=16).hexdigest(),
    }
    return compact_json(header) + b"\n" + state.snapshot


def load_state(path: StrPath) -> TranscriptState:
    """Read a state file; :class:`StateError` when it is unreadable, foreign or damaged.

    The state is input like any other: it is read only if it is a regular file (not a link,
    FIFO or device) of at most :data:`MAX_STATE_BYTES`, and every header field is checked for
    its type and range before anything of it is used.
    """
    data = read_regular(path, MAX_STATE_BYTES)
    where = os.fspath(path)
    if data is None:
        raise StateError(f"state {where} is not a regular file of at most {MAX_STATE_BYTES} bytes")
    head, sep, snapshot = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError as exc:  # not UTF-8, or not JSON
        raise StateError(f"state {where} is damaged: {exc}") from exc
    if not sep or not isinstance(header, dict) or header.get("format") != STATE_FORMAT:
        raise StateError(f"state {where} has an unknown format")
    try:
        if _field(header, "snapshot_blake2b", str) != blake2b(snapshot, digest_size=16).hexdigest():
            raise StateError(f"state {where} is damaged: snapshot hash mismatch")
        return TranscriptState(
            path=_field(header, "path", str),
            dev=_count(header, "dev"),
            ino=_count(header, "ino"),
            offset=_count(header, "offset"),
            fingerprint=_matching(header, "fingerprint", _is_fingerprint),
            name=_optional(header, "name", str),
            budget_tokens=_count(header, "budget_tokens"),
            encoding=_field(header, "encoding", str),
            snapshot=snapshot,
            transcript_format=_field(header, "transcript_format", str),
            adapter=_optional(header, "adapter", dict),
            memory_hash=_matching(header, "memory_blake2b", _is_hex32),
            markdown_hash=_markdown_hash(header),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StateError(f"state {where} is damaged: {exc}") from exc


def _markdown_hash(header: dict[str, object]) -> str:
    """The optional ``markdown_blake2b`` (states written before it existed have none)."""
    if header.get("markdown_blake2b", "") == "":
        return ""
    return _matching(header, "markdown_blake2b", _is_hex32)


def _field(header: dict[str, object], key: str, kind: type[_T]) -> _T:
    value = header[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _optional(header: dict[str, object], key: str, kind: type[_T]) -> _T | None:
    return None if header[key] is None else _field(header, key, kind)


def _count(header: dict[str, object], key: str) -> int:
    value = _field(header, key, int)
    if value < 0:
        raise ValueError(f"{key}: {value} is negative")
    return value


def _matching(header: dict[str, object], key: str, check: Callable[[str], bool]) -> str:
    value = _field(header, key, str)
    if not check(value):
        raise ValueError(f"{key}: {value[:40]!r} is not of the expected form")
    return value


def _is_hex32(value: str) -> bool:
    """32 lowercase hex digits (a 16-byte BLAKE2b digest)."""
    return len(value) == 32 and not value.strip(_HEX_DIGITS)


def _is_fingerprint(value: str) -> bool:
    """``<32 hex digits>:<1 to 4 ASCII digits>``, as :func:`fingerprint` writes it."""
    digest, colon, size = value.partition(":")
    return (
        bool(colon)
        and _is_hex32(digest)
        and 0 < len(size) <= 4
        and size.isascii()
        and size.isdigit()
    )


class OutputPair(NamedTuple):
    """The two renderings of one memory, published together."""

    markdown: bytes
    json: bytes


def read_published(out_dir: StrPath, name: str) -> OutputPair | None:
    """The published pair of ``name``, both files of one generation; None if there is none.

    The pointer is resolved once (the generation directory is opened), and both files
    are opened relative to that directory: a switch in between cannot mix generations.
    This is how a reader that needs the two files to agree should read them.
    """
    pointer = os.path.join(out_dir, GENERATIONS_DIRNAME, f"{name}{POINTER_SUFFIX}")
    try:
        fd = os.open(pointer, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except OSError:
        return None
    try:
        markdown = read_regular(MD_FILE, MAX_OUTPUT_BYTES, dir_fd=fd)
        data = read_regular(JSON_FILE, MAX_OUTPUT_BYTES, dir_fd=fd)
    finally:
        os.close(fd)
    return None if markdown is None or data is None else OutputPair(markdown, data)
