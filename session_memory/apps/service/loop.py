"""The service's event loop: catch up, then follow notifications and the slow timer's ticks
until the stop event is set; :class:`MemoryService` is what users build and run."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from session_memory.apps.memory_dir.outputs import Outputs, ensure_private_dir, remove_orphans
from session_memory.apps.service.catch_up import CatchUp
from session_memory.apps.service.farm import FARM_MIN
from session_memory.apps.service.logs import FailureLog, logger
from session_memory.apps.service.mode import Mode
from session_memory.apps.service.names import Names
from session_memory.apps.service.options import Clock, Options, check_options
from session_memory.apps.service.residency import IDLE_SECONDS, RESIDENT_MAX, Residency
from session_memory.apps.service.restore import Restorer
from session_memory.apps.service.transcript import Dormant, Transcript
from session_memory.apps.service.update import Updater
from session_memory.apps.service.writers import syncs_once
from session_memory.apps.tail import (
    SWEEP_SECONDS,
    SWEEP_TICKS,
    StopEvent,
    polling,
    watch_changes,
)
from session_memory.core.errors import ConfigError
from session_memory.core.tokens import DEFAULT_BUDGET, DEFAULT_ENCODING

__all__ = ["MemoryService", "ServiceSummary"]


@dataclass(frozen=True, slots=True)
class ServiceSummary:
    """What a pass over the transcripts did; ``failed`` counts memories it could not write."""

    transcripts: int
    events: int
    skipped: int
    outputs_written: int
    failed: int = 0


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
        check_options(
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
        options = Options.of(
            paths,
            out_dir,
            state_dir,
            budget_tokens=budget_tokens,
            encoding=encoding,
            format=format,
            sweep_seconds=sweep_seconds,
            resident_max=resident_max,
            idle_seconds=idle_seconds,
            farm_min=farm_min,
        )
        try:
            ensure_private_dir(options.out_dir)
            ensure_private_dir(options.state_dir)
        except OSError as exc:
            raise ConfigError(f"cannot create output or state directory: {exc}") from exc
        outputs = Outputs(options.out_dir)
        removed = outputs.clean() + remove_orphans(options.state_dir)
        if removed:
            logger.info("removed %d file(s) left by an interrupted write", removed)
        self._options = options
        self._stop: StopEvent = stop_event if stop_event is not None else threading.Event()
        self._own_stop = self._stop if isinstance(self._stop, threading.Event) else None
        self._clock = clock
        self._failures = FailureLog(clock)
        self._names = Names()
        restorer = Restorer(options, outputs, self._names, clock)
        self._restorer = restorer
        self._residency = Residency(options, restorer, self._failures, clock)
        self._updater = Updater(
            options, outputs, self._names, self._residency, self._failures, self._stop, clock
        )
        self._sweep = _Sweep(options, self._residency, self._updater, self._stop, force_polling)

    @property
    def out_dir(self) -> Path:
        return self._options.out_dir

    @property
    def state_dir(self) -> Path:
        return self._options.state_dir

    @property
    def budget_tokens(self) -> int:
        return self._options.budget_tokens

    @property
    def encoding(self) -> str:
        return self._options.encoding

    @property
    def format(self) -> str:
        return self._options.format

    @property
    def mode(self) -> Mode:
        """What the service is doing now."""
        return self._updater.mode

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
        with self._updater.writing():
            self._catch_up()
        return self._summary()

    def run(self) -> ServiceSummary:
        """Catch up, then follow every transcript until the stop event is set.

        Each transcript's state and outputs are complete when this returns: the states a
        burst left to save are saved first, then the index that lets the next start find
        the unchanged ones without reading their states (:meth:`Restorer.record`).
        """
        self._restorer.take_index()
        with self._updater.writing():
            # What was appended to those kept on disk since they were found is for the
            # sweep's first tick, once the notifications have begun (:meth:`_follow`).
            self._catch_up(stat_kept=False)
            self._restorer.drop_index()
            with self._updater.batch(Mode.FOLLOWING):
                self._follow()
            with self._updater.batch(Mode.STOPPING):
                for t in list(self._residency.transcripts.values()):
                    self._updater.publish(t)
        recorded = self._restorer.record(self._residency.on_disk(self._names.owned()))
        logger.info("stopped; state and outputs are up to date (%d unchanged recorded)", recorded)
        return self._summary()

    def _catch_up(self, *, stat_kept: bool = True) -> None:
        CatchUp(
            self._options,
            self._residency,
            self._updater,
            self._names,
            self._failures,
            self._stop,
            self._clock,
        ).run(stat_kept=stat_kept)

    def _follow(self) -> None:
        """Each notification's changes, then, when the slow timer is due, a tick of it.

        The first tick comes as soon as the notifications have begun: it visits everything,
        for what was appended after the catch-up read it and before they began, which
        nothing else reports. Only then is the service watching: an append from then on is
        notified.
        """
        options, residency, updater = self._options, self._residency, self._updater
        last_sweep = self._clock()
        swept = False
        for changes in watch_changes(
            options.watched,
            stop_event=self._stop,
            sweep_seconds=options.sweep_seconds,
            force_polling=self._sweep.polling,
            on_polling=self._sweep.now_polling,
        ):
            # Many transcripts changed at once (a burst) are written as a catch-up writes
            # them, without fsyncs, made durable together by one sync once all are out; here,
            # on this thread, and their states at most every BURST_STATE_SECONDS.
            burst = syncs_once(len(changes))
            with updater.batch(Mode.BURST if burst else Mode.FOLLOWING, durable=not burst):
                for path in sorted(changes):
                    if self._stop.is_set():
                        break
                    self._on_change(path)
            residency.enforce_cap()
            # The slow timer runs whatever the notifications do, so a missed notification
            # (or a steady stream of them about other files) delays a file by one sweep at most.
            if not swept or self._clock() - last_sweep >= options.sweep_seconds:
                with updater.batch(Mode.SWEEPING):
                    self._sweep.tick(whole=not swept)
                if not swept:
                    logger.info(
                        "watching %d transcript(s) under %s (%d in memory)",
                        len(residency),
                        ", ".join(options.watched),
                        len(residency.transcripts),
                    )
                swept = True
                residency.evict_idle()
                last_sweep = self._clock()

    def _on_change(self, path: str) -> None:
        real = self._residency.aliases.get(path)
        if real is None:
            if not self._options.covers(path):
                return
            real = self._residency.add(path)
            if real is None:
                return
        self._updater.visit(real, hint=False)

    def _summary(self) -> ServiceSummary:
        residency = self._residency
        ts: list[Transcript | Dormant] = [
            *residency.transcripts.values(),
            *residency.dormant.values(),
        ]
        return ServiceSummary(
            transcripts=len(residency),
            events=sum(t.events_read for t in ts),
            skipped=sum(t.lines_skipped for t in ts),
            outputs_written=self._updater.outputs_written,
            failed=self._failures.failing,
        )


class _Sweep:
    """The slow timer: pick up missed files and compare sizes with offsets.

    Its cost follows what changed, not what exists: a cycle starts with a walk that resolves
    only paths it has not seen, then ``stat``s each transcript once. Polling, a cycle is
    one tick; with inotify, whose notifications are trusted, a cycle is :data:`SWEEP_TICKS`
    ticks, a slice of the transcripts a tick.
    """

    def __init__(
        self,
        options: Options,
        residency: Residency,
        updater: Updater,
        stop: StopEvent,
        force_polling: bool | None,
    ) -> None:
        self._options = options
        self._residency = residency
        self._updater = updater
        self._stop = stop
        self.polling = polling(force_polling)
        self._queue: list[str] = []
        self._slice = 0

    def now_polling(self) -> None:
        """The watch fell back to polling: sweep everything on every tick from now on."""
        self.polling = True
        self._queue = []

    def tick(self, *, whole: bool) -> None:
        """This tick's slice of the cycle (``whole``: the rest of the cycle), then what is
        not on disk yet."""
        residency, updater = self._residency, self._updater
        if not self._queue:
            self._next_cycle()
        if whole:
            self._slice = len(self._queue)
        for _ in range(min(self._slice, len(self._queue))):
            if self._stop.is_set():
                return
            updater.visit(self._queue.pop(), hint=True)
        # What is not yet on disk (a write failed, a state a burst left) is written on every
        # tick: many at once as a burst writes them, without fsyncs, then one sync.
        updater.drain()
        pending = [t for t in residency.transcripts.values() if not residency.evictable(t)]
        with updater.batch(Mode.SWEEPING, durable=not syncs_once(len(pending))):
            for t in pending:
                if self._stop.is_set():
                    break
                updater.advance(t, hint=True)

    def _next_cycle(self) -> None:
        """A new cycle: the files not seen yet taken in and brought up to date, then every
        known transcript queued, a slice of them for each tick."""
        residency = self._residency
        for path, found_real in self._options.transcripts(known=residency.aliases):
            if path not in residency.aliases:
                real = residency.add(path, found_real)
                if real is not None:
                    self._updater.visit(real, hint=False)
        queue = [*residency.transcripts, *residency.dormant, *residency.unborn]
        queue.reverse()
        self._queue = queue
        self._slice = -(-len(queue) // (1 if self.polling else SWEEP_TICKS))
