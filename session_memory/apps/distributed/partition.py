"""One claimed partition: its sessions folded in log order, their memories, states and checkpoint.

A :class:`Partition` reads its part of the log from the position its checkpoint names,
folds each message into its session (loaded from the state bucket, or folded again from the
log when its state does not restore), writes each memory whose bytes changed, and stores
states and the checkpoint, all revision-checked: a :class:`Conflict` means another worker
holds the partition now. The :class:`~.worker.Worker` claims and renews the leases.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Final

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.keys import checkpoint_key, lease_key, memory_keys, state_key
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
from viewbuilder import render_memory

if TYPE_CHECKING:
    from session_memory.apps.distributed.worker import Worker, WorkerConfig

__all__ = ["FETCH_BYTES", "IDLE_SECONDS", "Partition", "stop_if_cancelled"]

logger = logging.getLogger(__name__)

FETCH_BYTES: Final = 1 << 20
"""About how many bytes one fetch brings: the count fetched follows the messages' size.

500 batch messages (about 60 KB each) were 30 MB per partition: with sixteen partitions
fetching, a lease renewal's reply queued behind hundreds of megabytes on the connection,
and a lone worker under load lost its own leases (see ``docs/distributed.md``). Small
messages (an agent's one event each) are still fetched :data:`.worker.BATCH` at a time.
"""

YIELD_SECONDS: Final = 0.005
"""Folding a batch lets the other partitions (and lease renewals) run this often."""

IDLE_SECONDS: Final = 0.2
"""A fetch that waited this long for nothing counts as idle: states are flushed then."""

EVICT_SECONDS: Final = 120.0
"""A flushed session untouched this long is dropped from memory (reloaded when needed)."""


def stop_if_cancelled() -> None:
    """End the current task if it was asked to stop.

    nats-py swallows a cancellation in places (a publish that waits for its flush returns
    as if nothing happened), so a loop that only waits for CancelledError can outlive its
    cancel, and then its event loop's shutdown. The request stays counted on the task.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Partition:
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
            await self._t.delete("leases", lease_key(self.number), self.lease_rev)
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
        found = await self._t.get("state", checkpoint_key(self.number))
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
                stop_if_cancelled()
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
                "state", checkpoint_key(self.number), str(position).encode(), self.checkpoint_rev
            )
            self.checkpoint = position
        self._evict()

    def _evict(self) -> None:
        old = time.monotonic() - EVICT_SECONDS
        for key in [k for k, s in self.sessions.items() if not s.dirty and s.touched < old]:
            if key in self.stale_memory:
                continue
            del self.sessions[key]
