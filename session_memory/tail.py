"""Following transcripts as they grow; the only module that imports watchfiles.

Two seams: :class:`FileTail` reads the new complete lines of one file from a byte offset and
tells whether the file grew, shrank, was replaced or deleted; :func:`watch_changes` says which
transcripts under some paths may have changed. :func:`tail_file` puts the two together for
one file. Notifications are hints, never the truth: every caller compares the file's size
with the consumed offset on each notification *and* on a slow timer, because watchfiles'
polling fallback compares modification times at one-second resolution and misses appends
made within the same second (DESIGN section 7).
"""

from __future__ import annotations

import enum
import hashlib
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, NamedTuple, Protocol

import watchfiles

from session_memory.errors import TranscriptError, TranscriptReplaced
from session_memory.events import JsonObject
from session_memory.memory import SkippedLine
from session_memory.reader import MAX_LINE_BYTES, iter_lines, object_of_line

__all__ = [
    "DEBOUNCE_MS",
    "FINGERPRINT_WINDOW",
    "STEP_MS",
    "SWEEP_SECONDS",
    "FileIdentity",
    "FileTail",
    "StopEvent",
    "TailStatus",
    "Tailed",
    "TranscriptReplaced",
    "discover_transcripts",
    "fingerprint",
    "resolves_inside",
    "tail_file",
    "watch_changes",
]

logger = logging.getLogger(__name__)

# Freshness target: an append is on disk in the outputs within ~100 ms. watchfiles waits
# `step` ms between checks and yields once a step passes with no new change, or once
# `debounce` ms have passed since the first change. Measured here (DESIGN section 7): the
# defaults (debounce 1600, step 50) notice an append after 50-100 ms and, under a steady
# stream of appends, would hold changes back for up to 1.6 s; step=10 notices after ~15 ms
# at negligible CPU; step=1 after ~2 ms but costs ~2% of a core per watcher, for no gain a
# reader of the memory could see. debounce=100 caps the grouping so a transcript that is
# written continuously is still refreshed at least every ~100 ms.
DEBOUNCE_MS: Final = 100
STEP_MS: Final = 10

SWEEP_SECONDS: Final = 1.0
"""The slow timer: how often sizes are compared with offsets whatever the notifications say."""

FINGERPRINT_WINDOW: Final = 4096
"""Bytes before the consumed offset that the prefix fingerprint covers."""

TRANSCRIPT_SUFFIX: Final = ".jsonl"


class StopEvent(Protocol):
    """Anything with ``is_set()``: ``threading.Event``, ``anyio.Event``, ``asyncio.Event``."""

    def is_set(self) -> bool: ...


class FileIdentity(NamedTuple):
    """``(st_dev, st_ino)``: a file replaced by rename has another identity."""

    dev: int
    ino: int


class Tailed(NamedTuple):
    """One complete line: the JSON object it holds (or why it is skipped) and where it lies."""

    item: JsonObject | SkippedLine
    offset: int
    end: int


class TailStatus(enum.Enum):
    """What a look at a tailed file found."""

    UNCHANGED = "unchanged"
    GROWN = "grown"
    REPLACED = "replaced"
    DELETED = "deleted"


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


class FileTail:
    """The consumed position in one transcript and the means to read past it.

    ``offset`` always ends a complete line: a partial last line waits for its newline.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        fingerprint: str | None = None,
        identity: FileIdentity | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = os.fspath(path)
        self.offset = offset
        self.fingerprint = fingerprint
        self.identity = identity
        self._max_line_bytes = max_line_bytes

    def check(self, *, verify: bool = True) -> TailStatus:
        """Compare the file on disk with the consumed position.

        ``verify`` also checks the prefix fingerprint (one 4 KiB read); without it only the
        identity and size are compared (one ``stat``), for the slow timer over many files.
        """
        if not verify:
            # The slow timer looks at every file each second: one stat, no open.
            try:
                return self._compare(os.stat(self.path))
            except FileNotFoundError:
                return TailStatus.DELETED
            except OSError as exc:
                raise TranscriptError(f"cannot stat {self.path}: {exc.strerror}") from exc
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return TailStatus.DELETED
        except OSError as exc:
            raise TranscriptError(f"cannot open {self.path}: {exc.strerror}") from exc
        try:
            status = self._compare(os.fstat(fd))
            prefix_changed = (
                status is not TailStatus.REPLACED
                and self.offset > 0
                and self.fingerprint is not None
                and fingerprint(fd, self.offset) != self.fingerprint
            )
            return TailStatus.REPLACED if prefix_changed else status
        finally:
            os.close(fd)

    def _compare(self, st: os.stat_result) -> TailStatus:
        """Identity and size against the consumed position (the first look sets identity)."""
        identity = FileIdentity(st.st_dev, st.st_ino)
        if self.identity is None:
            self.identity = identity
        if identity != self.identity or st.st_size < self.offset:
            return TailStatus.REPLACED
        return TailStatus.GROWN if st.st_size > self.offset else TailStatus.UNCHANGED

    def read(self, stop_event: StopEvent | None = None) -> Iterator[Tailed]:
        """Yield the complete lines past ``offset``; a line counts as consumed once yielded.

        Stops early (between lines) when ``stop_event`` is set. The fingerprint is updated
        when the generator finishes or is closed.
        """
        try:
            stream = open(self.path, "rb")  # noqa: SIM115 - closed in finally
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc.strerror}") from exc
        try:
            st = os.fstat(stream.fileno())
            if self.identity is None:
                self.identity = FileIdentity(st.st_dev, st.st_ino)
            stream.seek(self.offset)
            lines = iter_lines(
                stream, self.offset, final_partial=False, max_line_bytes=self._max_line_bytes
            )
            for offset, line, end in lines:
                self.offset = end
                yield Tailed(object_of_line(line, offset, self._max_line_bytes), offset, end)
                if stop_event is not None and stop_event.is_set():
                    break
        except OSError as exc:
            raise TranscriptError(f"cannot read {self.path}: {exc}") from exc
        finally:
            self.fingerprint = fingerprint(stream.fileno(), self.offset)
            stream.close()


def tail_file(
    path: str | os.PathLike[str],
    start: int = 0,
    *,
    stop_event: StopEvent | None = None,
    sweep_seconds: float = SWEEP_SECONDS,
    force_polling: bool | None = None,
) -> Iterator[Tailed]:
    """Follow one transcript: yield its complete lines from ``start``, then each new one.

    Ends when ``stop_event`` is set or the file is deleted; raises
    :class:`TranscriptReplaced` when the file shrinks below what was read or its consumed
    prefix changes (read it again from 0). The parent directory is watched, so a file that
    is replaced is noticed too.
    """
    tail = FileTail(path, start)
    status = tail.check(verify=False)
    if status is TailStatus.DELETED:
        raise TranscriptError(f"no such transcript: {tail.path}")
    if status is TailStatus.REPLACED:
        raise TranscriptReplaced(f"{tail.path} is shorter than the start offset {start}")
    if start:
        with open(tail.path, "rb") as stream:
            tail.fingerprint = fingerprint(stream.fileno(), start)
    yield from tail.read(stop_event)
    target = os.path.abspath(tail.path)
    for _ in watch_changes(
        [os.path.dirname(target)],
        stop_event=stop_event,
        sweep_seconds=sweep_seconds,
        force_polling=force_polling,
        recursive=False,
    ):
        status = tail.check()
        if status is TailStatus.DELETED:
            logger.info("transcript deleted, stopped tailing: %s", tail.path)
            return
        if status is TailStatus.REPLACED:
            raise TranscriptReplaced(f"{tail.path} shrank or was rewritten")
        if status is TailStatus.GROWN:
            yield from tail.read(stop_event)


def watch_changes(
    paths: Iterable[str | os.PathLike[str]],
    *,
    stop_event: StopEvent | None = None,
    sweep_seconds: float = SWEEP_SECONDS,
    force_polling: bool | None = None,
    recursive: bool = True,
) -> Iterator[set[str]]:
    """Yield the sets of ``*.jsonl`` paths that changed under ``paths``.

    An empty set is yielded after ``sweep_seconds`` without changes: the caller's cue for
    its slow size check. Ends when ``stop_event`` is set.
    """
    for changes in watchfiles.watch(
        *(os.fspath(p) for p in paths),
        watch_filter=_is_transcript_change,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop_event,
        rust_timeout=max(1, int(sweep_seconds * 1000)),
        yield_on_timeout=True,
        raise_interrupt=False,
        force_polling=force_polling,
        recursive=recursive,
        ignore_permission_denied=True,
    ):
        yield {path for _change, path in changes}


def _is_transcript_change(_change: watchfiles.Change, path: str) -> bool:
    return path.endswith(TRANSCRIPT_SUFFIX)


def discover_transcripts(root: str | os.PathLike[str]) -> list[str]:
    """The ``*.jsonl`` files under a directory, sorted, as absolute paths.

    Symbolic links are followed only when they lead inside ``root``: a link to a file
    elsewhere is not a transcript of this directory, and symlinked directories are not
    descended into (they could loop or lead anywhere).
    """
    root_real = os.path.realpath(root)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(TRANSCRIPT_SUFFIX) or name.startswith("."):
                continue
            path = os.path.abspath(os.path.join(dirpath, name))
            if resolves_inside(path, root_real):
                found.append(path)
    return found


def resolves_inside(path: str | os.PathLike[str], root_real: str) -> bool:
    """True when ``path`` resolves (through symlinks) to a regular file inside ``root_real``."""
    real = os.path.realpath(path)
    if os.path.commonpath([real, root_real]) != root_real:
        return False
    return Path(real).is_file()
