"""SessionMemoryCapability on a real pydantic-ai agent, its model a FunctionModel."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from benchmarks.frameworks import drivers
from benchmarks.frameworks.script import PROMPTS
from session_memory.apps.integrations.pydantic_ai import (
    SessionMemoryCapability,
    request_facts,
    request_tokens,
)
from session_memory.core.errors import BudgetError, ConfigError
from tests.integrations.checks import check_requests

CONTEXT = 4000
MEMORY = 800


@pytest.fixture(scope="module")
def run() -> tuple[drivers.Recording, SessionMemoryCapability]:
    """The scripted run (over 200 tool calls, four user turns) with the capability."""
    capability: SessionMemoryCapability = SessionMemoryCapability(
        context_tokens=CONTEXT, memory_tokens=MEMORY
    )
    return drivers.run_pydantic_ai([capability]), capability


class TestScriptedRun:
    def test_every_request_carries_the_facts_within_the_budget(
        self, run: tuple[drivers.Recording, SessionMemoryCapability]
    ) -> None:
        """Goal, open todos and last verdict at every call; within budget; pairs whole."""
        recording, _ = run
        check_requests(
            recording,
            request_facts,
            lambda call: request_tokens(call.messages, call.instructions),
            CONTEXT,
        )

    def test_each_message_is_folded_once(
        self, run: tuple[drivers.Recording, SessionMemoryCapability]
    ) -> None:
        """One conversation over four runs, folded incrementally, never from the start again."""
        recording, capability = run
        conversation = capability.conversation(recording.history[0].conversation_id)
        assert conversation.refolds == 0
        assert conversation.seen == len(recording.history) - 1  # all but the last answer
        text = conversation.memory()[0]
        assert f"> {PROMPTS[2]}" in text
        assert PROMPTS[0] in text  # the earlier goal


def answering(text: str) -> FunctionModel:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)])

    return FunctionModel(model)


def test_a_budget_too_small_fails_at_construction() -> None:
    with pytest.raises(ConfigError, match="min_recent_tokens"):
        SessionMemoryCapability(context_tokens=1000, memory_tokens=800)


def test_an_exchange_too_big_for_the_budget_is_a_budget_error() -> None:
    """A tool result that cannot fit beside the memory stops the run with a clear error."""
    calls = iter([ModelResponse(parts=[ToolCallPart("dump", {}, tool_call_id="d")])])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return next(calls)

    capability: SessionMemoryCapability = SessionMemoryCapability(
        context_tokens=1500, memory_tokens=400, min_recent_tokens=500
    )
    agent = Agent(FunctionModel(model), capabilities=[capability])

    @agent.tool_plain
    def dump() -> str:
        return "word " * 2000

    with pytest.raises(BudgetError, match="the latest 2 messages"):
        asyncio.run(agent.run("Dump everything"))


def test_conversations_are_kept_apart() -> None:
    """Two runs without a shared history are two conversations, each with its own memory."""
    capability: SessionMemoryCapability = SessionMemoryCapability(context_tokens=4000)
    agent = Agent(answering("Done."), capabilities=[capability])
    first = asyncio.run(agent.run("Rename the module"))
    second = asyncio.run(agent.run("Write the release notes"))
    memories = [
        capability.conversation(r.all_messages()[0].conversation_id).memory()[0]
        for r in (first, second)
    ]
    assert "Rename the module" in memories[0]
    assert "Rename the module" not in memories[1]
    assert "Write the release notes" in memories[1]


def test_something_that_is_not_a_message_is_a_counted_skip() -> None:
    capability: SessionMemoryCapability = SessionMemoryCapability(context_tokens=4000)
    conversation = capability.conversation("c")
    conversation.advance(["not a message", {"kind": "request"}])
    assert conversation.deriver.memory.diagnostics.lines_skipped == 2
