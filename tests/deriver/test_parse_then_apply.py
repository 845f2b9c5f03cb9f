"""Parse, then apply: a payload that says nothing, or that cannot be parsed, changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from deriver.rules import Handler
from session_memory.core.events import KNOWN_EVENT_TYPES, TranscriptEvent
from session_memory.core.memory import Diagnostics
from session_memory.formats.reader import read_records

SAMPLE = Path(__file__).parents[2] / "examples" / "sample_transcript.jsonl"
BASE = SessionMemoryDeriver.rebuild(list(read_records(SAMPLE))[:400]).snapshot()

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["role", "content", "metadata", "status", "tool_call_id", "tool_name", "args", "result",
     "error", "exit_code", "reason", "details", "checkpoint_id", "summary"]
)  # fmt: skip
PAYLOADS = st.dictionaries(FIELDS, JSON, max_size=6)


def _fold_state(deriver: SessionMemoryDeriver) -> tuple[Any, Any, Any]:
    """What a payload may change: the store, the rules' state and the memory's content."""
    state = orjson.loads(deriver.snapshot())
    memory = msgspec.structs.replace(
        deriver.memory, event_count=0, last_event_id=None, diagnostics=Diagnostics()
    )
    return state["store"], state["rules"], memory


def _event(event_type: str, payload: dict[str, Any]) -> TranscriptEvent:
    return TranscriptEvent(event_id="probe", event_type=event_type, payload=payload, run_id="r")


class TestParseThenApply:
    @given(st.sampled_from(sorted(KNOWN_EVENT_TYPES)), PAYLOADS)
    @settings(max_examples=300, deadline=None)
    def test_a_payload_that_parses_to_nothing_changes_nothing(
        self, event_type: str, payload: dict[str, Any]
    ) -> None:
        """When parsing finds nothing for the memory, the memory and snapshot stay as they were."""
        deriver = SessionMemoryDeriver.restore(BASE)
        event = _event(event_type, payload)
        if deriver._rules.handlers[event_type].parse(event) is not None:
            return
        before = _fold_state(deriver)
        version = deriver.version
        assert deriver.apply(event)
        assert _fold_state(deriver) == before
        assert deriver.version == version

    @given(st.sampled_from(sorted(KNOWN_EVENT_TYPES)), PAYLOADS)
    @settings(max_examples=100, deadline=None)
    def test_a_malformed_payload_is_counted_and_changes_nothing(
        self, event_type: str, payload: dict[str, Any]
    ) -> None:
        """A payload whose parse fails is counted as malformed; the memory stays as it was."""
        deriver = SessionMemoryDeriver.restore(BASE)

        def unreadable(event: TranscriptEvent) -> None:
            raise ValueError("a payload of an unexpected shape")

        applied = deriver._handlers[event_type].apply
        deriver._handlers[event_type] = Handler(unreadable, applied)
        before = _fold_state(deriver)
        version = deriver.version
        malformed = deriver.memory.diagnostics.malformed_payloads
        assert deriver.apply(_event(event_type, payload))
        assert _fold_state(deriver) == before
        assert deriver.version == version
        assert deriver.memory.diagnostics.malformed_payloads == malformed + 1

    @given(st.sampled_from(sorted(KNOWN_EVENT_TYPES)), PAYLOADS)
    @settings(max_examples=300, deadline=None)
    def test_real_parsers_never_fail(self, event_type: str, payload: dict[str, Any]) -> None:
        """The parsers are total: no JSON payload is malformed to them."""
        deriver = SessionMemoryDeriver.restore(BASE)
        deriver._rules.handlers[event_type].parse(_event(event_type, payload))
