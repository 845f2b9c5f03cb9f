"""The start of a service: find every transcript, then derive, resume or keep on disk each,
many new ones in worker processes (:mod:`.farm`) whose results are adopted as the service's
own first read; saying in the log what was found and how far the catch-up has come.

Transcripts are derived one at a time, in the order they were found, and once written are
kept in memory only while recently active, so catching up on thousands of files needs the
memory of a few hundred.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import OutputPair, TranscriptState, memory_hash
from session_memory.apps.service.farm import Derived, Farm, can_fork, cores
from session_memory.apps.service.logs import FailureLog, log_skip, logger
from session_memory.apps.service.mode import Mode
from session_memory.apps.service.names import Names
from session_memory.apps.service.options import Clock, Options
from session_memory.apps.service.residency import Residency
from session_memory.apps.service.transcript import Dormant, Transcript
from session_memory.apps.service.update import Updater, Write, Written
from session_memory.apps.service.writers import WRITERS, syncs_once
from session_memory.apps.tail import FileTail, StopEvent, is_compressed
from session_memory.formats import restore_adapter

__all__ = ["LISTED_MAX", "PROGRESS_SECONDS", "CatchUp"]

LISTED_MAX: Final = 32
"""A start that finds more transcripts than this names each at debug level only, and says
at info level how many it found of each kind (new, resumed, unchanged)."""

PROGRESS_SECONDS: Final = 5.0
"""While catching up, how often a line says how many transcripts are done."""


class CatchUp:
    """One catch-up of a service: :meth:`run` it once."""

    def __init__(
        self,
        options: Options,
        residency: Residency,
        updater: Updater,
        names: Names,
        failures: FailureLog,
        stop: StopEvent,
        clock: Clock,
    ) -> None:
        self._options = options
        self._residency = residency
        self._updater = updater
        self._names = names
        self._failures = failures
        self._stop = stop
        self._clock = clock
        self._adopting: dict[str, tuple[Derived, Write, Future[Written]]] = {}

    def run(self, *, stat_kept: bool = True) -> None:
        """Discover, then bring every transcript up to date: those found now that need it,
        then those in memory from an earlier pass, then (``stat_kept``) a ``stat`` of each
        kept on disk, for what was appended since it was found.

        A catch-up of :data:`.writers.SYNC_ONCE_MIN` transcripts or more writes without
        fsyncs and ends with one sync (:class:`.Writers`).
        """
        residency = self._residency
        todo = self._discover()
        found = set(todo)
        todo.extend(real for real in list(residency.transcripts) if real not in found)
        with self._updater.batch(Mode.CATCHING_UP, durable=not syncs_once(len(todo))):
            self._derive(todo)
            self._drain_adopted()
            for written in self._updater.drain():
                residency.settle(written)
            residency.enforce_cap()
            for real in list(residency.dormant) if stat_kept else ():
                if self._stop.is_set():
                    break
                self._updater.visit(real, hint=True)
        self._failures.report()

    def _discover(self) -> list[str]:
        """Find transcripts; read every state before any name is claimed anew.

        Returns the real paths of those found now that need deriving, in order; those whose
        state covers the file and whose outputs are in place stay on disk.
        """
        residency = self._residency
        found = self._options.transcripts(known=residency.aliases)
        listed = len(found) <= LISTED_MAX
        before = len(residency.unborn), len(residency.transcripts), len(residency.dormant)
        todo = []
        for path, found_real in found:
            real = residency.add(path, found_real, listed=listed)
            if real is not None and real not in residency.dormant:
                todo.append(real)
        if not listed:
            new, resumed, unchanged = (
                len(residency.unborn) - before[0],
                len(residency.transcripts) - before[1],
                len(residency.dormant) - before[2],
            )
            logger.info(
                "found %d transcript(s): %d new, %d to resume, %d unchanged (kept on disk)",
                new + resumed + unchanged,
                new,
                resumed,
                unchanged,
            )
        return todo

    def _derive(self, todo: list[str]) -> None:
        """Each of ``todo`` in order: adopted from a worker, or read here."""
        residency, updater = self._residency, self._updater
        farm = self._farm(todo)
        progress = _Progress(len(todo), self._clock)
        try:
            for done, real in enumerate(todo):
                if self._stop.is_set():
                    break
                progress.report(done)
                derived = farm.take(real) if farm is not None and real in residency.unborn else None
                if derived is not None:
                    self._adopt(real, derived)
                    self._drain_adopted(2 * WRITERS)
                    continue
                t = residency.resident(real)
                if t is not None:
                    updater.advance(t)
                    residency.settle(t)
                    for written in updater.drain(2 * WRITERS):
                        residency.settle(written)
                    residency.enforce_cap()
        finally:
            if farm is not None:
                farm.close()

    def _farm(self, todo: list[str]) -> Farm | None:
        """Worker processes for the transcripts of ``todo`` never derived before, when there
        are enough of them and more than one core; None to derive them all here.

        Workers are forked (nothing to import again, the encoding already loaded), so only
        from a process with no other thread, which could hold a lock the child would wait
        for (``watch`` itself: its writer threads start with the first write, after this).
        """
        unborn = self._residency.unborn
        fresh = [real for real in todo if real in unborn and not is_compressed(real)]
        workers = cores()
        if (
            workers < 2
            or len(fresh) < max(1, self._options.farm_min)
            or threading.active_count() > 1
            or not can_fork()
        ):
            return None
        options = self._options
        try:
            return Farm(fresh, (options.budget_tokens, options.encoding, options.format), workers)
        except (OSError, RuntimeError) as exc:
            logger.warning("cannot start worker processes (%s): deriving here", exc)
            return None

    def _adopt(self, real: str, d: Derived) -> None:
        """Write what a worker derived from byte 0 of ``real``, as the service's own first
        read would have; once written, the transcript is kept on disk (see
        :meth:`_adopted`)."""
        self._residency.unborn.discard(real)
        for n, (offset, reason) in enumerate(d.skipped, start=1):
            log_skip(real, n, offset, reason)
        pair = name = None
        if d.markdown is not None:
            pair = OutputPair(d.markdown, d.memory_json)
            name = self._names.claim(real, d.session_id)
        options = self._options
        state = TranscriptState(
            path=real,
            dev=d.identity.dev,
            ino=d.identity.ino,
            offset=d.offset,
            fingerprint=d.fingerprint,
            name=name,
            budget_tokens=options.budget_tokens,
            encoding=options.encoding,
            snapshot=d.snapshot,
            transcript_format=options.format,
            adapter=d.adapter,
            memory_hash=memory_hash(d.memory_json),
            markdown_hash="" if pair is None else memory_hash(pair.markdown),
        )
        updater = self._updater
        write = Write(name, pair, None, False, state, durable=updater.writers.durable)
        future = updater.writers.submit(updater.commit, write)
        if future is None:
            self._adopted(real, d, write, updater.commit(write))
        else:
            self._adopting[real] = (d, write, future)

    def _drain_adopted(self, keep: int = 0) -> None:
        """Wait for the adopted transcripts' writes, oldest first, until ``keep`` are left."""
        while len(self._adopting) > keep:
            real = next(iter(self._adopting))
            d, write, future = self._adopting.pop(real)
            self._adopted(real, d, write, future.result())

    def _adopted(self, real: str, d: Derived, write: Write, done: Written) -> None:
        """Keep an adopted transcript on disk once its outputs and state are; in memory,
        restored from what the worker derived, while a write failed (to be retried)."""
        tail = FileTail(real, d.offset, d.fingerprint, d.identity, resolved=True)
        self._updater.outputs_written += done.written
        if done.error is None:
            self._failures.succeeded(real)
            self._residency.dormant[real] = Dormant(tail, d.events_read, d.lines_skipped)
            return
        self._failures.failed(real, done.error)
        self._residency.admit(
            Transcript(
                path=real,
                tail=tail,
                deriver=SessionMemoryDeriver.restore(d.snapshot),
                adapter=restore_adapter(d.adapter),
                name=write.name,
                outputs_stale=not done.outputs,
                state_stale=not done.state,
                published=done.published,
                outputs_synced=done.synced,
                events_read=d.events_read,
                lines_skipped=d.lines_skipped,
            )
        )


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
