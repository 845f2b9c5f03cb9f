"""The event model: events built from typed fields are the events validation gives."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_memory.core.events import TranscriptEvent, typed_event

_TEXT = st.text(max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_FIELDS = st.fixed_dictionaries(
    {
        "event_id": _TEXT,
        "event_type": st.sampled_from(["message", "tool_lifecycle", "checkpoint", "other"]),
        "payload": st.dictionaries(_TEXT, _JSON, max_size=4),
        "timestamp": st.none() | _TEXT,
        "session_id": st.none() | _TEXT,
        "run_id": st.none() | _TEXT,
        "step": st.integers(min_value=0, max_value=2**40),
    }
)


class TestTypedEvent:
    @given(_FIELDS)
    def test_same_event_as_validation(self, fields: dict[str, Any]) -> None:
        """An event built from typed fields equals, dumps and copies as the validated one."""
        validated = TranscriptEvent(**fields)
        typed = typed_event(**fields)
        assert type(typed) is TranscriptEvent
        assert typed == validated
        assert repr(typed) == repr(validated)
        assert list(typed.model_dump()) == list(validated.model_dump())
        assert typed.model_dump() == validated.model_dump()
        assert typed.model_dump(exclude_defaults=True) == validated.model_dump(
            exclude_defaults=True
        )
        assert typed.model_dump_json() == validated.model_dump_json()
        assert typed.model_fields_set == validated.model_fields_set
        assert typed.model_extra == validated.model_extra == {}
        assert typed.model_copy(update={"event_id": "x"}) == validated.model_copy(
            update={"event_id": "x"}
        )
        assert pickle.loads(pickle.dumps(typed)) == validated
        assert copy.deepcopy(typed) == validated

    def test_frozen_like_a_validated_event(self) -> None:
        """An event built from typed fields refuses assignment, as every event does."""
        event = typed_event("e1", "message", {}, None, None, None, 0)
        with pytest.raises(pydantic.ValidationError):
            event.event_id = "e2"
        assert event.event_id == "e1"

    def test_fields_set_are_not_shared(self) -> None:
        """Each event has its own set of fields set, so a copy's changes stay its own."""
        first = typed_event("e1", "message", {}, None, None, None, 0)
        second = typed_event("e2", "message", {}, None, None, None, 1)
        assert first.model_fields_set is not second.model_fields_set
