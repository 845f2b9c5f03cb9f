"""The session memory: a frozen view of what the deriver knows (docs/rules.md)."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from session_memory.core.memory_view import (
    DIAGNOSTICS_FIELDS,
    GOAL_FIELDS,
    ITEM_FIELDS,
    MEMORY_FIELDS,
    MEMORY_SCHEMA_VERSION,
    PROVENANCE_FIELDS,
    SECTION_NAMES,
    MemoryView,
    SectionName,
    SkippedLine,
    fields_of,
    memory_json,
)
from session_memory.core.per_object import PerObject

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

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Provenance(BaseModel):
    """The events that created, last changed and closed an item."""

    model_config = _FROZEN

    created_by: str
    created_step: int | None = None
    changed_by: str
    changed_step: int | None = None
    closed_by: str | None = None
    closed_step: int | None = None


class MemoryItem(BaseModel):
    """One line of memory: its text, a stable id, what kind of fact it is, and provenance.

    ``status`` is section specific: ``pending``/``in_progress``/``completed``/``replan``/
    ``uncertain`` for todos, ``passed``/``failed``/``stale``/``blocked``/``warning``/``ended``
    for verification, ``open``/``resolved`` for failures.
    """

    model_config = _FROZEN

    id: str
    kind: str
    text: str
    status: str | None = None
    count: int = 1
    safe_to_replay: bool | None = None
    tokens: int
    provenance: Provenance


class Goal(BaseModel):
    """The latest real user request, verbatim up to a token cap."""

    model_config = _FROZEN

    text: str
    truncated: bool = False
    acknowledgements: int = 0
    last_acknowledgement: str = ""
    event_id: str
    step: int | None = None
    run_id: str | None = None
    tokens: int


class Diagnostics(BaseModel):
    """What the deriver saw but kept out of the memory."""

    model_config = _FROZEN

    lines_skipped: int = 0
    skipped: tuple[SkippedLine, ...] = ()
    duplicate_events: int = 0
    unknown_event_types: dict[str, int] = {}
    events_with_unknown_fields: int = 0
    malformed_payloads: int = 0


class SessionMemory(BaseModel):
    """The derived memory of one session at one point of its transcript."""

    model_config = _FROZEN

    schema_version: int = MEMORY_SCHEMA_VERSION
    session_id: str | None = None
    current_goal: Goal | None = None
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
    diagnostics: Diagnostics = Diagnostics()

    def section(self, name: SectionName) -> tuple[MemoryItem, ...]:
        """The items of one section by name."""
        items: tuple[MemoryItem, ...] = getattr(self, name)
        return items

    def to_json(self) -> bytes:
        """The memory as indented JSON bytes, newline-terminated: what ``derive --json``
        prints and ``watch`` writes to ``<session>.memory.json``: the bytes of
        ``model_dump`` in JSON mode, each item's fields made once per item object."""
        return memory_json(self)

    @classmethod
    def from_view(cls, view: MemoryView) -> SessionMemory:
        """The model of a memory the deriver made; each item's model made once per item."""
        fields = fields_of(view, MEMORY_FIELDS)
        goal = view.current_goal
        if goal is not None:
            fields["current_goal"] = Goal(**fields_of(goal, GOAL_FIELDS))
        for name in SECTION_NAMES:
            fields[name] = tuple(_item_model(item) for item in view.section(name))
        fields["diagnostics"] = Diagnostics(**fields_of(view.diagnostics, DIAGNOSTICS_FIELDS))
        return cls(**fields)

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to show: no goal and no items."""
        return self.current_goal is None and not any(self.section(n) for n in SECTION_NAMES)


def _build_item(item: Any) -> MemoryItem:
    fields = fields_of(item, ITEM_FIELDS)
    fields["provenance"] = Provenance(**fields_of(item.provenance, PROVENANCE_FIELDS))
    return MemoryItem(**fields)


_item_model: Final = PerObject(_build_item)
"""An item view's model, made once per (frozen) view object."""
