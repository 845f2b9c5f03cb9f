"""The deriver's view of the memory: the model's fields, its JSON and Markdown to the byte."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.core.memory import (
    Diagnostics,
    Goal,
    MemoryItem,
    Provenance,
    SessionMemory,
    SkippedLine,
)
from session_memory.core.memory_view import (
    DIAGNOSTICS_FIELDS,
    GOAL_FIELDS,
    ITEM_FIELDS,
    MEMORY_FIELDS,
    PROVENANCE_FIELDS,
    MemoryView,
)
from tests.strategies import event_dicts
from viewbuilder import render_memory


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (Provenance, PROVENANCE_FIELDS),
        (MemoryItem, ITEM_FIELDS),
        (Goal, GOAL_FIELDS),
        (Diagnostics, DIAGNOSTICS_FIELDS),
        (SessionMemory, MEMORY_FIELDS),
    ],
)
def test_a_view_declares_the_fields_of_its_model_in_their_order(
    model: type[Any], fields: tuple[str, ...]
) -> None:
    """Each view has its model's fields, in the order the JSON shows them."""
    assert fields == tuple(model.model_fields)


def _plain_json(memory: SessionMemory) -> bytes:
    return orjson.dumps(memory.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n"


@settings(max_examples=60, deadline=None)
@given(event_dicts(max_size=30), st.lists(st.integers(0, 10**9), max_size=3))
def test_the_view_gives_the_json_and_markdown_of_the_model(
    events: list[dict[str, Any]], skips: list[int]
) -> None:
    """After every event and skipped line, the view's JSON and Markdown are the model's,
    which are its plain ``model_dump``; the model built from the view equals it."""
    deriver = SessionMemoryDeriver()
    for offset in skips:
        deriver.record_skip(SkippedLine(offset=offset, reason=f"line at {offset}"))
    for event in events:
        deriver.apply(event)
        view = deriver.memory_view
        memory = deriver.memory
        assert isinstance(view, MemoryView)
        assert view.to_json() == memory.to_json() == _plain_json(memory)
        assert render_memory(view) == render_memory(memory)
        assert SessionMemory.model_validate_json(view.to_json()) == memory


def test_a_memory_is_built_once_per_view() -> None:
    """Asking twice without a change gives the same objects; a change gives new ones."""
    deriver = SessionMemoryDeriver()
    deriver.apply({"event_id": "e1", "event_type": "message", "payload": {"role": "user"}})
    view, memory = deriver.memory_view, deriver.memory
    assert deriver.memory_view is view and deriver.memory is memory
    deriver.apply(
        {"event_id": "e2", "event_type": "message", "payload": {"role": "user", "content": "Go"}}
    )
    assert deriver.memory_view is not view and deriver.memory is not memory
    assert deriver.memory.current_goal is not None


def test_skipped_lines_are_plain_records_that_the_model_validates() -> None:
    """A skipped line is a frozen record; in a memory's JSON it reads back as the same."""
    skip = SkippedLine(offset=12, reason="blank line")
    memory = SessionMemory(
        budget_tokens=100,
        encoding="cl100k_base",
        tokens_used=0,
        diagnostics=Diagnostics(lines_skipped=1, skipped=(skip,)),
    )
    again = SessionMemory.model_validate_json(memory.to_json())
    assert again.diagnostics.skipped == (skip,)
    assert b'"offset": 12' in memory.to_json()
    with pytest.raises(AttributeError):
        skip.offset = 3  # type: ignore[misc]
