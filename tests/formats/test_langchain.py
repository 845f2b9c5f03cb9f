"""LangChain messages as events: one test per message type, on real messages."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

from deriver import SessionMemoryDeriver
from session_memory.core.events import Record, SkippedLine, TranscriptEvent
from session_memory.formats.langchain import LangChainAdapter, message_facts
from viewbuilder import render_memory


def as_json(message: BaseMessage) -> dict[str, Any]:
    dumped: dict[str, Any] = message.model_dump(mode="json")
    return dumped


def feed(*messages: BaseMessage | dict[str, Any]) -> list[Record]:
    adapter = LangChainAdapter()
    out: list[Record] = []
    for index, message in enumerate(messages):
        data = message if isinstance(message, dict) else as_json(message)
        out.extend(adapter.feed(data, index))
    return out


def events(*messages: BaseMessage | dict[str, Any]) -> list[TranscriptEvent]:
    records = feed(*messages)
    assert all(isinstance(r, TranscriptEvent) for r in records), records
    return [r for r in records if isinstance(r, TranscriptEvent)]


CALL = AIMessage(content="", tool_calls=[{"name": "bash", "args": {"command": "ls"}, "id": "c1"}])


class TestMessages:
    def test_a_human_message_is_the_goal(self) -> None:
        (event,) = events(HumanMessage("Fix the search"))
        assert event.payload == {"role": "user", "content": "Fix the search"}
        assert event.run_id == "lc-turn:0"

    def test_content_blocks_keep_their_text(self) -> None:
        message = HumanMessage(
            content=[
                {"type": "text", "text": "Fix"},
                {"type": "image_url", "image_url": {"url": "data:"}},
                "the search",
            ]
        )
        (event,) = events(message)
        assert event.payload["content"] == "Fix\nthe search"

    def test_the_summary_of_summarization_middleware_is_not_a_goal(self) -> None:
        summary = HumanMessage(
            content="Here is a summary of the conversation to date:\n\n...",
            additional_kwargs={"lc_source": "summarization"},
        )
        assert events(summary) == []

    def test_system_messages_and_removals_carry_nothing(self) -> None:
        assert events(SystemMessage("You code."), RemoveMessage(id="x")) == []

    def test_an_ai_message_without_calls_is_final(self) -> None:
        (event,) = events(AIMessage("Done."))
        assert event.payload["metadata"] == {"action_type": "final"}

    def test_a_chunk_counts_as_its_message(self) -> None:
        (event,) = events(AIMessageChunk(content="Done."))
        assert event.payload["role"] == "assistant"

    @pytest.mark.parametrize(("role", "mapped"), [("user", "user"), ("assistant", "assistant")])
    def test_a_chat_message_counts_by_its_role(self, role: str, mapped: str) -> None:
        (event,) = events(ChatMessage(content="hi there", role=role))
        assert event.payload["role"] == mapped

    def test_a_chat_message_of_another_role_carries_nothing(self) -> None:
        assert events(ChatMessage(content="beep", role="robot")) == []


class TestToolCalls:
    def test_calls_and_their_results(self) -> None:
        message = AIMessage(
            content="Two checks.",
            tool_calls=[
                {"name": "bash", "args": {"command": "ls"}, "id": "c1"},
                {"name": "bash", "args": {"command": "pytest"}, "id": "c2"},
            ],
        )
        records = events(
            message,
            ToolMessage("a.py", tool_call_id="c1"),
            ToolMessage("boom", tool_call_id="c2", status="error"),
        )
        assert records[0].payload == {"role": "assistant", "content": "Two checks."}
        statuses = [(r.payload.get("tool_call_id"), r.payload.get("status")) for r in records[1:]]
        assert statuses == [
            ("c1", "requested"),
            ("c1", "started"),
            ("c2", "requested"),
            ("c2", "started"),
            ("c1", "completed"),
            ("c2", "failed"),
        ]
        assert records[-1].payload["outcome"]["error"] == "boom"

    def test_a_result_is_keyed_like_its_call(self) -> None:
        records = events(
            HumanMessage("go"), CALL, HumanMessage("more"), ToolMessage("x", tool_call_id="c1")
        )
        call, result = records[2], records[-1]
        assert call.run_id == result.run_id == "lc-turn:0"


class TestBadInput:
    def test_a_message_of_unknown_type_is_a_counted_skip(self) -> None:
        (skip,) = feed({"type": "telegram", "content": "stop"})
        assert isinstance(skip, SkippedLine)
        assert "telegram" in skip.reason

    @pytest.mark.parametrize(
        "message",
        [
            {"type": "tool", "content": "no call id"},
            {"type": "ai", "content": "", "tool_calls": [{"args": {}}]},
        ],
    )
    def test_a_malformed_message_is_a_skip_never_an_error(self, message: dict[str, Any]) -> None:
        assert any(isinstance(r, SkippedLine) for r in feed(message))


def test_facts_link_calls_and_results() -> None:
    assert message_facts(as_json(CALL)).issued == ("c1",)
    assert message_facts(as_json(ToolMessage("x", tool_call_id="c1"))).answered == ("c1",)
    assert message_facts(as_json(SystemMessage("You code."))).system == ("You code.",)


def test_a_conversation_becomes_a_memory() -> None:
    todos = {"todos": [{"content": "Fix the query", "status": "in_progress"}]}
    deriver = SessionMemoryDeriver(budget_tokens=400)
    deriver.apply_all(
        feed(
            SystemMessage("You code."),
            HumanMessage("Make search case-insensitive"),
            AIMessage(content="", tool_calls=[{"name": "write_todos", "args": todos, "id": "t"}]),
            ToolMessage("ok", tool_call_id="t"),
            AIMessage(
                content="",
                tool_calls=[{"name": "bash", "args": {"command": "pytest -q"}, "id": "p"}],
            ),
            ToolMessage("3 passed in 0.2s", tool_call_id="p"),
            AIMessage("Fixed."),
        )
    )
    text = render_memory(deriver.memory)
    assert "> Make search case-insensitive" in text
    assert "- [~] Fix the query" in text
    assert "passed: `pytest -q` (3 passed)" in text
    assert "the agent's last message: “Fixed.”" in text
