"""The session memory: a frozen view of what the deriver knows (DESIGN section 3)."""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict

from session_memory.per_object import PerObject

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

MEMORY_SCHEMA_VERSION: Final = 1

SectionName = Literal[
    "earlier_goals",
    "todo_items",
    "completed_work",
    "key_decisions",
    "failed_attempts",
    "verification_status",
]
SECTION_NAMES: Final[tuple[SectionName, ...]] = get_args(SectionName)

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


class SkippedLine(BaseModel):
    """A transcript line that was not applied, with where it was and why."""

    model_config = _FROZEN

    offset: int
    reason: str


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
        prints and ``watch`` writes to ``<session>.memory.json``.

        ``model_dump`` in JSON mode, each item's fields made once per item object: the items
        of one memory are mostly those of the memory before, and dumping them was two
        thirds of the cost (40 items: 145 µs, 50 with their fields kept).
        """
        data = self.model_dump(mode="json", exclude=_SECTIONS)
        for name in SECTION_NAMES:
            data[name] = [_item_fields(item) for item in self.section(name)]
        fields = {name: data[name] for name in type(self).model_fields}
        return orjson.dumps(fields, option=orjson.OPT_INDENT_2) + b"\n"

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to show: no goal and no items."""
        return self.current_goal is None and not any(self.section(n) for n in SECTION_NAMES)


def _dump_item(item: MemoryItem) -> dict[str, Any]:
    return item.model_dump(mode="json")


_item_fields: Final = PerObject(_dump_item)
"""An item's JSON fields, made once per (frozen) item object."""
_SECTIONS: Final[set[str]] = set(SECTION_NAMES)
