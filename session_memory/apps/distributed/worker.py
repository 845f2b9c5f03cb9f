"""The worker: claims partitions, folds their sessions in log order, keeps the buckets current.

Sessions are spread by partition (a hash of the session key); a worker folds a partition
only while it holds its lease, an entry in the leases bucket that expires unless renewed.
Every write a worker makes (lease, session state, memory, partition checkpoint) is
revision-checked against what it last read or wrote, so a worker that lost its lease
(paused, cut off) cannot overwrite a newer write: its first failed check makes it drop the
partition. The stored states are always consistent (a snapshot with the position it
covers), so whoever continues a session continues it exactly. See ``docs/distributed.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.state import SessionState, load_session, memory_of
from session_memory.apps.distributed.transport import (
    Conflict,
    Delivered,
    PartitionReader,
    Transport,
    TransportError,
)
from session_memory.apps.distributed.wire import decode
from session_memory.core.errors import SnapshotError
from session_memory.core.events import SkippedLine
from session_memory.core.tokens import DEFAULT_BUDGET
from viewbuilder import render_memory

__all__ = [
    "BATCH",
    "SNAPSHOT_EVERY",
    "Worker",
    "WorkerConfig",
    "WorkerMetrics",
    "memory_keys",
    "state_key",
]

logger = logging.getLogger(__name__)

BATCH: Final = 500
"""Messages fetched from a partition at once, at most (see :data:`FETCH_BYTES`)."""

FETCH_BYTES: Final = 1 << 20
"""About how many bytes one fetch brings: the count fetched follows the messages' size.

500 batch messages (about 60 KB each) were 30 MB per partition: with sixteen partitions
fetching, a lease renewal's reply queued behind hundreds of megabytes on the connection,
and a lone worker under load lost its own leases (see ``docs/distributed.md``). Small
messages (an agent's one event each) are still fetched :data:`BATCH` at a time.
"""

YIELD_SECONDS: Final = 0.005
"""Folding a batch lets the other partitions (and lease renewals) run this often."""

SNAPSHOT_EVERY: Final = 1000
"""A session's state is written after this many messages, else at the next checkpoint."""

CHECKPOINT_SECONDS: Final = 2.0
"""Under steady load, every dirty state and the partition checkpoint are written this often."""

IDLE_SECONDS: Final = 0.2
"""A fetch that waited this long for nothing counts as idle: states are flushed then."""

EVICT_SECONDS: Final = 120.0
"""A flushed session untouched this long is dropped from memory (reloaded when needed)."""


def state_key(session: str) -> str:
    """The key of a session's fold state in the state bucket."""
    return f"s.{session}"


def memory_keys(session: str) -> tuple[str, str]:
    """The keys of a session's memory (JSON, Markdown) in the memory bucket."""
    return f"{session}.json", f"{session}.md"


def _checkpoint_key(partition: int) -> str:
    return f"p.{partition}"


def _lease_key(partition: int) -> str:
    return f"p.{partition}"


def _heartbeat_key(worker_id: str) -> str:
    return f"w.{worker_id}"


def _stop_if_cancelled() -> None:
    """End the current task if it was asked to stop.

    nats-py swallows a cancellation in places (a publish that waits for its flush returns
    as if nothing happened), so a loop that only waits for CancelledError can outlive its
    cancel, and then its event loop's shutdown. The request stays counted on the task.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """How a worker folds and how fast it reacts (validated where it is built)."""

    budget_tokens: int = DEFAULT_BUDGET
    lease_seconds: float = 3.0
    snapshot_every: int = SNAPSHOT_EVERY
    checkpoint_seconds: float = CHECKPOINT_SECONDS
    batch: int = BATCH
    worker_id: str = field(
        default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    )


@dataclass(slots=True)
class WorkerMetrics:
    """Counters for the ``--metrics`` line."""

    records_applied: int = 0
    """Events and skipped lines folded (a batch message counts each of its records)."""
    messages_malformed: int = 0
    memories_written: int = 0
    states_written: int = 0
    sessions_rebuilt: int = 0
    partitions_lost: int = 0
    lag: dict[int, int] = field(default_factory=dict)


class _Partition:
    """One claimed partition: its lease, reader, sessions and checkpoint."""

    def __init__(self, worker: Worker, number: int, lease_rev: int) -> None:
        self.worker = worker
        self.number = number
        self.lease_rev = lease_rev
        self.sessions: dict[str, SessionState] = {}
        self.stale_memory: set[str] = set()
        self.writing: asyncio.Task[None] | None = None
        """The memory writes of the last batch, in flight while the next one is read."""
        self.checkpoint_rev: int | None = None
        self.checkpoint = 0
        self.position = 0
        self.release = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.last_checkpoint = time.monotonic()
        self.fetch_size = min(worker.config.batch, 64)
        """Messages to ask for next: :data:`FETCH_BYTES` at the size of the last ones."""

    @property
    def _t(self) -> Transport:
        return self.worker.transport

    async def run(self) -> None:
        """Fold until released or lost; a released partition is flushed and freed."""
        log = {"partition": self.number}
        try:
            await self._start()
            logger.info("partition claimed", extra={**log, "from_position": self.position})
            await self._loop()
            await self._flush_all()
            await self._t.delete("leases", _lease_key(self.number), self.lease_rev)
            logger.info("partition released", extra={**log, "position": self.position})
        except Conflict as exc:  # a checked write found another owner's
            self.worker.metrics.partitions_lost += 1
            logger.warning("partition lost", extra={**log, "reason": str(exc)})
        except TransportError as exc:
            logger.warning("partition dropped", extra={**log, "reason": str(exc)})
        finally:
            if self.writing is not None:
                # Writes of a partition no longer held: fenced by revisions, not waited for.
                self.writing.cancel()
                self.writing.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _start(self) -> None:
        found = await self._t.get("state", _checkpoint_key(self.number))
        if found is not None:
            self.checkpoint_rev = found.revision
            self.checkpoint = int(found.value or b"0")
        self.position = self.checkpoint

    async def _loop(self) -> None:
        """Read, fold, write; after an error read again from the last position folded."""
        cfg = self.worker.config
        reader: PartitionReader | None = None
        try:
            while not self.release.is_set():
                _stop_if_cancelled()
                if reader is None:
                    reader = self._t.reader(self.number, self.position)
                try:
                    await self._step(reader, cfg)
                except Conflict:
                    raise  # another owner wrote: this partition is no longer ours
                except TransportError as exc:
                    logger.warning(
                        "transport error, reading again",
                        extra={"partition": self.number, "error": str(exc)},
                    )
                    await reader.close()
                    reader = None
                    await asyncio.sleep(0.5)
        finally:
            if reader is not None:
                await reader.close()

    async def _step(self, reader: PartitionReader, cfg: WorkerConfig) -> None:
        batch = await reader.fetch(self.fetch_size, IDLE_SECONDS)
        if batch:
            size = sum(len(d.body) for d in batch) // len(batch) + 1
            self.fetch_size = max(1, min(cfg.batch, FETCH_BYTES // size))
            await self._apply_batch(batch)
            self.worker.metrics.lag[self.number] = batch[-1].pending
        due = time.monotonic() - self.last_checkpoint >= cfg.checkpoint_seconds
        if (not batch and self._dirty()) or due:
            await self._flush_all()

    def _dirty(self) -> bool:
        return (
            self.position != self.checkpoint
            or bool(self.stale_memory)
            or self.writing is not None
            or any(s.dirty for s in self.sessions.values())
        )

    async def _apply_batch(self, batch: list[Delivered]) -> None:
        touched: dict[str, SessionState] = {}
        metrics = self.worker.metrics
        resumed = time.perf_counter()
        for d in batch:
            # The fold is CPU work (a message holds up to 100 records): every few
            # milliseconds of it, let the other partitions run, and wait while leases are
            # being renewed. Not after every message: an agent's messages hold one event
            # each, and a pass of the event loop per event cost more than its fold.
            if time.perf_counter() - resumed >= YIELD_SECONDS:
                await asyncio.sleep(0)
                resumed = time.perf_counter()
            if not self.worker.folding.is_set():
                await self.worker.folding.wait()
                resumed = time.perf_counter()
            session = self.sessions.get(d.session)
            if session is None:
                session = await self._load(d.session, d.seq)
            decoded = decode(d.body)
            if isinstance(decoded, SkippedLine):
                metrics.messages_malformed += 1
                logger.warning(
                    "malformed message",
                    extra={"session": d.session, "seq": d.seq, "reason": decoded.reason},
                )
            if d.seq > session.seq:
                metrics.records_applied += session.apply(d.seq, decoded)
                touched[d.session] = session
                # Marked at once: if a write fails later in this batch, the messages are
                # read again but skipped as covered, and only this mark gets it written.
                self.stale_memory.add(d.session)
            self.position = d.seq
        now = time.monotonic()
        for session in touched.values():
            session.touched = now
        await self._write_memories(wait=False)
        every = self.worker.config.snapshot_every
        due = [s for s in touched.values() if s.seq - s.stored_seq >= every]
        if due:
            await self._settle()  # a state never covers more than the memory written
            await asyncio.gather(*(self._flush(s) for s in due))

    async def _load(self, key: str, seq: int) -> SessionState:
        """The session's stored state, or the fold of its events before ``seq`` from the log."""
        found = await self._t.get("state", state_key(key))
        session: SessionState | None = None
        if found is not None:
            try:
                session = load_session(key, found.value, found.revision)
            except SnapshotError as exc:
                logger.warning("state does not restore", extra={"session": key, "error": str(exc)})
        if session is None:
            session = await self._rebuild(key, seq)
            session.state_rev = None if found is None else found.revision
        for mkey in memory_keys(key):
            stored = await self._t.get("memory", mkey)
            session.memory[mkey] = (None, None) if stored is None else stored
        self.sessions[key] = session
        return session

    async def _rebuild(self, key: str, seq: int) -> SessionState:
        """Fold a session's events before ``seq`` from the start of the log."""
        session = SessionState(
            key=key, deriver=SessionMemoryDeriver(budget_tokens=self.worker.config.budget_tokens)
        )
        count = 0
        async for d in self._t.read_session(key, seq):
            session.apply(d.seq, decode(d.body))
            count += 1
        if count:
            self.worker.metrics.sessions_rebuilt += 1
            logger.info("session rebuilt from the log", extra={"session": key, "messages": count})
        return session

    async def _write_memories(self, *, wait: bool = True) -> None:
        """Write every memory not yet written (a failed write is retried on the next step).

        The bytes are made now; the writes (two checked puts per session) go on in the
        background unless ``wait``, so the next batch is read while they are acknowledged.
        A session's next write waits for its previous one: it names that one's revision.
        """
        await self._settle()
        stale = [self.sessions[k] for k in self.stale_memory if k in self.sessions]
        self.stale_memory.clear()
        puts = [put for s in stale for put in self._memory_puts(s)]
        if not puts:
            return
        self.writing = asyncio.create_task(self._put_memories(puts))
        if wait:
            await self._settle()

    async def _settle(self) -> None:
        """Wait for the memory writes in flight; their failure is raised here."""
        writing, self.writing = self.writing, None
        if writing is not None:
            await writing

    def _memory_puts(self, session: SessionState) -> list[tuple[SessionState, str, bytes]]:
        """The memory keys of a session whose bytes changed, with the new bytes.

        The Markdown depends only on the memory's content, so it is rendered again only when
        the deriver's version moved (or records are held back: the shown copy differs).
        """
        memory = memory_of(session)
        json_key, md_key = memory_keys(session.key)
        out = []
        data = memory.to_json()
        if data != session.memory.get(json_key, (None, None))[0]:
            out.append((session, json_key, data))
        version = None if session.held else session.deriver.version
        if version is None or version != session.rendered_version:
            data = render_memory(memory).encode()
            if data != session.memory.get(md_key, (None, None))[0]:
                out.append((session, md_key, data))
            session.rendered_version = version
        return out

    async def _put_memories(self, puts: list[tuple[SessionState, str, bytes]]) -> None:
        results = await asyncio.gather(
            *(self._put_memory(*put) for put in puts), return_exceptions=True
        )
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            # Written again on the next step (the rendering is redone too).
            for session, _key, _data in puts:
                self.stale_memory.add(session.key)
                session.rendered_version = None
            raise failed[0]

    async def _put_memory(self, session: SessionState, key: str, data: bytes) -> None:
        _stored, rev = session.memory.get(key, (None, None))
        new_rev = await self._t.put("memory", key, data, rev)
        session.memory[key] = (data, new_rev)
        self.worker.metrics.memories_written += 1

    async def _flush(self, session: SessionState) -> None:
        if not session.dirty:
            return
        seq = session.seq
        session.state_rev = await self._t.put(
            "state", state_key(session.key), session.dump(), session.state_rev
        )
        session.stored_seq = seq
        self.worker.metrics.states_written += 1

    async def _flush_all(self) -> None:
        """Memories, then states, then the checkpoint: all before it is stored for good."""
        await self._write_memories(wait=True)
        await asyncio.gather(*(self._flush(s) for s in self.sessions.values()))
        self.last_checkpoint = time.monotonic()
        if self.position != self.checkpoint:
            position = self.position
            self.checkpoint_rev = await self._t.put(
                "state", _checkpoint_key(self.number), str(position).encode(), self.checkpoint_rev
            )
            self.checkpoint = position
        self._evict()

    def _evict(self) -> None:
        old = time.monotonic() - EVICT_SECONDS
        for key in [k for k, s in self.sessions.items() if not s.dirty and s.touched < old]:
            if key in self.stale_memory:
                continue
            del self.sessions[key]


class Worker:
    """Folds the sessions of the partitions it holds; run as many as you like.

    ``stop`` ends :meth:`run` gracefully: each partition finishes the batch in hand, writes
    its states and checkpoint, and gives its lease back.
    """

    def __init__(
        self, transport: Transport, config: WorkerConfig, stop: asyncio.Event | None = None
    ) -> None:
        SessionMemoryDeriver(budget_tokens=config.budget_tokens)  # an impossible budget fails now
        self.transport = transport
        self.config = config
        self.stop = stop if stop is not None else asyncio.Event()
        self.metrics = WorkerMetrics()
        self.partitions: dict[int, _Partition] = {}
        self._heartbeat_rev: int | None = None
        self.folding = asyncio.Event()
        """Clear while leases are renewed: folding pauses, so renewals never wait on it."""
        self.folding.set()

    @property
    def sessions_owned(self) -> int:
        return sum(len(p.sessions) for p in self.partitions.values())

    async def run(
        self, on_tick: Callable[[Worker], Awaitable[None]] | None = None, tick: float = 0.0
    ) -> None:
        """Hold leases and fold until ``stop`` is set; then release everything."""
        logger.info("worker started", extra={"worker": self.config.worker_id})
        interval = self.config.lease_seconds / 3
        await self._renewal_round()  # the heartbeat first: claims count this worker
        # Renewals on a cadence of their own: the rest of a round (listing the workers and
        # free leases, claiming) takes several round trips, each waiting for a pass of the
        # event loop through every folding partition, and took 2 s and more on a loaded
        # machine; renewals waiting behind it let the leases of a busy worker expire.
        renewing = asyncio.create_task(self._renewals(interval), name="lease-renewals")
        last_tick = time.monotonic()
        try:
            while not self.stop.is_set():
                started = time.monotonic()
                try:
                    # A round that hangs (a server gone mid-request) must not stop the next.
                    await asyncio.wait_for(self._balance(), timeout=self.config.lease_seconds)
                except (TransportError, TimeoutError) as exc:
                    logger.warning("lease round failed", extra={"error": repr(exc)})
                if on_tick is not None and time.monotonic() - last_tick >= tick:
                    last_tick = time.monotonic()
                    await on_tick(self)
                wait = max(0.0, interval - (time.monotonic() - started))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), timeout=wait)
        finally:
            renewing.cancel()
            await asyncio.gather(renewing, return_exceptions=True)
        await self._release_all()
        logger.info("worker stopped", extra={"worker": self.config.worker_id})

    async def _renewals(self, interval: float) -> None:
        """Renew every ``interval`` from the start of the last renewal, until cancelled."""
        started = time.monotonic()  # just after the round run() made first
        while True:
            _stop_if_cancelled()
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
            started = time.monotonic()
            await self._renewal_round()

    async def _renewal_round(self) -> None:
        # Every held lease at once, while no partition folds: with every partition busy,
        # each await would otherwise wait for a whole round of folds, and sixteen
        # renewals one after the other could outlast the lease itself.
        self.folding.clear()
        try:
            await asyncio.wait_for(
                asyncio.gather(self._heartbeat(), self._renew_all()),
                timeout=self.config.lease_seconds,
            )
        except (TransportError, TimeoutError) as exc:
            logger.warning("lease renewal failed", extra={"error": repr(exc)})
        finally:
            self.folding.set()

    async def _balance(self) -> None:
        """Claim free leases up to this worker's fair share; give back any above it."""
        self._forget_finished()
        workers = await self.transport.keys("leases", "w.")
        fair = math.ceil(self.transport.partitions / max(1, len(workers)))
        if len(self.partitions) < fair:
            await self._claim(fair - len(self.partitions))
        elif len(self.partitions) > fair:
            for number in sorted(self.partitions)[fair:]:
                self.partitions[number].release.set()

    def _forget_finished(self) -> None:
        """Partitions whose fold ended (released, lost, dropped) are no longer held."""
        for number, part in list(self.partitions.items()):
            if part.task is not None and part.task.done():
                del self.partitions[number]

    async def _renew_all(self) -> None:
        self._forget_finished()
        held = [p for p in self.partitions.values() if not p.release.is_set()]
        results = await asyncio.gather(*(self._renew(p) for p in held), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _renew(self, part: _Partition) -> None:
        key = _lease_key(part.number)
        try:
            part.lease_rev = await self.transport.put(
                "leases", key, self._lease_value(), part.lease_rev
            )
        except Conflict:
            landed = await self._own_write(key, self._lease_value())
            if landed is not None:
                part.lease_rev = landed
                return
            logger.warning("lease renewal refused", extra={"partition": part.number})
            await self._drop(part.number)

    async def _own_write(self, key: str, value: bytes) -> int | None:
        """The revision of ``key`` if it still holds what this worker last wrote, else None.

        A renewal whose reply never came (a round cut off by its time limit on a loaded
        machine, a timeout) may still have been stored; the next renewal names the old
        revision and is refused. The lease names its holder, and every write to it names
        the revision before it, so a lease holding this worker's id was last written by
        this worker, with no other holder since: it is still ours, at that revision.
        """
        found = await self.transport.get("leases", key)
        if found is None or found.value != value:
            return None
        logger.info("lease renewal found stored", extra={"key": key})
        return found.revision

    async def _heartbeat(self) -> None:
        key = _heartbeat_key(self.config.worker_id)
        try:
            self._heartbeat_rev = await self.transport.put(
                "leases", key, b"alive", self._heartbeat_rev
            )
        except Conflict:
            # Stored without its reply (see _own_write), or expired during an outage:
            # then created again next round.
            self._heartbeat_rev = await self._own_write(key, b"alive")

    def _lease_value(self) -> bytes:
        return self.config.worker_id.encode()

    async def _claim(self, wanted: int) -> None:
        held = set(await self.transport.keys("leases", "p."))
        free = [n for n in range(self.transport.partitions) if _lease_key(n) not in held]
        # Start at a place of our own so workers starting together rarely collide.
        offset = hash(self.config.worker_id) % max(1, len(free))
        for number in free[offset:] + free[:offset]:
            if wanted <= 0:
                return
            try:
                rev = await self.transport.put(
                    "leases", _lease_key(number), self._lease_value(), None
                )
            except Conflict:
                continue
            part = _Partition(self, number, rev)
            part.task = asyncio.create_task(part.run(), name=f"partition-{number}")
            self.partitions[number] = part
            wanted -= 1

    async def _drop(self, number: int) -> None:
        part = self.partitions.pop(number, None)
        if part is not None and part.task is not None:
            part.task.cancel()
            # Not waited for long: whatever it still writes is fenced by revisions.
            await asyncio.wait({part.task}, timeout=1.0)
            self.metrics.partitions_lost += 1

    async def _release_all(self) -> None:
        for part in self.partitions.values():
            part.release.set()
        tasks = [p.task for p in self.partitions.values() if p.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self.partitions.clear()
        if self._heartbeat_rev is not None:
            with contextlib.suppress(TransportError):
                await self.transport.delete(
                    "leases", _heartbeat_key(self.config.worker_id), self._heartbeat_rev
                )

    def metrics_line(self) -> dict[str, object]:
        """What the ``--metrics`` line reports."""
        m = self.metrics
        return {
            "worker": self.config.worker_id,
            "records_applied": m.records_applied,
            "messages_malformed": m.messages_malformed,
            "memories_written": m.memories_written,
            "states_written": m.states_written,
            "sessions_rebuilt": m.sessions_rebuilt,
            "partitions_lost": m.partitions_lost,
            "partitions_owned": sorted(self.partitions),
            "sessions_owned": self.sessions_owned,
            "lag": {str(p): m.lag.get(p, 0) for p in sorted(self.partitions)},
            "cpu_seconds": round(time.process_time(), 3),
        }
