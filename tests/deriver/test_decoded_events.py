"""A ``DecodedEvent`` folds exactly as the ``TranscriptEvent`` of the same JSON."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.core.event_struct import FoldRecord
from session_memory.core.events import DecodedEvent, TranscriptEvent
from tests.strategies import event_dicts

_decode = msgspec.json.Decoder(DecodedEvent).decode


def _decoded(event: dict[str, Any]) -> FoldRecord:
    """The event as the fast decoder gives it, or as its model if it does not decode."""
    try:
        return _decode(orjson.dumps(event))
    except msgspec.DecodeError:
        return TranscriptEvent.model_validate(event)


@settings(max_examples=60, deadline=None)
@given(event_dicts(max_size=40))
def test_a_decoded_event_folds_as_its_model(events: list[dict[str, Any]]) -> None:
    """Folding the decoded events gives the memory, snapshot and diagnostics of the models."""
    models = SessionMemoryDeriver.rebuild([TranscriptEvent.model_validate(e) for e in events])
    decoded = [_decoded(e) for e in events]
    fast = SessionMemoryDeriver.rebuild(decoded)
    assert fast.snapshot() == models.snapshot()
    assert fast.memory == models.memory
    assert fast.version == models.version


@given(st.text(max_size=6), st.sampled_from(["\ud800", "a\udfffb", "é"]))
def test_ids_with_lone_surrogates_are_cleaned_as_for_the_model(prefix: str, odd: str) -> None:
    """An id a decoder could not have made (a lone surrogate) is cleaned as the model's is."""
    payload = {"role": "user", "content": "fix the build"}
    model = SessionMemoryDeriver()
    model.apply(
        TranscriptEvent(
            event_id=prefix + odd, event_type="message", payload=payload, session_id=odd
        )
    )
    fast = SessionMemoryDeriver()
    fast.apply(DecodedEvent(prefix + odd, "message", payload, session_id=odd))
    assert fast.snapshot() == model.snapshot()
    assert fast.memory == model.memory


def test_the_model_of_a_decoded_event_is_the_validated_one() -> None:
    """``DecodedEvent.model`` is the event the validator makes of the same JSON."""
    line = b'{"event_id":"e1","event_type":"message","payload":{"role":"user"},"step":3}'
    assert _decode(line).model() == TranscriptEvent.model_validate_json(line)
    assert _decode(line).model().model_fields_set == {"event_id", "event_type", "payload", "step"}


def test_a_decoded_event_has_the_models_fields_in_order_with_its_defaults() -> None:
    """The struct declares the model's fields again: same names, same order, same defaults."""
    fields = TranscriptEvent.model_fields
    assert DecodedEvent.__struct_fields__ == tuple(fields)
    bare = msgspec.structs.asdict(DecodedEvent(event_id="e", event_type="t"))
    defaults = {name: info.default for name, info in fields.items() if not info.is_required()}
    assert {name: bare[name] for name in defaults} == defaults
