"""The session memory: a frozen view of what the deriver knows at one point of a transcript.

These structs are the one declaration of the memory: the deriver builds them, the renderer
and the JSON outputs read them, and they are what the library returns. They are frozen
msgspec structs rather than pydantic models for the reason :mod:`session_memory.core.events`
gives: a fold that writes a memory (a cold ``session-memory hook`` call, ``derive``, the
service) needs no pydantic. ``msgspec.json.decode(data, type=SessionMemory)`` reads the JSON
of :meth:`SessionMemory.to_json` back to an equal memory.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

import msgspec
import orjson

from session_memory.core.events import SkippedLine

__all__ = [
    "MEMORY_SCHEMA_VERSION",
    "SECTION_NAMES",
    "Diagnostics",
    "Goal",
    "MemoryItem",
    "Provenance",
    "SectionName",
    "SessionMemory",
    "SkippedLine",
]

MEMORY_SCHEMA_VERSION: Final = 2
"""Version 2 adds ``where_stands``."""

SectionName = Literal[
    "where_stands",
    "earlier_goals",
    "todo_items",
    "completed_work",
    "key_decisions",
    "failed_attempts",
    "verification_status",
]
SECTION_NAMES: Final[tuple[SectionName, ...]] = get_args(SectionName)


class Provenance(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The events that created, last changed and closed an item."""

    created_by: str
    created_step: int | None = None
    changed_by: str
    changed_step: int | None = None
    closed_by: str | None = None
    closed_step: int | None = None


class MemoryItem(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One line of memory: its text, a stable id, what kind of fact it is, and provenance.

    ``status`` is section specific: ``pending``/``in_progress``/``completed``/``replan``/
    ``uncertain`` for todos, ``passed``/``failed``/``stale``/``earlier_push``/``blocked``/
    ``warning``/``ended`` for verification, ``open``/``resolved`` for failures.
    """

    id: str
    kind: str
    text: str
    status: str | None = None
    count: int = 1
    safe_to_replay: bool | None = None
    tokens: int
    provenance: Provenance


class Goal(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The latest real user request, verbatim up to a token cap."""

    text: str
    truncated: bool = False
    acknowledgements: int = 0
    last_acknowledgement: str = ""
    event_id: str
    step: int | None = None
    run_id: str | None = None
    tokens: int


class Diagnostics(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the deriver saw but kept out of the memory."""

    lines_skipped: int = 0
    skipped: tuple[SkippedLine, ...] = ()
    duplicate_events: int = 0
    unknown_event_types: dict[str, int] = {}
    events_with_unknown_fields: int = 0
    malformed_payloads: int = 0


class SessionMemory(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The derived memory of one session at one point of its transcript."""

    schema_version: int = MEMORY_SCHEMA_VERSION
    session_id: str | None = None
    current_goal: Goal | None = None
    where_stands: tuple[MemoryItem, ...] = ()
    """Where the session stands at its end: never evicted, a bounded share of the budget."""
    earlier_goals: tuple[MemoryItem, ...] = ()
    todo_items: tuple[MemoryItem, ...] = ()
    completed_work: tuple[MemoryItem, ...] = ()
    key_decisions: tuple[MemoryItem, ...] = ()
    failed_attempts: tuple[MemoryItem, ...] = ()
    verification_status: tuple[MemoryItem, ...] = ()
    omitted: dict[str, int] = {}
    omitted_kinds: dict[str, int] = {}
    event_count: int = 0
    last_event_id: str | None = None
    version: int = 0
    budget_tokens: int
    encoding: str
    tokens_used: int
    diagnostics: Diagnostics = msgspec.field(default_factory=Diagnostics)

    def section(self, name: SectionName) -> tuple[MemoryItem, ...]:
        """The items of one section by name."""
        items: tuple[MemoryItem, ...] = getattr(self, name)
        return items

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to show: no goal and no items."""
        return self.current_goal is None and not any(self.section(n) for n in SECTION_NAMES)

    def to_json(self) -> bytes:
        """The memory as indented JSON bytes, newline-terminated: what ``derive --json``
        prints and ``watch`` writes to ``<session>.memory.json``; the fields in their
        declared order."""
        return orjson.dumps(msgspec.to_builtins(self), option=orjson.OPT_INDENT_2) + b"\n"
