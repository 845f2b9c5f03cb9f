"""pydantic-ai messages as events: one test per message and part kind, on real messages."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai.messages import (
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from deriver import SessionMemoryDeriver
from session_memory.core.events import Record, SkippedLine, TranscriptEvent
from session_memory.formats.pydantic_ai import PydanticAIAdapter, message_facts
from viewbuilder import render_memory


def as_json(*messages: ModelMessage) -> list[dict[str, Any]]:
    dumped: list[dict[str, Any]] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return dumped


def feed(*messages: ModelMessage | dict[str, Any]) -> list[Record]:
    adapter = PydanticAIAdapter()
    out: list[Record] = []
    for index, message in enumerate(messages):
        data = message if isinstance(message, dict) else as_json(message)[0]
        out.extend(adapter.feed(data, index))
    return out


def events(*messages: ModelMessage | dict[str, Any]) -> list[TranscriptEvent]:
    records = feed(*messages)
    assert all(isinstance(r, TranscriptEvent) for r in records), records
    return [r for r in records if isinstance(r, TranscriptEvent)]


def phases(records: list[TranscriptEvent]) -> list[tuple[str, str]]:
    return [(r.event_type, str(r.payload.get("status") or r.payload.get("role"))) for r in records]


CALL = ModelResponse(parts=[ToolCallPart("bash", {"command": "pytest -q"}, tool_call_id="c1")])


def returned(content: object, outcome: str = "success") -> ModelRequest:
    part = ToolReturnPart("bash", content, tool_call_id="c1", outcome=outcome)  # type: ignore[arg-type]
    return ModelRequest(parts=[part])


class TestRequests:
    def test_a_user_prompt_is_the_goal(self) -> None:
        """A user-prompt part becomes a user message with its text."""
        (event,) = events(ModelRequest(parts=[UserPromptPart("Fix the search")]))
        assert event.event_type == "message"
        assert event.payload == {"role": "user", "content": "Fix the search"}

    def test_a_prompt_with_an_image_keeps_its_text(self) -> None:
        """Of a prompt given as a list, the strings are the text; an image is not."""
        prompt = UserPromptPart(
            ["Look at this", ImageUrl("https://example.com/a.png"), "and fix it"]
        )
        (event,) = events(ModelRequest(parts=[prompt]))
        assert event.payload["content"] == "Look at this\nand fix it"

    def test_the_system_prompt_carries_nothing(self) -> None:
        """A system prompt is no goal: only the user prompt beside it becomes an event."""
        request = ModelRequest(parts=[SystemPromptPart("You code."), UserPromptPart("Go")])
        (event,) = events(request)
        assert event.payload["content"] == "Go"

    def test_a_successful_return_completes_its_call(self) -> None:
        """A tool-return with outcome success is the call's completed event, its content the
        result, keyed like its call."""
        records = events(CALL, returned("3 passed in 0.1s"))
        assert phases(records) == [
            ("tool_lifecycle", "requested"),
            ("tool_lifecycle", "started"),
            ("tool_lifecycle", "completed"),
        ]
        assert records[0].payload["args"] == {"command": "pytest -q"}
        assert records[2].payload["outcome"]["output"] == "3 passed in 0.1s"
        assert records[2].payload["tool_name"] == "bash"

    @pytest.mark.parametrize("outcome", ["retried", "failed", "interrupted", "denied"])
    def test_a_return_that_is_not_a_success_fails_its_call(self, outcome: str) -> None:
        """A retry (ModelRetry), a failure, a denial or an interruption fails the call."""
        records = events(CALL, returned("x must be positive", outcome))
        assert records[-1].payload["status"] == "failed"
        assert "x must be positive" in records[-1].payload["outcome"]["error"]

    def test_an_object_result_says_its_output_and_exit_code(self) -> None:
        """A tool returning ``{stdout, exit_code}`` has its exit code on the outcome."""
        records = events(CALL, returned({"stdout": "1 failed, 2 passed", "exit_code": 1}))
        outcome = records[-1].payload["outcome"]
        assert (outcome["output"], outcome["exit_code"]) == ("1 failed, 2 passed", 1)

    def test_a_legacy_retry_prompt_naming_a_tool_fails_its_call(self) -> None:
        """A stored history's retry-prompt part for a tool is that call's failure."""
        legacy = {
            "kind": "request",
            "parts": [
                {
                    "part_kind": "retry-prompt",
                    "tool_name": "bash",
                    "tool_call_id": "c1",
                    "content": "bad arguments",
                }
            ],
        }
        records = events(CALL, legacy)
        assert records[-1].payload["status"] == "failed"
        assert records[-1].payload["outcome"]["error"] == "bad arguments"


class TestResponses:
    def test_text_without_a_call_is_the_final_answer(self) -> None:
        """A response of text only ends the run: a final assistant message."""
        (event,) = events(ModelResponse(parts=[TextPart("Done: search is fixed.")]))
        assert event.payload == {
            "role": "assistant",
            "content": "Done: search is fixed.",
            "metadata": {"action_type": "final"},
        }

    def test_text_beside_a_call_is_not_final(self) -> None:
        """Text in a response that also calls a tool is an ordinary assistant message."""
        response = ModelResponse(
            parts=[TextPart("Running the tests."), *CALL.parts],
        )
        records = events(response)
        assert records[0].payload == {"role": "assistant", "content": "Running the tests."}
        assert phases(records)[1:] == [
            ("tool_lifecycle", "requested"),
            ("tool_lifecycle", "started"),
        ]

    def test_arguments_sent_as_a_json_string_are_decoded(self) -> None:
        """Providers that send arguments as a JSON string give the same args object."""
        response = ModelResponse(
            parts=[ToolCallPart("bash", '{"command": "ls"}', tool_call_id="c")]
        )
        assert events(response)[0].payload["args"] == {"command": "ls"}

    def test_arguments_that_are_not_json_are_kept_raw(self) -> None:
        response = ModelResponse(parts=[ToolCallPart("bash", "ls -la", tool_call_id="c")])
        assert events(response)[0].payload["args"] == {"raw": "ls -la"}

    def test_thinking_carries_nothing(self) -> None:
        assert events(ModelResponse(parts=[ThinkingPart("hmm")])) == []


class TestBadInput:
    def test_a_part_of_unknown_kind_is_a_counted_skip(self) -> None:
        """An unknown part is skipped with its reason; the known parts beside it still count."""
        message = {
            "kind": "request",
            "parts": [
                {"part_kind": "telepathy", "content": "?"},
                {"part_kind": "user-prompt", "content": "Fix it"},
            ],
        }
        first, second = feed(message)
        assert isinstance(first, SkippedLine)
        assert first.offset == 0
        assert "telepathy" in first.reason
        assert isinstance(second, TranscriptEvent)

    @pytest.mark.parametrize(
        "message",
        [
            {"kind": "memo", "parts": []},
            {"kind": "request"},
            {"kind": "response", "parts": "text"},
            {"kind": "response", "parts": [{"part_kind": "tool-call"}]},
            {"kind": "request", "parts": [42]},
        ],
    )
    def test_a_malformed_message_is_a_skip_never_an_error(self, message: dict[str, Any]) -> None:
        records = feed(message)
        assert records
        assert all(isinstance(r, SkippedLine) for r in records)


class TestIds:
    def test_run_and_conversation_ids_come_from_the_messages(self) -> None:
        """The events' run is the message's run_id; the session is its conversation_id."""
        request = ModelRequest(parts=[UserPromptPart("Go")], run_id="run-1", conversation_id="conv")
        (event,) = events(request)
        assert (event.run_id, event.session_id) == ("run-1", "conv")

    def test_a_return_is_keyed_like_its_call(self) -> None:
        """A request whose run id is not filled in yet closes the call in the call's run."""
        call = ModelResponse(parts=CALL.parts, run_id="run-1")
        records = events(call, returned("ok"))
        assert {r.run_id for r in records} == {"run-1"}

    def test_the_same_messages_give_the_same_ids(self) -> None:
        first = [r.event_id for r in events(CALL, returned("ok"))]
        assert first == [r.event_id for r in events(CALL, returned("ok"))]
        assert len(set(first)) == len(first)


class TestFacts:
    def test_facts_name_the_system_prompt_and_the_calls(self) -> None:
        request = ModelRequest(parts=[SystemPromptPart("You code."), UserPromptPart("Go")])
        (data,) = as_json(request)
        assert message_facts(data).system == ("You code.",)
        assert message_facts(data).texts == ("Go",)
        (call,) = as_json(CALL)
        assert message_facts(call).issued == ("c1",)
        (back,) = as_json(returned("ok"))
        assert message_facts(back).answered == ("c1",)


def test_a_conversation_becomes_a_memory() -> None:
    """Goal, todos, a failing check and a retry reach the memory through the adapter."""
    todos = {"todos": [{"content": "Fix the query", "status": "in_progress"}]}
    conversation: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("You code."), UserPromptPart("Make search work")]),
        ModelResponse(parts=[ToolCallPart("todo_write", todos, tool_call_id="t")]),
        ModelRequest(parts=[ToolReturnPart("todo_write", "ok", tool_call_id="t")]),
        CALL,
        returned("F\n1 failed, 2 passed in 0.1s"),
        ModelResponse(parts=[ToolCallPart("edit", {"path": "a.py"}, tool_call_id="e")]),
        ModelRequest(
            parts=[ToolReturnPart("edit", "no such line", tool_call_id="e", outcome="retried")]
        ),
    ]
    deriver = SessionMemoryDeriver(budget_tokens=400)
    deriver.apply_all(feed(*conversation))
    text = render_memory(deriver.memory)
    assert "> Make search work" in text
    assert "- [~] Fix the query" in text
    assert "FAILED: `pytest -q` (1 failed, 2 passed)" in text
    assert "edit `a.py`: “no such line”" in text
