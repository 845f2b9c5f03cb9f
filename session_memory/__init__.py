"""session-memory: a small, always-current memory of a coding-agent session."""

from session_memory.errors import (
    BudgetError,
    ConfigError,
    SessionMemoryError,
    SnapshotError,
    TranscriptError,
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
    "TranscriptError",
    "TranscriptEvent",
    "ViewInputError",
    "read_events",
    "read_records",
]
