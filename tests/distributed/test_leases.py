"""Leases: a renewal stored without its reply keeps the partition; another holder's does not."""

from __future__ import annotations

import asyncio
import time

import pytest

from session_memory.apps.distributed.jetstream import NatsTransport, connect
from session_memory.apps.distributed.transport import Delivered, PartitionReader
from session_memory.apps.distributed.worker import Worker, WorkerConfig
from tests.distributed.nats_helpers import NatsServer


async def _with_lease_rewritten(url: str, holder: bytes | None) -> tuple[Worker, list[int], bool]:
    """Run a worker holding every partition; rewrite partition 0's lease behind its back.

    ``holder`` None writes the worker's own id (a renewal that landed, its reply lost);
    else that holder's. Returns the worker, the partitions it holds two rounds later, and
    whether partition 0's fold has ended by then.
    """
    transport = await connect(url, connect_seconds=20)
    other = await connect(url, connect_seconds=20)
    worker = Worker(transport, WorkerConfig(lease_seconds=3.0))
    running = asyncio.create_task(worker.run())
    try:
        deadline = time.monotonic() + 30
        while len(worker.partitions) < transport.partitions:
            assert time.monotonic() < deadline, "the worker never held every partition"
            await asyncio.sleep(0.1)
        fold = worker.partitions[0].task
        assert fold is not None
        found = await other.get("leases", "p.0")
        assert found is not None
        value = worker.config.worker_id.encode() if holder is None else holder
        await other.put("leases", "p.0", value, found.revision)
        await asyncio.sleep(2.5)  # two renewal rounds (one every second)
        return worker, sorted(worker.partitions), fold.done()
    finally:
        worker.stop.set()
        await running
        await other.close()
        await transport.close()


def test_a_renewal_stored_without_its_reply_keeps_the_partition(server: NatsServer) -> None:
    """A lease that holds the worker's own id at a revision it did not see stays its own."""
    worker, held, ended = asyncio.run(_with_lease_rewritten(server.url, None))
    assert 0 in held and not ended
    assert worker.metrics.partitions_lost == 0


def test_a_lease_another_worker_holds_is_given_up(server: NatsServer) -> None:
    """A lease rewritten by another holder makes the worker drop that partition."""
    worker, held, ended = asyncio.run(_with_lease_rewritten(server.url, b"someone-else"))
    assert 0 not in held and ended
    assert worker.metrics.partitions_lost >= 1


class _SwallowingReader:
    """A real reader that, as nats-py's publish does, returns normally when cancelled."""

    def __init__(self, inner: PartitionReader) -> None:
        self._inner = inner

    async def fetch(self, max_messages: int, timeout: float) -> list[Delivered]:
        try:
            return await self._inner.fetch(max_messages, timeout)
        except asyncio.CancelledError:
            return []

    async def close(self) -> None:
        await self._inner.close()


def test_a_dropped_partition_stops_when_the_client_swallows_its_cancel(
    server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fold asked to stop ends even when the client returns from the cancelled call."""
    real = NatsTransport.reader
    monkeypatch.setattr(
        NatsTransport, "reader", lambda self, p, after: _SwallowingReader(real(self, p, after))
    )
    _, held, ended = asyncio.run(_with_lease_rewritten(server.url, b"someone-else"))
    assert 0 not in held and ended
