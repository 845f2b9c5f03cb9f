"""The native transcript event model (DESIGN section 2)."""

from __future__ import annotations

from typing import Annotated, Any, Final, TypeAlias

import msgspec
from pydantic import BaseModel, ConfigDict, PlainValidator, StrictInt, StrictStr

__all__ = [
    "KNOWN_EVENT_TYPES",
    "AnyEvent",
    "DecodedEvent",
    "Int64",
    "JsonObject",
    "TranscriptEvent",
    "typed_event",
    "without_defaults",
]

JsonObject = dict[str, Any]
"""A decoded JSON object, as orjson returns it."""

KNOWN_EVENT_TYPES: Final = frozenset(
    {"message", "state_transition", "tool_lifecycle", "checkpoint", "terminal"}
)


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


Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
"""For msgspec: an integer orjson decodes as an ``int`` too (beyond 64 bits, a float)."""


class DecodedEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A native event decoded from JSON bytes in one step, for the fold.

    The fields of :class:`TranscriptEvent` in its order, with its types (checked by the
    decoder as strictly as the model's validator) and defaults; JSON with any other field
    does not decode to one (the model keeps unknown fields). The fold reads it as it reads
    the model, without the cost of building one, which was most of decoding an event: a
    worker's batches decode at 4.2 µs per event this way, 12.7 through orjson and the
    validator. ``msgspec.json.Decoder(DecodedEvent)`` makes them; :meth:`model` is the
    public model of the same event. One difference in what JSON decodes to: an integer
    beyond 64 bits inside the payload stays an integer, where orjson makes it a float; no
    encoder of 64-bit integers (orjson, the publisher's) writes one.
    """

    event_id: str
    event_type: str
    payload: JsonObject = {}
    timestamp: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    step: Int64 | None = None
    reference_id: str | None = None
    schema_version: Int64 = 1

    def model(self) -> TranscriptEvent:
        """The same event as the public model (its fields set: those not at their default)."""
        return TranscriptEvent.model_validate(self.fields_set())

    def fields_set(self) -> dict[str, Any]:
        """The fields not at their default, in their order: what the model's dump shows."""
        return without_defaults(msgspec.structs.asdict(self))


AnyEvent: TypeAlias = TranscriptEvent | DecodedEvent
"""An event the fold applies: the public model, or a :class:`DecodedEvent`."""

_REQUIRED: Final = object()
"""Stands for the default of a field without one: equal to no value."""

_FIELD_DEFAULTS: Final = {
    name: _REQUIRED if info.is_required() else info.default
    for name, info in TranscriptEvent.model_fields.items()
}
"""Each field's default (a required field's stands for none and equals no value)."""


def without_defaults(fields: dict[str, Any]) -> dict[str, Any]:
    """An event's fields, in their order, without those at their default."""
    return {k: v for k, v in fields.items() if v != _FIELD_DEFAULTS[k]}


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
    (:func:`session_memory.reader.event_from_object`).
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
