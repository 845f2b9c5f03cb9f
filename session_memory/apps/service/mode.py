"""What the service is doing: one value, set by the loop, read where a state is saved."""

from __future__ import annotations

import enum

__all__ = ["Mode"]


class Mode(enum.Enum):
    """The service's mode. It decides one thing: whether saving a transcript's state (a
    snapshot of its whole memory, serialised, then a file replaced: a large part of an
    append's work) may wait; outputs always follow every append.

    Whether writes are fsynced one by one or made durable by one ``sync`` is not a mode but
    a property of each batch of work (:meth:`.update.Updater.batch`).
    """

    CATCHING_UP = "catching up"
    """The start: every transcript found is derived, resumed or kept on disk. States are
    saved with their outputs."""

    FOLLOWING = "following"
    """Changes a notification named, fewer than a burst. States are saved with outputs."""

    BURST = "burst"
    """Changes one notification named in many transcripts at once. A state waits while it
    was saved (or restored) less than :data:`.update.BURST_STATE_SECONDS` ago."""

    SWEEPING = "sweeping"
    """A tick of the slow timer. A state waits while its transcript grew less than
    :data:`.update.BURST_STATE_SECONDS` ago (a burst may be going on)."""

    STOPPING = "stopping"
    """The stop: every state a burst left behind is saved before the service returns."""
