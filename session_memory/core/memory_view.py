"""The memory as plain frozen objects: what the fold publishes, without pydantic.

:class:`~session_memory.core.memory.SessionMemory` is the public model. Building it means
importing pydantic and creating its models, a fifth of a cold ``session-memory hook`` call,
for a memory the hook only renders and writes. So the deriver makes a :class:`MemoryView`
(the same fields, read the same way), :func:`memory_json` and the renderer work on either,
and the model is built from the view only when it is asked for. ``SkippedLine`` lives here
too: every reader makes them, and the hook's path must not need pydantic to do so.

``tests/session_memory/test_memory_view.py`` holds the two declarations together (the same
fields, in the same order) and the JSON of both to the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, Protocol, get_args

import orjson

from session_memory.core.per_object import PerObject

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "DIAGNOSTICS_FIELDS",
    "GOAL_FIELDS",
    "ITEM_FIELDS",
    "MEMORY_FIELDS",
    "MEMORY_SCHEMA_VERSION",
    "PROVENANCE_FIELDS",
    "SECTION_NAMES",
    "DiagnosticsView",
    "GoalView",
    "ItemView",
    "MemoryView",
    "ProvenanceView",
    "SectionName",
    "SkippedLine",
    "fields_of",
    "memory_json",
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


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A transcript line that was not applied, with where it was and why."""

    offset: int
    reason: str


class ProvenanceView(NamedTuple):
    """The fields of :class:`~session_memory.core.memory.Provenance`."""

    created_by: str
    created_step: int | None
    changed_by: str
    changed_step: int | None
    closed_by: str | None
    closed_step: int | None


class ItemView(NamedTuple):
    """The fields of :class:`~session_memory.core.memory.MemoryItem`."""

    id: str
    kind: str
    text: str
    status: str | None
    count: int  # type: ignore[assignment]  # the model's name; hides tuple.count, unused here
    safe_to_replay: bool | None
    tokens: int
    provenance: ProvenanceView


class GoalView(NamedTuple):
    """The fields of :class:`~session_memory.core.memory.Goal`."""

    text: str
    truncated: bool
    acknowledgements: int
    last_acknowledgement: str
    event_id: str
    step: int | None
    run_id: str | None
    tokens: int


class DiagnosticsView(NamedTuple):
    """The fields of :class:`~session_memory.core.memory.Diagnostics`."""

    lines_skipped: int
    skipped: tuple[SkippedLine, ...]
    duplicate_events: int
    unknown_event_types: dict[str, int]
    events_with_unknown_fields: int
    malformed_payloads: int


class MemoryView(NamedTuple):
    """The fields of :class:`~session_memory.core.memory.SessionMemory`, as the deriver made
    them."""

    schema_version: int
    session_id: str | None
    current_goal: GoalView | None
    earlier_goals: tuple[ItemView, ...]
    todo_items: tuple[ItemView, ...]
    completed_work: tuple[ItemView, ...]
    key_decisions: tuple[ItemView, ...]
    failed_attempts: tuple[ItemView, ...]
    verification_status: tuple[ItemView, ...]
    omitted: dict[str, int]
    omitted_kinds: dict[str, int]
    event_count: int
    last_event_id: str | None
    version: int
    budget_tokens: int
    encoding: str
    tokens_used: int
    diagnostics: DiagnosticsView

    def section(self, name: SectionName) -> tuple[ItemView, ...]:
        """The items of one section by name."""
        items: tuple[ItemView, ...] = getattr(self, name)
        return items

    @property
    def is_empty(self) -> bool:
        """True when there is nothing to show: no goal and no items."""
        return self.current_goal is None and not any(self.section(n) for n in SECTION_NAMES)

    def to_json(self) -> bytes:
        """The bytes :meth:`SessionMemory.to_json` gives for the same memory."""
        return memory_json(self)


PROVENANCE_FIELDS: Final = ProvenanceView._fields
ITEM_FIELDS: Final = ItemView._fields
GOAL_FIELDS: Final = GoalView._fields
DIAGNOSTICS_FIELDS: Final = DiagnosticsView._fields
MEMORY_FIELDS: Final = MemoryView._fields


class _Memory(Protocol):
    """What :func:`memory_json` reads: a :class:`MemoryView` or a ``SessionMemory``."""

    def section(self, name: SectionName) -> Sequence[Any]: ...


def fields_of(obj: object, names: tuple[str, ...]) -> dict[str, Any]:
    """The named attributes of ``obj``, in order."""
    return {name: getattr(obj, name) for name in names}


def _item_fields(item: Any) -> dict[str, Any]:
    fields = fields_of(item, ITEM_FIELDS)
    fields["provenance"] = fields_of(item.provenance, PROVENANCE_FIELDS)
    return fields


_item_json: Final = PerObject(_item_fields)
"""An item's JSON fields, made once per (frozen) item object: the items of one memory are
mostly those of the memory before, and dumping them was two thirds of the cost."""


def _diagnostics_fields(diag: Any) -> dict[str, Any]:
    fields = fields_of(diag, DIAGNOSTICS_FIELDS)
    fields["skipped"] = [{"offset": s.offset, "reason": s.reason} for s in diag.skipped]
    return fields


def memory_json(memory: _Memory) -> bytes:
    """A memory as indented JSON bytes, newline-terminated: what ``derive --json`` prints
    and ``watch`` writes to ``<session>.memory.json``; the fields in the model's order, as
    ``model_dump(mode="json")`` gives them."""
    data: dict[str, Any] = fields_of(memory, MEMORY_FIELDS)
    goal = data["current_goal"]
    if goal is not None:
        data["current_goal"] = fields_of(goal, GOAL_FIELDS)
    for name in SECTION_NAMES:
        data[name] = [_item_json(item) for item in memory.section(name)]
    data["diagnostics"] = _diagnostics_fields(data["diagnostics"])
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
