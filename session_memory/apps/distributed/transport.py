"""The seam between the distributed fold and the engine that carries it.

Everything in :mod:`session_memory.apps.distributed` talks to an ordered log and a versioned
key-value store through :class:`Transport` alone; :mod:`.nats` implements it on NATS
JetStream. Another engine (Kafka with a compacted topic and a lease table, Redis Streams)
follows by implementing these few methods: nothing else in the package names NATS.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

from session_memory.core.errors import Conflict, TransportError

__all__ = [
    "Bucket",
    "Conflict",
    "Delivered",
    "Outgoing",
    "PartitionReader",
    "Transport",
    "TransportError",
    "Versioned",
]

Bucket = Literal["state", "memory", "leases"]
"""The three stores: fold state per session, current memory per session, claims."""


class Versioned(NamedTuple):
    """A stored value and the revision a checked write must name to replace it."""

    value: bytes
    revision: int


@dataclass(frozen=True, slots=True)
class Delivered:
    """One message read from a partition: its position in the log and what it carries."""

    seq: int
    session: str
    body: bytes
    pending: int
    """Messages of the same partition after this one (the partition's lag)."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message to append: the session it belongs to, its bytes, its de-duplication id."""

    session: str
    body: bytes
    dedup_id: str


class PartitionReader(Protocol):
    """Reads one partition in log order from a position; disposable, recreated on error."""

    async def fetch(self, max_messages: int, timeout: float) -> list[Delivered]:
        """The next messages (at most ``max_messages``), or [] when none came in ``timeout``."""
        ...

    async def close(self) -> None:
        """Release what the engine holds for this reader."""
        ...


class Transport(Protocol):
    """An ordered, partitioned, de-duplicating log plus a revision-checked key-value store."""

    partitions: int
    """How many partitions sessions are spread over (fixed when the log is created)."""

    async def publish(self, messages: Sequence[Outgoing]) -> None:
        """Append messages in order, each session's in the order given; waits for the acks.

        A message whose ``dedup_id`` was appended recently is acknowledged and not stored
        again. Raises :class:`TransportError` when an ack does not come: publish the same
        messages again (the ids make that safe).
        """
        ...

    def reader(self, partition: int, after: int) -> PartitionReader:
        """A reader of ``partition`` starting after log position ``after``."""
        ...

    def read_session(self, session: str, before: int) -> AsyncIterator[Delivered]:
        """Every message of one session from the start of the log up to ``before``."""
        ...

    async def get(self, bucket: Bucket, key: str) -> Versioned | None:
        """The current value of ``key``, or None when there is none."""
        ...

    async def put(self, bucket: Bucket, key: str, value: bytes, last: int | None) -> int:
        """Write ``value`` if ``key``'s revision is still ``last`` (None: if absent).

        Returns the new revision; raises :class:`Conflict` otherwise.
        """
        ...

    async def delete(self, bucket: Bucket, key: str, last: int) -> None:
        """Delete ``key`` if its revision is still ``last``; :class:`Conflict` otherwise."""
        ...

    async def keys(self, bucket: Bucket, prefix: str) -> list[str]:
        """The keys of ``bucket`` that start with ``prefix``."""
        ...

    async def close(self) -> None:
        """Flush and disconnect."""
        ...
