"""Where the service keeps things on disk: atomic writes, per-transcript state, safe names.

The state file of a transcript is the single source of truth for resuming it: it holds the
deriver snapshot *and* the byte offset that snapshot has consumed, so the two can never
disagree; it is read like any untrusted input (:func:`load_state`). The outputs
(``.memory.json``, ``.memory.md``) are a cache derived from it, published as one generation
by :class:`Outputs` before the state is written, so a kill at any instant leaves either the
old pair or the new one, never half of each. The write order and its guarantees are in
``docs/service-guarantees.md``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar

from session_memory.errors import StateError
from session_memory.files import read_regular

if TYPE_CHECKING:
    from session_memory.events import JsonObject

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "FINGERPRINT_WINDOW",
    "GENERATIONS_DIRNAME",
    "JSON_SUFFIX",
    "MAX_OUTPUT_BYTES",
    "MAX_STATE_BYTES",
    "MD_SUFFIX",
    "STATE_FORMAT",
    "OutputPair",
    "Outputs",
    "StateError",
    "TranscriptState",
    "atomic_write",
    "compact_json",
    "ensure_private_dir",
    "fingerprint",
    "fsync_dir",
    "load_state",
    "memory_hash",
    "remove_orphans",
    "safe_name",
    "save_state",
    "state_path",
    "write_new",
]

FILE_MODE: Final = 0o600
"""Outputs and state are readable by their owner only: transcripts may hold secrets."""

DIR_MODE: Final = 0o700

STATE_FORMAT: Final = 3
"""Bumped when the layout of a state file changes; a state of another format is rebuilt."""

MAX_STATE_BYTES: Final = 256 * 1024 * 1024
"""A state file larger than this is not read (a snapshot is bounded far below it)."""

MAX_OUTPUT_BYTES: Final = 64 * 1024 * 1024
"""What :meth:`Outputs.read` reads at most of one output file (a memory is kilobytes)."""

JSON_SUFFIX: Final = ".memory.json"
MD_SUFFIX: Final = ".memory.md"
GENERATIONS_DIRNAME: Final = ".generations"
"""Inside the output directory: one directory per published generation of each pair."""

TEMP_SUFFIX: Final = ".tmp"

FINGERPRINT_WINDOW: Final = 4096
"""Bytes before the consumed offset that the prefix fingerprint covers."""

MAX_NAME: Final = 96
"""Longest file-name stem derived from a session id (well under NAME_MAX with suffixes)."""

_HASH_CHARS: Final = 12
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")
_WINDOWS_RESERVED: Final = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"{d}{i}" for d in ("COM", "LPT") for i in range(1, 10)]
)
_TEMP_NAME: Final = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")
_GENERATION_NAME: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.[0-9]+")
_FINGERPRINT: Final = re.compile(r"[0-9a-f]{32}:[0-9]{1,4}")
_HEX32: Final = re.compile(r"[0-9a-f]{32}")
_POINTER: Final = ".current"
_MD_FILE: Final = "memory.md"
_JSON_FILE: Final = "memory.json"
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_T = TypeVar("_T")


def safe_name(raw: str) -> str:
    """A file-name stem for a session id: only ``[A-Za-z0-9._-]``, no leading dot, capped.

    A name that had to be altered (or shortened) gets a suffix of the hash of the original,
    so distinct ids stay distinct: ``"../../x"`` becomes ``"_.._x-<hash>"``; an empty id,
    one with NUL bytes, an absolute path or 10,000 characters all give a short safe stem.
    A stem Windows reserves for a device (``CON``, ``nul``, ``Aux.x``, ``com1``...) gets a
    leading ``_``, so an output directory can be shared with or copied to Windows.
    """
    cleaned = _UNSAFE.sub("_", raw)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned[1:]
    if cleaned.split(".", 1)[0].upper() in _WINDOWS_RESERVED:
        cleaned = "_" + cleaned
    if cleaned == raw and 0 < len(cleaned) <= MAX_NAME:
        return cleaned
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    stem = cleaned[: MAX_NAME - _HASH_CHARS - 1] or "session"
    return f"{stem}-{digest}"


def compact_json(value: object) -> bytes:
    """``value`` as compact UTF-8 JSON, with the standard library's encoder (no orjson import
    on the paths a fresh hook process reads and writes through)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def ensure_private_dir(path: Path, warn: Callable[[str], None] | None = None) -> Path:
    """Create ``path`` and any missing parents mode 0o700; warn about an open existing one.

    Every directory this creates is 0o700 (``Path.mkdir(parents=True)`` would give the
    parents the umask's mode). An existing ``path`` that its group or others may enter gets
    one warning: the memories in it may hold what the transcripts held. It goes to ``warn``
    when given (the hook's own log), else to this module's logger (imported only then: a
    hook call does not load logging).
    """
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, DIR_MODE)
            os.chmod(directory, DIR_MODE)  # the umask may have taken bits away
    if not path.is_dir():
        raise NotADirectoryError(f"not a directory: {path}")
    if not missing:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            message = (
                f"{path} is accessible to its group or others (mode {mode:03o}); memories "
                "may hold secrets from the transcripts: chmod 700 it"
            )
            if warn is None:
                import logging

                warn = logging.getLogger(__name__).warning
            warn(message)
    return path


def fsync_dir(path: Path) -> None:
    """Make renames inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never a mix.

    Temp file in the same directory (so the rename cannot cross file systems), mode 0o600
    from creation, fsync, ``os.replace``, then fsync of the directory (skip it with
    ``sync_dir=False`` when the caller syncs the directory once for several files). The
    rename replaces whatever entry ``path`` is (a planted symlink included), never its target.
    ``durable=False`` skips both fsyncs: still atomic for readers and across kills, durable
    only once the caller syncs (after a power cut the file may be old, empty or torn).
    """
    tmp = _temp_beside(path)
    write_new(tmp, data, durable=durable)
    _rename_over(tmp, path)
    if sync_dir and durable:
        fsync_dir(path.parent)


def write_new(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Create ``path`` (it must not exist, not even as a link), write, fsync unless not
    ``durable``; 0o600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def remove_orphans(directory: Path) -> int:
    """Delete the temp files a killed writer left in ``directory``; how many went.

    Only names :func:`atomic_write` makes (``.<name>.<8 hex>.tmp``) are touched, and only
    entries themselves (a link is unlinked, never followed).
    """
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if _TEMP_NAME.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed += 1
    return removed


def fingerprint(fd: int, offset: int) -> str:
    """Hash of the up-to-4 KiB before ``offset``, read with ``pread`` (no seek).

    With the offset itself (kept next to it) this verifies the consumed prefix in one small
    read: appends do not change it, truncation, rewriting or replacing the tail do. A rewrite
    that keeps the last 4 KiB and the length identical goes unnoticed; agents append only,
    and hashing the whole prefix would make restarts cost the transcript's length.
    """
    start = max(0, offset - FINGERPRINT_WINDOW)
    window = os.pread(fd, offset - start, start)
    return hashlib.blake2b(window, digest_size=16).hexdigest() + f":{len(window)}"


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
    return hashlib.blake2b(memory_json, digest_size=16).hexdigest()


def state_path(state_dir: Path, transcript: str) -> Path:
    """The state file of a transcript: named by the hash of its real path."""
    digest = hashlib.sha256(transcript.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return state_dir / f"{digest}.state"


def save_state(state_dir: Path, state: TranscriptState, *, durable: bool = True) -> None:
    """Write the state atomically: a JSON header line, then the raw snapshot bytes
    (``durable=False``: without fsyncs, see :func:`atomic_write`)."""
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
        "snapshot_blake2b": hashlib.blake2b(state.snapshot, digest_size=16).hexdigest(),
    }
    atomic_write(
        state_path(state_dir, state.path),
        compact_json(header) + b"\n" + state.snapshot,
        durable=durable,
    )


def load_state(path: Path) -> TranscriptState:
    """Read a state file; :class:`StateError` when it is unreadable, foreign or damaged.

    The state is input like any other: it is read only if it is a regular file (not a link,
    FIFO or device) of at most :data:`MAX_STATE_BYTES`, and every header field is checked for
    its type and range before anything of it is used.
    """
    data = read_regular(path, MAX_STATE_BYTES)
    if data is None:
        raise StateError(f"state {path} is not a regular file of at most {MAX_STATE_BYTES} bytes")
    head, sep, snapshot = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError as exc:  # not UTF-8, or not JSON
        raise StateError(f"state {path} is damaged: {exc}") from exc
    if not sep or not isinstance(header, dict) or header.get("format") != STATE_FORMAT:
        raise StateError(f"state {path} has an unknown format")
    try:
        if (
            _field(header, "snapshot_blake2b", str)
            != hashlib.blake2b(snapshot, digest_size=16).hexdigest()
        ):
            raise StateError(f"state {path} is damaged: snapshot hash mismatch")
        return TranscriptState(
            path=_field(header, "path", str),
            dev=_count(header, "dev"),
            ino=_count(header, "ino"),
            offset=_count(header, "offset"),
            fingerprint=_matching(header, "fingerprint", _FINGERPRINT),
            name=_optional(header, "name", str),
            budget_tokens=_count(header, "budget_tokens"),
            encoding=_field(header, "encoding", str),
            snapshot=snapshot,
            transcript_format=_field(header, "transcript_format", str),
            adapter=_optional(header, "adapter", dict),
            memory_hash=_matching(header, "memory_blake2b", _HEX32),
            markdown_hash=_markdown_hash(header),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StateError(f"state {path} is damaged: {exc}") from exc


def _markdown_hash(header: dict[str, object]) -> str:
    """The optional ``markdown_blake2b`` (states written before it existed have none)."""
    if header.get("markdown_blake2b", "") == "":
        return ""
    return _matching(header, "markdown_blake2b", _HEX32)


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


def _matching(header: dict[str, object], key: str, pattern: re.Pattern[str]) -> str:
    value = _field(header, key, str)
    if not pattern.fullmatch(value):
        raise ValueError(f"{key}: {value[:40]!r} is not of the expected form")
    return value


# ---------------------------------------------------------------------- published outputs


class OutputPair(NamedTuple):
    """The two renderings of one memory, published together."""

    markdown: bytes
    json: bytes


class Outputs:
    """The memories published in one output directory, each pair as one generation.

    ``<out>/<name>.memory.md`` and ``<out>/<name>.memory.json`` are symbolic links through
    one pointer, ``<out>/.generations/<name>.current``, to the generation directory
    ``<name>.<N>`` that holds both files. A new pair is written whole into generation
    ``N+1`` (each file fsynced, then the directory), and published by renaming a new pointer
    over the old one: one atomic step, so at every instant both names show the same
    generation, whatever moment the writer is killed at. The write order and what it
    guarantees across kills and power loss are in ``docs/service-guarantees.md``.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.generations = out_dir / GENERATIONS_DIRNAME

    def paths(self, name: str) -> tuple[Path, Path]:
        """The ``.memory.json`` and ``.memory.md`` names of a session in the output dir."""
        return self.out_dir / f"{name}{JSON_SUFFIX}", self.out_dir / f"{name}{MD_SUFFIX}"

    def matches(self, name: str, pair: OutputPair) -> bool:
        """True when ``name`` is published with exactly these bytes, links included.

        Reads the current generation's files no-follow with a cap of the expected size, so
        an output swapped for ``/dev/zero`` or a huge file costs nothing.
        """
        generation = self._current(name)
        if generation is None or not self._links_ok(name):
            return False
        directory = self.generations / f"{name}.{generation}"
        return read_regular(directory / _MD_FILE, len(pair.markdown)) == pair.markdown and (
            read_regular(directory / _JSON_FILE, len(pair.json)) == pair.json
        )

    def read(self, name: str) -> OutputPair | None:
        """The published pair of ``name``, both files of one generation; None if there is none.

        The pointer is resolved once (the generation directory is opened), and both files
        are opened relative to that directory: a switch in between cannot mix generations.
        This is how a reader that needs the two files to agree should read them.
        """
        try:
            fd = os.open(
                self.generations / f"{name}{_POINTER}", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC
            )
        except OSError:
            return None
        try:
            markdown = read_regular(_MD_FILE, MAX_OUTPUT_BYTES, dir_fd=fd)
            json = read_regular(_JSON_FILE, MAX_OUTPUT_BYTES, dir_fd=fd)
        finally:
            os.close(fd)
        return None if markdown is None or json is None else OutputPair(markdown, json)

    def published(self, name: str) -> OutputPair | None:
        """Like :meth:`read`, and only when both names in the output directory lead to it."""
        return self.read(name) if self._links_ok(name) else None

    def publish(
        self,
        name: str,
        pair: OutputPair,
        *,
        markdown_unchanged: bool = False,
        durable: bool = True,
    ) -> None:
        """Publish a new generation of ``name``'s pair; both names switch at once.

        With ``markdown_unchanged`` the Markdown of the current generation is hard-linked
        into the new one instead of written again (it is already durable, or as durable as
        the generation it came from). ``durable=False`` skips every fsync: the switch is
        still atomic for readers and across kills, and durable once the caller syncs.
        """
        ensure_private_dir(self.generations)
        current = self._current(name)
        generation = (current or 0) + 1
        directory = self.generations / f"{name}.{generation}"
        if os.path.lexists(directory):
            _remove_generation(directory)  # an orphan of a kill before its pointer moved
        os.mkdir(directory, DIR_MODE)
        if not (
            markdown_unchanged
            and current is not None
            and _link(
                self.generations / f"{name}.{current}" / _MD_FILE,
                directory / _MD_FILE,
                len(pair.markdown),
            )
        ):
            write_new(directory / _MD_FILE, pair.markdown, durable=durable)
        write_new(directory / _JSON_FILE, pair.json, durable=durable)
        if durable:
            fsync_dir(directory)
        _replace_link(self.generations / f"{name}{_POINTER}", f"{name}.{generation}")
        if durable:
            fsync_dir(self.generations)
        if not self._links_ok(name):
            for path, file in zip(self.paths(name), (_JSON_FILE, _MD_FILE), strict=True):
                _replace_link(path, f"{GENERATIONS_DIRNAME}/{name}{_POINTER}/{file}")
            if durable:
                fsync_dir(self.out_dir)
        if current is not None and current != generation:
            _remove_generation(self.generations / f"{name}.{current}")

    def sync(self, name: str) -> None:
        """fsync everything a published pair rests on (after a restart found it in place)."""
        generation = self._current(name)
        if generation is not None:
            fsync_dir(self.generations / f"{name}.{generation}")
        if self.generations.is_dir():
            fsync_dir(self.generations)
        fsync_dir(self.out_dir)

    def clean(self) -> int:
        """Remove what killed writers left: temp files, pointer temps, unpublished generations.

        Run at start, before anything is written. Returns how many entries went.
        """
        removed = remove_orphans(self.out_dir)
        try:
            entries = list(os.scandir(self.generations))
        except OSError:
            return removed
        published = set()
        for entry in entries:
            if entry.name.endswith(_POINTER) and entry.is_symlink():
                with contextlib.suppress(OSError):
                    published.add(os.readlink(entry.path))
        for entry in entries:
            if _TEMP_NAME.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed += 1
            elif (
                _GENERATION_NAME.fullmatch(entry.name)
                and entry.is_dir(follow_symlinks=False)
                and entry.name not in published
            ):
                _remove_generation(Path(entry.path))
                removed += 1
        return removed

    def _current(self, name: str) -> int | None:
        """The published generation of ``name``, from its pointer (never followed)."""
        try:
            target = os.readlink(self.generations / f"{name}{_POINTER}")
        except OSError:
            return None
        stem, dot, number = target.rpartition(".")
        if stem != name or not dot or not number.isdigit() or not number.isascii():
            return None
        return int(number)

    def _links_ok(self, name: str) -> bool:
        for path, file in zip(self.paths(name), (_JSON_FILE, _MD_FILE), strict=True):
            try:
                if os.readlink(path) != f"{GENERATIONS_DIRNAME}/{name}{_POINTER}/{file}":
                    return False
            except OSError:
                return False
        return True


def _link(source: Path, target: Path, size: int) -> bool:
    """Hard-link ``source`` as ``target`` if it is still a regular file of ``size`` bytes."""
    try:
        st = os.lstat(source)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return False
        os.link(source, target, follow_symlinks=False)
    except OSError:
        return False
    return True


def _replace_link(path: Path, target: str) -> None:
    """Point the symbolic link ``path`` at ``target`` in one rename (over any entry)."""
    tmp = _temp_beside(path)
    os.symlink(target, tmp)
    _rename_over(tmp, path)


def _temp_beside(path: Path) -> Path:
    """A fresh hidden temporary name in ``path``'s directory (removed by remove_orphans)."""
    return path.with_name(f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}")


def _rename_over(tmp: Path, path: Path) -> None:
    """Rename ``tmp`` over ``path`` in one step; on any failure ``tmp`` is removed."""
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove_generation(directory: Path) -> None:
    """Delete one generation directory: its entries (never followed), then itself."""
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):
            if not entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
        with contextlib.suppress(OSError):
            os.rmdir(directory)
