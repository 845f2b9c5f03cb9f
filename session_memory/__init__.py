"""session-memory: a small, always-current memory of a coding-agent session.

The public names below are imported on first use (PEP 562), so that a command which needs
none of them (``--help``, a hook call whose state is current) does not pay for the pydantic
models and the readers at start-up, nor even for :mod:`typing` and :mod:`importlib`.
"""

from __future__ import annotations

from session_memory.core.lazy_names import lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from session_memory.core.errors import (
        BudgetError,
        ConfigError,
        SessionMemoryError,
        SnapshotError,
        StateError,
        TranscriptError,
        TranscriptReplaced,
        ViewInputError,
    )
    from session_memory.core.events import TranscriptEvent
    from session_memory.core.memory import Goal, MemoryItem, Provenance, SessionMemory, SkippedLine
    from session_memory.formats.reader import read_events, read_records

__all__ = [
    "BudgetError",
    "ConfigError",
    "Goal",
    "MemoryItem",
    "Provenance",
    "SessionMemory",
    "SessionMemoryError",
    "SkippedLine",
    "SnapshotError",
    "StateError",
    "TranscriptError",
    "TranscriptEvent",
    "TranscriptReplaced",
    "ViewInputError",
    "read_events",
    "read_records",
]

_HOME: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "BudgetError",
            "ConfigError",
            "SessionMemoryError",
            "SnapshotError",
            "StateError",
            "TranscriptError",
            "TranscriptReplaced",
            "ViewInputError",
        ),
        "session_memory.core.errors",
    ),
    "TranscriptEvent": "session_memory.core.events",
    **dict.fromkeys(
        ("Goal", "MemoryItem", "Provenance", "SessionMemory", "SkippedLine"),
        "session_memory.core.memory",
    ),
    "read_events": "session_memory.formats.reader",
    "read_records": "session_memory.formats.reader",
}


__getattr__, __dir__ = lazy_names(__name__, _HOME, globals())
