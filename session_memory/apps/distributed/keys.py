"""The keys of the buckets: a session's state and memory, a partition's checkpoint and lease,
a worker's heartbeat (see ``docs/distributed.md``, *What is where*)."""

from __future__ import annotations

__all__ = ["checkpoint_key", "heartbeat_key", "lease_key", "memory_keys", "state_key"]


def state_key(session: str) -> str:
    """The key of a session's fold state in the state bucket."""
    return f"s.{session}"


def memory_keys(session: str) -> tuple[str, str]:
    """The keys of a session's memory (JSON, Markdown) in the memory bucket."""
    return f"{session}.json", f"{session}.md"


def checkpoint_key(partition: int) -> str:
    """The key of a partition's checkpoint in the state bucket."""
    return f"p.{partition}"


def lease_key(partition: int) -> str:
    """The key of a partition's lease in the leases bucket."""
    return f"p.{partition}"


def heartbeat_key(worker_id: str) -> str:
    """The key of a worker's heartbeat in the leases bucket."""
    return f"w.{worker_id}"
