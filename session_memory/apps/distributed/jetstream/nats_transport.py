"""The log and the stores on one NATS connection: :class:`NatsTransport`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    KeyValueConfig,
    StorageType,
    StreamConfig,
)
from nats.js.kv import KeyValue

from session_memory.apps.distributed.jetstream.errors import NATS_ERRORS
from session_memory.apps.distributed.jetstream.reader import NatsReader
from session_memory.apps.distributed.transport import (
    Bucket,
    Conflict,
    Delivered,
    Outgoing,
    TransportError,
    Versioned,
)
from session_memory.apps.distributed.wire import partition_of

__all__ = ["DEFAULT_PARTITIONS", "DEFAULT_PREFIX", "NatsTransport"]

logger = logging.getLogger(__name__)

DEFAULT_PREFIX: Final = "smem"
DEFAULT_PARTITIONS: Final = 16
DEDUP_WINDOW_SECONDS: Final = 600.0
"""How long the stream remembers a message id; later repeats are dropped by the worker."""

PUBLISH_WINDOW: Final = 2000
"""Publishes in flight before waiting for their acks."""

_CONFIG_KEY: Final = "config.partitions"
_KV_OPERATION: Final = "KV-Operation"
_KV_REMOVED: Final = frozenset({"DEL", "PURGE"})
"""What the header of a key's last entry says when the key was deleted or purged."""


class NatsTransport:
    """The log and the stores on one NATS connection (see :mod:`.jetstream`)."""

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
        except NATS_ERRORS as exc:
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
            except NATS_ERRORS as exc:
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
            except (*NATS_ERRORS, nats.js.errors.TooManyStalledMsgsError) as exc:
                raise TransportError(f"publish failed: {exc!r}") from exc
            for ack in done:
                if ack.stream != self._stream:
                    raise TransportError(f"published into {ack.stream}, not {self._stream}")

    def reader(self, partition: int, after: int) -> NatsReader:
        return NatsReader(self, f"{self._prefix}.ev.{partition}.>", after)

    async def read_session(self, session: str, before: int) -> AsyncIterator[Delivered]:
        first = await self._first_position(self.subject(session))
        if first is None or first >= before:
            return  # a new session: one request, no consumer
        reader = NatsReader(self, self.subject(session), first - 1)
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
        except NATS_ERRORS as exc:
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
        except NATS_ERRORS as exc:
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
        except NATS_ERRORS as exc:
            raise TransportError(f"cannot write {bucket}/{key}: {exc!r}") from exc

    async def delete(self, bucket: Bucket, key: str, last: int) -> None:
        try:
            await self._bucket(bucket).delete(key, last=last)
        except nats.js.errors.KeyWrongLastSequenceError as exc:
            raise Conflict(f"{bucket}/{key} changed since revision {last}") from exc
        except NATS_ERRORS as exc:
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
                with contextlib.suppress(*NATS_ERRORS):
                    await self._js.delete_consumer(stream, info.name)
        except NATS_ERRORS as exc:
            raise TransportError(f"cannot list {bucket}: {exc!r}") from exc
        return [k for k in found if k.startswith(prefix)]

    async def close(self) -> None:
        """Drain (deliver what is in flight) for a few seconds at most, then close."""
        try:
            await asyncio.wait_for(self._nc.drain(), timeout=5.0)
        except NATS_ERRORS:
            await self._nc.close()
