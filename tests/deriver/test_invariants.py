"""The invariants the README lists under "Guarantees", each as a hypothesis property."""

from __future__ import annotations

import io
import itertools
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.core.memory import SessionMemory
from session_memory.core.tokens import counter
from session_memory.formats.reader import read_records
from tests.strategies import event_dicts, json_values
from viewbuilder import render_memory

PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SMALL_BUDGET = 300  # tight enough that eviction happens in most examples


def dump(memory: SessionMemory) -> dict[str, Any]:
    fields: dict[str, Any] = orjson.loads(memory.to_json())
    return fields


def as_jsonl(events: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


class TestSplitEquivalence:
    @PROPERTY_SETTINGS
    @given(events=event_dicts(), cuts=st.lists(st.integers(0, 40), max_size=5))
    def test_batches_equal_rebuild(self, events: list[dict[str, Any]], cuts: list[int]) -> None:
        """Applying events in any batches gives the memory a full rebuild gives."""
        full = SessionMemoryDeriver.rebuild(events, budget_tokens=SMALL_BUDGET)
        assert full.memory.diagnostics.malformed_payloads == 0
        incremental = SessionMemoryDeriver(budget_tokens=SMALL_BUDGET)
        bounds = sorted({0, len(events), *(c for c in cuts if c <= len(events))})
        for start, end in itertools.pairwise(bounds):
            incremental.apply_all(events[start:end])
            _ = incremental.memory  # reading the memory between batches changes nothing
        assert dump(incremental.memory) == dump(full.memory)


class TestSnapshotEquivalence:
    @PROPERTY_SETTINGS
    @given(events=event_dicts(), k=st.integers(0, 40))
    def test_restore_then_rest_equals_rebuild(self, events: list[dict[str, Any]], k: int) -> None:
        """Snapshot after k events, restore from bytes in a fresh deriver, apply the rest."""
        k = min(k, len(events))
        first = SessionMemoryDeriver.rebuild(events[:k], budget_tokens=SMALL_BUDGET)
        restored = SessionMemoryDeriver.restore(first.snapshot())
        assert dump(restored.memory) == dump(first.memory)
        restored.apply_all(events[k:])
        full = SessionMemoryDeriver.rebuild(events, budget_tokens=SMALL_BUDGET)
        assert dump(restored.memory) == dump(full.memory)
        assert restored.snapshot() == full.snapshot()


class TestBudget:
    @PROPERTY_SETTINGS
    @given(events=event_dicts(max_size=60), budget=st.integers(260, 1500))
    def test_rendered_memory_never_exceeds_budget(
        self, events: list[dict[str, Any]], budget: int
    ) -> None:
        """After every event the exact token count of the rendering is within the budget."""
        deriver = SessionMemoryDeriver(budget_tokens=budget)
        count = counter().count
        for event in events:
            deriver.apply(event)
            memory = deriver.memory
            exact = count(render_memory(memory))
            assert exact <= budget
            assert exact == memory.tokens_used

    @PROPERTY_SETTINGS
    @given(goal=st.text(min_size=1, max_size=3000).filter(str.strip), budget=st.integers(260, 800))
    def test_long_goal_is_shortened_not_dropped(self, goal: str, budget: int) -> None:
        """A goal of any length is kept, shortened to fit, and the memory fits the budget."""
        deriver = SessionMemoryDeriver(budget_tokens=budget)
        deriver.apply(
            {"event_id": "e", "event_type": "message", "payload": {"role": "user", "content": goal}}
        )
        memory = deriver.memory
        assert memory.current_goal is not None
        assert counter().count(render_memory(memory)) <= budget


class TestTotality:
    @settings(max_examples=300, deadline=None)
    @given(values=st.lists(json_values, max_size=10))
    def test_apply_accepts_any_json_value(self, values: list[Any]) -> None:
        """No JSON value makes apply raise; non-events are counted as skipped."""
        deriver = SessionMemoryDeriver()
        for value in values:
            deriver.apply(value)
        memory = deriver.memory
        assert memory.event_count + memory.diagnostics.lines_skipped >= 0
        render_memory(memory)

    @settings(max_examples=300, deadline=None)
    @given(
        events=st.lists(
            st.fixed_dictionaries(
                {
                    "event_id": st.text(max_size=5),
                    "event_type": st.sampled_from(
                        ["message", "tool_lifecycle", "state_transition", "checkpoint", "terminal"]
                    ),
                    "run_id": st.none() | st.text(max_size=3),
                    "payload": st.dictionaries(
                        st.sampled_from(
                            [
                                "role",
                                "content",
                                "metadata",
                                "tool_name",
                                "tool_call_id",
                                "status",
                                "args",
                                "result",
                                "error",
                                "exit_code",
                                "reason",
                                "details",
                                "summary",
                                "checkpoint_id",
                            ]
                        ),
                        json_values,
                    ),
                }
            ),
            max_size=12,
        )
    )
    def test_handlers_accept_any_payload(self, events: list[dict[str, Any]]) -> None:
        """Known event types with payload fields of any type never make apply raise."""
        deriver = SessionMemoryDeriver(budget_tokens=400)
        deriver.apply_all(events)
        memory = deriver.memory
        # The handlers are total by themselves; the deriver's last-resort catch never fires.
        assert memory.diagnostics.malformed_payloads == 0
        memory.to_json()
        assert counter().count(render_memory(memory)) <= 400

    @settings(max_examples=200, deadline=None)
    @given(texts=st.lists(st.text(), min_size=1, max_size=6))
    def test_lone_surrogates_never_reach_the_output(self, texts: list[str]) -> None:
        """Text with lone surrogates (possible from Python callers) still serialises."""
        deriver = SessionMemoryDeriver()
        for i, text in enumerate(texts):
            deriver.apply(
                {
                    "event_id": text + str(i),
                    "event_type": "message",
                    "run_id": text,
                    "payload": {
                        "role": "user" if i % 2 else "assistant",
                        "content": text,
                        "metadata": {"decision": text},
                    },
                }
            )
        deriver.memory.to_json()
        render_memory(deriver.memory).encode("utf-8")

    @settings(max_examples=300, deadline=None)
    @given(data=st.binary(max_size=2000))
    def test_reader_accepts_any_bytes(self, data: bytes) -> None:
        """No byte string makes the reader or the deriver raise."""
        deriver = SessionMemoryDeriver.rebuild(read_records(io.BytesIO(data)))
        render_memory(deriver.memory)


class TestDeterminism:
    @PROPERTY_SETTINGS
    @given(events=event_dicts())
    def test_same_bytes_give_same_output_bytes(self, events: list[dict[str, Any]]) -> None:
        """Deriving the same transcript bytes twice gives byte-identical outputs."""
        data = as_jsonl(events)
        outputs = []
        for _ in range(2):
            memory = SessionMemoryDeriver.rebuild(read_records(io.BytesIO(data))).memory
            outputs.append((render_memory(memory), memory.to_json()))
        assert outputs[0] == outputs[1]


class TestIdempotence:
    @PROPERTY_SETTINGS
    @given(events=event_dicts(), data=st.data())
    def test_redelivered_events_are_applied_once(
        self, events: list[dict[str, Any]], data: st.DataObject
    ) -> None:
        """Delivering events again (same event id) changes nothing but the duplicate count."""
        if not events:
            return
        once = SessionMemoryDeriver.rebuild(events)
        doubled = list(events)
        for _ in range(data.draw(st.integers(1, 5))):
            index = data.draw(st.integers(0, len(doubled) - 1))
            doubled.insert(index + 1, dict(doubled[index]))
        twice = SessionMemoryDeriver.rebuild(doubled)
        expected, actual = dump(once.memory), dump(twice.memory)
        extra = twice.memory.diagnostics.duplicate_events - once.memory.diagnostics.duplicate_events
        assert extra == len(doubled) - len(events)
        for memory in (expected, actual):
            memory["diagnostics"].pop("duplicate_events")
        assert actual == expected
