"""The memory: built by the deriver once per change, its JSON read back to an equal memory."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.core.memory import Diagnostics, SessionMemory, SkippedLine
from tests.strategies import event_dicts
from viewbuilder import render_memory


@settings(max_examples=60, deadline=None)
@given(event_dicts(max_size=30), st.lists(st.integers(0, 10**9), max_size=3))
def test_the_json_of_a_memory_reads_back_to_it(
    events: list[dict[str, Any]], skips: list[int]
) -> None:
    """After every event and skipped line, the memory's JSON is its fields in declared
    order, and reads back to an equal memory that renders the same."""
    deriver = SessionMemoryDeriver()
    for offset in skips:
        deriver.record_skip(SkippedLine(offset=offset, reason=f"line at {offset}"))
    for event in events:
        deriver.apply(event)
        memory = deriver.memory
        data = memory.to_json()
        assert list(orjson.loads(data)) == list(SessionMemory.__struct_fields__)
        again = msgspec.json.decode(data, type=SessionMemory)
        assert again == memory
        assert render_memory(again) == render_memory(memory)


def test_a_memory_is_built_once_per_change() -> None:
    """Asking twice without a change gives the same object; a change gives a new one."""
    deriver = SessionMemoryDeriver()
    deriver.apply({"event_id": "e1", "event_type": "message", "payload": {"role": "user"}})
    memory = deriver.memory
    assert deriver.memory is memory
    deriver.apply(
        {"event_id": "e2", "event_type": "message", "payload": {"role": "user", "content": "Go"}}
    )
    assert deriver.memory is not memory
    assert deriver.memory.current_goal is not None


def test_skipped_lines_are_frozen_and_read_back_from_the_json() -> None:
    """A skipped line is a frozen record; in a memory's JSON it reads back as the same."""
    skip = SkippedLine(offset=12, reason="blank line")
    memory = SessionMemory(
        budget_tokens=100,
        encoding="cl100k_base",
        tokens_used=0,
        diagnostics=Diagnostics(lines_skipped=1, skipped=(skip,)),
    )
    again = msgspec.json.decode(memory.to_json(), type=SessionMemory)
    assert again.diagnostics.skipped == (skip,)
    assert b'"offset": 12' in memory.to_json()
    with pytest.raises(AttributeError):
        skip.offset = 3  # type: ignore[misc]


def test_json_of_another_shape_is_refused() -> None:
    """Reading back refuses a field the memory does not declare."""
    data = orjson.loads(SessionMemory(budget_tokens=1, encoding="e", tokens_used=0).to_json())
    data["surplus"] = 1
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(data, SessionMemory)
