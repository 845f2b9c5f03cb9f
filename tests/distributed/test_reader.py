"""A partition reader on a real JetStream server: prompt, in order, and recreated after loss."""

from __future__ import annotations

import asyncio
import time

import pytest

from session_memory.apps.distributed.jetstream import REQUEST_SECONDS, NatsTransport, connect
from session_memory.apps.distributed.transport import Outgoing, TransportError
from session_memory.apps.distributed.wire import partition_of
from tests.distributed.nats_helpers import NatsServer

SESSION = "reader-test"


async def _publish(transport: NatsTransport, first: int, count: int) -> None:
    await transport.publish(
        [Outgoing(SESSION, f"m{n}".encode(), f"{SESSION}:{n}") for n in range(first, first + count)]
    )


def _partition(transport: NatsTransport) -> int:
    return partition_of(SESSION, transport.partitions)


def test_a_message_published_while_a_reader_waits_is_handed_out_at_once(
    server: NatsServer,
) -> None:
    """A fetch waiting for up to ten seconds returns the message published meanwhile."""

    async def run() -> tuple[list[bytes], float]:
        transport = await connect(server.url)
        reader = transport.reader(_partition(transport), 0)
        try:
            assert await reader.fetch(64, 0.2) == []  # idle: nothing came
            later = asyncio.create_task(_publish(transport, 0, 1))
            start = time.monotonic()
            got = await reader.fetch(64, 10.0)
            await later
            return [d.body for d in got], time.monotonic() - start
        finally:
            await reader.close()
            await transport.close()

    bodies, waited = asyncio.run(run())
    assert bodies == [b"m0"]
    assert waited < 5.0


def test_a_reader_hands_out_every_message_in_order_in_bounded_batches(
    server: NatsServer,
) -> None:
    """Messages published before and while reading come out once each, in log order."""

    async def run() -> list[list[int]]:
        transport = await connect(server.url)
        await _publish(transport, 0, 150)
        reader = transport.reader(_partition(transport), 0)
        batches: list[list[int]] = []
        try:
            while True:
                got = await reader.fetch(64, 1.5)
                if not got:
                    return batches
                batches.append([d.seq for d in got])
                if len(batches) == 1:
                    await _publish(transport, 150, 100)
        finally:
            await reader.close()
            await transport.close()

    batches = asyncio.run(run())
    assert all(0 < len(b) <= 64 for b in batches)
    assert [seq for b in batches for seq in b] == list(range(1, 251))


def test_a_reader_whose_consumer_vanished_fails_and_a_new_one_goes_on(
    server: NatsServer,
) -> None:
    """A consumer deleted behind a reader's back: an error, then a new reader resumes."""

    async def run() -> list[int]:
        transport = await connect(server.url)
        await _publish(transport, 0, 10)
        reader = transport.reader(_partition(transport), 0)
        seen = [d.seq for d in await reader.fetch(64, 1.0)]
        for name in await transport._js.consumers_info(transport.stream):
            await transport._js.delete_consumer(transport.stream, name.name)
        await _publish(transport, 10, 5)
        with pytest.raises(TransportError):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # a lost request ends in a few seconds
                seen += [d.seq for d in await reader.fetch(64, 0.5)]
        await reader.close()
        fresh = transport.reader(_partition(transport), seen[-1])
        try:
            seen += [d.seq for d in await fresh.fetch(64, 1.0)]
        finally:
            await fresh.close()
            await transport.close()
        return seen

    assert asyncio.run(run()) == list(range(1, 16))


def test_an_idle_reader_outlives_its_requests_without_error(server: NatsServer) -> None:
    """Idle for longer than a pull request lives: empty fetches, then the next message."""

    async def run() -> list[bytes]:
        transport = await connect(server.url)
        reader = transport.reader(_partition(transport), 0)
        try:
            deadline = time.monotonic() + 3 * REQUEST_SECONDS
            while time.monotonic() < deadline:
                assert await reader.fetch(64, 0.2) == []
            await _publish(transport, 0, 1)
            return [d.body for d in await reader.fetch(64, 5.0)]
        finally:
            await reader.close()
            await transport.close()

    assert asyncio.run(run()) == [b"m0"]


def test_a_reader_goes_on_after_the_server_restarts(server: NatsServer) -> None:
    """Killed and restarted under an idle reader: its next fetches, or a new reader's, go on."""

    async def run() -> list[int]:
        transport = await connect(server.url)
        await _publish(transport, 0, 3)
        reader = transport.reader(_partition(transport), 0)
        seen = [d.seq for d in await reader.fetch(64, 1.0)]
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.start)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                await _publish(transport, 3, 2)
                break
            except TransportError:
                await asyncio.sleep(0.2)  # still reconnecting
        while len(seen) < 5 and time.monotonic() < deadline:
            try:
                seen += [d.seq for d in await reader.fetch(64, 0.5)]
            except TransportError:
                reader = transport.reader(_partition(transport), seen[-1])  # as a worker does
        await reader.close()
        await transport.close()
        return seen

    assert asyncio.run(run()) == [1, 2, 3, 4, 5]


def test_messages_waiting_past_their_requests_end_are_still_handed_out(
    server: NatsServer,
) -> None:
    """Delivered while the partition was busy, read after the request ended: all there."""

    async def run() -> list[int]:
        transport = await connect(server.url)
        reader = transport.reader(_partition(transport), 0)
        try:
            assert await reader.fetch(64, 0.2) == []  # a request for 64 is open
            await _publish(transport, 0, 10)
            seen = [d.seq for d in await reader.fetch(4, 5.0)]
            await asyncio.sleep(REQUEST_SECONDS + 2.5)  # the rest wait, the request ends
            seen += [d.seq for d in await reader.fetch(64, 1.0)]
            return seen
        finally:
            await reader.close()
            await transport.close()

    assert asyncio.run(run()) == list(range(1, 11))
