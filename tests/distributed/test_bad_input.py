"""Bad input: malformed messages are counted, never fatal; unusable stored state is rebuilt."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.jetstream import connect
from session_memory.apps.distributed.keys import memory_keys, state_key
from session_memory.apps.distributed.publisher import Publisher
from session_memory.apps.distributed.transport import Outgoing
from tests.distributed.corpus import wait_for_equality
from tests.distributed.nats_helpers import NatsServer, worker_process


def event(n: int, text: str = "step") -> dict[str, Any]:
    return {
        "event_id": f"e{n}",
        "event_type": "message",
        "session_id": "bad",
        "payload": {"role": "user", "content": f"{text} {n}: fix the parser"},
    }


async def _publish(url: str, session: str, events: list[dict[str, Any]]) -> None:
    transport = await connect(url, connect_seconds=20)
    try:
        await Publisher(transport).publish(session, events)
    finally:
        await transport.close()


async def _raw(url: str, session: str, bodies: list[bytes]) -> None:
    transport = await connect(url, connect_seconds=20)
    try:
        await transport.publish(
            [Outgoing(session, body, f"raw-{i}") for i, body in enumerate(bodies)]
        )
    finally:
        await transport.close()


async def _get(url: str, bucket: Any, key: str) -> Any:
    transport = await connect(url, connect_seconds=20)
    try:
        return await transport.get(bucket, key)
    finally:
        await transport.close()


async def _overwrite(url: str, key: str, value: bytes) -> None:
    transport = await connect(url, connect_seconds=20)
    try:
        found = await transport.get("state", key)
        assert found is not None
        await transport.put("state", key, value, found.revision)
    finally:
        await transport.close()


def wait_memory(url: str, session: str, event_count: int, timeout: float = 30.0) -> Any:
    """The session's JSON memory once it has ``event_count`` events."""
    import time

    deadline = time.monotonic() + timeout
    memory = None
    while time.monotonic() < deadline:
        found = asyncio.run(_get(url, "memory", memory_keys(session)[0]))
        if found is not None:
            memory = orjson.loads(found.value)
            if memory["event_count"] == event_count:
                return memory
        time.sleep(0.3)
    raise AssertionError(f"memory never reached {event_count} events: {memory}")


def test_malformed_messages_are_counted_and_the_worker_goes_on(
    server: NatsServer, tmp_path: Path
) -> None:
    """Garbage on a session's subject is a skipped line in its diagnostics; later events apply."""
    worker = worker_process(server.url, log=tmp_path / "w.log")
    try:
        asyncio.run(_publish(server.url, "bad", [event(1)]))
        asyncio.run(
            _raw(
                server.url,
                "bad",
                [b"not json", b'{"k": "e", "ev": {"event_type": 3}}', b'{"k": "b"}', b"[]"],
            )
        )
        asyncio.run(_publish(server.url, "bad", [event(2), event(3)]))
        memory = wait_memory(server.url, "bad", 3)
        assert memory["diagnostics"]["lines_skipped"] == 4
        reasons = [s["reason"] for s in memory["diagnostics"]["skipped"]]
        assert all(r.startswith("malformed message on the log") for r in reasons), reasons
        assert worker.poll() is None
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(20) == 0


def test_the_same_event_published_twice_counts_once(server: NatsServer, tmp_path: Path) -> None:
    """An agent re-sending an event (same id) changes nothing: the log drops the repeat."""
    worker = worker_process(server.url, log=tmp_path / "w.log")
    try:
        asyncio.run(_publish(server.url, "bad", [event(1), event(2)]))
        asyncio.run(_publish(server.url, "bad", [event(2), event(3)]))
        memory = wait_memory(server.url, "bad", 3)
        assert memory["diagnostics"]["duplicate_events"] == 0
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(20) == 0


def test_a_state_that_does_not_restore_is_rebuilt_from_the_log(
    server: NatsServer, tmp_path: Path
) -> None:
    """A corrupt snapshot in the state bucket: the next worker folds the session again."""
    events = [event(n, "edit") for n in range(1, 41)]
    worker = worker_process(server.url, log=tmp_path / "w1.log")
    asyncio.run(_publish(server.url, "bad", events[:30]))
    wait_memory(server.url, "bad", 30)
    worker.send_signal(signal.SIGTERM)  # stores the state and gives the partitions back
    assert worker.wait(20) == 0
    stored = asyncio.run(_get(server.url, "state", state_key("bad")))
    assert stored is not None and b'"seq"' in stored.value
    asyncio.run(_overwrite(server.url, state_key("bad"), b'{"format": 1, "seq": 5}\n{broken'))
    asyncio.run(_publish(server.url, "bad", events[30:]))
    worker = worker_process(server.url, log=tmp_path / "w2.log")
    try:
        memory = wait_memory(server.url, "bad", 40)
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(20) == 0
    expected = SessionMemoryDeriver()
    expected.apply_all(events)
    assert orjson.dumps(memory) == orjson.dumps(orjson.loads(expected.memory.to_json()))
    assert b"rebuilt from the log" in (tmp_path / "w2.log").read_bytes()


def test_wait_for_equality_reports_sessions_missing_from_the_bucket(
    server: NatsServer, tmp_path: Path
) -> None:
    """The equality helper itself: a transcript nobody published is reported as differing."""
    path = tmp_path / "never.jsonl"
    path.write_bytes(orjson.dumps(event(1)) + b"\n")
    assert wait_for_equality(server.url, [path], timeout=1.0) == {"never": None}
