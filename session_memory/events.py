"""The native transcript event model (DESIGN section 2)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, PlainValidator, StrictInt, StrictStr

__all__ = ["KNOWN_EVENT_TYPES", "JsonObject", "TranscriptEvent"]

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
