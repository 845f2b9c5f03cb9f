"""The native transcript event model (docs/formats.md)."""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, PlainValidator, StrictInt, StrictStr

from session_memory.core.event_struct import (
    KNOWN_EVENT_TYPES,
    AnyEvent,
    DecodedEvent,
    FoldRecord,
    Int64,
    JsonObject,
    Record,
    without_defaults,
)

__all__ = [
    "KNOWN_EVENT_TYPES",
    "AnyEvent",
    "DecodedEvent",
    "FoldRecord",
    "Int64",
    "JsonObject",
    "Record",
    "TranscriptEvent",
    "typed_event",
    "without_defaults",
]


def _json_object(value: object) -> JsonObject:
    # A plain type check instead of validating every key: the payload comes from orjson,
    # and copying it key by key was a third of the cost of reading an event.
    if type(value) is not dict:
        raise ValueError("payload must be a JSON object")
    return value


class TranscriptEvent(BaseModel):
    """One line of a native transcript.

    Unknown fields are tolerated (kept in ``model_extra``, counted by the deriver, never
    rendered); unknown ``event_type`` values are kept as they are and counted.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    event_id: StrictStr
    event_type: StrictStr
    payload: Annotated[JsonObject, PlainValidator(_json_object)] = {}
    timestamp: StrictStr | None = None
    session_id: StrictStr | None = None
    run_id: StrictStr | None = None
    step: StrictInt | None = None
    reference_id: StrictStr | None = None
    schema_version: StrictInt = 1


_new: Final = object.__new__
_set: Final = object.__setattr__
_TYPED_FIELDS: Final = frozenset(
    {"event_id", "event_type", "payload", "timestamp", "session_id", "run_id", "step"}
)


def typed_event(
    event_id: str,
    event_type: str,
    payload: JsonObject,
    timestamp: str | None,
    session_id: str | None,
    run_id: str | None,
    step: int,
) -> TranscriptEvent:
    """The :class:`TranscriptEvent` that validating these fields would give, built directly.

    For the format adapters, which make every field themselves from values of these exact
    types (``str``, a ``dict`` payload, ``int``): validating them again was a quarter of an
    adapter's cost per event. The result is the same model in every respect (equality, the
    fields set, no extra fields, its dump); ``tests/session_memory/test_events.py`` proves
    it against the validator. Foreign data still goes through the validator
    (:func:`event_from_object`).
    """
    event: TranscriptEvent = _new(TranscriptEvent)
    # What pydantic's own model_construct sets, in the fields' order, without its loop.
    _set(
        event,
        "__dict__",
        {
            "event_id": event_id,
            "event_type": event_type,
            "payload": payload,
            "timestamp": timestamp,
            "session_id": session_id,
            "run_id": run_id,
            "step": step,
            "reference_id": None,
            "schema_version": 1,
        },
    )
    _set(event, "__pydantic_fields_set__", set(_TYPED_FIELDS))
    _set(event, "__pydantic_extra__", {})
    _set(event, "__pydantic_private__", None)
    return event
