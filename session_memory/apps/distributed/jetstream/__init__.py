"""The :class:`~session_memory.apps.distributed.transport.Transport` on NATS JetStream.

One stream holds every event, on subjects ``<prefix>.ev.<partition>.<session key>``; it
keeps them (limits retention) so a session whose stored state is unusable can be folded
again from its first event. Three KV buckets hold the fold state (``<prefix>_state``), the
current memories (``<prefix>_memory``) and the claims on partitions (``<prefix>_leases``,
whose entries expire unless renewed). Reads of a partition use an ephemeral pull consumer
without acks: the position a worker has covered is its own, stored with the fold state,
so a consumer lost with a server is simply created again from there.

The only modules that import the NATS client: :mod:`.connection` connects,
:mod:`.nats_transport` holds the log and the stores, :mod:`.reader` reads a partition.
"""

from __future__ import annotations

from session_memory.apps.distributed.jetstream.connection import connect, connect_reader
from session_memory.apps.distributed.jetstream.nats_transport import (
    DEFAULT_PARTITIONS,
    DEFAULT_PREFIX,
    NatsTransport,
)
from session_memory.apps.distributed.jetstream.reader import REQUEST_SECONDS

__all__ = [
    "DEFAULT_PARTITIONS",
    "DEFAULT_PREFIX",
    "REQUEST_SECONDS",
    "NatsTransport",
    "connect",
    "connect_reader",
]
