"""Where the service keeps things on disk: atomic writes, per-transcript state, safe names.

The state file of a transcript is the single source of truth for resuming it: it holds the
deriver snapshot *and* the byte offset that snapshot has consumed, so the two can never
disagree. The outputs (``.memory.json``, ``.memory.md``) are a cache derived from it: the
service writes them before the state and reconciles them with the state on start, so a kill
at any instant leaves either the old pair or the new one, never half of each.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

import orjson

from session_memory.errors import StateError
from session_memory.events import JsonObject

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "STATE_FORMAT",
    "StateError",
    "TranscriptState",
    "atomic_write",
    "ensure_private_dir",
    "fsync_dir",
    "load_state",
    "safe_name",
    "save_state",
    "state_path",
]

FILE_MODE: Final = 0o600
"""Outputs and state are readable by their owner only: transcripts may hold secrets."""

DIR_MODE: Final = 0o700

STATE_FORMAT: Final = 2
"""Bumped when the layout of a state file changes; a state of another format is ignored."""

MAX_NAME: Final = 96
"""Longest file-name stem derived from a session id (well under NAME_MAX with suffixes)."""

_HASH_CHARS: Final = 12
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")
_T = TypeVar("_T")


def safe_name(raw: str) -> str:
    """A file-name stem for a session id: only ``[A-Za-z0-9._-]``, no leading dot, capped.

    A name that had to be altered (or shortened) gets a suffix of the hash of the original,
    so distinct ids stay distinct: ``"../../x"`` becomes ``"_.._x-<hash>"``; an empty id,
    one with NUL bytes, an absolute path or 10,000 characters all give a short safe stem.
    """
    cleaned = _UNSAFE.sub("_", raw)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned[1:]
    if cleaned == raw and 0 < len(cleaned) <= MAX_NAME:
        return cleaned
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    stem = cleaned[: MAX_NAME - _HASH_CHARS - 1] or "session"
    return f"{stem}-{digest}"


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed; a directory we create is mode 0o700."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return path


def fsync_dir(path: Path) -> None:
    """Make renames inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never a mix.

    Temp file in the same directory (so the rename cannot cross file systems), mode 0o600
    from creation, fsync, ``os.replace``, then fsync of the directory (skip it with
    ``sync_dir=False`` when the caller syncs the directory once for several files).
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(path.parent)


@dataclass(frozen=True, slots=True)
class TranscriptState:
    """What the service knows about one transcript, persisted as one file.

    ``fingerprint`` is the BLAKE2b hash of the up-to-4 KiB before ``offset`` (see
    :func:`session_memory.tail.fingerprint`); with ``offset`` and the file identity
    ``(dev, ino)`` it tells, cheaply, whether the consumed prefix is still the same bytes.
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


def state_path(state_dir: Path, transcript: str) -> Path:
    """The state file of a transcript: named by the hash of its real path."""
    digest = hashlib.sha256(transcript.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return state_dir / f"{digest}.state"


def save_state(state_dir: Path, state: TranscriptState) -> None:
    """Write the state atomically: a JSON header line, then the raw snapshot bytes."""
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
        "snapshot_blake2b": hashlib.blake2b(state.snapshot, digest_size=16).hexdigest(),
    }
    atomic_write(state_path(state_dir, state.path), orjson.dumps(header) + b"\n" + state.snapshot)


def load_state(path: Path) -> TranscriptState:
    """Read a state file; :class:`StateError` when it is unreadable, foreign or damaged."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StateError(f"cannot read state {path}: {exc.strerror}") from exc
    head, sep, snapshot = data.partition(b"\n")
    try:
        header = orjson.loads(head)
        if not sep or header.get("format") != STATE_FORMAT:
            raise StateError(f"state {path} has an unknown format")
        if hashlib.blake2b(snapshot, digest_size=16).hexdigest() != header["snapshot_blake2b"]:
            raise StateError(f"state {path} is damaged: snapshot hash mismatch")
        return TranscriptState(
            path=_typed(header["path"], str),
            dev=_typed(header["dev"], int),
            ino=_typed(header["ino"], int),
            offset=_typed(header["offset"], int),
            fingerprint=_typed(header["fingerprint"], str),
            name=None if header["name"] is None else _typed(header["name"], str),
            budget_tokens=_typed(header["budget_tokens"], int),
            encoding=_typed(header["encoding"], str),
            snapshot=snapshot,
            transcript_format=_typed(header["transcript_format"], str),
            adapter=None if header["adapter"] is None else _typed(header["adapter"], dict),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise StateError(f"state {path} is damaged: {exc}") from exc


def _typed(value: object, kind: type[_T]) -> _T:
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value
