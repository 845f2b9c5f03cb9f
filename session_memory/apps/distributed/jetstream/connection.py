"""Connecting: a worker's or publisher's connection that creates the stream and buckets, and a
reader's that only reads memories; a wrong server URL is refused with its reason."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client

from session_memory.apps.distributed.jetstream.errors import NATS_ERRORS
from session_memory.apps.distributed.jetstream.nats_transport import (
    DEFAULT_PARTITIONS,
    DEFAULT_PREFIX,
    NatsTransport,
)
from session_memory.apps.distributed.servers import Attempts, server_urls
from session_memory.apps.distributed.transport import TransportError

__all__ = ["connect", "connect_reader"]

logger = logging.getLogger(__name__)


async def connect(
    servers: str,
    *,
    prefix: str = DEFAULT_PREFIX,
    partitions: int = DEFAULT_PARTITIONS,
    replicas: int = 1,
    lease_seconds: float = 3.0,
    name: str = "session-memory",
    connect_seconds: float = 10.0,
    wait_for_server: bool = True,
) -> NatsTransport:
    """Connect to ``servers`` (comma-separated URLs) and create the stream and buckets.

    Creating is idempotent: every worker and publisher calls it. The number of partitions
    is fixed by whoever creates the log first; later callers read it. A server that is not
    up yet (its connection refused) is tried again for ``connect_seconds`` with
    ``wait_for_server``, and given up at once without. A malformed URL is a
    :class:`ConfigError` and a host name that does not exist a :class:`TransportError`,
    both at once.
    """
    # The client tries the servers in turn until one answers (no attempt limit), so the time
    # limit is the one bound on a server that is not up yet.
    nc = await _open(
        servers,
        connect_seconds,
        refused_is_final=not wait_for_server,
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.2,
        connect_timeout=2,
        allow_reconnect=True,
    )
    transport = NatsTransport(nc, prefix, replicas)
    await transport.setup(partitions, lease_seconds)
    return transport


async def connect_reader(
    servers: str, *, prefix: str = DEFAULT_PREFIX, timeout: float = 2.0
) -> NatsTransport:
    """A connection that only reads the memory bucket: creates nothing, retries nothing.

    For callers that must answer quickly (``hook --nats``): a server that does not answer
    at once, or a bucket that does not exist, is a :class:`TransportError`.
    """
    nc = await _open(
        servers,
        timeout,
        refused_is_final=True,
        name="session-memory-reader",
        allow_reconnect=False,
        max_reconnect_attempts=0,
        connect_timeout=timeout,
    )
    transport = NatsTransport(nc, prefix, 1)
    try:
        transport._kv["memory"] = await transport._js.key_value(f"{prefix}_memory")
    except NATS_ERRORS as exc:
        await nc.close()
        raise TransportError(f"no memory bucket {prefix}_memory at {servers}: {exc!r}") from exc
    return transport


async def _open(servers: str, seconds: float, *, refused_is_final: bool, **options: Any) -> Client:
    """A client connected to one of ``servers`` (comma-separated URLs) within ``seconds``.

    Gives up before the time is up when a whole round of attempts, one per server, failed
    for good (see :class:`~.servers.Attempts`); the error says why.
    """
    urls = server_urls(servers)
    attempts = Attempts(len(urls), refused_is_final=refused_is_final)
    gave_up = asyncio.get_running_loop().create_future()

    async def on_error(exc: Exception) -> None:
        logger.debug("nats: %r", exc)
        if connecting.done():
            return  # connected: the client reports its own errors from here on
        found = attempts.add(exc)
        if attempts.count == 1 and not found.final:
            logger.warning(
                "cannot connect to NATS at %s yet (%s): trying again for up to %g s",
                *(servers, found.reason, seconds),
            )
        if attempts.final and not gave_up.done():
            gave_up.set_result(None)

    connecting = asyncio.ensure_future(nats.connect(urls, error_cb=on_error, **options))
    try:
        await asyncio.wait(
            (connecting, gave_up), timeout=seconds, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        if not connecting.done():
            connecting.cancel()
            with contextlib.suppress(asyncio.CancelledError, *NATS_ERRORS):
                await connecting
    error = None if connecting.cancelled() else connecting.exception()
    if connecting.done() and not connecting.cancelled() and error is None:
        return connecting.result()
    if error is not None and not isinstance(error, (*NATS_ERRORS, ValueError)):
        raise error
    raise TransportError(f"cannot connect to NATS at {servers}: {attempts.reason(error, seconds)}")
