"""Leases: a renewal stored without its reply keeps the partition; another holder's does not."""

from __future__ import annotations

import asyncio
import time

from session_memory.distributed.jetstream import connect
from session_memory.distributed.worker import Worker, WorkerConfig
from tests.distributed.nats_helpers import NatsServer


async def _with_lease_rewritten(url: str, holder: bytes | None) -> tuple[Worker, list[int]]:
    """Run a worker holding every partition; rewrite partition 0's lease behind its back.

    ``holder`` None writes the worker's own id (a renewal that landed, its reply lost);
    else that holder's. Returns the worker and the partitions it holds two rounds later.
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
        found = await other.get("leases", "p.0")
        assert found is not None
        value = worker.config.worker_id.encode() if holder is None else holder
        await other.put("leases", "p.0", value, found.revision)
        await asyncio.sleep(2.5)  # two renewal rounds (one every second)
        return worker, sorted(worker.partitions)
    finally:
        worker.stop.set()
        await running
        await other.close()
        await transport.close()


def test_a_renewal_stored_without_its_reply_keeps_the_partition(server: NatsServer) -> None:
    """A lease that holds the worker's own id at a revision it did not see stays its own."""
    worker, held = asyncio.run(_with_lease_rewritten(server.url, None))
    assert 0 in held
    assert worker.metrics.partitions_lost == 0


def test_a_lease_another_worker_holds_is_given_up(server: NatsServer) -> None:
    """A lease rewritten by another holder makes the worker drop that partition."""
    worker, held = asyncio.run(_with_lease_rewritten(server.url, b"someone-else"))
    assert 0 not in held
    assert worker.metrics.partitions_lost >= 1
