"""Agents SDK input items as events: one test per item kind."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("agents")

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from deriver import SessionMemoryDeriver
from session_memory.core.events import Record, SkippedLine, TranscriptEvent
from session_memory.formats.openai_agents import OpenAIAgentsAdapter, item_facts
from viewbuilder import render_memory


def call(name: str, args: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    """A function call item as ``to_input_list()`` writes it."""
    item = ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name=name, arguments=json.dumps(args), id="fc"
    )
    dumped: dict[str, Any] = item.model_dump(exclude_unset=True)
    return dumped


def output(text: str, call_id: str = "c1") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def said(text: str) -> dict[str, Any]:
    """An assistant message item as ``to_input_list()`` writes it."""
    message = ResponseOutputMessage(
        type="message",
        id="m",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
    dumped: dict[str, Any] = message.model_dump(exclude_unset=True)
    return dumped


USER = {"role": "user", "content": "Fix the search"}


def feed(*items: dict[str, Any], finish: bool = False) -> list[Record]:
    adapter = OpenAIAgentsAdapter()
    out: list[Record] = []
    for index, item in enumerate(items):
        out.extend(adapter.feed(item, index))
    if finish:
        out.extend(adapter.finish())
    return out


def events(*items: dict[str, Any], finish: bool = False) -> list[TranscriptEvent]:
    records = feed(*items, finish=finish)
    assert all(isinstance(r, TranscriptEvent) for r in records), records
    return [r for r in records if isinstance(r, TranscriptEvent)]


class TestMessages:
    def test_a_user_message_is_the_goal(self) -> None:
        (event,) = events(USER)
        assert event.payload == {"role": "user", "content": "Fix the search"}

    def test_a_user_message_of_content_parts_keeps_its_text(self) -> None:
        item = {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Fix"},
                {"type": "input_image", "image_url": "data:"},
                {"type": "input_text", "text": "the search"},
            ],
        }
        (event,) = events(item)
        assert event.payload["content"] == "Fix\nthe search"

    @pytest.mark.parametrize("role", ["system", "developer"])
    def test_instructions_carry_nothing(self, role: str) -> None:
        assert events({"role": role, "content": "You code."}) == []

    def test_an_answer_followed_by_a_prompt_is_final(self) -> None:
        """An assistant message is final once the next item is not a call of its response."""
        records = events(said("Done."), USER)
        assert records[0].payload["metadata"] == {"action_type": "final"}
        assert records[1].payload["role"] == "user"

    def test_an_answer_followed_by_a_call_is_not_final(self) -> None:
        records = events(said("Let me check."), call("bash", {"command": "ls"}))
        assert records[0].payload == {"role": "assistant", "content": "Let me check."}

    def test_an_answer_waits_for_the_next_item(self) -> None:
        """Until an item follows it, an answer is held; the end of a whole read releases it."""
        assert events(said("Done.")) == []
        (event,) = events(said("Done."), finish=True)
        assert event.payload["metadata"] == {"action_type": "final"}

    def test_a_reasoning_item_does_not_release_the_answer(self) -> None:
        records = events(said("Checking."), {"type": "reasoning", "summary": []}, call("ls", {}))
        assert "metadata" not in records[0].payload


class TestToolCalls:
    def test_a_call_and_its_output(self) -> None:
        records = events(call("bash", {"command": "pytest -q"}), output("3 passed"))
        assert [r.payload["status"] for r in records] == ["requested", "started", "completed"]
        assert records[0].payload["args"] == {"command": "pytest -q"}
        assert records[2].payload == {
            "tool_name": "bash",
            "tool_call_id": "c1",
            "status": "completed",
            "outcome": {
                "status": "completed",
                "exit_code": None,
                "output": "3 passed",
                "error": "",
            },
        }

    @pytest.mark.parametrize(
        ("text", "status"),
        [
            ("An error occurred while running the tool. Please try again.", "errored"),
            ("Tool execution was not approved.", "rejected"),
            ("Tool 'bash' timed out after 5 seconds.", "failed"),
        ],
    )
    def test_the_sdks_failure_messages_say_the_call_failed(self, text: str, status: str) -> None:
        """A tool that raised, a call not approved, a tool that timed out: no success."""
        records = events(call("bash", {"command": "make"}), output(text))
        outcome = records[-1].payload["outcome"]
        assert outcome["status"] == status
        assert text in (outcome["output"], outcome["error"])

    def test_an_output_of_content_parts_is_its_text(self) -> None:
        parts = [{"type": "input_text", "text": "line one"}, {"type": "input_text", "text": "two"}]
        records = events(call("read", {"path": "a"}), output("", "c1") | {"output": parts})
        assert records[-1].payload["outcome"]["output"] == "line one\ntwo"

    def test_a_custom_tool_call(self) -> None:
        item = {"type": "custom_tool_call", "call_id": "k", "name": "grep", "input": "foo"}
        closed = {"type": "custom_tool_call_output", "call_id": "k", "output": "a.py:1"}
        records = events(item, closed)
        assert records[0].payload["args"] == {"input": "foo"}
        assert records[-1].payload["status"] == "completed"

    def test_a_shell_call_is_a_shell_command_with_its_exit_code(self) -> None:
        """The SDK's shell tool: its commands joined, the output's exit code kept."""
        item = {"type": "shell_call", "call_id": "s", "action": {"commands": ["cd app", "pytest"]}}
        closed = {
            "type": "shell_call_output",
            "call_id": "s",
            "output": [
                {"stdout": "1 failed", "stderr": "", "outcome": {"type": "exit", "exit_code": 1}}
            ],
        }
        records = events(item, closed)
        assert records[0].payload["tool_name"] == "shell"
        assert records[0].payload["args"] == {"command": "cd app && pytest"}
        outcome = records[-1].payload["outcome"]
        assert (outcome["output"], outcome["exit_code"]) == ("1 failed", 1)

    def test_a_shell_call_that_timed_out_failed(self) -> None:
        item = {"type": "shell_call", "call_id": "s", "action": {"commands": ["sleep 99"]}}
        closed = {
            "type": "shell_call_output",
            "call_id": "s",
            "output": [{"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}],
        }
        assert events(item, closed)[-1].payload["status"] == "failed"

    @pytest.mark.parametrize(
        ("status", "closed"), [("completed", "completed"), ("failed", "failed")]
    )
    def test_an_apply_patch_call_is_an_edit(self, status: str, closed: str) -> None:
        item = {
            "type": "apply_patch_call",
            "call_id": "p",
            "status": "completed",
            "operation": {"type": "update_file", "path": "src/a.py", "diff": "-a\n+b"},
        }
        out = {"type": "apply_patch_call_output", "call_id": "p", "status": status}
        records = events(item, out)
        assert records[0].payload["args"]["path"] == "src/a.py"
        assert records[-1].payload["status"] == closed


class TestBadInput:
    def test_an_item_of_unknown_type_is_a_counted_skip(self) -> None:
        (skip,) = feed({"type": "hologram", "call_id": "x"})
        assert isinstance(skip, SkippedLine)
        assert "hologram" in skip.reason

    @pytest.mark.parametrize(
        "item",
        [
            {"type": "function_call", "name": "bash"},
            {"type": "function_call_output", "output": "x"},
            {"role": "wizard", "content": "hi"},
        ],
    )
    def test_a_malformed_item_is_a_skip_never_an_error(self, item: dict[str, Any]) -> None:
        (skip,) = feed(item)
        assert isinstance(skip, SkippedLine)

    @pytest.mark.parametrize("kind", ["reasoning", "web_search_call", "item_reference"])
    def test_known_items_without_memory_pass_quietly(self, kind: str) -> None:
        assert feed({"type": kind, "id": "x"}) == []


def test_the_held_answer_survives_a_snapshot() -> None:
    """The adapter's state (open calls, a held answer) restores exactly."""
    adapter = OpenAIAgentsAdapter()
    adapter.feed(call("bash", {"command": "ls"}), 0)
    adapter.feed(said("Almost."), 1)
    restored = OpenAIAgentsAdapter.restore(adapter.snapshot())
    (event,) = restored.feed(USER, 2)[:1]
    assert isinstance(event, TranscriptEvent)
    assert event.payload["metadata"] == {"action_type": "final"}
    (closed,) = restored.feed(output("a.py", "c1"), 3)
    assert isinstance(closed, TranscriptEvent)
    assert closed.payload["tool_name"] == "bash"


def test_facts_link_calls_and_outputs() -> None:
    assert item_facts(call("bash", {})).issued == ("c1",)
    assert item_facts(output("x")).answered == ("c1",)
    assert item_facts({"role": "system", "content": "You code."}).system == ("You code.",)
    assert item_facts({"type": "reasoning", "summary": []}).joins_next


def test_a_run_becomes_a_memory() -> None:
    todos = {"todos": [{"content": "Fix the query", "status": "pending"}]}
    deriver = SessionMemoryDeriver(budget_tokens=400)
    deriver.apply_all(
        feed(
            USER,
            call("update_plan", {"plan": [{"step": "Fix the query", "status": "pending"}]}, "p"),
            output("ok", "p"),
            call("todo_write", todos, "t"),
            output("ok", "t"),
            call("bash", {"command": "pytest -q"}),
            output("1 failed, 2 passed in 0.1s"),
            said("The test still fails."),
            finish=True,
        )
    )
    text = render_memory(deriver.memory)
    assert "> Fix the search" in text
    assert "- [ ] Fix the query" in text
    assert "FAILED: `pytest -q` (1 failed, 2 passed)" in text
    assert "the agent's last message: “The test still fails.”" in text
