"""Worker processes that fold a catch-up's new transcripts from byte 0 while the service
writes those before them (:class:`Farm`); what the workers run (:func:`derive_chunk`).

Workers only compute: every write is the service's, in the order it would have made it, so
a kill at any instant leaves what a kill of the service alone would.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import BrokenExecutor, Future
from dataclasses import dataclass
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.apps.service.logs import SKIPS_LOGGED, logger
from session_memory.apps.service.transcript import (
    Transcript,
    fold_line,
    format_told,
    memory_so_far,
)
from session_memory.apps.tail import FileIdentity, FileTail, TailStatus
from session_memory.core.errors import TranscriptError
from session_memory.core.events import JsonObject
from session_memory.formats import make_adapter
from viewbuilder import render_memory

__all__ = ["FARM_MIN", "Derived", "Farm", "can_fork", "cores"]

FARM_MIN: Final = 64
"""A catch-up with at least this many transcripts to derive from byte 0 folds them in worker
processes, one a core, while the service writes what they derived: starting the workers
costs about half a second, deriving a transcript of 50 events a few milliseconds."""

FARM_CHUNK: Final = 8
"""Transcripts one task of a worker derives (fewer round trips)."""

FARM_AHEAD: Final = 4
"""Tasks queued per worker beyond the one being written: bounds what waits in memory."""

FARM_MAX_BYTES: Final = 8 * 1024 * 1024
"""A larger transcript is derived by the service itself, which can stop in the middle of it."""


@dataclass(frozen=True, slots=True)
class Derived:
    """A transcript a worker process derived from byte 0: all the service writes of it."""

    offset: int
    fingerprint: str
    identity: FileIdentity
    snapshot: bytes
    adapter: JsonObject
    session_id: str | None
    memory_json: bytes
    markdown: bytes | None  # None while no record told the transcript's format
    events_read: int
    lines_skipped: int
    skipped: tuple[tuple[int, str], ...]  # the first SKIPS_LOGGED skipped: offset, reason


class Farm:
    """Transcripts never derived before, folded from byte 0 in worker processes; taken in
    the order they were given.

    A worker that fails only sends its transcripts back to the service; after a broken pool
    the service derives everything left itself.
    """

    def __init__(self, paths: list[str], options: tuple[int, str, str], workers: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )
        self._options = options
        self._chunks = [paths[i : i + FARM_CHUNK] for i in range(0, len(paths), FARM_CHUNK)]
        self._where = {path: divmod(i, FARM_CHUNK) for i, path in enumerate(paths)}
        self._tasks: dict[int, Future[list[Derived | None]]] = {}
        self._submitted = 0
        self._broken = False
        self._workers = workers
        self._total = len(paths)
        self.derived = 0
        for _ in range(workers * (FARM_AHEAD + 1)):
            self._submit()

    def _submit(self) -> None:
        if self._submitted < len(self._chunks) and not self._broken:
            chunk = self._chunks[self._submitted]
            self._tasks[self._submitted] = self._pool.submit(derive_chunk, chunk, *self._options)
            self._submitted += 1

    def take(self, path: str) -> Derived | None:
        """What a worker derived of ``path``; None when the service must derive it itself."""
        where = self._where.pop(path, None)
        task = None if where is None else self._tasks.get(where[0])
        if where is None or task is None:
            return None
        index, position = where
        try:
            results = task.result()
        except BrokenExecutor as exc:
            logger.warning("worker processes failed (%s): deriving the rest here", exc)
            self._broken = True
            results = []
        except Exception as exc:  # a bug in a worker: the service meets it again itself
            logger.debug("a worker failed on %s: %s", self._chunks[index], exc)
            results = []
        if position + 1 >= len(self._chunks[index]):
            del self._tasks[index]
            self._submit()
        derived = results[position] if position < len(results) else None
        self.derived += derived is not None
        return derived

    def close(self) -> None:
        """Stop the workers: queued tasks are dropped, running ones finish."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        logger.info(
            "%d of %d new transcript(s) derived in %d worker processes",
            self.derived,
            self._total,
            self._workers,
        )


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def can_fork() -> bool:
    """Whether worker processes can be forked here. :mod:`multiprocessing` is imported only
    now: a one-shot call (the hook) never starts workers, and does not pay for its import."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _worker_init(service_pid: int) -> None:
    """In a worker process: leave Ctrl-C to the service (a terminal sends it to the whole
    group), and exit as soon as the service is gone, killed or not."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def orphaned() -> None:
        while os.getppid() == service_pid:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=orphaned, name="session-memory-orphaned", daemon=True).start()


def derive_chunk(
    paths: list[str], budget_tokens: int, encoding: str, transcript_format: str
) -> list[Derived | None]:
    """In a worker process: each transcript derived from byte 0 (see :func:`derive_whole`)."""
    return [derive_whole(path, budget_tokens, encoding, transcript_format) for path in paths]


def derive_whole(
    path: str, budget_tokens: int, encoding: str, transcript_format: str
) -> Derived | None:
    """A plain transcript folded from byte 0 exactly as the service's first read folds it;
    None when the look finds anything but new lines, the file is larger than
    :data:`FARM_MAX_BYTES`, or reading fails: the service then reads it itself, and logs."""
    t = Transcript(
        path=path,
        tail=FileTail(path, resolved=True),
        deriver=SessionMemoryDeriver(budget_tokens=budget_tokens, encoding=encoding),
        adapter=make_adapter(transcript_format),
    )
    skipped: list[tuple[int, str]] = []
    try:
        with t.tail.look() as look:
            if look.status is not TailStatus.GROWN or look.size > FARM_MAX_BYTES:
                return None
            for line in look.lines():
                for record in fold_line(t, line):
                    if len(skipped) < SKIPS_LOGGED:
                        skipped.append((record.offset, record.reason))
    except TranscriptError:
        return None
    identity, fingerprint = t.tail.identity, t.tail.fingerprint
    if identity is None or fingerprint is None or t.tail.offset == 0:
        return None
    memory = memory_so_far(t)
    return Derived(
        offset=t.tail.offset,
        fingerprint=fingerprint,
        identity=identity,
        snapshot=t.deriver.snapshot(),
        adapter=t.adapter.snapshot(),
        session_id=t.deriver.session_id,
        memory_json=memory.to_json(),
        markdown=render_memory(memory).encode() if format_told(t.adapter) else None,
        events_read=t.events_read,
        lines_skipped=t.lines_skipped,
        skipped=tuple(skipped),
    )
