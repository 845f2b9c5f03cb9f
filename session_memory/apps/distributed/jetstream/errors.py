"""The NATS client's errors, which the JetStream modules translate at the boundary."""

from __future__ import annotations

import asyncio
from typing import Final

import nats.errors
import nats.js.errors

__all__ = ["NATS_ERRORS"]

NATS_ERRORS: Final = (nats.errors.Error, nats.js.errors.Error, asyncio.TimeoutError, OSError)
"""What the client raises when the server, the network or a request fails: each becomes a
:class:`~session_memory.core.errors.TransportError`."""
