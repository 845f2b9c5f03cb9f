"""The worker: claims partitions, folds their sessions in log order, keeps the buckets current.

Sessions are spread by partition (a hash of the session key); a worker folds a partition
only while it holds its lease, an entry in the leases bucket that expires unless renewed.
Every write a worker makes (lease, session state, memory, partition checkpoint) is
revision-checked against what it last read or wrote, so a worker that lost its lease
(paused, cut off) cannot overwrite a newer write: its first failed check makes it drop the
partition. The stored states are always consistent (a snapshot with the position it
covers), so whoever continues a session continues it exactly. What a worker does with a
partition it holds is :mod:`.partition`. See ``docs/distributed.md``.
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
from session_memory.apps.distributed.keys import heartbeat_key, lease_key
from session_memory.apps.distributed.partition import Partition, stop_if_cancelled
from session_memory.apps.distributed.transport import Conflict, Transport, TransportError
from session_memory.core.tokens import DEFAULT_BUDGET

__all__ = ["BATCH", "SNAPSHOT_EVERY", "Worker", "WorkerConfig", "WorkerMetrics"]

logger = logging.getLogger(__name__)

BATCH: Final = 500
"""Messages fetched from a partition at once, at most (see :data:`.partition.FETCH_BYTES`)."""

SNAPSHOT_EVERY: Final = 1000
"""A session's state is written after this many messages, else at the next checkpoint."""

CHECKPOINT_SECONDS: Final = 2.0
"""Under steady load, every dirty state and the partition checkpoint are written this often."""


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
        self.partitions: dict[int, Partition] = {}
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
            stop_if_cancelled()
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

    async def _renew(self, part: Partition) -> None:
        key = lease_key(part.number)
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
        key = heartbeat_key(self.config.worker_id)
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
        free = [n for n in range(self.transport.partitions) if lease_key(n) not in held]
        # Start at a place of our own so workers starting together rarely collide.
        offset = hash(self.config.worker_id) % max(1, len(free))
        for number in free[offset:] + free[:offset]:
            if wanted <= 0:
                return
            try:
                rev = await self.transport.put(
                    "leases", lease_key(number), self._lease_value(), None
                )
            except Conflict:
                continue
            part = Partition(self, number, rev)
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
                    "leases", heartbeat_key(self.config.worker_id), self._heartbeat_rev
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
