"""The fold's own event type: :class:`DecodedEvent`, a msgspec struct, without pydantic.

:mod:`session_memory.core.events` re-exports everything here beside the public model,
:class:`~session_memory.core.events.TranscriptEvent`; the service's adapters make these structs,
so a fold of Claude Code or Codex transcripts never imports pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Final, TypeAlias

import msgspec
import orjson

if TYPE_CHECKING:
    from session_memory.core.events import TranscriptEvent
    from session_memory.core.memory_view import SkippedLine

__all__ = [
    "KNOWN_EVENT_TYPES",
    "AnyEvent",
    "DecodedEvent",
    "FoldRecord",
    "Int64",
    "JsonObject",
    "Record",
    "decode_event",
    "event_from_object",
    "without_defaults",
]

JsonObject = dict[str, Any]
"""A decoded JSON object, as orjson returns it."""

KNOWN_EVENT_TYPES: Final = frozenset(
    {"message", "state_transition", "tool_lifecycle", "checkpoint", "terminal"}
)

Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
"""For msgspec: an integer orjson decodes as an ``int`` too (beyond 64 bits, a float)."""


class DecodedEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """A native event decoded from JSON bytes in one step, for the fold.

    The fields of :class:`TranscriptEvent` in its order, with its types (checked by the
    decoder as strictly as the model's validator) and defaults; JSON with any other field
    does not decode to one (the model keeps unknown fields). The fold reads it as it reads
    the model, without the cost of building one, which was most of decoding an event: a
    worker's batches decode at 4.2 µs per event this way, 12.7 through orjson and the
    validator. :func:`decode_event` makes them from a native line; :meth:`model` is the
    public model of the same event. Decoded by ``msgspec.json.Decoder(DecodedEvent)``, as
    the distributed wire does, an integer beyond 64 bits inside the payload stays an
    integer, where orjson makes it a float; no encoder of 64-bit integers (orjson, the
    publisher's) writes one.
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
        from session_memory.core.events import TranscriptEvent

        return TranscriptEvent.model_validate(self.fields_set())

    def fields_set(self) -> dict[str, Any]:
        """The fields not at their default, in their order: what the model's dump shows."""
        return without_defaults(msgspec.structs.asdict(self))


_loads: Final = orjson.loads
_convert: Final = msgspec.convert
_DecodeError: Final = (orjson.JSONDecodeError, msgspec.ValidationError)


def decode_event(line: bytes) -> DecodedEvent | None:
    """The event one native line holds, without the model; None when that is not certain.

    None for a line that is not such an event as it stands, or one whose reading by
    ``orjson.loads`` and the model's validator might differ: unknown fields (the model keeps
    them), a wrong type, a payload that is not an object, malformed JSON. The caller reads
    those the checked way, which gives the same event or says why the line is skipped. The
    line is decoded by orjson, as the checked way decodes it, so the payload's values are
    the same to the bit (an integer beyond 64 bits is a float, where msgspec's own JSON
    decoder would keep an integer); msgspec then checks the fields' types as strictly as
    the validator does and builds the struct in one step.
    """
    try:
        return _convert(_loads(line), DecodedEvent)
    except _DecodeError:
        return None


AnyEvent: TypeAlias = "TranscriptEvent | DecodedEvent"
"""An event the fold applies: the public model, or a :class:`DecodedEvent`."""
Record: TypeAlias = "TranscriptEvent | SkippedLine"
"""What reading yields: an event to apply, or a line that was skipped and why."""
FoldRecord: TypeAlias = "AnyEvent | SkippedLine"
"""What the fold applies: a :data:`Record`, or an event decoded as a ``DecodedEvent``."""


_REQUIRED: Final = object()
"""Stands for the default of a field without one: equal to no value."""

_FIELD_DEFAULTS: Final = {
    field.name: (
        _REQUIRED
        if field.required
        else field.default_factory()
        if field.default is msgspec.NODEFAULT
        else field.default
    )
    for field in msgspec.structs.fields(DecodedEvent)
}
"""Each field's default (a required field's stands for none and equals no value)."""


def without_defaults(fields: dict[str, Any]) -> dict[str, Any]:
    """An event's fields, in their order, without those at their default."""
    return {k: v for k, v in fields.items() if v != _FIELD_DEFAULTS[k]}


_validation: list[Any] = []
"""The model's own validator and its error class, found on first use: ``model_validate``
wraps the validator in a Python call that costs a measurable share of the validation
itself, on every line of a rebuild; and reading other formats never needs pydantic."""


def event_from_object(obj: JsonObject, offset: int) -> Record:
    """Validate a decoded JSON object as a :class:`TranscriptEvent`."""
    if not _validation:
        import pydantic

        from session_memory.core.events import TranscriptEvent

        _validation[:] = [
            TranscriptEvent.__pydantic_validator__.validate_python,
            pydantic.ValidationError,
        ]
    validate, invalid = _validation
    try:
        event: TranscriptEvent = validate(obj)
        return event
    except invalid as exc:
        from session_memory.core.memory_view import SkippedLine

        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "event"
        return SkippedLine(offset=offset, reason=f"invalid event: {where}: {err['msg']}")
