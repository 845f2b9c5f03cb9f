"""Listing a bucket's keys: those that hold a value, every time."""

from __future__ import annotations

import asyncio

from session_memory.apps.distributed.jetstream import connect
from tests.distributed.nats_helpers import NatsServer


async def _listings(url: str, rounds: int) -> tuple[list[list[str]], list[str], list[str]]:
    transport = await connect(url, connect_seconds=20)
    try:
        empty = await transport.keys("leases", "")
        revisions = {}
        for key in ("p.0", "p.1", "p.2", "w.a", "w.b"):
            revisions[key] = await transport.put("leases", key, b"x", None)
        await transport.delete("leases", "p.1", revisions["p.1"])
        listings = [sorted(await transport.keys("leases", "p.")) for _ in range(rounds)]
        return listings, empty, sorted(await transport.keys("leases", ""))
    finally:
        await transport.close()


def test_keys_lists_the_keys_holding_a_value_every_time(server: NatsServer) -> None:
    """A deleted key is not listed, the prefix filters, and 200 listings in a row agree
    (the client's own listing answered "no keys" now and then, before its first entry)."""
    listings, empty, everything = asyncio.run(_listings(server.url, 200))
    assert empty == []
    assert everything == ["p.0", "p.2", "w.a", "w.b"]
    assert all(listing == ["p.0", "p.2"] for listing in listings)
