"""The native transcript event, and what reading a transcript yields: events and skips.

:class:`TranscriptEvent` is the one declaration of an event: the public type, the type the
adapters make, the fold applies and the distributed log carries. It is a frozen msgspec
struct rather than a pydantic model, so that a fold needs no pydantic: importing pydantic
and building its models took ~200 ms of an 845 ms cold ``session-memory hook`` call on a
3 MB Claude Code transcript (CPU, load ~3, ``benchmarks/bench_startup.py``), beyond the
1 s budget, and a struct is made and read faster than a model (the distributed worker's
batches decode straight into them, ``session_memory.apps.distributed.wire``).

Foreign data (a line of a transcript, a mapping given to the deriver, a message on the log)
becomes an event through :func:`event_from_object`, which checks every field's type as
strictly as the declaration says (no coercion: ``"3"`` is not a step) and says why when it
cannot.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

import msgspec

__all__ = [
    "KNOWN_EVENT_TYPES",
    "JsonObject",
    "Record",
    "SkippedLine",
    "TranscriptEvent",
    "event_fields",
    "event_from_object",
]

JsonObject: TypeAlias = dict[str, Any]
"""A decoded JSON object, as orjson returns it."""

KNOWN_EVENT_TYPES: Final = frozenset(
    {"message", "state_transition", "tool_lifecycle", "checkpoint", "terminal"}
)

_UNKNOWN: Final = "unknown_fields"


class TranscriptEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """One line of a native transcript (``docs/formats.md`` gives the shapes).

    Unknown fields are tolerated: :func:`event_from_object` keeps them in
    ``unknown_fields`` (the deriver counts such events, never renders them); unknown
    ``event_type`` values are kept as they are and counted.
    """

    # gc=False: an event refers to no object that refers back to it, so the cyclic
    # collector need not track the millions a long fold makes.

    event_id: str
    event_type: str
    payload: JsonObject = {}
    timestamp: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    step: int | None = None
    reference_id: str | None = None
    schema_version: int = 1
    unknown_fields: JsonObject | None = None
    """The line's fields that are none of the above, as they were (None: there were none);
    never read from a field of that name (such a field is itself unknown)."""


class SkippedLine(msgspec.Struct, frozen=True):
    """A transcript line that was not applied, with where it was and why."""

    offset: int
    reason: str


Record: TypeAlias = TranscriptEvent | SkippedLine
"""What reading yields: an event to apply, or a line that was skipped and why."""

_FIELDS: Final = tuple(f for f in msgspec.structs.fields(TranscriptEvent) if f.name != _UNKNOWN)
_NAMES: Final = frozenset(f.name for f in _FIELDS)
_REQUIRED: Final = object()
"""Stands for the default of a field without one: equal to no value."""
_DEFAULTS: Final = {
    f.name: (
        _REQUIRED
        if f.required
        else f.default_factory()
        if f.default is msgspec.NODEFAULT
        else f.default
    )
    for f in _FIELDS
}
_convert: Final = msgspec.convert


def event_from_object(obj: JsonObject, offset: int) -> Record:
    """The event a decoded JSON object holds, or the :class:`SkippedLine` (at ``offset``)
    saying why it holds none."""
    if _UNKNOWN not in obj:
        try:
            event: TranscriptEvent = _convert(obj, TranscriptEvent)
            return event
        except msgspec.ValidationError:
            pass  # unknown fields, or a field of the wrong type: below says which
    known = {k: v for k, v in obj.items() if k in _NAMES}
    try:
        event = _convert(known, TranscriptEvent)
    except msgspec.ValidationError as exc:
        return SkippedLine(offset=offset, reason=f"invalid event: {exc}")
    unknown = {k: v for k, v in obj.items() if k not in _NAMES}
    return msgspec.structs.replace(event, unknown_fields=unknown)


def event_fields(event: TranscriptEvent) -> JsonObject:
    """The JSON object of an event: its fields not at their default, in their order, then
    its unknown fields (what :func:`event_from_object` reads back as the same event)."""
    fields = {
        f.name: value for f in _FIELDS if (value := getattr(event, f.name)) != _DEFAULTS[f.name]
    }
    if event.unknown_fields:
        fields.update(event.unknown_fields)
    return fields
