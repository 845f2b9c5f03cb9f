"""The path one change of one transcript takes, from the file to the disk, top to bottom:

1. :meth:`Updater.visit`: a transcript kept only on disk is first ``stat``ed, and restored
   from its state only when it changed;
2. :meth:`Updater.advance`: one verified look at the file (read on from the offset, or from
   byte 0 when it was replaced or its state proves unusable);
3. :meth:`Updater._fold`: each new complete line through the adapter into the deriver;
4. :meth:`Updater.publish`: what to write is computed: the outputs when the memory changed,
   the state when anything was read (in a burst or a sweep it may wait: :class:`.Mode`);
5. :meth:`Updater.commit`: the outputs published, then the state file saved, on a writer
   thread or here (:class:`.Writers`);
6. :meth:`Updater.finish`: what got to disk is recorded on the transcript.

Crash safety rests on one rule: the state file of a transcript holds the deriver snapshot and
the byte offset it has consumed, written together in one atomic replace, so a snapshot and an
offset can never disagree. Outputs are derived from that state and published (both files as one
generation, :class:`~session_memory.apps.memory_dir.outputs.Outputs`) before it; on start each
transcript's outputs are compared with its restored memory and published again when they
differ. Killed at any instant, the service restarts from the last state, reads only the bytes
after its offset, and ends with exactly what a full rebuild gives: nothing lost, nothing applied
twice (no reliance on the deriver dropping duplicate event ids). Every file is opened no-follow
and non-blocking and must be a regular file where it should be (``docs/service-guarantees.md``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Final

from session_memory.apps.memory_dir.outputs import (
    OutputPair,
    Outputs,
    TranscriptState,
    memory_hash,
    save_state,
    state_path,
)
from session_memory.apps.service.logs import FailureLog, log_skip, logger
from session_memory.apps.service.mode import Mode
from session_memory.apps.service.names import Names
from session_memory.apps.service.options import Clock, Options
from session_memory.apps.service.residency import Residency
from session_memory.apps.service.transcript import (
    Transcript,
    fold_line,
    format_told,
    memory_so_far,
)
from session_memory.apps.service.writers import Writers
from session_memory.apps.tail import FileTail, Look, StopEvent, Tailed, TailStatus, is_compressed
from session_memory.core.errors import StateError, TranscriptError
from viewbuilder import render_memory

__all__ = ["BURST_STATE_SECONDS", "Updater", "Write", "Written"]

BURST_STATE_SECONDS: Final = 1.0
"""While notifications name many transcripts at once (a burst), each one's state is saved at
most this often (a transcript restored from its state counts as saved then); its outputs
still follow every append. Once a transcript has been quiet that long, the next tick of the
slow timer saves what a burst left (so does a stop), and a transcript is never kept only on
disk before its state is saved. Killed in between, a restart reads on from the older state,
to the same outputs."""


@dataclass(frozen=True, slots=True)
class Write:
    """What one change of a transcript puts on disk, computed before any of it is written."""

    name: str | None
    pair: OutputPair | None  # the outputs, when they are due
    published: OutputPair | None  # the pair known to be on disk before
    synced: bool
    state: TranscriptState | None
    durable: bool = True  # fsynced as written; else made durable by the batch's sync


@dataclass(slots=True)
class Written:
    """How far a :class:`Write` got."""

    published: OutputPair | None
    synced: bool
    written: bool = False  # a new generation was published
    outputs: bool = False  # the outputs are as the memory
    state: bool = False  # the state is saved
    error: OSError | None = None


class Updater:
    """Brings transcripts up to date and writes them, in the service's current :attr:`mode`."""

    def __init__(
        self,
        options: Options,
        outputs: Outputs,
        names: Names,
        residency: Residency,
        failures: FailureLog,
        stop: StopEvent,
        clock: Clock,
    ) -> None:
        self._options = options
        self._outputs = outputs
        self._names = names
        self._residency = residency
        self._failures = failures
        self._stop = stop
        self._clock = clock
        self.writers = Writers()
        self.mode = Mode.CATCHING_UP
        self.outputs_written = 0
        self._in_flight: dict[str, tuple[Transcript, Write, Future[Written]]] = {}

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """The writer threads, for as long as the block runs; every write done at its end."""
        with self.writers.running(self.drain):
            yield

    @contextlib.contextmanager
    def batch(self, mode: Mode, *, durable: bool = True) -> Iterator[None]:
        """Work in ``mode`` for the block; its writes fsynced (``durable``) or made durable by
        one sync at its end, once every write of the block is done."""
        previous, self.mode = self.mode, mode
        try:
            with self.writers.batch(durable=durable):
                yield
                self.drain()
        finally:
            self.mode = previous

    # ------------------------------------------------------------------ read and fold

    def visit(self, real: str, *, hint: bool) -> None:
        """Bring one known transcript up to date; one on disk only is first ``stat``ed and
        restored only if it changed (for one kept since a clean stop, changed since: other
        modification or change times than the stop recorded)."""
        dormant = self._residency.dormant.get(real)
        if dormant is not None:
            try:
                if dormant.tail.check(dormant.times) is TailStatus.UNCHANGED:
                    dormant.times = None
                    return
            except TranscriptError as exc:
                logger.warning("cannot read %s: %s", real, exc)
                return
            hint = False
        t = self._residency.resident(real)
        if t is not None:
            self.advance(t, hint=hint)

    def advance(self, t: Transcript, *, hint: bool = False) -> None:
        """Fold the new complete lines of one transcript, then write outputs, then state.

        With ``hint`` (the slow timer) a ``stat`` comes first and the file is opened only
        when it changed; everything read is verified on the descriptor it is read from.
        """
        if t.path in self._in_flight:
            self.drain()  # its previous change must be on disk before it is read on
        try:
            if hint and t.tail.check() is TailStatus.UNCHANGED:
                self.publish(t)  # a restored transcript still has its outputs reconciled
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
            self.publish(t)

    def _read_or_rebuild(self, t: Transcript) -> TailStatus:
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
        t.tail = FileTail(t.path, resolved=True)
        self._reset_memory(t)
        return self._read(t)

    def _reset_memory(self, t: Transcript) -> None:
        """A fresh deriver and adapter, the tailed position left as it is."""
        t.deriver = self._options.new_deriver()
        t.adapter = self._options.new_adapter()
        t.outputs_stale = t.state_stale = True
        t.restored = t.unreadable = False

    def _read(self, t: Transcript) -> TailStatus:
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
            self._residency.touch(t)
        return status

    def _read_whole(self, t: Transcript, look: Look) -> TailStatus:
        """Fold a compressed transcript whole, once: it is immutable, so one that grew after
        it was read is another file. Corrupt data gives no memory and counts one skip; the
        file counts as read either way, until it is replaced."""
        if t.tail.offset > 0:
            return TailStatus.REPLACED
        try:
            for line in look.whole():
                self._fold_line(t, line)
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

    def _fold(self, t: Transcript, look: Look) -> None:
        for line in look.lines(self._stop):
            self._fold_line(t, line)

    def _fold_line(self, t: Transcript, line: Tailed) -> None:
        """Feed one line (or its skip) through the adapter into the deriver."""
        skipped = fold_line(t, line)
        first = t.lines_skipped - len(skipped)
        for n, record in enumerate(skipped, start=first + 1):
            log_skip(t.path, n, record.offset, record.reason)

    # ------------------------------------------------------------------ write

    def publish(self, t: Transcript) -> None:
        """Write the outputs if the memory changed, then the state if anything was read
        (unless saving it may wait: :meth:`_state_waits`).

        What to write is computed here; the writing itself (:meth:`commit`) goes to a
        writer thread while the service runs, so the fsyncs of many transcripts overlap.
        Each transcript's writes keep their order (outputs, then state), and a transcript
        is not read again before they are done (:meth:`drain`).

        A failed write (disk full, permissions) is retried on the next change or sweep and
        reported by :class:`.FailureLog`; it leaves the previous outputs and state in place,
        which stay consistent.
        """
        save = t.state_stale and not self._state_waits(t)
        if t.unreadable or not (t.outputs_stale or save):
            return  # an unreadable file has no memory and no state: a restart tells it again
        memory = memory_so_far(t)
        memory_json = memory.to_json()
        pair = None
        if t.outputs_stale and t.tail.offset > 0 and format_told(t.adapter):
            pair = OutputPair(render_memory(memory).encode(), memory_json)
            if t.name is None:
                t.name = self._names.claim(t.path, t.deriver.session_id)
        shown = pair if pair is not None else t.published
        write = Write(
            name=t.name,
            pair=pair,
            published=t.published,
            synced=t.outputs_synced,
            state=self._state_of(t, memory_json, shown) if save else None,
            durable=self.writers.durable,
        )
        future = self.writers.submit(self.commit, write)
        if future is None:
            self.finish(t, write, self.commit(write))
        else:
            self._in_flight[t.path] = (t, write, future)

    def _state_waits(self, t: Transcript) -> bool:
        """Whether saving ``t``'s state is left for later: in a burst, while it was saved (or
        restored) less than :data:`BURST_STATE_SECONDS` ago; on a tick of the slow timer,
        while ``t`` grew less than that ago (a burst may be going on)."""
        now = self._clock()
        if self.mode is Mode.BURST:
            return now - t.state_saved < BURST_STATE_SECONDS
        return self.mode is Mode.SWEEPING and now - t.last_active < BURST_STATE_SECONDS

    def _state_of(
        self, t: Transcript, memory_json: bytes, shown: OutputPair | None
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
            budget_tokens=self._options.budget_tokens,
            encoding=self._options.encoding,
            snapshot=t.deriver.snapshot(),
            transcript_format=self._options.format,
            adapter=t.adapter.snapshot(),
            memory_hash=memory_hash(memory_json),
            markdown_hash="" if shown is None else memory_hash(shown.markdown),
        )

    def commit(self, write: Write) -> Written:
        """Put one transcript's change on disk: the pair when it differs from what is
        published (checked once, then known), then the state. Touches only the disk.

        The JSON carries bookkeeping (``event_count``, diagnostics) that changes with every
        line; the Markdown only when the content does, and then it is linked, not rewritten.
        """
        done = Written(published=write.published, synced=write.synced)
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
                        name,
                        pair,
                        markdown_unchanged=unchanged,
                        durable=write.durable,
                        discard=self.writers.discard,
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
                save_state(self._options.state_dir, write.state, durable=write.durable)
                done.state = True
        except OSError as exc:
            done.error = exc
        return done

    def finish(self, t: Transcript, write: Write, done: Written) -> None:
        """Record what :meth:`commit` put on disk for ``t``."""
        t.published, t.outputs_synced = done.published, done.synced
        self.outputs_written += done.written
        if done.outputs:
            t.outputs_stale = False
        if done.state:
            t.state_stale = False
            t.state_saved = self._clock()
        if done.error is not None:
            self._failures.failed(t.path, done.error)
        else:
            self._failures.succeeded(t.path)

    def drain(self, keep: int = 0) -> list[Transcript]:
        """Wait for the writes in flight, oldest first, until at most ``keep`` are left;
        the transcripts whose writes are done."""
        done = []
        while len(self._in_flight) > keep:
            path = next(iter(self._in_flight))
            t, write, future = self._in_flight.pop(path)
            self.finish(t, write, future.result())
            done.append(t)
        return done

    def _forget(self, t: Transcript, *, drop_state: bool = True) -> None:
        """Stop tailing a transcript and keep its outputs; a deleted one's state goes.

        A deleted transcript also gives up its output name: when Codex replaces a rollout
        by its compressed copy, the copy's memory takes the same name (as after a restart,
        where no state of the deleted file claims it).
        """
        if drop_state:
            logger.info("%s was deleted; stopped tailing it, its outputs are kept", t.path)
            self._names.release(t.path)
        self._residency.forget(t.path)
        if drop_state:
            with contextlib.suppress(FileNotFoundError):
                state_path(self._options.state_dir, t.path).unlink()
