"""The background service: keep a memory next to every live transcript.

:class:`MemoryService` tails transcripts (files, or directories watched recursively for
``*.jsonl``), folds each new complete line into that transcript's deriver, and keeps
``<out>/<session>.memory.json`` and ``<out>/<session>.memory.md`` current. A compressed
transcript (``*.jsonl.zst``, a Codex rollout idle for a week) is immutable: it is read whole,
once, and again only when another file takes its place.

Crash safety rests on one rule: the *state file* of a transcript holds the deriver snapshot and the
byte offset it has consumed, written together in one atomic replace, so a snapshot and an offset can
never disagree. Outputs are derived from that state and published (both files as one generation,
:class:`session_memory.apps.memory_dir.outputs.Outputs`) before it; on start each transcript's
outputs are compared with its restored memory and published again when they differ. Killed at any
instant, the service restarts from the last state, reads only the bytes after its offset, and ends
with exactly what a full rebuild gives: nothing lost, nothing applied twice (no reliance on the
deriver dropping duplicate event ids). Every file is opened no-follow and non-blocking and must be a
regular file where it should be; a state is checked like any input and rebuilt on doubt
(``docs/service-guarantees.md``).

Naming: a session's outputs are named after the ``session_id`` of its events (sanitised by
:func:`session_memory.apps.memory_dir.outputs.safe_name`), else after the transcript's file name,
decided when its memory is first written and then kept in its state. When two transcripts claim the
same name, the one that claimed it first keeps it and the other gets ``-<8 hex>`` of the hash of its
path appended, so both memories are kept and the choice survives restarts.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.hashes import sha256
from session_memory.apps.memory_dir.outputs import (
    JSON_SUFFIX,
    MD_SUFFIX,
    OutputPair,
    Outputs,
    TranscriptState,
    ensure_private_dir,
    load_state,
    memory_hash,
    remove_orphans,
    safe_name,
    save_state,
    state_path,
)
from session_memory.apps.tail import (
    SWEEP_SECONDS,
    SWEEP_TICKS,
    FileIdentity,
    FileTail,
    Look,
    StopEvent,
    Tailed,
    TailStatus,
    discover_transcripts,
    is_compressed,
    polling,
    resolves_inside,
    transcript_stem,
    watch_changes,
)
from session_memory.core.arguments import check_argument, check_paths
from session_memory.core.errors import ConfigError, SessionMemoryError, StateError, TranscriptError
from session_memory.core.event_struct import JsonObject
from session_memory.core.memory_view import MemoryView, SkippedLine
from session_memory.core.tokens import DEFAULT_BUDGET, DEFAULT_ENCODING
from session_memory.formats import (
    AdapterBase,
    AutoAdapter,
    fold_adapter,
    restore_fold_adapter,
)
from viewbuilder import render_memory

__all__ = ["DEFAULT_STATE_DIRNAME", "Clock", "MemoryService", "ServiceSummary", "output_paths"]

logger = logging.getLogger(__name__)

DEFAULT_STATE_DIRNAME: Final = ".session-memory-state"
"""The state directory, inside the output directory unless one is given."""

SKIPS_LOGGED: Final = 10

RESIDENT_MAX: Final = 256
"""At most this many transcripts are kept in memory; the least recently active go to disk."""

IDLE_SECONDS: Final = 300.0
"""A transcript without an append for this long is kept only on disk, as its state."""

WRITERS: Final = 8
"""Threads writing outputs and states: the fsyncs of transcripts changed together overlap
(the file system commits them together) instead of queueing one behind the other. Writes
without fsyncs (a catch-up's, a burst's: see :data:`SYNC_ONCE_MIN`) are done on the
service's own thread: there, eight threads handing the interpreter lock back and forth with
it took more time than they saved (``bench_watch_scale.py``: 100 transcripts appended at
once, and the catch-up of 10,000)."""

FARM_MIN: Final = 64
"""A catch-up with at least this many transcripts to derive from byte 0 folds them in worker
processes, one a core, while the service writes what they derived: starting the workers
costs about half a second, deriving a transcript of 50 events a few milliseconds."""

SYNC_ONCE_MIN: Final = 16
"""A catch-up of at least this many transcripts, or a notification naming at least this many
changed ones, writes them without fsyncs and has them made durable by one ``sync`` at its
end; fewer (a hook call's single transcript) are fsynced file by file as they are written,
rather than flush every file system of the machine."""

BURST_STATE_SECONDS: Final = 1.0
"""While notifications name many transcripts at once (a burst), each one's state is saved at
most this often (a transcript restored from its state counts as saved then); its outputs
still follow every append. Saving a state (a snapshot of the whole memory, serialised, then
a file replaced) is a large part of an append's work. Once a transcript has been quiet that
long, the next tick of the slow timer saves what a burst left (so does a stop), and a
transcript is never kept only on disk before its state is saved. Killed in between, a
restart reads on from the older state, to the same outputs."""

FARM_CHUNK: Final = 8
"""Transcripts one task of a worker derives (fewer round trips)."""

FARM_AHEAD: Final = 4
"""Tasks queued per worker beyond the one being written: bounds what waits in memory."""

FARM_MAX_BYTES: Final = 8 * 1024 * 1024
"""A larger transcript is derived by the service itself, which can stop in the middle of it."""

LISTED_MAX: Final = 32
"""A start that finds more transcripts than this names each at debug level only, and says
at info level how many it found of each kind (new, resumed, unchanged)."""
PROGRESS_SECONDS: Final = 5.0
"""While catching up, how often a line says how many transcripts are done."""
ERROR_REPORT_SECONDS: Final = 60.0
"""While writes keep failing, one ERROR summarises them at most this often."""

Clock = Callable[[], float]
"""Seconds on a monotonic scale: ``time.monotonic`` unless a test drives time itself."""

# What restoring or first applying to a state that passed every check may still raise when
# its snapshot was edited into something the deriver does not expect: reason to rebuild.
_DOUBT: Final = (SessionMemoryError, ValueError, TypeError, KeyError, AttributeError, IndexError)


def output_paths(out_dir: Path, name: str) -> tuple[Path, Path]:
    """The ``.memory.json`` and ``.memory.md`` of a session name inside ``out_dir``."""
    return out_dir / f"{name}{JSON_SUFFIX}", out_dir / f"{name}{MD_SUFFIX}"


@dataclass(frozen=True, slots=True)
class ServiceSummary:
    """What a pass over the transcripts did; ``failed`` counts memories it could not write."""

    transcripts: int
    events: int
    skipped: int
    outputs_written: int
    failed: int = 0


@dataclass(slots=True)
class _Transcript:
    """One tailed transcript and everything the service knows about it."""

    path: str
    tail: FileTail
    deriver: SessionMemoryDeriver
    adapter: AdapterBase
    name: str | None = None
    outputs_stale: bool = True
    state_stale: bool = False
    published: OutputPair | None = None  # the pair known to be on disk
    outputs_synced: bool = False  # the published pair is known durable (fsynced)
    restored: bool = False  # resumed from a state, not yet proven by a line applied
    unreadable: bool = False  # a compressed file that cannot be decompressed: no memory
    events_read: int = 0
    lines_skipped: int = 0
    last_active: float = 0.0  # the clock when it last grew (or was derived, or woken)
    state_saved: float = -math.inf  # the clock when its state was last saved


@dataclass(frozen=True, slots=True)
class _Write:
    """What one change of a transcript puts on disk, computed before any of it is written."""

    name: str | None
    pair: OutputPair | None  # the outputs, when they are due
    published: OutputPair | None  # the pair known to be on disk before
    synced: bool
    state: TranscriptState | None
    durable: bool = True  # fsynced as written; else made durable by the catch-up's sync


@dataclass(slots=True)
class _Written:
    """How far a :class:`_Write` got."""

    published: OutputPair | None
    synced: bool
    written: bool = False  # a new generation was published
    outputs: bool = False  # the outputs are as the memory
    state: bool = False  # the state is saved
    error: OSError | None = None


@dataclass(frozen=True, slots=True)
class _Derived:
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


@dataclass(slots=True)
class _Dormant:
    """A transcript kept only on disk: its state file holds its memory, and this its tail's
    position, for the sweep's ``stat``; it is restored from the state when it changes."""

    tail: FileTail
    events_read: int = 0
    lines_skipped: int = 0


def _check_options(
    paths: object,
    out_dir: object,
    state_dir: object,
    stop_event: object,
    sweep_seconds: object,
    force_polling: object,
    clock: object,
    resident_max: object,
    idle_seconds: object,
    farm_min: object,
) -> None:
    """ConfigError naming the first of :class:`MemoryService`'s options of the wrong type
    (the budget, encoding and format are checked by the deriver and the adapter)."""
    check_paths("paths", paths)
    check_argument("out_dir", out_dir, (str, os.PathLike))
    check_argument("state_dir", state_dir, (str, os.PathLike), optional=True)
    check_argument("sweep_seconds", sweep_seconds, float)
    check_argument("force_polling", force_polling, bool, optional=True)
    check_argument("resident_max", resident_max, int)
    check_argument("idle_seconds", idle_seconds, float)
    check_argument("farm_min", farm_min, int)
    if stop_event is not None and not callable(getattr(stop_event, "is_set", None)):
        raise ConfigError(f"stop_event must have is_set() or be None, not {stop_event!r}")
    if not callable(clock):
        raise ConfigError(f"clock must be a function, not {clock!r}")


class _FailureLog:
    """ERRORs for failing writes: the first at once, then one summary per interval.

    Disk full or a read-only output directory makes every transcript fail on every sweep;
    one line per transcript per second would bury everything else in the log.
    """

    def __init__(self, clock: Clock, interval: float = ERROR_REPORT_SECONDS) -> None:
        self._clock = clock
        self._interval = interval
        self._failing: dict[str, str] = {}
        self._unreported = 0
        self._last_report: float | None = None

    @property
    def failing(self) -> int:
        """How many transcripts' memories cannot be written right now."""
        return len(self._failing)

    def failed(self, path: str, exc: OSError) -> None:
        self._failing[path] = str(exc)
        self._unreported += 1
        now = self._clock()
        if self._last_report is None or now - self._last_report >= self._interval:
            self.report(path)
        else:
            logger.debug("cannot write the memory of %s: %s", path, exc)

    def is_failing(self, path: str) -> bool:
        return path in self._failing

    def succeeded(self, path: str) -> None:
        if self._failing.pop(path, None) is not None:
            logger.info("the memory of %s is written again", path)

    def report(self, path: str | None = None) -> None:
        """Log one ERROR for what failed since the last one (nothing when nothing did)."""
        if not self._failing or not self._unreported:
            return
        path = path if path in self._failing else next(iter(self._failing))
        logger.error(
            "cannot write the memory of %d transcript(s) (%d failed write(s) since the last "
            "report; next report in %.0f s at most); latest: %s: %s",
            len(self._failing),
            self._unreported,
            self._interval,
            path,
            self._failing[path],
        )
        self._unreported = 0
        self._last_report = self._clock()


class MemoryService:
    """Tail transcripts and keep their session memories on disk, crash-safe.

    ``paths`` are transcript files or directories (watched recursively for ``*.jsonl``;
    files that appear later are picked up). Outputs go to ``out_dir``; state to
    ``state_dir`` (default ``out_dir/.session-memory-state``). Both are created mode 0o700,
    every file in them 0o600. ``stop_event`` (anything with ``is_set()``) ends :meth:`run`;
    without one, call :meth:`stop`. ``clock`` is what the slow timer, idleness and the error
    reports measure time with. At most ``resident_max`` transcripts are kept in memory, and
    none idle for ``idle_seconds``: the others are kept only as their state on disk and
    restored from it when they change, with the same outputs as if they had never left.
    A catch-up with at least ``farm_min`` transcripts never derived before derives them in
    worker processes, one a core (none on a single core), with the same outputs.
    """

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        out_dir: str | os.PathLike[str],
        state_dir: str | os.PathLike[str] | None = None,
        *,
        budget_tokens: int = DEFAULT_BUDGET,
        encoding: str = DEFAULT_ENCODING,
        format: str = "auto",
        stop_event: StopEvent | None = None,
        sweep_seconds: float = SWEEP_SECONDS,
        force_polling: bool | None = None,
        clock: Clock = time.monotonic,
        resident_max: int = RESIDENT_MAX,
        idle_seconds: float = IDLE_SECONDS,
        farm_min: int = FARM_MIN,
    ) -> None:
        _check_options(
            paths,
            out_dir,
            state_dir,
            stop_event,
            sweep_seconds,
            force_polling,
            clock,
            resident_max,
            idle_seconds,
            farm_min,
        )
        if resident_max < 1:
            raise ConfigError(f"resident_max must be at least 1, not {resident_max}")
        if not paths:
            raise ConfigError("nothing to watch: give at least one transcript or directory")
        self._dirs: list[str] = []
        self._files: list[str] = []
        for p in paths:
            absolute = os.path.abspath(p)
            if os.path.isdir(absolute):
                self._dirs.append(absolute)
            elif os.path.isfile(absolute):
                # A file named on the command line is pinned to where it is now: a link
                # swapped in later is not followed elsewhere.
                self._files.append(os.path.realpath(absolute))
            else:
                raise ConfigError(f"no such transcript or directory: {os.fspath(p)}")
        self._dir_reals = [os.path.realpath(d) for d in self._dirs]
        # Fail at construction on an impossible budget, an unknown encoding or format.
        SessionMemoryDeriver(budget_tokens=budget_tokens, encoding=encoding)
        fold_adapter(format)
        self.budget_tokens = budget_tokens
        self.encoding = encoding
        self.format = format
        self.out_dir = Path(out_dir).absolute()
        self.state_dir = (
            Path(state_dir).absolute() if state_dir else self.out_dir / DEFAULT_STATE_DIRNAME
        )
        try:
            ensure_private_dir(self.out_dir)
            ensure_private_dir(self.state_dir)
        except OSError as exc:
            raise ConfigError(f"cannot create output or state directory: {exc}") from exc
        self._outputs = Outputs(self.out_dir)
        removed = self._outputs.clean() + remove_orphans(self.state_dir)
        if removed:
            logger.info("removed %d file(s) left by an interrupted write", removed)
        self._stop: StopEvent = stop_event if stop_event is not None else threading.Event()
        self._own_stop = self._stop if isinstance(self._stop, threading.Event) else None
        self._sweep_seconds = sweep_seconds
        self._force_polling = force_polling
        self._clock = clock
        self._failures = _FailureLog(clock)
        self._resident_max = resident_max
        self._idle_seconds = idle_seconds
        self._farm_min = farm_min
        self._polling = polling(force_polling)
        # In memory, least recently active first; on disk only; found, not yet derived.
        self._transcripts: dict[str, _Transcript] = {}
        self._dormant: dict[str, _Dormant] = {}
        self._unborn: set[str] = set()
        self._sweep_queue: list[str] = []
        self._pool: ThreadPoolExecutor | None = None
        self._in_flight: dict[str, tuple[_Transcript, _Write, Future[_Written]]] = {}
        self._adopting: dict[str, tuple[_Derived, _Write, Future[_Written]]] = {}
        self._catching_up = False
        self._sync_once = False  # this catch-up writes without fsyncs and syncs at its end
        self._burst = False  # this notification names many transcripts: states may wait
        self._sweeping = False  # a tick of the slow timer is running
        self._unsynced = False  # the catch-up wrote without fsyncs: sync at its end
        self._sweep_slice = 0
        self._aliases: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._outputs_written = 0

    # ------------------------------------------------------------------ public API

    def stop(self) -> None:
        """Ask :meth:`run` to finish (only when the service made its own stop event)."""
        if self._own_stop is None:
            raise ConfigError("this service was given a stop event: set that one")
        self._own_stop.set()

    def run_once(self) -> ServiceSummary:
        """Derive everything present now, write outputs and state, and return.

        Transcripts are derived one at a time, in the order they were found, and once
        written are kept in memory only while recently active, so catching up on thousands
        of files needs the memory of a few hundred.
        """
        with self._writers():
            self._catch_up()
        return self._summary()

    @contextlib.contextmanager
    def _writers(self) -> Iterator[None]:
        """The writer threads, for as long as the block runs; every write done at its end."""
        if self._pool is not None:
            yield
            return
        self._pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="session-memory-writer")
        try:
            yield
        finally:
            try:
                self._drain()
            finally:
                self._pool.shutdown()
                self._pool = None

    def _catch_up(self) -> None:
        self._catching_up = True
        todo = self._discover()
        found = set(todo)
        todo.extend(real for real in list(self._transcripts) if real not in found)
        self._sync_once = len(todo) >= SYNC_ONCE_MIN
        farm = self._farm(todo)
        progress = _Progress(len(todo), self._clock)
        try:
            for done, real in enumerate(todo):
                if self._stop.is_set():
                    break
                progress.report(done)
                derived = farm.take(real) if farm is not None and real in self._unborn else None
                if derived is not None:
                    self._adopt(real, derived)
                    self._drain_adopted(2 * WRITERS)
                    continue
                t = self._resident(real)
                if t is not None:
                    self._advance(t)
                    self._settle(t)
                    for written in self._drain(2 * WRITERS):
                        self._settle(written)
                    self._enforce_cap()
        finally:
            if farm is not None:
                farm.close()
        self._drain_adopted()
        for written in self._drain():
            self._settle(written)
        self._enforce_cap()
        for real in list(self._dormant):
            if self._stop.is_set():
                break
            self._visit(real, hint=True)
        self._drain()
        self._catching_up = self._sync_once = False
        self._sync_catch_up()
        self._failures.report()

    def _farm(self, todo: list[str]) -> _Farm | None:
        """Worker processes for the transcripts of ``todo`` never derived before, when there
        are enough of them and more than one core; None to derive them all here.

        Workers are forked (nothing to import again, the encoding already loaded), so only
        from a process with no other thread, which could hold a lock the child would wait
        for (``watch`` itself: its writer threads start with the first write, after this).
        """
        fresh = [real for real in todo if real in self._unborn and not is_compressed(real)]
        workers = _cores()
        if (
            workers < 2
            or len(fresh) < max(1, self._farm_min)
            or threading.active_count() > 1
            or not _can_fork()
        ):
            return None
        try:
            return _Farm(fresh, (self.budget_tokens, self.encoding, self.format), workers)
        except (OSError, RuntimeError) as exc:
            logger.warning("cannot start worker processes (%s): deriving here", exc)
            return None

    def _adopt(self, real: str, d: _Derived) -> None:
        """Write what a worker derived from byte 0 of ``real``, as the service's own first
        read would have; once written, the transcript is kept on disk (see
        :meth:`_adopted`)."""
        self._unborn.discard(real)
        for n, (offset, reason) in enumerate(d.skipped, start=1):
            _log_skip(real, n, offset, reason)
        pair = name = None
        if d.markdown is not None:
            pair = OutputPair(d.markdown, d.memory_json)
            name = self._claim(real, d.session_id)
        state = TranscriptState(
            path=real,
            dev=d.identity.dev,
            ino=d.identity.ino,
            offset=d.offset,
            fingerprint=d.fingerprint,
            name=name,
            budget_tokens=self.budget_tokens,
            encoding=self.encoding,
            snapshot=d.snapshot,
            transcript_format=self.format,
            adapter=d.adapter,
            memory_hash=memory_hash(d.memory_json),
            markdown_hash="" if pair is None else memory_hash(pair.markdown),
        )
        write = _Write(name, pair, None, False, state, durable=not self._sync_once)
        self._unsynced |= not write.durable
        if self._pool is None or not write.durable:
            self._adopted(real, d, write, self._commit(write))
        else:
            self._adopting[real] = (d, write, self._pool.submit(self._commit, write))

    def _drain_adopted(self, keep: int = 0) -> None:
        """Wait for the adopted transcripts' writes, oldest first, until ``keep`` are left."""
        while len(self._adopting) > keep:
            real = next(iter(self._adopting))
            d, write, future = self._adopting.pop(real)
            self._adopted(real, d, write, future.result())

    def _adopted(self, real: str, d: _Derived, write: _Write, done: _Written) -> None:
        """Keep an adopted transcript on disk once its outputs and state are; in memory,
        restored from what the worker derived, while a write failed (to be retried)."""
        tail = FileTail(real, d.offset, d.fingerprint, d.identity, resolved=True)
        self._outputs_written += done.written
        if done.error is None:
            self._failures.succeeded(real)
            self._dormant[real] = _Dormant(tail, d.events_read, d.lines_skipped)
            return
        self._failures.failed(real, done.error)
        deriver = SessionMemoryDeriver.restore(d.snapshot)
        t = _Transcript(
            path=real,
            tail=tail,
            deriver=deriver,
            adapter=restore_fold_adapter(d.adapter),
            name=write.name,
            outputs_stale=not done.outputs,
            state_stale=not done.state,
            published=done.published,
            outputs_synced=done.synced,
            events_read=d.events_read,
            lines_skipped=d.lines_skipped,
        )
        self._admit(t)

    def _sync_catch_up(self) -> None:
        """Have what the catch-up wrote made durable, all at once, without waiting for it.

        While catching up, outputs and states are written without fsyncs (three files and
        as many directories per transcript were much of its cost): a kill loses nothing (the
        page cache outlives the process), and a power cut before they reach the disk may
        leave any of them old, empty or torn, which the next start tells from the hashes
        every state keeps, and rebuilds (``docs/service-guarantees.md``). One ``sync`` on a
        writer thread then flushes them together while the service goes on: the transcripts
        it writes next are fsynced as usual, their outputs before their state.
        """
        if not self._unsynced:
            return
        self._unsynced = False
        if self._pool is None:
            os.sync()
        else:
            self._pool.submit(os.sync)

    def run(self) -> ServiceSummary:
        """Catch up, then follow every transcript until the stop event is set.

        Each transcript's state and outputs are complete when this returns: the states a
        burst left to save are saved first.
        """
        with self._writers():
            self._catch_up()
            self._follow()
            for t in list(self._transcripts.values()):
                self._publish(t)
        logger.info("stopped; state and outputs are up to date")
        return self._summary()

    def _follow(self) -> None:
        watched = self._dirs + self._files
        logger.info(
            "watching %d transcript(s) under %s (%d in memory)",
            len(self._transcripts) + len(self._dormant) + len(self._unborn),
            ", ".join(watched),
            len(self._transcripts),
        )
        last_sweep = self._clock()
        swept = False
        for changes in watch_changes(
            watched,
            stop_event=self._stop,
            sweep_seconds=self._sweep_seconds,
            force_polling=self._polling,
            on_polling=self._now_polling,
        ):
            # Many transcripts changed at once (a burst) are written as a catch-up writes
            # them, without fsyncs, made durable together by one sync once all are out; here,
            # on this thread, and their states at most every BURST_STATE_SECONDS.
            self._burst = self._sync_once = len(changes) >= SYNC_ONCE_MIN
            for path in sorted(changes):
                if self._stop.is_set():
                    break
                self._on_change(path)
            self._drain()
            self._burst = self._sync_once = False
            self._sync_catch_up()
            self._enforce_cap()
            # The slow timer runs whatever the notifications do, so a missed notification
            # (or a steady stream of them about other files) delays a file by one sweep at most.
            if self._clock() - last_sweep >= self._sweep_seconds:
                # The first tick visits everything: what was appended after the catch-up
                # read it and before the notifications began is reported by nothing else.
                self._sweep(whole=not swept)
                swept = True
                self._drain()
                self._evict_idle()
                last_sweep = self._clock()

    # ------------------------------------------------------------------ discovery

    def _discover(self) -> list[str]:
        """Find transcripts; read every state before any name is claimed anew.

        Returns the real paths of those found now that need deriving, in order; those whose
        state covers the file and whose outputs are in place stay on disk (see :meth:`_resident`).
        """
        found = self._found()
        listed = len(found) <= LISTED_MAX
        before = len(self._unborn), len(self._transcripts), len(self._dormant)
        todo = []
        for path in found:
            real = self._add(path, listed=listed)
            if real is not None and real not in self._dormant:
                todo.append(real)
        if not listed:
            new, resumed, unchanged = (
                len(self._unborn) - before[0],
                len(self._transcripts) - before[1],
                len(self._dormant) - before[2],
            )
            logger.info(
                "found %d transcript(s): %d new, %d to resume, %d unchanged (kept on disk)",
                new + resumed + unchanged,
                new,
                resumed,
                unchanged,
            )
        return todo

    def _found(self) -> list[str]:
        found: list[str] = [f for f in self._files if _is_regular(f)]
        for root in self._dirs:
            found.extend(discover_transcripts(root, known=self._aliases))
        return found

    def _add(self, path: str, *, listed: bool = True) -> str | None:
        """Register a transcript found at ``path``: its real path, None if already known.

        One with a state is resumed from it (kept on disk when nothing changed since, see
        :meth:`_load_dormant`); one without is derived when :meth:`_resident` is asked for it.
        Each is named in the log at info level when ``listed``, else at debug level.
        """
        level = logging.INFO if listed else logging.DEBUG
        real = os.path.realpath(path)
        self._aliases[path] = real
        if real in self._transcripts or real in self._dormant or real in self._unborn:
            return None
        spath = state_path(self.state_dir, real)
        if not os.path.lexists(spath):
            self._unborn.add(real)
            logger.log(level, "tailing %s from byte 0", real)
            return real
        dormant = self._load_dormant(real, spath)
        if dormant is not None:
            self._dormant[real] = dormant
            logger.debug("tailing %s from byte %d, kept on disk", real, dormant.tail.offset)
            return real
        t = self._load(real)
        self._admit(t)
        logger.log(
            level,
            "tailing %s from byte %d%s",
            real,
            t.tail.offset,
            f" (session {t.name})" if t.name else "",
        )
        return real

    def _resident(self, real: str) -> _Transcript | None:
        """The transcript in memory: restored from disk or created when it is not."""
        t = self._transcripts.get(real)
        if t is not None:
            return t
        if real in self._unborn:
            self._unborn.discard(real)
            return self._admit(self._fresh(real))
        dormant = self._dormant.pop(real, None)
        if dormant is None:
            return None
        t = self._load(real)
        t.events_read, t.lines_skipped = dormant.events_read, dormant.lines_skipped
        logger.debug("%s changed: restored from its state", real)
        return self._admit(t)

    def _admit(self, t: _Transcript) -> _Transcript:
        """Keep ``t`` in memory as the most recently active; the least active past the cap
        go to disk."""
        t.last_active = self._clock()
        self._transcripts[t.path] = t
        self._enforce_cap()
        return t

    def _touch(self, t: _Transcript) -> None:
        """``t`` was just active: it goes last in the order of eviction."""
        t.last_active = self._clock()
        if self._transcripts.get(t.path) is t:
            del self._transcripts[t.path]
            self._transcripts[t.path] = t

    def _fresh(self, real: str) -> _Transcript:
        return _Transcript(
            path=real,
            tail=FileTail(real, resolved=True),
            deriver=SessionMemoryDeriver(budget_tokens=self.budget_tokens, encoding=self.encoding),
            adapter=fold_adapter(self.format),
        )

    def _load_dormant(self, real: str, spath: Path) -> _Dormant | None:
        """The transcript as a record on disk, when its state is exactly what is published
        and the file has not changed since: no restore needed. None on any doubt
        (:meth:`_load` then restores and checks it in full).

        The state's header passes :func:`load_state`'s checks, is for this path, budget,
        encoding and format; the file has the state's identity, its size is the offset and
        the fingerprint of the consumed prefix matches; the published pair has the hashes
        the state kept; and the state's output name is one this service would give (the
        session id read from that very JSON).
        """
        try:
            state = load_state(spath)
        except StateError:
            return None
        if (
            state.path != real
            or (state.budget_tokens, state.encoding, state.transcript_format)
            != (self.budget_tokens, self.encoding, self.format)
            or (state.name is not None and not self._published_as(real, state))
        ):
            return None
        identity = FileIdentity(state.dev, state.ino)
        tail = FileTail(real, state.offset, state.fingerprint, identity, resolved=True)
        try:
            if tail.check() is not TailStatus.UNCHANGED:
                return None
            with tail.look() as look:
                if look.status is not TailStatus.UNCHANGED:
                    return None
        except TranscriptError:
            return None
        if state.name is not None:
            self._names.setdefault(state.name, real)
        return _Dormant(tail)

    def _published_as(self, real: str, state: TranscriptState) -> bool:
        """Whether the state's name is free or its own, one of its names, and published with
        exactly the pair the state was saved with."""
        name = state.name
        if name is None or not state.markdown_hash or self._names.get(name, real) != real:
            return False
        pair = self._outputs.published(name)
        if pair is None or (memory_hash(pair.markdown), memory_hash(pair.json)) != (
            state.markdown_hash,
            state.memory_hash,
        ):
            return False
        try:
            session = orjson.loads(pair.json).get("session_id")
        except (orjson.JSONDecodeError, AttributeError):
            return False
        return name in self._names_for(real, session if isinstance(session, str) else None)

    def _load(self, real: str) -> _Transcript:
        """Resume from the state when every check of it passes; else derive from scratch.

        The state is input: its header is type- and range-checked as it is read, it must
        be for this path, budget, encoding and format, its snapshot must restore to the
        very memory it was saved with, and its output name must be one this service would
        give the transcript. Any doubt: one WARNING, and the transcript is rebuilt.
        """
        spath = state_path(self.state_dir, real)
        if not os.path.lexists(spath):
            return self._fresh(real)
        try:
            state = load_state(spath)
            if state.path != real:
                raise StateError(f"state {spath} belongs to another transcript")
            if (state.budget_tokens, state.encoding, state.transcript_format) != (
                self.budget_tokens,
                self.encoding,
                self.format,
            ):
                raise StateError("state was derived with another budget, encoding or format")
            deriver, adapter = _restore(state)
            if state.name is not None and self._names.get(state.name, real) != real:
                raise StateError(f"state names its outputs {state.name!r}, taken by another")
            if state.name is not None and state.name not in self._names_for(
                real, deriver.session_id
            ):
                raise StateError(
                    f"state names its outputs {state.name[:80]!r}, not a name of its own"
                )
        except _DOUBT as exc:
            logger.warning("rebuilding %s from scratch: %s", real, exc)
            return self._fresh(real)
        if state.name is not None:
            self._names.setdefault(state.name, real)
        return _Transcript(
            path=real,
            tail=FileTail(
                real,
                state.offset,
                state.fingerprint,
                FileIdentity(state.dev, state.ino),
                resolved=True,
            ),
            deriver=deriver,
            adapter=adapter,
            name=state.name,
            restored=True,
            state_saved=self._clock(),  # what it holds is on disk: a burst need not save it
        )

    def _on_change(self, path: str) -> None:
        real = self._aliases.get(path)
        if real is None:
            if not self._eligible(path):
                return
            real = self._add(path)
            if real is None:
                return
        self._visit(real, hint=False)

    def _eligible(self, path: str) -> bool:
        """A new file under a watched directory, resolving inside it (symlinks included)."""
        for root, real_root in zip(self._dirs, self._dir_reals, strict=True):
            if os.path.commonpath([path, root]) == root and resolves_inside(path, real_root):
                return not os.path.basename(path).startswith(".")
        return False

    def _sweep(self, *, whole: bool = False) -> None:
        """The slow timer: pick up missed files and compare sizes with offsets.

        Its cost follows what changed, not what exists: a cycle starts with a walk that
        resolves only paths it has not seen, then ``stat``s each transcript once. Polling,
        a cycle is one tick; with inotify, whose notifications are trusted, a cycle is
        :data:`SWEEP_TICKS` ticks, a slice of the transcripts a tick (``whole``: the rest
        of the cycle in this tick).
        """
        self._sweeping = True
        try:
            self._tick(whole)
        finally:
            self._sweeping = False

    def _tick(self, whole: bool) -> None:
        """One tick of :meth:`_sweep`: its slice of the cycle, then what is not on disk."""
        if not self._sweep_queue:
            for path in self._found():
                if path not in self._aliases:
                    real = self._add(path)
                    if real is not None:
                        self._visit(real, hint=False)
            queue = [*self._transcripts, *self._dormant, *self._unborn]
            queue.reverse()
            self._sweep_queue = queue
            self._sweep_slice = -(-len(queue) // (1 if self._polling else SWEEP_TICKS))
        if whole:
            self._sweep_slice = len(self._sweep_queue)
        for _ in range(min(self._sweep_slice, len(self._sweep_queue))):
            if self._stop.is_set():
                return
            self._visit(self._sweep_queue.pop(), hint=True)
        # What is not yet on disk (a write failed, a state a burst left) is written on every
        # tick: many at once as a burst writes them, without fsyncs, then one sync.
        self._drain()
        pending = [t for t in self._transcripts.values() if not self._evictable(t)]
        self._sync_once = len(pending) >= SYNC_ONCE_MIN
        try:
            for t in pending:
                if self._stop.is_set():
                    break
                self._advance(t, hint=True)
            self._drain()
        finally:
            self._sync_once = False
        self._sync_catch_up()

    def _now_polling(self) -> None:
        """The watch fell back to polling: sweep everything on every tick from now on."""
        self._polling = True
        self._sweep_queue = []

    def _visit(self, real: str, *, hint: bool) -> None:
        """Bring one known transcript up to date; one on disk only is first ``stat``ed and
        restored only if it changed."""
        if real in self._dormant:
            try:
                if self._dormant[real].tail.check() is TailStatus.UNCHANGED:
                    return
            except TranscriptError as exc:
                logger.warning("cannot read %s: %s", real, exc)
                return
            hint = False
        t = self._resident(real)
        if t is not None:
            self._advance(t, hint=hint)

    # ------------------------------------------------------------------ memory

    def _evictable(self, t: _Transcript) -> bool:
        """Whether the state on disk holds everything ``t`` knows (and its outputs are out)."""
        return not (
            t.outputs_stale or t.state_stale or t.unreadable or self._failures.is_failing(t.path)
        )

    def _evict(self, t: _Transcript) -> None:
        """Keep ``t`` only on disk: its state, and its tail's position for the sweep."""
        del self._transcripts[t.path]
        self._dormant[t.path] = _Dormant(t.tail, t.events_read, t.lines_skipped)

    def _enforce_cap(self) -> None:
        while len(self._transcripts) > self._resident_max:
            victim = next((t for t in self._transcripts.values() if self._evictable(t)), None)
            if victim is None:
                return
            self._evict(victim)

    def _evict_idle(self) -> None:
        """Keep on disk only the transcripts idle for ``idle_seconds`` (least active first)."""
        now = self._clock()
        for t in list(self._transcripts.values()):
            if now - t.last_active < self._idle_seconds:
                return
            if self._evictable(t):
                self._evict(t)

    def _settle(self, t: _Transcript) -> None:
        """After catching up on ``t``: to disk when its file has been idle for a while."""
        if (
            not self._catching_up
            or self._transcripts.get(t.path) is not t
            or not self._evictable(t)
        ):
            return
        try:
            age = time.time() - os.lstat(t.path).st_mtime
        except OSError:
            return
        if age >= self._idle_seconds:
            self._evict(t)

    # ------------------------------------------------------------------ the work

    def _advance(self, t: _Transcript, *, hint: bool = False) -> None:
        """Fold the new complete lines of one transcript, then write outputs, then state.

        With ``hint`` (the slow timer) a ``stat`` comes first and the file is opened only
        when it changed; everything read is verified on the descriptor it is read from.
        """
        if t.path in self._in_flight:
            self._drain()  # its previous change must be on disk before it is read on
        try:
            if hint and t.tail.check() is TailStatus.UNCHANGED:
                self._publish(t)  # a restored transcript still has its outputs reconciled
                return
            status = self._read_or_rebuild(t)
        except TranscriptError as exc:
            logger.warning("cannot read %s: %s", t.path, exc)
            return
        if status is TailStatus.DELETED:
            self._forget(t)
        elif status is TailStatus.REFUSED:
            logger.warning(
                "%s is no longer a regular file at its own path inside the watched directory "
                "(a link, FIFO, device or swapped directory?); stopped tailing it, its outputs "
                "are kept",
                t.path,
            )
            self._forget(t, drop_state=False)
        else:
            self._publish(t)

    def _read_or_rebuild(self, t: _Transcript) -> TailStatus:
        """Read on from the offset; from the start when the file was replaced or the
        restored state it is read on from proves unusable."""
        try:
            status = self._read(t)
        except StateError as exc:
            logger.warning("rebuilding %s from scratch: %s", t.path, exc)
            status = TailStatus.REPLACED
        else:
            if status is not TailStatus.REPLACED:
                return status
            logger.info("%s shrank or was rewritten; deriving it again from the start", t.path)
        self._reset(t)
        return self._read(t)

    def _reset(self, t: _Transcript) -> None:
        t.tail = FileTail(t.path, resolved=True)
        self._reset_memory(t)

    def _reset_memory(self, t: _Transcript) -> None:
        """A fresh deriver and adapter, the tailed position left as it is."""
        t.deriver = SessionMemoryDeriver(budget_tokens=self.budget_tokens, encoding=self.encoding)
        t.adapter = fold_adapter(self.format)
        t.outputs_stale = t.state_stale = True
        t.restored = t.unreadable = False

    def _read(self, t: _Transcript) -> TailStatus:
        """One verified look at the file; the new lines folded when it grew."""
        before = t.tail.offset
        with t.tail.look() as look:
            status = look.status
            if status is TailStatus.GROWN and is_compressed(t.path):
                status = self._read_whole(t, look)
            elif status is TailStatus.GROWN:
                try:
                    self._fold(t, look)
                except TranscriptError as exc:
                    # Whatever was folded before the error is consistent with the offset.
                    logger.warning("reading %s stopped: %s", t.path, exc)
        if t.tail.offset != before:
            t.outputs_stale = t.state_stale = True
            self._touch(t)
        return status

    def _read_whole(self, t: _Transcript, look: Look) -> TailStatus:
        """Fold a compressed transcript whole, once: it is immutable, so one that grew after
        it was read is another file. Corrupt data gives no memory and counts one skip; the
        file counts as read either way, until it is replaced."""
        if t.tail.offset > 0:
            return TailStatus.REPLACED
        try:
            for line in look.whole():
                self._fold_item(t, line)
                if self._stop.is_set():
                    self._reset_memory(t)  # nothing consumed: read again on the next start
                    return TailStatus.UNCHANGED
        except TranscriptError as exc:
            logger.warning("cannot read %s, no memory until it is replaced: %s", t.path, exc)
            self._reset_memory(t)
            t.unreadable = True
            t.lines_skipped += 1
        look.consume()
        return TailStatus.GROWN

    def _fold(self, t: _Transcript, look: Look) -> None:
        for line in look.lines(self._stop):
            self._fold_item(t, line)

    def _fold_item(self, t: _Transcript, line: Tailed) -> None:
        """Feed one line (or its skip) through the adapter into the deriver."""
        skipped = _fold_item(t, line)
        first = t.lines_skipped - len(skipped)
        for n, record in enumerate(skipped, start=first + 1):
            _log_skip(t.path, n, record.offset, record.reason)

    def _publish(self, t: _Transcript) -> None:
        """Write the outputs if the memory changed, then the state if anything was read
        (in a burst, the state at most every :data:`BURST_STATE_SECONDS`).

        What to write is computed here; the writing itself (:meth:`_commit`) goes to the
        writer threads while the service runs, so the fsyncs of many transcripts overlap.
        Each transcript's writes keep their order (outputs, then state), and a transcript
        is not read again before they are done (:meth:`_drain`). Writes without fsyncs (a
        catch-up's, a burst's), which have nothing to overlap, are done here: threads taking
        turns at the interpreter cost more than they saved (see :data:`WRITERS`).

        A failed write (disk full, permissions) is retried on the next change or sweep and
        reported by :class:`_FailureLog`; it leaves the previous outputs and state in place,
        which stay consistent.
        """
        save_state = t.state_stale and not self._state_waits(t)
        if t.unreadable or not (t.outputs_stale or save_state):
            return  # an unreadable file has no memory and no state: a restart tells it again
        memory = _memory_so_far(t)
        memory_json = memory.to_json()
        pair = None
        if t.outputs_stale and t.tail.offset > 0 and _format_told(t.adapter):
            pair = OutputPair(render_memory(memory).encode(), memory_json)
            if t.name is None:
                t.name = self._claim(t.path, t.deriver.session_id)
        shown = pair if pair is not None else t.published
        write = _Write(
            name=t.name,
            pair=pair,
            published=t.published,
            synced=t.outputs_synced,
            state=self._state_of(t, memory_json, shown) if save_state else None,
            durable=not self._sync_once,
        )
        self._unsynced |= self._sync_once
        if self._pool is None or not write.durable:
            self._finish(t, write, self._commit(write))
        else:
            self._in_flight[t.path] = (t, write, self._pool.submit(self._commit, write))

    def _state_waits(self, t: _Transcript) -> bool:
        """Whether saving ``t``'s state is left for later: in a burst, while it was saved (or
        restored) less than :data:`BURST_STATE_SECONDS` ago; on a tick of the slow timer,
        while ``t`` grew less than that ago (a burst may be going on)."""
        now = self._clock()
        if self._burst:
            return now - t.state_saved < BURST_STATE_SECONDS
        return self._sweeping and now - t.last_active < BURST_STATE_SECONDS

    def _state_of(
        self, t: _Transcript, memory_json: bytes, shown: OutputPair | None
    ) -> TranscriptState | None:
        """The state to save for ``t`` as it stands; None when nothing was read yet."""
        identity = t.tail.identity
        fingerprint = t.tail.fingerprint
        if identity is None or fingerprint is None:
            return None  # nothing was read yet: nothing to resume from
        return TranscriptState(
            path=t.path,
            dev=identity.dev,
            ino=identity.ino,
            offset=t.tail.offset,
            fingerprint=fingerprint,
            name=t.name,
            budget_tokens=self.budget_tokens,
            encoding=self.encoding,
            snapshot=t.deriver.snapshot(),
            transcript_format=self.format,
            adapter=t.adapter.snapshot(),
            memory_hash=memory_hash(memory_json),
            markdown_hash="" if shown is None else memory_hash(shown.markdown),
        )

    def _commit(self, write: _Write) -> _Written:
        """Put one transcript's change on disk: the pair when it differs from what is
        published (checked once, then known), then the state. Touches only the disk.

        The JSON carries bookkeeping (``event_count``, diagnostics) that changes with every
        line; the Markdown only when the content does, and then it is linked, not rewritten.
        """
        done = _Written(published=write.published, synced=write.synced)
        try:
            pair, name = write.pair, write.name
            if pair is not None and name is not None:
                if done.published is None and self._outputs.matches(name, pair):
                    done.published = pair  # a restart found its outputs in place: not synced
                elif pair != done.published:
                    unchanged = (
                        done.published is not None and done.published.markdown == pair.markdown
                    )
                    self._outputs.publish(
                        name, pair, markdown_unchanged=unchanged, durable=write.durable
                    )
                    done.published, done.synced, done.written = pair, write.durable, True
            done.outputs = True
            if write.state is not None:
                if write.durable and name is not None and not done.synced:
                    # Outputs found in place after a restart may be renamed but not yet
                    # durable (killed before the directory fsync): make them so before the
                    # state moves past them.
                    self._outputs.sync(name)
                    done.synced = True
                save_state(self.state_dir, write.state, durable=write.durable)
                done.state = True
        except OSError as exc:
            done.error = exc
        return done

    def _finish(self, t: _Transcript, write: _Write, done: _Written) -> None:
        """Record what :meth:`_commit` put on disk for ``t``."""
        t.published, t.outputs_synced = done.published, done.synced
        self._outputs_written += done.written
        if done.outputs:
            t.outputs_stale = False
        if done.state:
            t.state_stale = False
            t.state_saved = self._clock()
        if done.error is not None:
            self._failures.failed(t.path, done.error)
        else:
            self._failures.succeeded(t.path)

    def _drain(self, keep: int = 0) -> list[_Transcript]:
        """Wait for the writes in flight, oldest first, until at most ``keep`` are left;
        the transcripts whose writes are done."""
        done = []
        while len(self._in_flight) > keep:
            path = next(iter(self._in_flight))
            t, write, future = self._in_flight.pop(path)
            self._finish(t, write, future.result())
            done.append(t)
        return done

    def _names_for(self, path: str, session: str | None) -> set[str]:
        """Every output name this service could give a transcript: a state's must be one."""
        bases = {safe_name(transcript_stem(path))}
        if session:
            bases.add(safe_name(session))
        return bases | {_suffixed(base, path) for base in bases}

    def _claim(self, path: str, session: str | None) -> str:
        """The output name of a transcript first written now (its session's, if free)."""
        base = safe_name(session) if session else safe_name(transcript_stem(path))
        owner = self._names.get(base)
        if owner is not None and owner != path:
            base = _suffixed(base, path)
            logger.info("session name taken by %s; writing %s as %s", owner, path, base)
        self._names.setdefault(base, path)
        return base

    def _forget(self, t: _Transcript, *, drop_state: bool = True) -> None:
        """Stop tailing a transcript and keep its outputs; a deleted one's state goes.

        A deleted transcript also gives up its output name: when Codex replaces a rollout
        by its compressed copy, the copy's memory takes the same name (as after a restart,
        where no state of the deleted file claims it).
        """
        if drop_state:
            logger.info("%s was deleted; stopped tailing it, its outputs are kept", t.path)
            for name in [n for n, owner in self._names.items() if owner == t.path]:
                del self._names[name]
        del self._transcripts[t.path]
        for alias in [a for a, real in self._aliases.items() if real == t.path]:
            del self._aliases[alias]
        if drop_state:
            with contextlib.suppress(FileNotFoundError):
                state_path(self.state_dir, t.path).unlink()

    def _summary(self) -> ServiceSummary:
        ts: list[_Transcript | _Dormant] = [*self._transcripts.values(), *self._dormant.values()]
        return ServiceSummary(
            transcripts=len(self._transcripts) + len(self._dormant) + len(self._unborn),
            events=sum(t.events_read for t in ts),
            skipped=sum(t.lines_skipped for t in ts),
            outputs_written=self._outputs_written,
            failed=self._failures.failing,
        )


def _fold_item(t: _Transcript, line: Tailed) -> list[SkippedLine]:
    """Feed one line (or its skip) through the adapter into the deriver; the lines skipped
    (each counted in ``t.lines_skipped`` as it is recorded)."""
    skipped = []
    item = line.item
    try:
        records = (
            [item]
            if isinstance(item, SkippedLine)
            else t.adapter.feed_line(item, line.offset, line.end)
        )
        for record in records:
            if isinstance(record, SkippedLine):
                t.deriver.record_skip(record)
                t.lines_skipped += 1
                skipped.append(record)
            else:
                t.deriver.apply(record)
                t.events_read += 1
    except _DOUBT as exc:
        if not t.restored:
            raise  # a deriver that fails from scratch is a bug, not a bad state
        raise StateError(f"the restored state fails on the next line: {exc}") from exc
    t.restored = False
    return skipped


def _log_skip(path: str, count: int, offset: int, reason: str) -> None:
    """Log the ``count``-th skipped line of a transcript.

    Every skip is counted in the memory's diagnostics; the log names the first few per
    transcript so a file of garbage cannot flood it.
    """
    if count <= SKIPS_LOGGED:
        logger.info("skipped line at byte %d of %s: %s", offset, path, reason)
        if count == SKIPS_LOGGED:
            logger.info("further skipped lines of %s are logged at debug level", path)
    else:
        logger.debug("skipped line at byte %d of %s: %s", offset, path, reason)


class _Progress:
    """Says every :data:`PROGRESS_SECONDS` how many of a catch-up's transcripts are done."""

    def __init__(self, total: int, clock: Clock) -> None:
        self._total = total
        self._clock = clock
        self._next = clock() + PROGRESS_SECONDS

    def report(self, done: int) -> None:
        """``done`` transcripts are done: say so if the last line is old enough."""
        now = self._clock()
        if done and now >= self._next:
            logger.info("catching up: %d of %d transcript(s) done", done, self._total)
            self._next = now + PROGRESS_SECONDS


class _Farm:
    """Transcripts never derived before, folded from byte 0 in worker processes while the
    service writes those before them; taken in the order they were given.

    Workers only compute: every write is the service's, in the order it would have made
    it, so a kill at any instant leaves what a kill of the service alone would. A worker
    that fails only sends its transcripts back to the service; after a broken pool the
    service derives everything left itself.
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
        self._tasks: dict[int, Future[list[_Derived | None]]] = {}
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
            self._tasks[self._submitted] = self._pool.submit(_derive_chunk, chunk, *self._options)
            self._submitted += 1

    def take(self, path: str) -> _Derived | None:
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


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def _can_fork() -> bool:
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


def _derive_chunk(
    paths: list[str], budget_tokens: int, encoding: str, transcript_format: str
) -> list[_Derived | None]:
    """In a worker process: each transcript derived from byte 0 (see :func:`_derive_whole`)."""
    return [_derive_whole(path, budget_tokens, encoding, transcript_format) for path in paths]


def _derive_whole(
    path: str, budget_tokens: int, encoding: str, transcript_format: str
) -> _Derived | None:
    """A plain transcript folded from byte 0 exactly as the service's first read folds it;
    None when the look finds anything but new lines, the file is larger than
    :data:`FARM_MAX_BYTES`, or reading fails: the service then reads it itself, and logs."""
    t = _Transcript(
        path=path,
        tail=FileTail(path, resolved=True),
        deriver=SessionMemoryDeriver(budget_tokens=budget_tokens, encoding=encoding),
        adapter=fold_adapter(transcript_format),
    )
    skipped: list[tuple[int, str]] = []
    try:
        with t.tail.look() as look:
            if look.status is not TailStatus.GROWN or look.size > FARM_MAX_BYTES:
                return None
            for line in look.lines():
                for record in _fold_item(t, line):
                    if len(skipped) < SKIPS_LOGGED:
                        skipped.append((record.offset, record.reason))
    except TranscriptError:
        return None
    identity, fingerprint = t.tail.identity, t.tail.fingerprint
    if identity is None or fingerprint is None or t.tail.offset == 0:
        return None
    memory = _memory_so_far(t)
    return _Derived(
        offset=t.tail.offset,
        fingerprint=fingerprint,
        identity=identity,
        snapshot=t.deriver.snapshot(),
        adapter=t.adapter.snapshot(),
        session_id=t.deriver.session_id,
        memory_json=memory.to_json(),
        markdown=render_memory(memory).encode() if _format_told(t.adapter) else None,
        events_read=t.events_read,
        lines_skipped=t.lines_skipped,
        skipped=tuple(skipped),
    )


def _format_told(adapter: AdapterBase) -> bool:
    """Whether some record told the transcript's format (no memory for a file of none)."""
    return not isinstance(adapter, AutoAdapter) or adapter.detected is not None


def _restore(state: TranscriptState) -> tuple[SessionMemoryDeriver, AdapterBase]:
    """The deriver and adapter of a state, proven to give the memory it was saved with.

    A snapshot edited into wrong types may restore without complaint: it must also be a
    fixed point (restored and snapshotted again, the same bytes) and give the memory whose
    hash the state kept, else :class:`StateError`.
    """
    deriver = SessionMemoryDeriver.restore(state.snapshot)
    adapter = (
        fold_adapter(state.transcript_format)
        if state.adapter is None
        else restore_fold_adapter(state.adapter)
    )
    if deriver.snapshot() != state.snapshot:
        raise StateError("the snapshot does not restore to itself")
    if adapter.snapshot() != state.adapter and state.adapter is not None:
        raise StateError("the adapter state does not restore to itself")
    partial = _Transcript(
        path=state.path,
        tail=FileTail(state.path, resolved=True),
        deriver=deriver,
        adapter=adapter,
    )
    if memory_hash(_memory_so_far(partial).to_json()) != state.memory_hash:
        raise StateError("the snapshot gives another memory than the one it was saved with")
    return deriver, adapter


def _suffixed(base: str, path: str) -> str:
    """``base`` made unique to one transcript: ``-<8 hex>`` of the hash of its path."""
    digest = sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return safe_name(f"{base}-{digest}")


def _is_regular(path: str) -> bool:
    """A regular file itself (``lstat``: a link is not followed)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _memory_so_far(t: _Transcript) -> MemoryView:
    """The memory a full read of the transcript as it stands gives.

    An adapter may hold a record back until a later one says what it was (Claude Code's
    last assistant text is a final answer only if the turn then ends); a complete read
    releases it at the end of the file. The outputs show it released, computed on copies,
    while the tailed adapter and deriver keep waiting for the next line.
    """
    held = restore_fold_adapter(t.adapter.snapshot()).finish()
    if not held:
        return t.deriver.memory_view
    copy = SessionMemoryDeriver.restore(t.deriver.snapshot())
    copy.apply_all(held)
    return copy.memory_view
