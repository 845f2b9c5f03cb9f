"""The fold beyond one machine: events on a log, workers that share sessions, memories in KV.

Optional (``pip install 'session-memory[nats]'``). Only :mod:`.jetstream` imports the NATS
client; everything else talks to :class:`~.transport.Transport`. The names below are
imported on first use, so the command line's parsers cost nothing to build. See
``docs/distributed.md``.
"""

from __future__ import annotations

import importlib
from typing import Any

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
    "Conflict": "transport",
    "FilePublisher": "publisher",
    "PublishSummary": "publisher",
    "Publisher": "publisher",
    "Transport": "transport",
    "TransportError": "transport",
    "Worker": "worker",
    "WorkerConfig": "worker",
    "connect": "jetstream",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
