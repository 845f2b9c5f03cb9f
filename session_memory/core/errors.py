"""The one exception hierarchy of session-memory.

Foreign errors (msgspec, orjson, OSError) are translated at the boundary with
``raise ... from`` so callers need to catch only :class:`SessionMemoryError`.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "ConfigError",
    "Conflict",
    "HookInputError",
    "MemoryNotFound",
    "NotFoundError",
    "SessionMemoryError",
    "SnapshotError",
    "StateError",
    "TranscriptError",
    "TranscriptReplaced",
    "TransportError",
    "TrustError",
    "ViewInputError",
]


class SessionMemoryError(Exception):
    """Raised for every failure that session-memory reports; the root of the hierarchy."""


class ConfigError(SessionMemoryError):
    """Raised when a configuration is impossible, caught at construction."""


class TranscriptError(SessionMemoryError):
    """Raised when a transcript cannot be opened or read at all (not for bad lines)."""


class TranscriptReplaced(TranscriptError):
    """Raised when a tailed file shrank or its consumed prefix changed: re-derive it."""


class SnapshotError(SessionMemoryError):
    """Raised when deriver snapshot bytes cannot be restored."""


class StateError(SessionMemoryError):
    """Raised when a state file exists but cannot be used (it is then rebuilt, not trusted)."""


class BudgetError(SessionMemoryError):
    """Raised when required content cannot fit a token budget or context window."""


class ViewInputError(SessionMemoryError):
    """Raised when the system prompt or a history message is not a usable JSON object."""


class HookInputError(SessionMemoryError):
    """Raised when the hook's standard input is not a usable hook event."""


class TrustError(ConfigError):
    """Raised when Codex cannot be asked about its hooks or does not report them trusted."""


class NotFoundError(SessionMemoryError):
    """Raised when no known session or memory item matches what was asked for."""


class TransportError(SessionMemoryError):
    """Raised when the event log or its stores cannot be reached or refuse; retry later."""


class Conflict(TransportError):
    """Raised when a revision-checked write finds another revision: someone else wrote."""


class MemoryNotFound(SessionMemoryError):
    """Raised when the memory bucket holds nothing for a session."""
