"""The fold beyond one machine: events on a log, workers that share sessions, memories in KV.

Optional (``pip install 'session-memory[nats]'``). Only :mod:`.jetstream` imports the NATS
client; everything else talks to :class:`~.transport.Transport`. The names below are
imported on first use, so the command line's parsers cost nothing to build. See
``docs/distributed.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from session_memory.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from session_memory.apps.distributed.jetstream import connect
    from session_memory.apps.distributed.publisher import FilePublisher, Publisher, PublishSummary
    from session_memory.apps.distributed.transport import Conflict, Transport, TransportError
    from session_memory.apps.distributed.worker import Worker, WorkerConfig

__all__ = [
    "Conflict",
    "FilePublisher",
    "PublishSummary",
    "Publisher",
    "Transport",
    "TransportError",
    "Worker",
    "WorkerConfig",
    "connect",
]

_HOMES = {
    "Conflict": ".transport",
    "FilePublisher": ".publisher",
    "PublishSummary": ".publisher",
    "Publisher": ".publisher",
    "Transport": ".transport",
    "TransportError": ".transport",
    "Worker": ".worker",
    "WorkerConfig": ".worker",
    "connect": ".jetstream",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
