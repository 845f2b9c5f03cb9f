"""Following transcripts as they grow; the only module that imports watchfiles.

Two seams: :class:`FileTail` reads the new complete lines of one file from a byte offset and
tells whether the file grew, shrank, was replaced, deleted or swapped for something it must
not read; :func:`watch_changes` says which transcripts under some paths may have changed.
Notifications are hints, never the truth: every caller compares the file's size
with the consumed offset on each notification *and* on a slow timer, because watchfiles'
polling fallback compares modification times at one-second resolution and misses appends
made within the same second (measured: about half of them).
"""

from __future__ import annotations

import contextlib
import enum
import io
import logging
import os
import stat
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final, NamedTuple, Protocol

from session_memory.apps.memory_dir.files import fd_path, open_regular
from session_memory.apps.memory_dir.outputs import FINGERPRINT_WINDOW, fingerprint
from session_memory.core.errors import TranscriptError, TranscriptReplaced
from session_memory.core.events import SkippedLine
from session_memory.formats.reader import (
    MAX_LINE_BYTES,
    ZSTD_MAGIC,
    iter_line_items,
    iter_lines,
    too_long,
    zstd_stream,
)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = [
    "COMPRESSED_SUFFIX",
    "DEBOUNCE_MS",
    "FINGERPRINT_WINDOW",
    "STEP_MS",
    "SWEEP_SECONDS",
    "SWEEP_TICKS",
    "FileIdentity",
    "FileTail",
    "Look",
    "StopEvent",
    "TailStatus",
    "Tailed",
    "TranscriptReplaced",
    "discover_transcripts",
    "find_transcripts",
    "fingerprint",
    "is_compressed",
    "polling",
    "resolves_inside",
    "transcript_stem",
    "watch_changes",
]

logger = logging.getLogger(__name__)

# Freshness target: an append is on disk in the outputs within ~100 ms. watchfiles waits
# `step` ms between checks and yields once a step passes with no new change, or once
# `debounce` ms have passed since the first change. Measured on this project's machines: the
# defaults (debounce 1600, step 50) notice an append after 50-100 ms and, under a steady
# stream of appends, would hold changes back for up to 1.6 s; step=10 notices after ~15 ms
# at negligible CPU; step=1 after ~2 ms but costs ~2% of a core per watcher, for no gain a
# reader of the memory could see. debounce caps the grouping so a transcript that is written
# continuously is still refreshed at least every ~50 ms. It also runs again from each call,
# even when the changes made while the service was busy are already waiting: when a hundred
# transcripts are appended at once, every round of work is followed by a full debounce, so
# 100 ms there cost ~100 ms of every append's latency (bench_watch_scale.py). watchfiles
# counts distinct paths: a stream of appends to one file is yielded after two steps whatever
# the debounce, which bounds only the wait while ever more files change. For the target of
# 100 transcripts appended at once (p99 250 ms at 10,000 watched, issue 35), 20 rather than
# 50 took p50/p99 from 92/315 ms to 62/200 (two runs each, load 1.5), for 7% more CPU in
# more, smaller rounds; 10 gained nothing more.
DEBOUNCE_MS: Final = 20
STEP_MS: Final = 10

SWEEP_SECONDS: Final = 1.0
"""The slow timer's tick: how often the sweep runs, whatever the notifications say."""

SWEEP_TICKS: Final = 60
"""With inotify, the sweep visits every transcript once per this many ticks, a slice a tick.

Notifications from inotify are trusted: the sweep is only the net for what they can miss (a
full event queue, files written into a new directory before its watch was added, a watch
limit reached). So its cost is spread, a sixtieth of the transcripts per tick, rather than
every file every second. With polling, whose notifications miss appends made within the
same second, every tick sweeps everything.
"""


COMPRESSED_SUFFIX: Final = ".jsonl.zst"
"""A transcript compressed once and for all (Codex rewrites rollouts idle for a week so)."""

TRANSCRIPT_SUFFIX: Final = (".jsonl", COMPRESSED_SUFFIX)
"""The names of transcripts: plain ones are tailed, compressed ones read whole."""

_READ_BUFFER: Final = 1024 * 1024
_POLL_DELAY_MS: Final = 300  # watchfiles' default, when polling


class StopEvent(Protocol):
    """Anything with ``is_set()``: ``threading.Event``, ``anyio.Event``, ``asyncio.Event``."""

    def is_set(self) -> bool: ...


class FileIdentity(NamedTuple):
    """``(st_dev, st_ino)``: a file replaced by rename has another identity."""

    dev: int
    ino: int


class Tailed(NamedTuple):
    """One complete line (or why it is skipped unread: it is too long) and where it lies.

    The line, without its newline, is decoded by whoever reads it: an adapter's
    ``feed_line``, which for a native transcript decodes it straight to an event.
    """

    item: bytes | SkippedLine
    offset: int
    end: int


class TailStatus(enum.Enum):
    """What a look at a tailed file found."""

    UNCHANGED = "unchanged"
    GROWN = "grown"
    REPLACED = "replaced"
    DELETED = "deleted"
    REFUSED = "not a regular file at its real path"
    """A symlink, FIFO, device or directory where the transcript was, or a swapped parent."""


class FileTail:
    """The consumed position in one transcript and the means to read past it, safely.

    ``offset`` always ends a complete line: a partial last line waits for its newline. The path is
    resolved once, at construction (``resolved``: the caller says it is already a real path, so it
    is not resolved again); every later open must find a regular file at exactly that real path (see
    :mod:`session_memory.apps.memory_dir.files`): a symbolic link, FIFO, device or directory swapped
    in, or a swapped parent directory, is :attr:`TailStatus.REFUSED`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        fingerprint: str | None = None,
        identity: FileIdentity | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
        resolved: bool = False,
    ) -> None:
        self.path = os.fspath(path) if resolved else os.path.realpath(path)
        self.offset = offset
        self.fingerprint = fingerprint
        self.identity = identity
        self._max_line_bytes = max_line_bytes

    def check(self, times: tuple[int, int] | None = None) -> TailStatus:
        """A cheap hint for the slow timer over many files: one ``lstat``, no open.

        Only :meth:`look` is the truth: it verifies the consumed prefix on the descriptor
        it reads from. Anything but UNCHANGED here means: look. ``times``: the modification
        and change times (ns) the file should have; other ones are GROWN (look).
        """
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return TailStatus.DELETED
        except OSError as exc:
            raise TranscriptError(f"cannot stat {self.path}: {exc.strerror}") from exc
        if not stat.S_ISREG(st.st_mode):
            return TailStatus.REFUSED
        status = self._compare(st)
        if times is not None and times != (st.st_mtime_ns, st.st_ctime_ns):
            return TailStatus.GROWN if status is TailStatus.UNCHANGED else status
        return status

    @contextlib.contextmanager
    def look(self) -> Iterator[Look]:
        """Open the file once, verify it, and offer its new lines from that descriptor.

        Verified on the open descriptor: a regular file at the tailed real path, the same
        identity, a size not below the offset, and the fingerprint of the consumed prefix.
        Whatever :meth:`Look.lines` then reads is from this same file, so a rewrite between
        the check and the read cannot be taken for an append.
        """
        try:
            opened = open_regular(self.path)
        except FileNotFoundError:
            yield Look(self, TailStatus.DELETED, -1, 0)
            return
        except OSError as exc:
            raise TranscriptError(f"cannot open {self.path}: {exc.strerror}") from exc
        if opened is None:
            yield Look(self, TailStatus.REFUSED, -1, 0)
            return
        fd, st = opened
        try:
            yield Look(self, self._verify(fd, st), fd, st.st_size, st)
        finally:
            os.close(fd)

    def _verify(self, fd: int, st: os.stat_result) -> TailStatus:
        real = fd_path(fd)
        if real is not None and real != self.path:
            return TailStatus.REFUSED
        try:
            status = self._compare(st)
            if (
                status is not TailStatus.REPLACED
                and self.offset > 0
                and self.fingerprint is not None
                and fingerprint(fd, self.offset) != self.fingerprint
            ):
                return TailStatus.REPLACED
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror}") from exc
        return status

    def _compare(self, st: os.stat_result) -> TailStatus:
        """Identity and size against the consumed position (the first look sets identity)."""
        identity = FileIdentity(st.st_dev, st.st_ino)
        if self.identity is None:
            self.identity = identity
        if identity != self.identity or st.st_size < self.offset:
            return TailStatus.REPLACED
        return TailStatus.GROWN if st.st_size > self.offset else TailStatus.UNCHANGED


class Look:
    """One verified open of a tailed file: what it found, and its new lines; ``stat`` is the
    ``fstat`` of what was opened (None when nothing was)."""

    def __init__(
        self,
        tail: FileTail,
        status: TailStatus,
        fd: int,
        size: int,
        stat: os.stat_result | None = None,
    ) -> None:
        self.tail = tail
        self.status = status
        self.stat = stat
        self._fd = fd
        self._size = size

    @property
    def size(self) -> int:
        """The file's size when it was opened (-1 when it could not be)."""
        return self._size

    def lines(self, stop_event: StopEvent | None = None) -> Iterator[Tailed]:
        """Yield the complete lines between the offset and the size seen at the open.

        A line counts as consumed once yielded; the fingerprint is updated when the
        generator finishes or is closed. Bytes appended after the open wait for the next
        look, so a file that grows without end (or a line without end) cannot hold the
        reader. Stops early (between lines) when ``stop_event`` is set. Raises
        :class:`TranscriptReplaced` when the look found the file replaced, and
        :class:`TranscriptError` when it found nothing it may read.
        """
        tail = self.tail
        self._check_readable()
        if self.status is TailStatus.UNCHANGED:
            return
        stream = io.BufferedReader(_Window(self._fd, tail.offset, self._size), _READ_BUFFER)
        try:
            lines = iter_lines(
                stream, tail.offset, final_partial=False, max_line_bytes=tail._max_line_bytes
            )
            for offset, line, end in lines:
                tail.offset = end
                item = too_long(offset, tail._max_line_bytes) if line is None else line
                yield Tailed(item, offset, end)
                if stop_event is not None and stop_event.is_set():
                    break
        except OSError as exc:
            raise TranscriptError(f"cannot read {tail.path}: {exc}") from exc
        finally:
            tail.fingerprint = fingerprint(self._fd, tail.offset)

    def last_partial(self) -> Tailed | None:
        """The last line when it has no newline yet, as a complete read gives it (see
        :func:`~session_memory.formats.reader.iter_lines`), as seen at the open.

        None when nothing follows the offset, or when what follows holds a newline: those are
        lines for :meth:`lines`. The offset does not move: the line is not consumed.
        """
        self._check_readable()
        tail = self.tail
        limit = tail._max_line_bytes
        want = min(self._size - tail.offset, limit + 1)
        if want <= 0:
            return None
        try:
            data = os.pread(self._fd, want, tail.offset)
        except OSError as exc:
            raise TranscriptError(f"cannot read {tail.path}: {exc}") from exc
        if b"\n" in data:
            return None
        if len(data) > limit:
            return Tailed(too_long(tail.offset, limit), tail.offset, self._size)
        return Tailed(data, tail.offset, tail.offset + len(data))

    def whole(self) -> Iterator[Tailed]:
        """Every line of the whole file as seen at the open, decompressed when it is zstd.

        For a file read once and never tailed (a compressed transcript is immutable): the
        offsets are those of the decompressed lines, as :func:`iter_line_items` gives them when
        deriving the file whole, and the tail's position is not moved (see :meth:`consume`).
        Raises :class:`TranscriptError` on corrupt or truncated data, and like :meth:`lines`
        when the look found nothing it may read.
        """
        self._check_readable()
        stream: IO[bytes] = io.BufferedReader(_Window(self._fd, 0, self._size), _READ_BUFFER)
        try:
            if os.pread(self._fd, len(ZSTD_MAGIC), 0) == ZSTD_MAGIC:
                stream = zstd_stream(stream)
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.tail.path}: {exc}") from exc
        for offset, item, end in iter_line_items(stream, max_line_bytes=self.tail._max_line_bytes):
            yield Tailed(item, offset, end)

    def consume(self) -> None:
        """Count the whole file as seen at the open consumed: offset and fingerprint at its end."""
        try:
            self.tail.fingerprint = fingerprint(self._fd, self._size)
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.tail.path}: {exc}") from exc
        self.tail.offset = self._size

    def _check_readable(self) -> None:
        path = self.tail.path
        if self.status is TailStatus.REPLACED:
            raise TranscriptReplaced(f"{path} shrank or was rewritten")
        if self.status in (TailStatus.DELETED, TailStatus.REFUSED):
            raise TranscriptError(f"{path} is {self.status.value}")


class _Window(io.RawIOBase):
    """Bytes ``[start, end)`` of a descriptor, read with ``pread`` (the offset is not shared)."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        super().__init__()
        self._fd = fd
        self._pos = start
        self._end = end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        want = min(len(view), self._end - self._pos)
        if want <= 0:
            return 0
        data = os.pread(self._fd, want, self._pos)
        view[: len(data)] = data
        self._pos += len(data)
        return len(data)


def watch_changes(
    paths: Iterable[str | os.PathLike[str]],
    *,
    stop_event: StopEvent | None = None,
    sweep_seconds: float = SWEEP_SECONDS,
    force_polling: bool | None = None,
    recursive: bool = True,
    on_polling: Callable[[], None] | None = None,
) -> Iterator[set[str]]:
    """Yield the sets of ``*.jsonl`` and ``*.jsonl.zst`` paths that changed under ``paths``.

    An empty set is yielded as soon as the watch is set up, then after each ``sweep_seconds``
    without changes: the caller's cue for its slow size check. Ends when ``stop_event`` is
    set. watchfiles is imported when watching starts: a one-shot run (``watch --once``, a
    hook's fold) never loads it.
    ``force_polling`` is resolved by
    :func:`polling` first. When inotify cannot be set up (``max_user_instances`` or
    ``max_user_watches`` reached), the watch logs one WARNING and polls instead of failing,
    and calls ``on_polling``: polling misses appends made within the same second, so the
    caller must then sweep everything on every tick.
    """
    use_polling = polling(force_polling)
    watched = [os.fspath(p) for p in paths]
    while True:
        try:
            yield from _watch(watched, stop_event, sweep_seconds, use_polling, recursive)
            return
        except OSError as exc:
            if use_polling:
                raise
            logger.warning(
                "cannot watch with inotify (%s; see /proc/sys/fs/inotify/max_user_watches and "
                "max_user_instances): polling instead",
                exc,
            )
            use_polling = True
            if on_polling is not None:
                on_polling()


def _watch(
    paths: list[str],
    stop_event: StopEvent | None,
    sweep_seconds: float,
    force_polling: bool,
    recursive: bool,
) -> Iterator[set[str]]:
    """``watchfiles.watch``'s loop, with a first empty set as soon as its notifier is set up:
    else the first cue came ``sweep_seconds`` later, and an append made before it waited."""
    from watchfiles._rust_notify import RustNotify

    debug = bool(os.environ.get("WATCHFILES_DEBUG"))
    timeout = max(1, int(sweep_seconds * 1000))
    with RustNotify(paths, debug, force_polling, _POLL_DELAY_MS, recursive, True) as notifier:
        yield set()
        while True:
            raw = notifier.watch(DEBOUNCE_MS, STEP_MS, timeout, stop_event)
            if raw == "timeout":
                yield set()
            elif raw == "signal":
                logger.warning("interrupted: no longer watching")
                return
            elif raw == "stop":
                return
            else:
                changed = {path for _change, path in raw if path.endswith(TRANSCRIPT_SUFFIX)}
                if changed:
                    yield changed


def polling(force_polling: bool | None) -> bool:
    """Whether watchfiles will poll: ``force_polling`` when given, else as watchfiles decides
    (``WATCHFILES_FORCE_POLLING`` set and not false, or running under WSL)."""
    if force_polling is not None:
        return force_polling
    env = os.environ.get("WATCHFILES_FORCE_POLLING")
    if env:
        return env.lower() not in ("false", "disable", "disabled")
    release = os.uname().release.lower() if hasattr(os, "uname") else ""
    return "microsoft-standard" in release


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether a transcript's name says it is compressed (read whole, never tailed)."""
    return os.fspath(path).endswith(COMPRESSED_SUFFIX)


def transcript_stem(path: str | os.PathLike[str]) -> str:
    """A transcript's file name without its suffix: ``rollout-x`` for ``rollout-x.jsonl.zst``
    as for ``rollout-x.jsonl``, so that a rollout keeps its name once compressed."""
    name = os.path.basename(os.fspath(path))
    return name.removesuffix(COMPRESSED_SUFFIX) if is_compressed(name) else Path(name).stem


def discover_transcripts(
    root: str | os.PathLike[str], *, compressed: bool = True, known: Container[str] = ()
) -> list[str]:
    """The paths of :func:`find_transcripts`."""
    return [path for path, _real in find_transcripts(root, compressed=compressed, known=known)]


def find_transcripts(
    root: str | os.PathLike[str], *, compressed: bool = True, known: Container[str] = ()
) -> list[tuple[str, str]]:
    """The ``*.jsonl`` (and, with ``compressed``, ``*.jsonl.zst``) files under a directory,
    sorted, each as its absolute path and its real path; those in ``known`` left out.

    Links are followed only into ``root`` (a link to a file elsewhere is not a transcript of
    it), and linked directories not at all (they could loop or lead anywhere). So the real
    path of a regular file is ``root``'s joined with the names that led to it, and only a
    link is resolved: a ``realpath`` a file was most of a restart's cost at 10,000 of them.
    """
    top = os.path.abspath(root)
    root_real = os.path.realpath(top)
    found: list[tuple[str, str]] = []

    def walk(directory: str, real_dir: str) -> None:
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        subdirs = []
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(name)
            elif (
                name.endswith(TRANSCRIPT_SUFFIX)
                and not name.startswith(".")
                and (compressed or not is_compressed(name))
                and entry.path not in known
            ):
                if entry.is_file(follow_symlinks=False):
                    found.append((entry.path, os.path.join(real_dir, name)))
                elif entry.is_symlink() and resolves_inside(entry.path, root_real):
                    found.append((entry.path, os.path.realpath(entry.path)))
        for name in subdirs:
            walk(os.path.join(directory, name), os.path.join(real_dir, name))

    walk(top, root_real)
    return found


def resolves_inside(path: str | os.PathLike[str], root_real: str) -> bool:
    """True when ``path`` resolves (through symlinks) to a regular file inside ``root_real``."""
    real = os.path.realpath(path)
    if os.path.commonpath([real, root_real]) != root_real:
        return False
    return Path(real).is_file()
