"""session-memory: a small, always-current memory of a coding-agent session."""

from session_memory.errors import (
    BudgetError,
    ConfigError,
    SessionMemoryError,
    SnapshotError,
    StateError,
    TranscriptError,
    TranscriptReplaced,
    ViewInputError,
)
from session_memory.events import TranscriptEvent
from session_memory.memory import Goal, MemoryItem, Provenance, SessionMemory, SkippedLine
from session_memory.reader import read_events, read_records

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
