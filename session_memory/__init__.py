"""session-memory: a small, always-current memory of a coding-agent session.

The errors are imported with the package; the other names on first use
(:mod:`session_memory.core.startup` says why).
"""

from __future__ import annotations

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
from session_memory.core.startup import lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from session_memory.core.events import SkippedLine, TranscriptEvent
    from session_memory.core.memory import Goal, MemoryItem, Provenance, SessionMemory
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

__getattr__, __dir__ = lazy_names(
    globals(),
    __all__,
    ("session_memory.core.events", "session_memory.core.memory", "session_memory.formats.reader"),
)
