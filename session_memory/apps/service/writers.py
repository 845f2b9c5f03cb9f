"""The writer threads, and whether the writes of the current batch are fsynced one by one or
made durable together by one ``sync`` at its end.

See ``docs/service-guarantees.md`` for what either leaves on disk when the service is killed
or the power is cut.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final, Protocol, TypeVar

from session_memory.apps.memory_dir.outputs import remove_generation

__all__ = ["SYNC_ONCE_MIN", "WRITERS", "Writers", "syncs_once"]

WRITERS: Final = 8
"""Threads writing outputs and states: the fsyncs of transcripts changed together overlap
(the file system commits them together) instead of queueing one behind the other. Writes
without fsyncs (a catch-up's, a burst's: see :data:`SYNC_ONCE_MIN`) are done on the
service's own thread: there, eight threads handing the interpreter lock back and forth with
it took more time than they saved (``bench_watch_scale.py``: 100 transcripts appended at
once, and the catch-up of 10,000)."""

SYNC_ONCE_MIN: Final = 16
"""A catch-up of at least this many transcripts, or a notification naming at least this many
changed ones, writes them without fsyncs and has them made durable by one ``sync`` at its
end; fewer (a hook call's single transcript) are fsynced file by file as they are written,
rather than flush every file system of the machine."""


class _Durable(Protocol):
    @property
    def durable(self) -> bool: ...


_W = TypeVar("_W", bound=_Durable)
_R = TypeVar("_R")


def syncs_once(count: int) -> bool:
    """Whether a batch of ``count`` transcripts writes without fsyncs and syncs at its end."""
    return count >= SYNC_ONCE_MIN


class Writers:
    """The writer threads while :meth:`running`; the durability of the current batch."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self.durable = True
        """Whether the writes made now are fsynced as they are written."""
        self._unsynced = False  # something was written without fsyncs: sync at the end

    @contextlib.contextmanager
    def running(self, drain: Callable[[], object]) -> Iterator[None]:
        """The writer threads, for as long as the block runs; ``drain`` at its end waits for
        every write in flight."""
        if self._pool is not None:
            yield
            return
        self._pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="session-memory-writer")
        try:
            yield
        finally:
            try:
                drain()
            finally:
                self._pool.shutdown()
                self._pool = None

    @contextlib.contextmanager
    def batch(self, *, durable: bool) -> Iterator[None]:
        """Writes in the block fsynced (``durable``) or not; those that were not are made
        durable by one :meth:`sync` once the block is done."""
        previous, self.durable = self.durable, durable
        try:
            yield
        finally:
            self.durable = previous
        self.sync()

    def submit(self, commit: Callable[[_W], _R], write: _W) -> Future[_R] | None:
        """``commit(write)`` handed to a writer thread: its future; None when it is to be
        done on the caller's thread (no writer threads, or a write without fsyncs, which
        has nothing to overlap: threads taking turns at the interpreter cost more)."""
        if not write.durable:
            self._unsynced = True
        if self._pool is None or not write.durable:
            return None
        return self._pool.submit(commit, write)

    def discard(self, generation: str) -> None:
        """Remove a generation of outputs that no pointer leads to any more, on a writer
        thread (here when there is none).

        Off the service's thread for the target of 100 transcripts appended at once (p99
        250 ms at 10,000 watched, issue 35): removing the replaced generation, two unlinks
        and an rmdir, was half of each publication's time there (``bench_watch_scale.py``).
        The pool's end waits for it; a kill before leaves it to the next start's clean-up.
        """
        if self._pool is None:
            remove_generation(generation)
        else:
            self._pool.submit(remove_generation, generation)

    def sync(self) -> None:
        """Have what was written without fsyncs made durable, all at once, without waiting.

        Written so (three files and as many directories per transcript were much of a
        catch-up's cost), a kill loses nothing (the page cache outlives the process), and a
        power cut before they reach the disk may leave any of them old, empty or torn,
        which the next start tells from the hashes every state keeps, and rebuilds. One
        ``sync`` on a writer thread flushes them together while the service goes on: the
        transcripts it writes next are fsynced as usual, their outputs before their state.
        """
        if not self._unsynced:
            return
        self._unsynced = False
        if self._pool is None:
            os.sync()
        else:
            self._pool.submit(os.sync)
