"""Amortised writes: a batch of events gives one write per memory key, Markdown only on change."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.jetstream import NatsTransport, connect
from session_memory.apps.distributed.keys import memory_keys
from session_memory.apps.distributed.publisher import Publisher
from session_memory.apps.distributed.worker import Worker, WorkerConfig
from tests.distributed.nats_helpers import NatsServer
from viewbuilder import render_memory


def events(n: int) -> list[dict[str, Any]]:
    return [
        {
            "event_id": f"e{i}",
            "event_type": "message",
            "session_id": "w",
            "payload": {"role": "user", "content": f"step {i}: port the orders API to v2"},
        }
        for i in range(n)
    ]


async def _memory_with(transport: NatsTransport, count: int, timeout: float = 30.0) -> bytes:
    """The session's JSON memory once it counts ``count`` events."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await transport.get("memory", memory_keys("w")[0])
        if found is not None and orjson.loads(found.value)["event_count"] == count:
            return found.value
        await asyncio.sleep(0.1)
    raise AssertionError(f"the memory never counted {count} events")


async def _fold_backlog_then_one(url: str) -> tuple[dict[str, object], dict[str, object], bytes]:
    transport = await connect(url, connect_seconds=20)
    worker = Worker(transport, WorkerConfig())
    try:
        await Publisher(transport).publish("w", events(40))
        running = asyncio.create_task(worker.run())
        await _memory_with(transport, 40)
        after_backlog = worker.metrics_line()
        # An event type the rules do not know: counted, the content stays as it was.
        await Publisher(transport).publish(
            "w", [{"event_id": "x1", "event_type": "telemetry", "payload": {}}]
        )
        await _memory_with(transport, 41)
        worker.stop.set()
        await running
        found = await transport.get("memory", memory_keys("w")[1])
        assert found is not None
        return after_backlog, worker.metrics_line(), found.value
    finally:
        await transport.close()


def test_a_backlog_is_one_write_per_key_and_markdown_only_when_content_changes(
    server: NatsServer,
) -> None:
    """40 queued events give one JSON and one Markdown write; a count-only event, JSON only."""
    backlog, final, markdown = asyncio.run(_fold_backlog_then_one(server.url))
    assert backlog["records_applied"] == 40
    assert backlog["memories_written"] == 2
    assert final["memories_written"] == 3
    # The state: once when the partition went idle (if it did in between) and once on stop.
    assert 1 <= final["states_written"] <= 2  # type: ignore[operator]
    deriver = SessionMemoryDeriver()
    deriver.apply_all([*events(40), {"event_id": "x1", "event_type": "telemetry", "payload": {}}])
    assert markdown == render_memory(deriver.memory).encode()
