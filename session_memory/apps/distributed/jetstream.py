"""The :class:`~session_memory.apps.distributed.transport.Transport` on NATS JetStream.

One stream holds every event, on subjects ``<prefix>.ev.<partition>.<session key>``; it
keeps them (limits retention) so a session whose stored state is unusable can be folded
again from its first event. Three KV buckets hold the fold state (``<prefix>_state``), the
current memories (``<prefix>_memory``) and the claims on partitions (``<prefix>_leases``,
whose entries expire unless renewed). Reads of a partition use an ephemeral pull consumer
without acks: the position a worker has covered is its own, stored with the fold state,
so a consumer lost with a server is simply created again from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import nats
import nats.errors
import nats.js.errors
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    Header,
    KeyValueConfig,
    StorageType,
    StreamConfig,
)
from nats.js.kv import KeyValue

from session_memory.apps.distributed.servers import Attempts, server_urls
from session_memory.apps.distributed.transport import (
    Bucket,
    Conflict,
    Delivered,
    Outgoing,
    TransportError,
    Versioned,
)
from session_memory.apps.distributed.wire import partition_of

__all__ = ["DEFAULT_PARTITIONS", "DEFAULT_PREFIX", "NatsTransport", "connect", "connect_reader"]

logger = logging.getLogger(__name__)

DEFAULT_PREFIX: Final = "smem"
DEFAULT_PARTITIONS: Final = 16
DEDUP_WINDOW_SECONDS: Final = 600.0
"""How long the stream remembers a message id; later repeats are dropped by the worker."""

PUBLISH_WINDOW: Final = 2000
"""Publishes in flight before waiting for their acks."""

REQUEST_SECONDS: Final = 1.0
"""How long a reader's pull request stays open (see :class:`_NatsReader`)."""
_REQUEST_GRACE_SECONDS: Final = 2.0
_REQUEST_OVER: Final = frozenset({"404", "408", "409"})
"""Statuses that end a pull request: nothing left, expired, or cut short (a leader
changed, too many waiting); a new request follows, except for a deleted consumer."""

_CONFIG_KEY: Final = "config.partitions"
_ERRORS: Final = (nats.errors.Error, nats.js.errors.Error, asyncio.TimeoutError, OSError)
_KV_OPERATION: Final = "KV-Operation"
_KV_REMOVED: Final = frozenset({"DEL", "PURGE"})
"""What the header of a key's last entry says when the key was deleted or purged."""


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
    except _ERRORS as exc:
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
            with contextlib.suppress(asyncio.CancelledError, *_ERRORS):
                await connecting
    error = None if connecting.cancelled() else connecting.exception()
    if connecting.done() and not connecting.cancelled() and error is None:
        return connecting.result()
    if error is not None and not isinstance(error, (*_ERRORS, ValueError)):
        raise error
    raise TransportError(f"cannot connect to NATS at {servers}: {attempts.reason(error, seconds)}")


class NatsTransport:
    """The log and the stores on one NATS connection (see the module docstring)."""

    def __init__(self, nc: Client, prefix: str, replicas: int) -> None:
        self._nc = nc
        self._js: JetStreamContext = nc.jetstream(timeout=5.0)
        self._prefix = prefix
        self._replicas = replicas
        self._stream = f"{prefix.upper()}_EVENTS"
        self._kv: dict[str, KeyValue] = {}
        self.partitions = DEFAULT_PARTITIONS

    @property
    def stream(self) -> str:
        return self._stream

    def subject(self, session: str) -> str:
        """The subject of one session's events."""
        return f"{self._prefix}.ev.{partition_of(session, self.partitions)}.{session}"

    async def setup(self, partitions: int, lease_seconds: float) -> None:
        """Create (or find) the stream and buckets; learn the number of partitions."""
        try:
            await self._retry(lambda: self._setup(partitions, lease_seconds))
        except _ERRORS as exc:
            raise TransportError(f"cannot set up the stream and buckets: {exc}") from exc

    async def _setup(self, partitions: int, lease_seconds: float) -> None:
        # What exists is used as it is: the first to create decides (a lease time given
        # later by another process does not fight it).
        try:
            await self._js.stream_info(self._stream)
        except nats.js.errors.NotFoundError:
            await self._js.add_stream(
                StreamConfig(
                    name=self._stream,
                    subjects=[f"{self._prefix}.ev.>"],
                    storage=StorageType.FILE,
                    num_replicas=self._replicas,
                    duplicate_window=DEDUP_WINDOW_SECONDS,
                )
            )
        for bucket, ttl in (("state", 0.0), ("memory", 0.0), ("leases", lease_seconds)):
            name = f"{self._prefix}_{bucket}"
            try:
                self._kv[bucket] = await self._js.key_value(name)
            except nats.js.errors.BucketNotFoundError:
                self._kv[bucket] = await self._js.create_key_value(
                    KeyValueConfig(
                        bucket=name,
                        history=1,
                        ttl=ttl or None,
                        storage=StorageType.FILE,
                        replicas=self._replicas,
                    )
                )
        state = self._kv["state"]
        with contextlib.suppress(nats.js.errors.KeyWrongLastSequenceError):
            await state.create(_CONFIG_KEY, str(partitions).encode())
        entry = await state.get(_CONFIG_KEY)
        self.partitions = int(entry.value or b"0") or partitions

    async def _retry(self, attempt: Any, tries: int = 20) -> Any:
        """Run ``attempt`` until it succeeds; the cluster may still be electing leaders."""
        for n in range(tries):
            try:
                return await attempt()
            except _ERRORS as exc:
                # Two processes creating at once: the loser finds the winner's next time.
                if n == tries - 1:
                    raise
                logger.debug("retrying setup: %s", exc)
                await asyncio.sleep(0.25)
        raise AssertionError("unreachable")

    # -- the log --------------------------------------------------------------------------

    async def publish(self, messages: Sequence[Outgoing]) -> None:
        """Append in order, pipelined in windows of :data:`PUBLISH_WINDOW`."""
        for start in range(0, len(messages), PUBLISH_WINDOW):
            window = messages[start : start + PUBLISH_WINDOW]
            try:
                futures = [
                    await self._js.publish_async(
                        self.subject(m.session),
                        m.body,
                        headers={"Nats-Msg-Id": m.dedup_id},
                    )
                    for m in window
                ]
                done = await asyncio.wait_for(asyncio.gather(*futures), timeout=10.0)
            except (*_ERRORS, nats.js.errors.TooManyStalledMsgsError) as exc:
                raise TransportError(f"publish failed: {exc!r}") from exc
            for ack in done:
                if ack.stream != self._stream:
                    raise TransportError(f"published into {ack.stream}, not {self._stream}")

    def reader(self, partition: int, after: int) -> _NatsReader:
        return _NatsReader(self, f"{self._prefix}.ev.{partition}.>", after)

    async def read_session(self, session: str, before: int) -> AsyncIterator[Delivered]:
        first = await self._first_position(self.subject(session))
        if first is None or first >= before:
            return  # a new session: one request, no consumer
        reader = _NatsReader(self, self.subject(session), first - 1)
        try:
            while True:
                batch = await reader.fetch(500, 1.0)
                if not batch:
                    return
                for d in batch:
                    if d.seq >= before:
                        return
                    yield d
        finally:
            await reader.close()

    async def _first_position(self, subject: str) -> int | None:
        """The log position of the first message on ``subject``, None if there is none."""
        try:
            found = await self._js.get_msg(self._stream, seq=1, subject=subject, next=True)
        except nats.js.errors.NotFoundError:
            return None
        except _ERRORS as exc:
            raise TransportError(f"cannot look up {subject}: {exc!r}") from exc
        return found.seq

    async def add_reader_consumer(self, subject: str, start: int) -> str:
        """An ephemeral, ack-less consumer of ``subject`` from log position ``start``."""
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=max(1, start),
            ack_policy=AckPolicy.NONE,
            filter_subject=subject,
            inactive_threshold=30.0,
            mem_storage=True,
            num_replicas=1,
            max_waiting=4,
        )
        info = await self._js.add_consumer(self._stream, config=config)
        return info.name

    async def delete_consumer(self, name: str) -> None:
        """Delete a reader's consumer now rather than when it expires."""
        await self._js.delete_consumer(self._stream, name)

    # -- the stores -----------------------------------------------------------------------

    def _bucket(self, bucket: Bucket) -> KeyValue:
        return self._kv[bucket]

    async def get(self, bucket: Bucket, key: str) -> Versioned | None:
        try:
            entry = await self._bucket(bucket).get(key)
        except nats.js.errors.KeyNotFoundError:
            return None
        except _ERRORS as exc:
            raise TransportError(f"cannot read {bucket}/{key}: {exc!r}") from exc
        return Versioned(entry.value or b"", entry.revision or 0)

    async def put(self, bucket: Bucket, key: str, value: bytes, last: int | None) -> int:
        kv = self._bucket(bucket)
        try:
            if last is None:
                return await kv.create(key, value)
            return await kv.update(key, value, last=last)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            raise Conflict(f"{bucket}/{key} changed since revision {last}") from exc
        except _ERRORS as exc:
            raise TransportError(f"cannot write {bucket}/{key}: {exc!r}") from exc

    async def delete(self, bucket: Bucket, key: str, last: int) -> None:
        try:
            await self._bucket(bucket).delete(key, last=last)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            raise Conflict(f"{bucket}/{key} changed since revision {last}") from exc
        except _ERRORS as exc:
            raise TransportError(f"cannot delete {bucket}/{key}: {exc!r}") from exc

    async def keys(self, bucket: Bucket, prefix: str) -> list[str]:
        """The keys of ``bucket`` that hold a value and start with ``prefix``.

        Read from a consumer of each key's last entry, up to the count the server gave when
        it made the consumer. (The client's own ``keys()`` stops when a first look finds
        nothing delivered yet, which can come before the first entry does: it then answers
        that there are no keys, once in a few hundred calls on an idle machine.)
        """
        kv = self._bucket(bucket)
        stream, pre = kv._stream, kv._pre
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.LAST_PER_SUBJECT,
            ack_policy=AckPolicy.NONE,
            filter_subject=f"{pre}{prefix}>" if prefix.endswith(".") else f"{pre}>",
            headers_only=True,
            inactive_threshold=30.0,
            mem_storage=True,
            num_replicas=1,
        )
        found: list[str] = []
        try:
            info = await self._js.add_consumer(stream, config=config)
            try:
                sub = await self._js.pull_subscribe_bind(consumer=info.name, stream=stream)
                left = info.num_pending or 0
                while left > 0:
                    for msg in await sub.fetch(min(left, 1024), timeout=5.0):
                        left -= 1
                        if (msg.headers or {}).get(_KV_OPERATION) not in _KV_REMOVED:
                            found.append(msg.subject[len(pre) :])
                await sub.unsubscribe()
            finally:
                with contextlib.suppress(*_ERRORS):
                    await self._js.delete_consumer(stream, info.name)
        except _ERRORS as exc:
            raise TransportError(f"cannot list {bucket}: {exc!r}") from exc
        return [k for k in found if k.startswith(prefix)]

    async def close(self) -> None:
        """Drain (deliver what is in flight) for a few seconds at most, then close."""
        try:
            await asyncio.wait_for(self._nc.drain(), timeout=5.0)
        except _ERRORS:
            await self._nc.close()


class _NatsReader:
    """A pull consumer with one pull request kept open, made again after any error.

    A request asks for up to as many messages as :meth:`fetch` may return, for up to
    :data:`REQUEST_SECONDS`: messages published while it is open arrive without another
    request, and :meth:`fetch` hands them out as soon as the log has no more for now. (The
    client's own ``fetch`` sends two requests per call when nothing is waiting, a probe and
    a lingering one: at a thousand single-event messages a second that was more work than
    folding them.) A request ends when it is filled or the server says it expired or cut
    it short; a request sent before the connection was made again is asked again; one that
    neither delivers nor ends in time was lost, and the fetch fails (the worker reads
    again from its last position, with a new consumer).
    """

    def __init__(self, transport: NatsTransport, subject: str, after: int) -> None:
        self._t = transport
        self._subject = subject
        self._next = after + 1
        self._consumer: str | None = None
        self._sub: Subscription | None = None
        self._inbox = ""
        self._requested = 0
        """Messages the open request may still deliver (0: no request is open)."""
        self._ends = 0.0
        """When the open request is over at the latest (its expiry, with a grace)."""
        self._connection = 0
        """The client's reconnect count when the open request was sent."""

    async def fetch(self, max_messages: int, timeout: float) -> list[Delivered]:
        try:
            out = await self._receive(max_messages, timeout)
        except _ERRORS as exc:
            await self.close()
            raise TransportError(f"cannot read {self._subject}: {exc!r}") from exc
        # A recreated consumer starts at the first position not yet handed out.
        out = [d for d in out if d.seq >= self._next]
        if out:
            self._next = out[-1].seq + 1
        return out

    async def _receive(self, max_messages: int, timeout: float) -> list[Delivered]:
        """Up to ``max_messages`` messages, once one has come and the log has no more now.

        Each message says how many follow it in the log: while some do, they are on their
        way (the open request asks for them), so a backlog is handed out in full batches
        and a lone message at once.
        """
        sub = self._sub or await self._open()
        deadline = time.monotonic() + timeout
        out: list[Delivered] = []
        while len(out) < max_messages:
            if not sub.pending_msgs:
                if out and not out[-1].pending:
                    break  # the log has no more for now
                await self._keep_requested(max_messages)
            msg = await self._message(sub, deadline)
            if msg is None:
                break
            status = msg.headers.get(Header.STATUS) if msg.headers else None
            if status is None:
                out.append(_delivered(msg))
                # Never below 0: a message of a request forgotten at a reconnect may still come.
                self._requested = max(0, self._requested - 1)
            elif status in _REQUEST_OVER and not _consumer_deleted(msg):
                self._requested = 0
            else:
                raise TransportError(f"pull request refused: {status} {msg.headers}")
        return out

    async def _keep_requested(self, batch: int) -> None:
        """A request open on this connection (one sent before a reconnect is forgotten)."""
        if self._connection != self._t._nc.stats["reconnects"]:
            self._requested = 0
        if not self._requested:
            await self._request(batch)

    async def _message(self, sub: Subscription, deadline: float) -> Msg | None:
        """The next message (at once when one is here), None when none came by ``deadline``.

        A wait that found nothing past the end of the open request means that it was lost.
        """
        if sub.pending_msgs:
            return await sub.next_msg(timeout=None)
        wait = deadline - time.monotonic()
        if wait <= 0:
            return None
        try:
            return await sub.next_msg(timeout=wait)
        except nats.errors.TimeoutError:
            if self._requested and time.monotonic() > self._ends:
                raise TransportError("a pull request neither delivered nor ended") from None
            return None

    async def _open(self) -> Subscription:
        nc = self._t._nc
        self._consumer = await self._t.add_reader_consumer(self._subject, self._next)
        self._inbox = nc.new_inbox()
        self._sub = await nc.subscribe(self._inbox)
        self._requested = 0
        return self._sub

    async def _request(self, batch: int) -> None:
        body = orjson.dumps({"batch": batch, "expires": int(REQUEST_SECONDS * 1e9)})
        subject = f"$JS.API.CONSUMER.MSG.NEXT.{self._t.stream}.{self._consumer}"
        nc = self._t._nc
        self._connection = nc.stats["reconnects"]
        await nc.publish(subject, body, reply=self._inbox)
        self._requested = batch
        self._ends = time.monotonic() + REQUEST_SECONDS + _REQUEST_GRACE_SECONDS

    async def close(self) -> None:
        sub, self._sub = self._sub, None
        consumer, self._consumer = self._consumer, None
        self._requested = 0
        try:
            if sub is not None:
                await sub.unsubscribe()
            if consumer is not None:
                await self._t.delete_consumer(consumer)
        except _ERRORS as exc:
            logger.debug("consumer of %s not deleted (it expires): %s", self._subject, exc)


def _consumer_deleted(msg: Msg) -> bool:
    return "deleted" in (msg.headers or {}).get(Header.DESCRIPTION, "").lower()


def _delivered(msg: Msg) -> Delivered:
    meta = msg.metadata
    return Delivered(
        seq=meta.sequence.stream,
        session=msg.subject.rsplit(".", 1)[-1],
        body=msg.data,
        pending=meta.num_pending,
    )
